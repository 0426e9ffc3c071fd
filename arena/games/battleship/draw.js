/* The drawing of Battleship: draw(root, board) draws one frame of draw.py into the SVG element root, with
   the helpers of kit (arena/kit/kit.js). Two waters side by side, each seat's own with its ships and the other's
   shots at it. Cells carry data-cell ("seat:row,col") and data-state (water, ship, miss, hit, sunk); ships
   data-ship; the last shot data-last. */
var svg = kit.svg, label = kit.label, SEAT = kit.SEAT;
var STATES = { ".": "water", "S": "ship", "o": "miss", "x": "hit", "#": "sunk", "?": "fired" };
var FILL = { water: "#dbe9f6", ship: "#9aa3ad", miss: "#dbe9f6", hit: "#f2b8b5", sunk: "#5b6068", fired: "#f4e3a1" };

function waters(root, b, seat, x0, y0, s) {
  var n = b.size;
  var head = label(root, x0 + n * s / 2, y0 - 30, kit.seatName(seat) + "'s waters", 14);
  head.setAttribute("fill", SEAT[seat]);
  for (var c = 0; c < n; c++) { label(root, x0 + c * s + s / 2, y0 - 10, c + 1, 10); }
  for (var r = 0; r < n; r++) {
    label(root, x0 - 10, y0 + r * s + s / 2, String.fromCharCode(65 + r), 10);
    for (var c2 = 0; c2 < n; c2++) {
      var mark = b.grids[seat][r].charAt(c2), state = STATES[mark] || "water";
      svg("rect", { x: x0 + c2 * s, y: y0 + r * s, width: s - 1, height: s - 1, fill: FILL[state],
        "data-cell": seat + ":" + r + "," + c2, "data-state": state }, root);
    }
  }
  b.ships[seat].forEach(function (ship, i) {
    var len = ship[3], across = ship[2] === "h";
    svg("rect", { x: x0 + ship[1] * s + 2, y: y0 + ship[0] * s + 2, rx: s / 3,
      width: (across ? len : 1) * s - 5, height: (across ? 1 : len) * s - 5, fill: "none",
      stroke: SEAT[seat], "stroke-width": 2, "data-ship": seat + ":" + i + ":" + ship.slice(0, 4).join(",") }, root);
  });
  for (var r2 = 0; r2 < n; r2++) {
    for (var c3 = 0; c3 < n; c3++) {
      var m = b.grids[seat][r2].charAt(c3), cx = x0 + c3 * s + s / 2 - 0.5, cy = y0 + r2 * s + s / 2 - 0.5;
      if (m === "o") { svg("circle", { cx: cx, cy: cy, r: s / 8, fill: "#3b6ea5" }, root); }
      if (m === "x" || m === "#") {
        var d = s / 4, col = m === "x" ? "#c0392b" : "#fff";
        svg("path", { d: "M" + (cx - d) + " " + (cy - d) + "L" + (cx + d) + " " + (cy + d) + "M" + (cx + d) + " " +
          (cy - d) + "L" + (cx - d) + " " + (cy + d), stroke: col, "stroke-width": 2.5 }, root);
      }
    }
  }
}

function draw(root, b) {
  var s = kit.cellSize(b.size, 320, 10, 32), m = 44, gap = 40, width = b.size * s;
  root.setAttribute("viewBox", "0 0 " + (2 * m + 2 * width + gap) + " " + (m + width + 40));
  [0, 1].forEach(function (seat) { waters(root, b, seat, m + seat * (width + gap), m, s); });
  if (b.last) {
    var x = m + (1 - b.last[0]) * (width + gap) + b.last[2] * s, y = m + b.last[1] * s;
    svg("rect", { x: x - 1.5, y: y - 1.5, width: s + 2, height: s + 2, fill: "none", stroke: SEAT[b.last[0]],
      "stroke-width": 3, "data-last": b.last.join(",") }, root);
  }
  var text = b.winner !== null ? kit.seatName(b.winner) + " sank the whole fleet"
    : (b.placed ? "" : "placing the fleets");
  if (text) { label(root, m + width + gap / 2, m + width + 24, text, 14); }
}
