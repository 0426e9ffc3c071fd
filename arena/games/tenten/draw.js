/* The drawing of 1010!: draw(root, board) draws one frame of draw.py into the SVG element root,
   with the helpers of kit (arena/kit/kit.js). Every element carries data-* attributes saying what it
   shows, so tests read the board back. */
var svg = kit.svg, label = kit.label;

function draw(root, b) {
  var s = kit.cellSize(b.size, 480, 14, 48);
  var m = 26, side = m + b.size * s;
  var filled = {}, dropped = {};
  b.filled.forEach(function (c) { filled[c[0] + "," + c[1]] = true; });
  b.dropped.forEach(function (c) { dropped[c[0] + "," + c[1]] = true; });
  for (var k = 1; k <= b.size; k++) { label(root, m + (k - 1) * s + s / 2, side + 12, k, 12); }
  for (var r = 1; r <= b.size; r++) {
    label(root, m / 2, m + (b.size - r) * s + s / 2, r, 12);
    for (var k2 = 1; k2 <= b.size; k2++) {
      var key = k2 + "," + r;
      svg("rect", { x: m + (k2 - 1) * s, y: m + (b.size - r) * s, width: s - 2, height: s - 2, rx: 3,
        fill: filled[key] ? (dropped[key] ? "#f28e2b" : "#4a6fa5") : kit.EMPTY, "data-cell": key,
        "data-state": filled[key] ? "filled" : "empty" }, root);
    }
  }
  label(root, m, 12, "round " + b.round + ", " + b.drops + " drops, score " + b.points +
    (b.left === null ? "" : ", " + b.left + " blocks to come"), 13, "start");
  var ox = side + 24, oy = m, os = Math.max(12, Math.min(22, Math.floor(s * 0.55)));
  label(root, ox, oy - 10, b.offer.length ? "offer" : "offer: none", 13, "start");
  b.offer.forEach(function (block, i) {
    var w = 1, h = 1;
    block.forEach(function (d) { w = Math.max(w, d[0] + 1); h = Math.max(h, d[1] + 1); });
    var g = svg("g", { "data-offer": i, "data-dots": JSON.stringify(block) }, root);
    label(g, ox + 6, oy + 10, i, 13);
    block.forEach(function (d) {
      svg("rect", { x: ox + 18 + d[0] * os, y: oy + (h - 1 - d[1]) * os, width: os - 2, height: os - 2, rx: 2,
        fill: "#7b3fa0" }, g);
    });
    oy += h * os + 16;
  });
  root.setAttribute("viewBox", "0 0 " + (ox + 6 * os + 30) + " " + Math.max(side + 24, oy));
}
