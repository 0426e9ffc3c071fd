/* The drawing of Arrows: draw(root, board) draws one frame of draw.py into the SVG element root,
   with the helpers of kit (arena/kit/kit.js). Every element carries data-* attributes saying what it
   shows, so tests read the board back. */
var svg = kit.svg, label = kit.label, SEAT = kit.SEAT, SEAT_LIGHT = kit.SEAT_LIGHT;

function arrowGlyph(parent, cx, cy, s, dir, colour) {
  var g = svg("g", { transform: "translate(" + cx + "," + cy + ") rotate(" + dir * 45 + ")" }, parent);
  var k = s * 0.32;
  svg("line", { x1: 0, y1: k, x2: 0, y2: -k * 0.4, stroke: colour, "stroke-width": Math.max(2, s / 9),
    "stroke-linecap": "round" }, g);
  svg("polygon", { points: [-k * 0.6, -k * 0.25, 0, -k * 1.05, k * 0.6, -k * 0.25].join(","), fill: colour }, g);
}

function draw(root, b) {
  var s = kit.cellSize(Math.max(b.rows, b.cols), 600, 14, 56);
  var m = 26;
  root.setAttribute("viewBox", "0 0 " + (m + b.cols * s + 4) + " " + (m + b.rows * s + 4));
  var glyph = {};
  b.blocked.forEach(function (cell) { glyph[cell[0] + "," + cell[1]] = "#"; });
  b.chains.forEach(function (chain, seat) {
    chain.forEach(function (p, i) {
      glyph[p[0] + "," + p[1]] = i === chain.length - 1 ? "AB".charAt(seat) : "ab".charAt(seat);
    });
  });
  for (var x = 1; x <= b.cols; x++) { label(root, m + (x - 1) * s + s / 2, m / 2, x, 12); }
  for (var y = 1; y <= b.rows; y++) {
    label(root, m / 2, m + (y - 1) * s + s / 2, y, 12);
    for (var x2 = 1; x2 <= b.cols; x2++) {
      var key = x2 + "," + y;
      var gl = glyph[key] || ".";
      var fill = gl === "#" ? kit.BLOCKED : gl === "." ? kit.EMPTY : gl === "A" ? SEAT[0] : gl === "B" ? SEAT[1]
        : gl === "a" ? SEAT_LIGHT[0] : SEAT_LIGHT[1];
      svg("rect", { x: m + (x2 - 1) * s, y: m + (y - 1) * s, width: s - 2, height: s - 2, rx: 3,
        fill: fill, "data-cell": key, "data-glyph": gl }, root);
      if (gl === "#") {
        svg("path", { d: "M" + (m + (x2 - 1) * s + 3) + " " + (m + y * s - 5) + "L" + (m + x2 * s - 5) + " " +
          (m + (y - 1) * s + 3), stroke: "#9aa0a8", "stroke-width": 2 }, root);
      }
    }
  }
  b.chains.forEach(function (chain, seat) {
    if (chain.length > 1) {
      svg("polyline", { points: chain.map(function (p) {
        return (m + (p[0] - 1) * s + s / 2 - 1) + "," + (m + (p[1] - 1) * s + s / 2 - 1);
      }).join(" "), fill: "none", stroke: SEAT[seat], "stroke-width": 2, "stroke-opacity": 0.45 }, root);
    }
    chain.forEach(function (p, i) {
      var head = i === chain.length - 1;
      arrowGlyph(root, m + (p[0] - 1) * s + s / 2 - 1, m + (p[1] - 1) * s + s / 2 - 1, s, p[2],
        head ? "#fff" : SEAT[seat]);
    });
  });
  b.targets.forEach(function (t, seat) {
    if (t) {
      svg("rect", { x: m + (t[0] - 1) * s + 2, y: m + (t[1] - 1) * s + 2, width: s - 6, height: s - 6, rx: 3,
        fill: "none", stroke: SEAT[seat], "stroke-width": 2.5, "stroke-dasharray": "5,3",
        "data-target": seat }, root);
    }
  });
}
