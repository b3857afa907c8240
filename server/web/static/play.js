/* Moving from the game page.  No build step, no inline script.

   The play panel (#play, rendered by _play.html inside #live) lists the signed-in seat's
   legal moves.  A move is chosen from the list, typed, or built by clicking the board:
   every place a legal move names (its data-place in the drawing) can be clicked or tapped
   (or reached with Tab and Enter); each click narrows the legal moves to those naming every
   place clicked, and one left is chosen.  The server's check endpoint then says whether
   the move is legal (the rules' reason if not) and what it will do, for this player only.
   "Sign and send" signs the envelope with this browser's key (window.pbemKeys, from
   keys.js: the server never sees the private key) and posts it.

   pbem.js replaces #live whenever the game moves on; this file keeps what the player was
   doing (the move box, the check) in memory and puts it back ("pbem:updated"). */
(function () {
  "use strict";

  var NEAR_PX = 22;            /* a tap this close to a place picks it (phones) */
  var mem = {text: "", picks: [], checked: null, seq: null, sending: false, note: null};

  function $(id) { return document.getElementById(id); }
  function panel() { return $("play"); }

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) { e.textContent = text; }
    return e;
  }

  function info() {
    var p = panel();
    return {
      game: p.getAttribute("data-game"), seat: p.getAttribute("data-seat"),
      seq: parseInt(p.getAttribute("data-next-seq"), 10), prev: p.getAttribute("data-prev"),
      check: p.getAttribute("data-check"), send: p.getAttribute("data-send")
    };
  }

  function legalMoves() {
    var out = [], bs = panel().querySelectorAll("button.move-choice");
    for (var i = 0; i < bs.length; i++) { out.push(bs[i].getAttribute("data-move")); }
    return out;
  }

  /* --- places: the notation's names in a move, and on the board ------------------------ */

  function svg() { return document.querySelector("#live .drawing svg"); }

  function boardPlaces() {
    var s = svg(), out = {};
    if (!s) { return out; }
    var els = s.querySelectorAll("[data-place]");
    for (var i = 0; i < els.length; i++) { out[els[i].getAttribute("data-place")] = true; }
    return out;
  }

  /* the places a move names, in order: its words, and their parts ("14-19" also names 14
     and 19; "archer@tower" names tower) */
  function placesOf(move, known) {
    var out = [], words = move.split(/\s+/).slice(1);
    words.forEach(function (w) {
      [w].concat(w.split(/[-~@,]/)).forEach(function (p) {
        if (p && known[p] && out.indexOf(p) < 0) { out.push(p); }
      });
    });
    return out;
  }

  function pickables() {
    var s = svg();
    return s ? s.querySelectorAll(".pickable") : [];
  }

  /* mark every place a legal move names: clickable, focusable, named for screen readers */
  function markBoard() {
    var s = svg();
    if (!s || !panel()) { return; }
    var known = boardPlaces(), wanted = {};
    legalMoves().forEach(function (m) {
      placesOf(m, known).forEach(function (p) { wanted[p] = true; });
    });
    var els = s.querySelectorAll("[data-place]");
    for (var i = 0; i < els.length; i++) {
      var e = els[i], place = e.getAttribute("data-place");
      if (!wanted[place]) { continue; }
      /* a piece inside a group that names the same place: the group is the target */
      var up = e.parentElement && e.parentElement.closest("[data-place]");
      if (up && up.getAttribute("data-place") === place) { continue; }
      e.classList.add("pickable");
      e.setAttribute("tabindex", "0");
      e.setAttribute("role", "button");
      var t = e.querySelector(":scope > title");
      e.setAttribute("aria-label", "pick " + (t ? t.textContent : place));
    }
    showPicked();
  }

  function showPicked() {
    var s = svg();
    if (!s) { return; }
    var old = s.querySelectorAll(".picked");
    for (var i = 0; i < old.length; i++) { old[i].classList.remove("picked"); }
    var names = mem.picks.slice();
    if (mem.text && legalMoves().indexOf(mem.text) >= 0) {
      names = names.concat(placesOf(mem.text, boardPlaces()));
    }
    names.forEach(function (p) {
      var hit = s.querySelectorAll('.pickable[data-place="' + cssEscape(p) + '"]');
      for (var j = 0; j < hit.length; j++) { hit[j].classList.add("picked"); }
    });
  }

  function cssEscape(text) {
    return window.CSS && CSS.escape ? CSS.escape(text) : text.replace(/["\\]/g, "\\$&");
  }

  /* the pickable place under a click, or the nearest one within NEAR_PX (a finger is wide) */
  function placeAt(event) {
    var hit = event.target.closest && event.target.closest(".pickable");
    if (hit) { return hit.getAttribute("data-place"); }
    var best = null, bestD = NEAR_PX, ps = pickables();
    for (var i = 0; i < ps.length; i++) {
      var r = ps[i].getBoundingClientRect();
      var dx = Math.max(r.left - event.clientX, 0, event.clientX - r.right);
      var dy = Math.max(r.top - event.clientY, 0, event.clientY - r.bottom);
      var d = Math.sqrt(dx * dx + dy * dy);
      /* a large shape (a hex) only counts when the tap is inside it */
      if (r.width > 3 * NEAR_PX && d > 0) { continue; }
      if (d < bestD || (d === bestD && best && r.width < best.w)) {
        best = {place: ps[i].getAttribute("data-place"), w: r.width}; bestD = d;
      }
    }
    return best ? best.place : null;
  }

  function candidates(picks) {
    var known = boardPlaces();
    return legalMoves().filter(function (m) {
      var ps = placesOf(m, known);
      return picks.every(function (p) { return ps.indexOf(p) >= 0; });
    });
  }

  function pick(place) {
    var picks = mem.picks.concat([place]);
    var found = candidates(picks);
    if (!found.length) { picks = [place]; found = candidates(picks); }
    mem.picks = found.length ? picks : [];
    if (found.length === 1) { choose(found[0]); reveal("move-preview"); return; }
    showChoices(place, found);
    showPicked();
  }

  function showChoices(place, found) {
    var box = $("move-pick");
    if (!box) { return; }
    if (mem.note) { mem.note = null; renderPreview(null); }
    box.textContent = "";
    box.hidden = false;
    if (!found.length) {
      box.appendChild(el("p", {}, "No legal move names " + place + " now."));
      return;
    }
    box.appendChild(el("p", {}, found.length + " legal moves name " + mem.picks.join(" and ") +
                        ": choose one, or click another place to narrow them."));
    var ul = el("ul");
    found.slice(0, 40).forEach(function (m) {
      var li = el("li"), b = el("button", {type: "button", "class": "move-choice-pick",
                                           "data-move": m}, m);
      li.appendChild(b); ul.appendChild(li);
    });
    box.appendChild(ul);
    reveal("move-pick");
    if (found.length > 40) { box.appendChild(el("p", {}, "... and " + (found.length - 40) + " more.")); }
    var first = box.querySelector("button");
    if (first) { first.focus({preventScroll: true}); }
  }

  /* on a phone the panel is under the board: bring what a tap changed into view */
  function reveal(id) {
    var e = $(id), r = e && e.getBoundingClientRect();
    if (r && (r.top > window.innerHeight || r.bottom < 0)) {
      e.scrollIntoView({block: "nearest", behavior: "smooth"});
    }
  }

  function hideChoices() {
    var box = $("move-pick");
    if (box) { box.hidden = true; box.textContent = ""; }
  }

  /* --- the move box, the check and the send ------------------------------------------------ */

  function choose(move) {
    var input = $("move-text");
    mem.note = null;
    mem.text = move;
    mem.picks = [];
    if (input) { input.value = move; }
    hideChoices();
    markChosen();
    showPicked();
    check(move);
  }

  function markChosen() {
    var bs = panel() ? panel().querySelectorAll("button.move-choice") : [];
    for (var i = 0; i < bs.length; i++) {
      bs[i].classList.toggle("chosen", bs[i].getAttribute("data-move") === mem.text);
      bs[i].setAttribute("aria-pressed", bs[i].getAttribute("data-move") === mem.text ? "true" : "false");
    }
  }

  function apiError(r) {
    return r.json().then(function (body) {
      var e = (body && body.error) || {};
      return {status: r.status, code: e.code || "error", message: e.message || ("HTTP " + r.status)};
    }, function () { return {status: r.status, code: "error", message: "HTTP " + r.status}; });
  }

  /* the pages number moves from 1; the log's entries count from 0 (seq): "@takeback 15" typed
     here takes back from move 15, the entry @takeback 14 (as the CLI does, client/numbers.py) */
  var TAKEBACK = /^@takeback[ \t]+(\d+)$/;
  function wireText(move) {
    var m = TAKEBACK.exec(move);
    return m ? "@takeback " + (parseInt(m[1], 10) - 1) : move;
  }
  function shownText(move) {
    var m = TAKEBACK.exec(move || "");
    return m ? "@takeback " + (parseInt(m[1], 10) + 1) : move;
  }

  /* a table entry's event and duty texts name seqs: "takes back 2 moves (moves 14-15)" */
  var TABLE_MOVES = /(\d+ moves? \()(moves?) (\d+)(?:-(\d+))?\)/g;
  function shownEvent(text) {
    return String(text).replace(TABLE_MOVES, function (all, head, word, first, last) {
      return head + word + " " + (parseInt(first, 10) + 1) +
             (last ? "-" + (parseInt(last, 10) + 1) : "") + ")";
    });
  }

  function check(move) {
    var at = info();
    var m = TAKEBACK.exec(move || "");
    if (m && parseInt(m[1], 10) < 1) {
      mem.checked = null;
      updateSend();
      renderPreview({failed: {message: "Moves are numbered from 1: @takeback N takes back " +
                                       "your moves from move N on (the log shows the numbers)."}});
      return Promise.resolve(null);
    }
    mem.checked = null;
    updateSend();
    if (!move) { renderPreview(null); return Promise.resolve(null); }
    renderPreview({pending: true, move: move});
    return fetch(at.check, {
      method: "POST", credentials: "same-origin", cache: "no-store",
      headers: {"Content-Type": "application/json", "Accept": "application/json"},
      body: JSON.stringify({move: wireText(move), seat: at.seat})
    }).then(function (r) {
      if (!r.ok) { return apiError(r).then(function (e) { return {failed: e}; }); }
      return r.json();
    }).then(function (answer) {
      if ($("move-text") && $("move-text").value.trim() !== move) { return answer; }
      answer.asked = move;
      answer.seqAt = at.seq;
      mem.checked = answer.failed ? null : answer;
      renderPreview(answer);
      updateSend();
      return answer;
    }).catch(function () {
      renderPreview({failed: {message: "the server could not be reached; try again"}});
    });
  }

  function renderPreview(a) {
    var box = $("move-preview");
    if (!box) { return; }
    box.textContent = "";
    if (!a) { return; }
    var p;
    if (a.pending) {
      box.appendChild(el("p", {"class": "small"}, "Checking " + a.move + " ..."));
      return;
    }
    if (a.sent) {
      box.appendChild(el("p", {"class": "verdict outcome-complete", id: "move-result"},
                         "Sent: " + a.sent + " (move " + a.seq + "). The page follows the game."));
      return;
    }
    if (a.failed) {
      box.appendChild(el("p", {"class": "verdict outcome-refused", id: "move-result"},
                         a.failed.message));
      return;
    }
    if (!a.legal) {
      p = el("p", {"class": "verdict outcome-refused", id: "move-result"});
      p.appendChild(el("strong", {}, "Not legal: "));
      p.appendChild(document.createTextNode(a.reason || "the rules refuse it"));
      box.appendChild(p);
      return;
    }
    p = el("div", {"class": "verdict outcome-complete", id: "move-result"});
    p.appendChild(el("p", {"class": "what"}, "Legal: " + shownText(a.move) + ". What it will do:"));
    var ul = el("ul");
    if (a.outcome === "certain") {
      var table = String(a.move || "").charAt(0) === "@";
      (a.events || []).forEach(function (t) {
        ul.appendChild(el("li", {}, table ? shownEvent(t) : t));
      });
      (a.changes || []).forEach(function (t) { ul.appendChild(el("li", {"class": "change"}, t)); });
      var next = Object.keys(a.next || {}).map(function (s) {
        return (s === info().seat ? "you" : s) + ": " + shownEvent(a.next[s]);
      });
      if (next.length) { ul.appendChild(el("li", {"class": "next"}, "then " + next.join("; "))); }
      if (!ul.children.length) { ul.appendChild(el("li", {}, a.summary)); }
    } else {
      ul.appendChild(el("li", {}, a.summary));
    }
    p.appendChild(ul);
    box.appendChild(p);
  }

  var keyState = {known: false, ok: false};

  function keyStatus() {
    var out = $("key-status"), at;
    if (!out || !panel()) { return; }
    at = info();
    if (!window.pbemKeys || typeof window.pbemKeys.available !== "function") {
      setKey(false, at);
      return;
    }
    window.pbemKeys.available(at.game, at.seat).then(function (ok) {
      setKey(!!ok, at);
    }, function () { setKey(false, at); });
  }

  function setKey(ok, at) {
    keyState = {known: true, ok: ok};
    var out = $("key-status");
    if (!out) { return; }
    out.textContent = "";
    out.classList.toggle("has-key", ok);
    out.classList.toggle("no-key", !ok);
    if (ok) {
      out.appendChild(document.createTextNode("Moves you send from this page are signed with " +
        "this browser's key for seat " + at.seat + "."));
    } else {
      out.appendChild(document.createTextNode("This browser holds no key for seat " + at.seat +
        ", so it can check moves but not send them. To move from this page, "));
      out.appendChild(el("a", {href: "/signin"}, "sign in on this browser"));
      out.appendChild(document.createTextNode(" (your recovery kit, or a one-time link from " +
        "a device where you are signed in). "));
      var aside = el("span", {"class": "shell"}, "From your shell: ");
      aside.appendChild(el("code", {}, "pbem device add --browser"));
      aside.appendChild(document.createTextNode(" prints such a link; meanwhile "));
      aside.appendChild(el("code", {}, 'pbem play ' + at.game + ' "MOVE"'));
      aside.appendChild(document.createTextNode(" sends a move."));
      out.appendChild(aside);
    }
    updateSend();
  }

  function updateSend() {
    var b = $("send-move"), input = $("move-text");
    if (!b) { return; }
    var c = mem.checked, at = panel() ? info() : null;
    b.disabled = !(keyState.ok && c && c.legal && at && c.seqAt === at.seq &&
                   input && input.value.trim() === c.asked && !mem.sending);
  }

  function nonce() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) {
      return ("0" + b.toString(16)).slice(-2);
    }).join("");
  }

  function send() {
    var c = mem.checked, at = info();
    if (!c || !c.legal || !keyState.ok) { return; }
    mem.sending = true;
    updateSend();
    var env = {game: at.game, seq: at.seq, prev: at.prev, seat: at.seat, move: c.move,
               nonce: nonce(), ts: Math.floor(Date.now() / 1000)};
    Promise.resolve(window.pbemKeys.signEnvelope(env)).then(function (signed) {
      return fetch(at.send, {
        method: "POST", credentials: "same-origin", cache: "no-store",
        headers: {"Content-Type": "application/json", "Accept": "application/json"},
        body: JSON.stringify({envelope: signed.envelope, signature: signed.signature})
      });
    }).then(function (r) {
      if (r.ok) {
        return r.json().then(function (entry) {
          mem.text = ""; mem.checked = null;
          if ($("move-text")) { $("move-text").value = ""; }
          mem.note = {sent: shownText(c.move), seq: entry.seq + 1};
          renderPreview(mem.note);
        });
      }
      return apiError(r).then(function (e) {
        if (e.code === "stale_seq") {
          e.message = "The game moved on before your move arrived: check it again on the " +
                      "updated board.";
        }
        renderPreview({failed: e});
      });
    }).catch(function (err) {
      renderPreview({failed: {message: "Not sent: " + (err && err.message ? err.message :
                                                        "signing or sending failed")}});
    }).then(function () { mem.sending = false; updateSend(); });
  }

  /* --- the table's decisions (_decide.html): confirm, sign with this browser's key, send --- */

  function decide(button) {
    var move = button.getAttribute("data-entry"), days = button.getAttribute("data-days");
    var status = $("decide-status"), at = info();
    if (days) {
      var n = parseInt(($(days) || {}).value, 10);
      if (!(n >= 1 && n <= 14)) {
        if (status) { status.textContent = "A pause is of 1 to 14 days."; }
        return;
      }
      move = move + " " + n;
    }
    if (!window.confirm(button.getAttribute("data-confirm") || move)) { return; }
    if (!window.pbemKeys || !keyState.ok) {
      if (status) { status.textContent = "This browser holds no key for your seat: link it " +
                                         "first (pbem device add --browser)."; }
      return;
    }
    var env = {game: at.game, seq: at.seq, prev: at.prev, seat: at.seat, move: move,
               nonce: nonce(), ts: Math.floor(Date.now() / 1000)};
    if (status) { status.textContent = "Signing and sending " + move + " ..."; }
    Promise.resolve(window.pbemKeys.signEnvelope(env)).then(function (signed) {
      return fetch(at.send, {
        method: "POST", credentials: "same-origin", cache: "no-store",
        headers: {"Content-Type": "application/json", "Accept": "application/json"},
        body: JSON.stringify({envelope: signed.envelope, signature: signed.signature})
      });
    }).then(function (r) {
      if (r.ok) {
        return r.json().then(function (entry) {
          if (status) { status.textContent = "Sent: " + move + " (move " + (entry.seq + 1) + ")."; }
        });
      }
      return apiError(r).then(function (e) {
        if (status) { status.textContent = "Refused: " + e.message; }
      });
    }).catch(function (err) {
      if (status) { status.textContent = "Not sent: " + (err && err.message ? err.message :
                                                         "signing or sending failed"); }
    });
  }

  /* --- the trade form: a bundle of cards into the move box ------------------------------- */

  function tradeText(form) {
    var kind = form.querySelector("select[name=kind]").value;
    function bundle(side) {
      var parts = [], ins = form.querySelectorAll('input[data-side="' + side + '"]');
      for (var i = 0; i < ins.length; i++) {
        var n = parseInt(ins[i].value, 10);
        if (n > 0) { parts.push(n + ins[i].getAttribute("data-res")); }
      }
      return parts.join("+");
    }
    var give = bundle("give"), get = bundle("get");
    if (kind === "discard") { return "discard " + give; }
    var text = kind + " " + give + " for " + get;
    if (kind === "offer") {
      var to = [], boxes = form.querySelectorAll("input[name=to]:checked");
      for (var i = 0; i < boxes.length; i++) { to.push(boxes[i].value); }
      if (to.length) { text += " to " + to.join(","); }
    }
    return text;
  }

  /* --- wiring (delegated: #live is replaced whenever the game moves on) ------------------ */

  function inPanel(e) { return panel() && panel().contains(e.target); }

  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("button.move-choice, button.move-choice-pick");
    if (b && inPanel(e)) { choose(b.getAttribute("data-move")); return; }
    if (e.target.closest && e.target.closest("#send-move") && inPanel(e)) { send(); return; }
    var d = e.target.closest && e.target.closest("button.table-decision");
    if (d && inPanel(e)) { decide(d); return; }
    var s = svg();
    if (panel() && s && s.contains(e.target)) {
      var place = placeAt(e);
      if (place) { e.preventDefault(); pick(place); }
    }
  });

  document.addEventListener("keydown", function (e) {
    if ((e.key === "Enter" || e.key === " ") && e.target.classList &&
        e.target.classList.contains("pickable")) {
      e.preventDefault();
      pick(e.target.getAttribute("data-place"));
    }
  });

  document.addEventListener("submit", function (e) {
    if (!inPanel(e)) { return; }
    e.preventDefault();
    if (e.target.id === "move-form") {
      var text = $("move-text").value.trim();
      mem.text = text; mem.picks = [];
      markChosen(); showPicked(); hideChoices();
      check(text);
    } else if (e.target.id === "trade-form") {
      var t = tradeText(e.target);
      $("move-text").value = t;
      mem.text = t;
      check(t);
    }
  });

  document.addEventListener("input", function (e) {
    if (e.target.id === "move-text") { mem.text = e.target.value.trim(); updateSend(); }
  });

  /* after #live was replaced: put the player's work back, check again if the game moved */
  function restore() {
    if (!panel()) { return; }
    var at = info(), input = $("move-text");
    markBoard();
    if (input && mem.text) { input.value = mem.text; }
    markChosen();
    if (mem.seq !== null && mem.seq !== at.seq) {
      mem.picks = [];
      if (mem.text) { check(mem.text); } else { renderPreview(mem.note); }
    } else if (mem.checked) {
      renderPreview(mem.checked);
    } else if (mem.note) {
      renderPreview(mem.note);
    }
    mem.seq = at.seq;
    setKey(keyState.ok, at);
    keyStatus();
  }

  document.addEventListener("pbem:updated", restore);
  document.addEventListener("pbem:keys", keyStatus);   /* keys.js: a key was stored */

  function start() {
    if (!panel()) { return; }
    mem.seq = info().seq;
    markBoard();
    keyStatus();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
