/* Table talk from the game page.  No build step, no inline script.

   The form (#talk-form, _talk.html, outside #live so that a message being typed survives the
   page's updates) builds a message document (shared/messages.py: kind, game, seat, to, at,
   text, nonce, ts), has this browser's key sign it (window.pbemKeys.signDocument, keys.js:
   the key's delegation goes into the body) and posts {body, signature} to the game's
   messages.  ``at`` is the log's length, read from the game's summary just before signing
   (once more, from the server's answer, when a move came in between).  Every text the
   server or the user wrote is shown with textContent: nothing is parsed as HTML here.
   After a message is sent the page's live parts are fetched at once ("pbem:refresh",
   pbem.js), so it shows among the messages. */
(function () {
  "use strict";

  var DOMAIN = "pbem-message-v1\n";

  function $(id) { return document.getElementById(id); }

  function status(text, kind) {
    var p = $("talk-status");
    if (!p) { return; }
    p.textContent = text;
    p.className = "talk-status" + (kind ? " " + kind : "");
  }

  function length(form) {
    return fetch(form.getAttribute("data-game-url"),
                 {headers: {Accept: "application/json"}, cache: "no-store"})
      .then(function (r) {
        if (!r.ok) { throw new Error("the game could not be read (HTTP " + r.status + ")"); }
        return r.json();
      })
      .then(function (game) {
        return (typeof game.seq === "number" ? game.seq : -1) + 1;
      });
  }

  function answer(r) {
    return r.json().then(function (data) { return {ok: r.ok, status: r.status, data: data}; },
                         function () { return {ok: r.ok, status: r.status, data: {}}; });
  }

  function post(form, at, text, to) {
    var body = {kind: "message", game: form.getAttribute("data-game"),
                seat: form.getAttribute("data-seat"), to: to || null, at: at, text: text};
    return window.pbemKeys.signDocument(DOMAIN, body).then(function (doc) {
      return fetch(form.getAttribute("data-send"), {
        method: "POST", credentials: "same-origin", cache: "no-store",
        headers: {"Content-Type": "application/json", "Accept": "application/json"},
        body: JSON.stringify(doc)
      });
    }).then(answer);
  }

  function stale(a) {
    var e = a.data && a.data.error;
    return a.status === 409 && e && e.code === "stale_seq" && e.details &&
      typeof e.details.seq === "number" ? e.details.seq : null;
  }

  var sending = false;

  function send(form) {
    var input = $("talk-text"), text = input.value, to = $("talk-to").value;
    if (sending) { return; }
    if (!text.trim()) { status("Write something first.", "bad"); return; }
    if (!window.pbemKeys || typeof window.pbemKeys.signDocument !== "function") {
      status("This page cannot sign here (no browser key support).", "bad");
      return;
    }
    sending = true;
    $("talk-send").disabled = true;
    status("Signing and sending…");
    length(form).then(function (at) {
      return post(form, at, text, to).then(function (a) {
        var fresh = stale(a);
        return fresh === null ? a : post(form, fresh, text, to);
      });
    }).then(function (a) {
      if (a.ok) {
        if (input.value === text) { input.value = ""; }
        status("Sent" + (a.data.to ? " to " + a.data.to + " only" : "") + ".", "ok");
        document.dispatchEvent(new CustomEvent("pbem:refresh"));
      } else {
        var e = (a.data && a.data.error) || {};
        status("Not sent: " + (e.message || ("HTTP " + a.status)), "bad");
      }
    }).catch(function (err) {
      status("Not sent: " + (err && err.message ? err.message : "signing or sending failed"),
             "bad");
    }).then(function () {
      sending = false;
      $("talk-send").disabled = form.classList.contains("no-key");
    });
  }

  function keyCheck(form) {
    var seat = form.getAttribute("data-seat");
    if (!window.pbemKeys || typeof window.pbemKeys.available !== "function") { return; }
    window.pbemKeys.available(form.getAttribute("data-game"), seat).then(function (ok) {
      form.classList.toggle("no-key", !ok);
      if (!sending) { $("talk-send").disabled = !ok; }
      if (!ok) {
        status("This browser holds no key for seat " + seat + ": sign in on this browser " +
               "(the Sign in page) to talk from this page. From your shell: pbem device " +
               "add --browser prints a link that does it.", "bad");
      } else if ($("talk-status").classList.contains("bad")) {
        status("");
      }
    }, function () {});
  }

  function start() {
    var form = $("talk-form");
    if (!form) { return; }
    form.hidden = false;
    form.addEventListener("submit", function (e) { e.preventDefault(); send(form); });
    $("talk-text").addEventListener("keydown", function (e) {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); send(form); }
    });
    keyCheck(form);
    document.addEventListener("pbem:keys", function () { keyCheck(form); });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
