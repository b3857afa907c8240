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

  /* how often a pushed page re-checks its live parts for table talk (see watch) */
  var TALK_RECHECK_MS = 8000;

  /* Keep one element current: the one place that knows how updates arrive.  A push channel
     (Server-Sent Events from its data-events URL: the game's public head at each move, join,
     start and end) says when to fetch its data-live URL again (with If-None-Match: 304 while
     nothing changed for this reader).  Without EventSource, or when the stream fails for good
     (a server without push, or one holding as many waiters as it can: 503), it polls the
     data-live URL instead, as before.  The answer may carry the page's other live parts
     (elements with data-live-part and an id, such as the table talk): they are swapped in
     with it, and are covered by its ETag. */
  function watch(el) {
    var url = el.getAttribute("data-live");
    var events = el.getAttribute("data-events");
    var etag = el.getAttribute("data-etag");
    var delay = 800;
    var polling = false, fetching = false, again = false, source = null;

    function over() { return el.getAttribute("data-status") === "over"; }

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
      /* the page's other live parts in the same answer (the table talk): same id, swapped */
      var parts = doc.querySelectorAll("[data-live-part][id]");
      for (i = 0; i < parts.length; i++) {
        var old = document.getElementById(parts[i].id);
        if (!old || old === el || el.contains(old)) { continue; }
        var part = document.importNode(parts[i], true);
        old.replaceWith(part);
        localTimes(part);
      }
      document.dispatchEvent(new CustomEvent("pbem:updated"));
    }

    /* One conditional GET of the live part; ok() is told whether it answered. */
    function refresh(ok) {
      return fetch(url, {cache: "no-store", credentials: "same-origin",
                         headers: {"If-None-Match": '"' + etag + '"'}})
        .then(function (r) {
          if (r.status === 304) { ok(true); return null; }
          if (!r.ok) { ok(false); return null; }
          ok(true);
          return r.text();
        })
        .then(function (html) { if (html) { swap(html); } })
        .catch(function () { ok(false); });
    }

    function poll() {
      refresh(function (ok) { delay = ok ? 800 : Math.min(delay * 2, 30000); })
        .then(function () { if (!over()) { setTimeout(poll, delay); } });
    }

    /* How this page learns of changes, for the curious and the tests: "push" or "poll". */
    function mode(how) { document.documentElement.setAttribute("data-pbem-live", how); }

    function startPolling() {
      mode("poll");
      if (source) { source.close(); source = null; }
      if (!polling && !over()) { polling = true; setTimeout(poll, delay); }
    }

    /* A head event: fetch the live part (one fetch at a time; a head that arrives meanwhile
       fetches once more after it). */
    function pushed() {
      mode("push");
      fetchNow();
    }

    function fetchNow() {
      if (fetching) { again = true; return; }
      fetching = true;
      refresh(function () {}).then(function () {
        fetching = false;
        if (over() && source) { source.close(); source = null; }
        if (again) { again = false; fetchNow(); }
      });
    }

    if (over()) { return; }
    /* fetch now when asked (talk.js, after sending a message) */
    document.addEventListener("pbem:refresh", function () { if (!polling) { fetchNow(); } });
    /* what the push channel does not announce: the table talk (a message moves no head; the
       stream is public, and a private message must not be announced to every reader).
       While pushed, the page also asks now and then (If-None-Match: mostly a 304). */
    if (document.querySelector("[data-live-part]")) {
      setInterval(function () {
        if (!polling && !over() && !document.hidden) { fetchNow(); }
      }, TALK_RECHECK_MS);
    }
    if (!events || typeof window.EventSource !== "function") { startPolling(); return; }
    source = new EventSource(events);
    source.addEventListener("head", pushed);
    source.onerror = function () {
      /* EventSource reconnects by itself after a dropped stream; CLOSED means it gave up
         (an error status such as 503, or an answer that is not a stream). */
      if (source && source.readyState === EventSource.CLOSED) { startPolling(); }
    };
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
