/* Arena match viewer: draws the frames that Python computed (arena/viewer/frames.py).
   No rules live here, only pictures; every board element carries data-* attributes
   that state what it shows, so tests can read the board back. */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("arena-data").textContent);
  var frames = data.frames;
  var SVGNS = "http://www.w3.org/2000/svg";
  var SEAT = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e"];
  var SEAT_LIGHT = ["#f6c1c1", "#bcd7f0", "#c2e8c2", "#ffd9b0"];
  var TILE = { g: "#f2c200", b: "#1f5fbf" };
  var EMPTY = "#eef0f3";
  var BLOCKED = "#5b6068";
  // Blocky: the course's four colours first, then well-separated hues.
  var BLOCKY = ["#ffd35c", "#0180b5", "#c72c3a", "#8a9747", "#7b3fa0", "#f28e2b", "#17becf",
    "#e377c2", "#8c564b", "#bcbd22", "#393b79", "#637939"];
  var ply = 0;
  var timer = null;

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

  function blockyColour(c) {
    if (c < BLOCKY.length) { return BLOCKY[c]; }
    return "hsl(" + ((c * 137) % 360) + ",65%,50%)";
  }

  function seatName(seat) {
    return data.names[seat] !== undefined ? data.names[seat] : "seat " + seat;
  }

  function cellSize(count, room, lo, hi) {
    return Math.max(lo, Math.min(hi, Math.floor(room / count)));
  }

  function label(parent, x, y, text, size, anchor) {
    return svg("text", { x: x, y: y, "font-size": size, "text-anchor": anchor || "middle",
      "dominant-baseline": "central", fill: "#333" }, parent, text);
  }

  /* --- blocking -------------------------------------------------------------------- */
  function drawBlocking(root, b) {
    var s = cellSize(Math.max(b.rows, b.cols), 600, 10, 48);
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
          fill: pick !== null ? SEAT[pick] : (ch === "-" ? EMPTY : BLOCKED), "data-cell": key,
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

  /* --- arrows ---------------------------------------------------------------------- */
  function arrowGlyph(parent, cx, cy, s, dir, colour) {
    var g = svg("g", { transform: "translate(" + cx + "," + cy + ") rotate(" + dir * 45 + ")" }, parent);
    var k = s * 0.32;
    svg("line", { x1: 0, y1: k, x2: 0, y2: -k * 0.4, stroke: colour, "stroke-width": Math.max(2, s / 9),
      "stroke-linecap": "round" }, g);
    svg("polygon", { points: [-k * 0.6, -k * 0.25, 0, -k * 1.05, k * 0.6, -k * 0.25].join(","), fill: colour }, g);
  }

  function drawArrows(root, b) {
    var s = cellSize(Math.max(b.rows, b.cols), 600, 14, 56);
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
        var fill = gl === "#" ? BLOCKED : gl === "." ? EMPTY : gl === "A" ? SEAT[0] : gl === "B" ? SEAT[1]
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

  /* --- tiles ----------------------------------------------------------------------- */
  function tileRow(parent, x, y, s, counts, length, attrs) {
    var text = "g".repeat(counts[0]) + "b".repeat(counts[1]);
    var g = svg("g", attrs, parent);
    g.setAttribute("data-tiles", text);
    for (var i = 0; i < length; i++) {
      var ch = text.charAt(i);
      svg("rect", { x: x + i * s, y: y, width: s - 3, height: s - 3, rx: 3, fill: ch ? TILE[ch] : EMPTY,
        stroke: ch ? "none" : "#c5c9d0" }, g);
    }
    return g;
  }

  function drawTiles(root, b) {
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

  /* --- tenten ---------------------------------------------------------------------- */
  function drawTenten(root, b) {
    var s = cellSize(b.size, 480, 14, 48);
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
          fill: filled[key] ? (dropped[key] ? "#f28e2b" : "#4a6fa5") : EMPTY, "data-cell": key,
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

  /* --- blocky ---------------------------------------------------------------------- */
  function drawBlocky(root, b) {
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

  function drawText(root, b) {
    root.setAttribute("viewBox", "0 0 600 400");
    b.text.split("\n").forEach(function (line, i) {
      svg("text", { x: 4, y: 16 + i * 16, "font-family": "monospace", "font-size": 13 }, root, line);
    });
  }

  var DRAW = { blocking: drawBlocking, arrows: drawArrows, tiles: drawTiles, tenten: drawTenten,
    blocky: drawBlocky };

  /* --- the player ------------------------------------------------------------------ */
  var board = document.getElementById("board");
  var slider = document.getElementById("slider");
  var list = document.getElementById("moves");
  slider.max = frames.length - 1;

  function fmtMs(ms) {
    if (ms === undefined || ms === null) { return "\u2013"; }
    return ms >= 10000 ? (ms / 1000).toFixed(1) + " s" : ms >= 1000 ? (ms / 1000).toFixed(2) + " s" : ms.toFixed(1) + " ms";
  }

  function moveLine(f) {
    return f.ply === 0 ? "start" : f.ply + ". " + seatName(f.seat) + ": " + f.move;
  }

  frames.forEach(function (f, i) {
    var li = html("li", { "data-ply": i }, list);
    if (f.ply > 0) { html("span", { class: "dot", style: "background:" + SEAT[f.seat] }, li); }
    html("span", { class: "move" }, li, moveLine(f));
    if (f.ply > 0) { html("span", { class: "time" }, li, fmtMs(f.time_ms)); }
    li.addEventListener("click", function () { stop(); show(i); });
  });

  function drawClocks(f) {
    var body = document.getElementById("clocks");
    body.textContent = "";
    var budget = data.clock.budget_ms || 1;
    data.names.forEach(function (name, seat) {
      var tr = html("tr", { "data-seat": seat, class: f.to_move === seat ? "to-move" : "" }, body);
      var td = html("td", {}, tr);
      html("span", { class: "dot", style: "background:" + SEAT[seat] }, td);
      html("span", { class: "name", title: name }, td, seat + " " + name);
      var left = f.clocks[seat];
      var bar = html("td", { class: "bar" }, tr);
      html("span", { style: "width:" + Math.max(0, Math.min(100, 100 * left / budget)).toFixed(1) + "%;background:" +
        SEAT[seat] }, bar);
      html("td", { class: "num" }, tr, fmtMs(left));
      html("td", { class: "num" }, tr, f.seat === seat ? fmtMs(f.time_ms) : "");
      html("td", { class: "num" }, tr, String(f.scores[seat]));
    });
  }

  function show(n) {
    ply = Math.max(0, Math.min(frames.length - 1, n));
    var f = frames[ply];
    board.textContent = "";
    board.setAttribute("data-ply", ply);
    (DRAW[data.game] || drawText)(board, f.board);
    slider.value = ply;
    document.getElementById("ply").textContent = "ply " + ply + " / " + (frames.length - 1);
    document.getElementById("current").textContent = moveLine(f) +
      (f.to_move === null || f.to_move === undefined ? "" : "  \u2014  " + seatName(f.to_move) + " to move");
    var events = document.getElementById("events");
    events.textContent = "";
    f.events.forEach(function (e) { html("li", {}, events, e); });
    drawClocks(f);
    var old = list.querySelector(".current");
    if (old) { old.classList.remove("current"); }
    var item = list.children[ply];
    item.classList.add("current");
    var top = item.offsetTop;  // #moves is position: relative
    if (top < list.scrollTop || top + item.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = top - list.clientHeight / 2;
    }
    document.getElementById("result").classList.toggle("final", ply === frames.length - 1);
    document.body.setAttribute("data-ply", ply);
  }

  function stop() {
    if (timer !== null) { clearInterval(timer); timer = null; }
    document.getElementById("play").textContent = "\u25b6 play";
  }

  function play() {
    if (timer !== null) { stop(); return; }
    if (ply >= frames.length - 1) { show(0); }
    var speed = Number(document.getElementById("speed").value);
    document.getElementById("play").textContent = "\u25ae\u25ae pause";
    timer = setInterval(function () {
      if (ply >= frames.length - 1) { stop(); return; }
      show(ply + 1);
    }, 1000 / speed);
  }

  document.getElementById("first").addEventListener("click", function () { stop(); show(0); });
  document.getElementById("back").addEventListener("click", function () { stop(); show(ply - 1); });
  document.getElementById("play").addEventListener("click", play);
  document.getElementById("forward").addEventListener("click", function () { stop(); show(ply + 1); });
  document.getElementById("last").addEventListener("click", function () { stop(); show(frames.length - 1); });
  document.getElementById("speed").addEventListener("change", function () { if (timer !== null) { stop(); play(); } });
  slider.addEventListener("input", function () { stop(); show(Number(slider.value)); });
  document.addEventListener("keydown", function (e) {
    if (e.target === slider || e.altKey || e.ctrlKey || e.metaKey) { return; }  // the slider steps itself
    var keys = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: 1, ArrowUp: -1 };
    if (e.key in keys) { stop(); show(ply + keys[e.key]); }
    else if (e.key === "Home") { stop(); show(0); }
    else if (e.key === "End") { stop(); show(frames.length - 1); }
    else if (e.key === " ") { play(); }
    else { return; }
    e.preventDefault();
  });

  var start = Number((location.hash.match(/ply=(\d+)/) || [0, 0])[1]);
  show(start);
})();
