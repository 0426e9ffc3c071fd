/* The drawing of Tiles: draw(root, board) draws one frame of draw.py into the SVG element root,
   with the helpers of kit (arena/kit/kit.js). Every element carries data-* attributes saying what it
   shows, so tests read the board back. */
var svg = kit.svg, label = kit.label, SEAT = kit.SEAT, seatName = kit.seatName;
var TILE = { g: "#f2c200", b: "#1f5fbf" };

function tileRow(parent, x, y, s, counts, length, attrs) {
  var text = "g".repeat(counts[0]) + "b".repeat(counts[1]);
  var g = svg("g", attrs, parent);
  g.setAttribute("data-tiles", text);
  for (var i = 0; i < length; i++) {
    var ch = text.charAt(i);
    svg("rect", { x: x + i * s, y: y, width: s - 3, height: s - 3, rx: 3, fill: ch ? TILE[ch] : kit.EMPTY,
      stroke: ch ? "none" : "#c5c9d0" }, g);
  }
  return g;
}

function draw(root, b) {
  var width = 640, y = 22, s = 16;
  label(root, 4, y, "pot (" + b.pot.length + " left)", 14, "start");
  var pot = svg("g", { "data-pot": b.pot }, root);
  var perLine = 36;
  for (var i = 0; i < b.pot.length; i++) {
    svg("rect", { x: 130 + (i % perLine) * (s - 2), y: y - 7 + Math.floor(i / perLine) * (s - 2), width: s - 5,
      height: s - 5, rx: 2, fill: TILE[b.pot.charAt(i)] }, pot);
  }
  y += Math.max(1, Math.ceil(b.pot.length / perLine)) * (s - 2) + 20;
  var ts = 22, pw = Math.max(b.plate_size * ts + 24, 70);
  b.plates.forEach(function (plate, p) {
    var px = 8 + p * (pw + 12);
    svg("rect", { x: px, y: y, width: pw, height: ts + 34, rx: 14, fill: "#fafafa", stroke: "#9aa0a8" }, root);
    label(root, px + pw / 2, y + 12, "plate " + p, 12);
    tileRow(root, px + 12, y + 24, ts, plate, b.plate_size, { "data-plate": p });
  });
  y += ts + 56;
  var cs = Math.min(30, Math.floor((width / 2 - 60) / b.row_len));
  b.boards.forEach(function (board, seat) {
    var bx = 8 + seat * (width / 2);
    var full = board.filter(function (row) { return row[0] + row[1] === b.row_len; }).length;
    var title = label(root, bx, y, "seat " + seat + " " + seatName(seat) + ": " + full + " full" +
      (b.mover === seat ? "  \u25c0 to move" : ""), 14, "start");
    title.setAttribute("fill", SEAT[seat]);
    title.setAttribute("font-weight", "bold");
    board.forEach(function (row, j) {
      var ry = y + 16 + j * cs;
      label(root, bx + 8, ry + cs / 2 - 1, j, 12);
      tileRow(root, bx + 22, ry, cs, row, b.row_len, { "data-row": seat + ":" + j });
      if (row[0] + row[1] === b.row_len) { label(root, bx + 28 + b.row_len * cs, ry + cs / 2 - 1, "\u2713", 16); }
    });
  });
  var rows = b.boards[0].length;
  root.setAttribute("viewBox", "0 0 " + width + " " + (y + 26 + rows * cs));
}
