/* The drawing of Goofspiel: draw(root, board) draws one frame of draw.py into the SVG element root, with
   the helpers of kit (arena/kit/kit.js). Cards carry data-card, data-hand, data-bid and data-prize. */
var svg = kit.svg, label = kit.label, SEAT = kit.SEAT, seatName = kit.seatName;

function card(parent, x, y, w, value, colour, attrs) {
  var g = svg("g", attrs, parent);
  svg("rect", { x: x, y: y, width: w, height: w * 1.4, rx: 5, fill: "#fff", stroke: colour, "stroke-width": 2 }, g);
  label(g, x + w / 2, y + w * 0.7, value, Math.round(w * 0.5));
  return g;
}

function draw(root, b) {
  var w = 34, gap = 6, width = 40 + b.cards * (w + gap), y = 20;
  label(root, 10, y, "prize", 14, "start");
  if (b.prize !== null) {
    card(root, 70, y - 12, w * 1.3, b.prize, "#b8860b", { "data-prize": b.prize });
  }
  if (b.deck !== null) { label(root, 140, y + 10, b.deck.length + " prizes to come", 12, "start"); }
  y += 80;
  [0, 1].forEach(function (seat) {
    var t = label(root, 10, y, seatName(seat) + ": " + b.points[seat] + " points", 14, "start");
    t.setAttribute("fill", SEAT[seat]);
    t.setAttribute("data-points", seat + ":" + b.points[seat]);
    b.hands[seat].forEach(function (value, i) {
      card(root, 10 + i * (w + gap), y + 12, w, value, SEAT[seat], { "data-hand": seat, "data-card": value });
    });
    y += 80;
  });
  label(root, 10, y, "bids", 14, "start");
  b.bids.forEach(function (pair, r) {
    var x = 60 + r * 44;
    pair.forEach(function (bid, seat) {
      var g = svg("g", { "data-bid": r + ":" + seat + ":" + bid }, root);
      label(g, x, y + seat * 18, bid, 13).setAttribute("fill", SEAT[seat]);
    });
  });
  root.setAttribute("viewBox", "0 0 " + Math.max(width, 80 + b.bids.length * 44) + " " + (y + 40));
}
