/* The kit of a game's draw.js (arena/kit/drawing.py): SVG helpers and the seats' colours.
   A draw.js runs as function (kit) { ...; return draw; } and defines draw(root, board). */
var kit = (function () {
  "use strict";
  var data = JSON.parse(document.getElementById("arena-data").textContent);
  var SVGNS = "http://www.w3.org/2000/svg";
  var errors = [];
  // A draw.js that does not even parse is reported, not a blank page (see the player's fallback).
  window.addEventListener("error", function (e) { errors.push(e.message || String(e)); });

  function svg(tag, attrs, parent, text) {
    var node = document.createElementNS(SVGNS, tag);
    for (var key in attrs) { node.setAttribute(key, attrs[key]); }
    if (text !== undefined) { node.textContent = text; }
    if (parent) { parent.appendChild(node); }
    return node;
  }

  function html(tag, attrs, parent, text) {
    var node = document.createElement(tag);
    for (var key in attrs) { node.setAttribute(key, attrs[key]); }
    if (text !== undefined) { node.textContent = text; }
    if (parent) { parent.appendChild(node); }
    return node;
  }

  function label(parent, x, y, text, size, anchor) {
    return svg("text", { x: x, y: y, "font-size": size, "text-anchor": anchor || "middle",
      "dominant-baseline": "central", fill: "#333" }, parent, text);
  }

  /* Text on a board-like panel: the picture of a game without a drawing of its own. */
  function drawText(root, text) {
    var lines = String(text).split("\n");
    var width = Math.max(20, Math.max.apply(null, lines.map(function (l) { return l.length; })));
    var w = 16 + width * 8.2, h = 16 + lines.length * 17;
    root.setAttribute("viewBox", "0 0 " + w + " " + h);
    svg("rect", { x: 0, y: 0, width: w, height: h, rx: 8, fill: "#f4f1e8", stroke: "#b9b29c",
      "data-text-board": "1" }, root);
    lines.forEach(function (line, i) {
      svg("text", { x: 8, y: 20 + i * 17, "font-family": "DejaVu Sans Mono, monospace", "font-size": 14,
        "xml:space": "preserve", fill: "#222" }, root, line);
    });
  }

  return {
    data: data, names: data.names, errors: errors, svg: svg, html: html, label: label, drawText: drawText,
    SEAT: ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e"],
    SEAT_LIGHT: ["#f6c1c1", "#bcd7f0", "#c2e8c2", "#ffd9b0"],
    EMPTY: "#eef0f3", BLOCKED: "#5b6068",
    seatName: function (seat) { return data.names[seat] !== undefined ? data.names[seat] : "seat " + seat; },
    cellSize: function (count, room, lo, hi) { return Math.max(lo, Math.min(hi, Math.floor(room / count))); }
  };
})();
