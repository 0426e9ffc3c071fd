// Live updates where JavaScript is on: when the server says something changed, the page's
// main part is fetched again and swapped in. Without JavaScript the pages are complete as served.
"use strict";
(function () {
  const live = document.getElementById("live");
  if (!live || !window.EventSource || live.dataset.static === "1") return;
  let last = null;
  let busy = false;
  const source = new EventSource("/events");
  source.onmessage = function (event) {
    if (last === null) { last = event.data; return; }
    if (event.data === last || busy) return;
    last = event.data;
    if (document.activeElement && document.activeElement.closest && document.activeElement.closest("form")) return;
    busy = true;
    fetch(location.href, {credentials: "same-origin"}).then(function (response) {
      return response.ok ? response.text() : null;
    }).then(function (text) {
      if (text === null) return;
      const fresh = new DOMParser().parseFromString(text, "text/html").getElementById("live");
      if (fresh) { live.innerHTML = fresh.innerHTML; live.dispatchEvent(new Event("arena:updated")); }
    }).finally(function () { busy = false; });
  };
})();
