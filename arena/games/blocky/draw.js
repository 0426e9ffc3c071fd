/* The drawing of Blocky: draw(root, board) draws one frame of draw.py into the SVG element root,
   with the helpers of kit (arena/kit/kit.js). Every element carries data-* attributes saying what it
   shows, so tests read the board back. */
var svg = kit.svg, label = kit.label, SEAT = kit.SEAT, seatName = kit.seatName;
// The course's four colours first, then well-separated hues.
var BLOCKY = ["#ffd35c", "#0180b5", "#c72c3a", "#8a9747", "#7b3fa0", "#f28e2b", "#17becf",
  "#e377c2", "#8c564b", "#bcbd22", "#393b79", "#637939"];

function blockyColour(c) {
  if (c < BLOCKY.length) { return BLOCKY[c]; }
  return "hsl(" + ((c * 137) % 360) + ",65%,50%)";
}



function draw(root, b) {
  var units = 1 << b.depth, size = 512, u = size / units, m = 8;
  b.leaves.forEach(function (leaf) {
    svg("rect", { x: m + leaf[0] * u, y: m + leaf[1] * u, width: leaf[2] * u, height: leaf[2] * u,
      fill: blockyColour(leaf[3]), stroke: "#1b1b1b", "stroke-width": 1.5, "data-leaf": leaf.join(",") }, root);
  });
  if (b.last) {
    var lx = m + b.last[0] * u, ly = m + b.last[1] * u, ls = b.last[2] * u;
    svg("rect", { x: lx + 2, y: ly + 2, width: ls - 4, height: ls - 4, fill: "none", stroke: "#fff",
      "stroke-width": 5 }, root);
    svg("rect", { x: lx + 2, y: ly + 2, width: ls - 4, height: ls - 4, fill: "none", stroke: "#000",
      "stroke-width": 2.5, "stroke-dasharray": "8,5", "data-last": b.last.join(",") }, root);
  }
  var y = m + size + 26;
  b.goals.forEach(function (goal, seat) {
    svg("rect", { x: m, y: y - 9, width: 18, height: 18, fill: blockyColour(goal.colour), stroke: "#1b1b1b" }, root);
    var t = label(root, m + 26, y, "seat " + seat + " " + seatName(seat) + ": " + goal.kind + " of colour " +
      goal.colour + ": " + b.goal_scores[seat] + " \u2212 penalty " + b.penalties[seat] + " = " +
      (b.goal_scores[seat] - b.penalties[seat]), 14, "start");
    t.setAttribute("fill", SEAT[seat]);
    y += 26;
  });
  root.setAttribute("viewBox", "0 0 " + (size + 2 * m) + " " + (y - 8));
}
