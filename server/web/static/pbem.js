/* pbem pages: local times and live updates.  No build step, no inline script (the pages'
   Content-Security-Policy forbids it); the pages work without this file. */
(function () {
  "use strict";

  /* <time datetime="...UTC..."> shown in the reader's own time zone. */
  function localTimes(root) {
    var els = root.querySelectorAll("time[datetime]");
    for (var i = 0; i < els.length; i++) {
      var el = els[i], at = new Date(el.getAttribute("datetime"));
      if (isNaN(at.getTime())) { continue; }
      el.textContent = at.toLocaleString([], {
        year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit"
      });
      el.title = el.getAttribute("datetime") + " (shown in your time zone)";
      el.classList.add("local");
    }
  }

  /* Keep one element current: the one place that knows how updates arrive.  Today it polls
     its data-live URL with If-None-Match (304 while nothing changed); a push channel can
     replace poll() without touching the pages. */
  function watch(el) {
    var url = el.getAttribute("data-live");
    var etag = el.getAttribute("data-etag");
    var delay = 800;

    function swap(html) {
      var doc = new DOMParser().parseFromString(html, "text/html");
      var fresh = doc.getElementById(el.id);
      if (!fresh) { return; }
      var open = {}, olds = el.querySelectorAll("details[id]"), i;
      for (i = 0; i < olds.length; i++) { open[olds[i].id] = olds[i].open; }
      var news = fresh.querySelectorAll("details[id]");
      for (i = 0; i < news.length; i++) {
        if (Object.prototype.hasOwnProperty.call(open, news[i].id)) { news[i].open = open[news[i].id]; }
      }
      fresh = document.importNode(fresh, true);
      el.replaceWith(fresh);
      el = fresh;
      etag = el.getAttribute("data-etag") || etag;
      localTimes(el);
      document.dispatchEvent(new CustomEvent("pbem:updated"));
    }

    function poll() {
      fetch(url, {cache: "no-store", credentials: "same-origin",
                  headers: {"If-None-Match": '"' + etag + '"'}})
        .then(function (r) {
          if (r.status === 304) { delay = 800; return null; }
          if (!r.ok) { delay = Math.min(delay * 2, 30000); return null; }
          delay = 800;
          return r.text();
        })
        .then(function (html) { if (html) { swap(html); } })
        .catch(function () { delay = Math.min(delay * 2, 30000); })
        .then(function () {
          if (el.getAttribute("data-status") !== "over") { setTimeout(poll, delay); }
        });
    }
    if (el.getAttribute("data-status") !== "over") { setTimeout(poll, delay); }
  }

  /* The archive stepper's slider: show the number while dragging, go there on release. */
  function slider() {
    var input = document.getElementById("step-slider");
    var out = document.getElementById("step-out");
    if (!input) { return; }
    input.addEventListener("input", function () {
      if (out) { out.textContent = input.value + " / " + input.max; }
    });
    input.addEventListener("change", function () {
      var go = input.form.querySelector("button.go");
      if (input.form.requestSubmit) { input.form.requestSubmit(go); } else { go.click(); }
    });
  }

  function start() {
    localTimes(document);
    var live = document.querySelectorAll("[data-live]");
    for (var i = 0; i < live.length; i++) { watch(live[i]); }
    slider();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
