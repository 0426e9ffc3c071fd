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

  /* The seat to move in frame n: none once the match is over, whether by the rules or by a failure. */
  function mover(n) {
    var f = frames[n];
    return (n === frames.length - 1 && data.result) || f.to_move === undefined ? null : f.to_move;
  }

  function drawClocks(f) {
    var body = document.getElementById("clocks");
    body.textContent = "";
    body.parentNode.classList.add("clocks");  /* its columns: viewer.css */
    var budget = data.clock.budget_ms || 1;
    var toMove = mover(ply);
    data.names.forEach(function (name, seat) {
      var tr = html("tr", { "data-seat": seat, class: toMove === seat ? "to-move" : "" }, body);
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
    if (drawing && f.board !== null && !why) {
      try {
        drawing(board, f.board);
      } catch (e) {
        why = "its drawing failed at ply " + ply + ": " + e;
        board.textContent = "";
      }
    }
    if (why || !drawing || f.board === null) { kit.drawText(board, f.text); }
    var note = document.getElementById("drawing-note");
    note.textContent = why ? "Shown as text: " + why + "." : "";
    note.hidden = !why;
    slider.value = ply;
    document.getElementById("ply").textContent = "ply " + ply + " / " + (frames.length - 1);
    document.getElementById("current").textContent = moveLine(f) +
      (mover(ply) === null ? "" : "  \u2014  " + seatName(mover(ply)) + " to move");
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
