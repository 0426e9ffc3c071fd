/* The drawing of Blocking: draw(root, board) draws one frame of draw.py into the SVG element root,
   with the helpers of kit (arena/kit/kit.js). Every element carries data-* attributes saying what it
   shows, so tests read the board back. */
var svg = kit.svg, label = kit.label, SEAT = kit.SEAT;

function draw(root, b) {
  var s = kit.cellSize(Math.max(b.rows, b.cols), 600, 10, 48);
  var m = 24;
  root.setAttribute("viewBox", "0 0 " + (m + b.cols * s + 4) + " " + (m + b.rows * s + 4));
  var every = Math.max(b.rows, b.cols) > 20 ? 5 : 1;
  for (var c = 0; c < b.cols; c += every) { label(root, m + c * s + s / 2, m / 2, c, 11); }
  for (var r0 = 0; r0 < b.rows; r0 += every) { label(root, m / 2, m + r0 * s + s / 2, r0, 11); }
  for (var r = 0; r < b.rows; r++) {
    for (var c2 = 0; c2 < b.cols; c2++) {
      var ch = b.grid.charAt(r * b.cols + c2);
      var key = r + "," + c2;
      var pick = ch !== "-" && ch !== "X" ? Number(ch) : null;
      var rect = svg("rect", { x: m + c2 * s, y: m + r * s, width: s - 1, height: s - 1,
        fill: pick !== null ? SEAT[pick] : (ch === "-" ? kit.EMPTY : kit.BLOCKED), "data-cell": key,
        "data-state": ch === "-" ? "free" : "blocked" }, root);
      if (pick !== null) {
        rect.setAttribute("data-pick", pick);
        svg("circle", { cx: m + c2 * s + s / 2 - 0.5, cy: m + r * s + s / 2 - 0.5, r: s / 5, fill: "#fff" }, root);
      }
    }
  }
  if (b.last) {
    svg("rect", { x: m + b.last[1] * s - 1.5, y: m + b.last[0] * s - 1.5, width: s + 2, height: s + 2,
      fill: "none", stroke: "#000", "stroke-width": 3, "data-last": b.last.join(",") }, root);
  }
}
