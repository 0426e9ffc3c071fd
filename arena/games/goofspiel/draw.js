/* The drawing of Goofspiel: draw(root, board) draws one frame of draw.py into the SVG element root, with
   the helpers of kit (arena/kit/kit.js). Cards carry data-card, data-hand, data-bid, data-prize and (the whole truth only) data-deck. */
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
  // The whole truth holds the prize deck's order; a player's view does not (deck null).
  var left = b.cards - b.bids.length - (b.prize !== null ? 1 : 0);
  if (b.deck !== null) {
    label(root, 140, y - 6, "prizes to come, in order:", 12, "start");
    b.deck.forEach(function (value, i) {
      card(root, 140 + i * 24, y + 6, 20, value, "#999", { "data-deck": i + ":" + value });
    });
  } else {
    label(root, 140, y + 10, left + " prizes to come, order hidden", 12, "start").setAttribute("data-deck-hidden", left);
  }
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
  var deckWidth = 160 + (b.deck !== null ? b.deck.length * 24 : 160);
  root.setAttribute("viewBox", "0 0 " + Math.max(width, deckWidth, 80 + b.bids.length * 44) + " " + (y + 40));
}
