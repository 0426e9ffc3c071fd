/* Arena match viewer: steps through the frames Python computed (arena/viewer/frames.py) and draws
   each with the game's own draw.js (window.arenaDraw), or, for a game without one or a drawing that
   fails, the position's text picture on a board-like panel, saying why. */
(function () {
  "use strict";
  var data = kit.data;
  var frames = data.frames;
  var ply = 0;
  var drawing = typeof window.arenaDraw === "function" ? window.arenaDraw : null;
  var why = data.drawing_error ? "its drawing failed: " + data.drawing_error
    : data.drawing === "none" ? "the game has no drawing of its own (draw.js)"
    : drawing ? "" : "its drawing did not load: " + (kit.errors.join("; ") || "draw.js defines no draw(root, board)");
  var timer = null;
  // A game of hidden information: null shows the whole truth, a seat number that seat's own view.
  var seats = data.hidden ? data.names.length : 0;
  var mode = null;

  var svg = kit.svg, html = kit.html, seatName = kit.seatName, SEAT = kit.SEAT;

  /* --- the player ------------------------------------------------------------------ */
  var board = document.getElementById("board");
  var slider = document.getElementById("slider");
  var list = document.getElementById("moves");
  slider.max = frames.length - 1;

  function fmtMs(ms) {
    if (ms === undefined || ms === null) { return "\u2013"; }
    return ms >= 10000 ? (ms / 1000).toFixed(1) + " s" : ms >= 1000 ? (ms / 1000).toFixed(2) + " s" : ms.toFixed(1) + " ms";
  }

  /* What the page shows of a frame: the whole truth, or (mode) a seat's own view of it. */
  function seen(f) {
    var moves = f.turn ? f.turn : f.ply > 0 ? [{ seat: f.seat, move: f.move, time_ms: f.time_ms }] : [];
    if (mode === null || !f.views) {
      return { board: f.board, text: f.text, scores: f.scores, moves: moves, events: f.events };
    }
    var v = f.views[mode];
    return { board: v.board, text: v.text, scores: v.scores, moves: v.moves, events: v.events };
  }

  function moveText(m) {
    return seatName(m.seat) + ": " + (m.move === null || m.move === undefined ? "(not shown)" : m.move);
  }

  function moveLine(f) {
    return f.ply === 0 ? "start" : f.ply + ". " + seen(f).moves.map(moveText).join(", ");
  }

  function fillMoves() {
    list.textContent = "";
    frames.forEach(function (f, i) {
      var li = html("li", { "data-ply": i }, list);
      if (f.ply > 0) { html("span", { class: "dot", style: "background:" + SEAT[f.seat] }, li); }
      html("span", { class: "move" }, li, moveLine(f));
      if (f.ply > 0) { html("span", { class: "time" }, li, fmtMs(f.time_ms)); }
      li.addEventListener("click", function () { stop(); show(i); });
    });
  }
  fillMoves();

  /* The seats to move in frame f: none once the match is over, whether by the rules or by a failure. */
  function movers(f) {
    if (f === frames[frames.length - 1] && data.result) { return []; }
    return f.movers ? f.movers : f.to_move === null || f.to_move === undefined ? [] : [f.to_move];
  }

  function thisMove(f, seat) {
    var mine = (f.turn || (f.ply > 0 ? [f] : [])).filter(function (m) { return m.seat === seat; });
    return mine.length ? fmtMs(mine[0].time_ms) : "";
  }

  function drawClocks(f) {
    var body = document.getElementById("clocks");
    body.textContent = "";
    body.parentNode.classList.add("clocks");  /* its columns: viewer.css */
    var scores = seen(f).scores;
    var budget = data.clock.budget_ms || 1;
    data.names.forEach(function (name, seat) {
      var tr = html("tr", { "data-seat": seat, class: movers(f).indexOf(seat) >= 0 ? "to-move" : "" }, body);
      var td = html("td", {}, tr);
      html("span", { class: "dot", style: "background:" + SEAT[seat] }, td);
      html("span", { class: "name", title: name }, td, seat + " " + name);
      var left = f.clocks[seat];
      var bar = html("td", { class: "bar" }, tr);
      html("span", { style: "width:" + Math.max(0, Math.min(100, 100 * left / budget)).toFixed(1) + "%;background:" +
        SEAT[seat] }, bar);
      html("td", { class: "num" }, tr, fmtMs(left));
      html("td", { class: "num" }, tr, thisMove(f, seat));
      html("td", { class: "num" }, tr, scores ? String(scores[seat]) : "\u2013");
    });
  }

  function show(n) {
    ply = Math.max(0, Math.min(frames.length - 1, n));
    var f = frames[ply];
    var s = seen(f);
    board.textContent = "";
    board.setAttribute("data-ply", ply);
    board.setAttribute("data-view", mode === null ? "all" : String(mode));
    if (drawing && s.board !== null && !why) {
      try {
        drawing(board, s.board);
      } catch (e) {
        why = "its drawing failed at ply " + ply + ": " + e;
        board.textContent = "";
      }
    }
    if (why || !drawing || s.board === null) { kit.drawText(board, s.text); }
    var note = document.getElementById("drawing-note");
    var lost = mode !== null && !f.views ? "seat " + mode + "'s view is not available here: " +
      (data.views_error || "the replay stopped") : "";
    note.textContent = [why ? "Shown as text: " + why + "." : "", lost].filter(Boolean).join(" ");
    note.hidden = !why && !lost;
    slider.value = ply;
    document.getElementById("ply").textContent = "ply " + ply + " / " + (frames.length - 1);
    var next = movers(f);
    document.getElementById("current").textContent = moveLine(f) +
      (next.length ? "  \u2014  " + next.map(seatName).join(" and ") + " to move" : "");
    var events = document.getElementById("events");
    events.textContent = "";
    s.events.forEach(function (e) { html("li", {}, events, e); });
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

  /* The seat's-eye views: keys 0..9 a seat, a all; the buttons say which is shown. */
  function setMode(m) {
    if (m !== null && !(m >= 0 && m < seats)) { return; }
    mode = m;
    var label = document.getElementById("view-name");
    label.textContent = m === null ? "the whole truth" : "what " + seatName(m) + " (seat " + m + ") sees";
    Array.prototype.forEach.call(document.querySelectorAll("#views button"), function (b) {
      b.classList.toggle("on", b.getAttribute("data-view") === (m === null ? "all" : String(m)));
    });
    document.body.setAttribute("data-view", m === null ? "all" : String(m));
    fillMoves();
    show(ply);
  }

  Array.prototype.forEach.call(document.querySelectorAll("#views button"), function (b) {
    var v = b.getAttribute("data-view");
    b.addEventListener("click", function () { stop(); setMode(v === "all" ? null : Number(v)); });
  });

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
    else if (seats && e.key === "a") { setMode(null); }
    else if (seats && /^[0-9]$/.test(e.key) && Number(e.key) < seats) { setMode(Number(e.key)); }
    else { return; }
    e.preventDefault();
  });

  var found = location.hash.match(/ply=(\d+)/);
  var start = found ? Number(found[1]) : data.live ? frames.length - 1 : 0;  // a game being played: its latest
  var asked = location.hash.match(/seat=(\d+)/);
  if (seats) { setMode(null); if (asked) { setMode(Number(asked[1])); } }
  show(start);
})();
