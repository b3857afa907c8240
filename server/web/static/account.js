/* The pages that make a browser a player's home: sign up, sign in (recovery kit, or the key
   this browser holds), start a game, join one, settings.  No build step, no inline script.

   Every key operation and every signature is keys.js's (window.pbemKeys): this file only
   reads the forms, calls it, and says what happened in words.  Text from the server or the
   player is shown with textContent only: nothing is parsed as HTML here. */
(function () {
  "use strict";

  function $(id) { return document.getElementById(id); }

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) { e.textContent = text; }
    return e;
  }

  function say(id, text, kind) {
    var p = $(id);
    if (!p) { return; }
    p.textContent = text;
    p.className = "status" + (kind ? " " + kind : "");
  }

  function keys() {
    if (!window.pbemKeys || typeof window.pbemKeys.register !== "function" ||
        !window.crypto || !window.crypto.subtle || !window.indexedDB) {
      throw new Error("this browser cannot keep a signing key (it needs WebCrypto Ed25519 " +
                      "and IndexedDB: a current Chrome, Edge, Firefox or Safari)");
    }
    return window.pbemKeys;
  }

  function signedIn() { return document.body.getAttribute("data-player") || ""; }

  /* the header says who is signed in once a page signed the browser in without a reload */
  function signedInAs(name) {
    document.body.setAttribute("data-player", name);
    var who = document.querySelector("header.top .who");
    if (who && !$("signed-in-as")) {
      who.textContent = "Signed in as ";
      who.appendChild(el("strong", {id: "signed-in-as"}, name));
    }
    var banner = $("key-signin");
    if (banner) { banner.hidden = true; }
  }

  function browserTz() {
    try { return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC"; }
    catch (e) { return "UTC"; }
  }

  function refused(a, what) {
    var e = (a.data && a.data.error) || {};
    var text = e.message || ("the server answered " + a.status);
    if (e.details && e.details.fields) {
      text = Object.keys(e.details.fields).map(function (f) {
        var v = e.details.fields[f];
        return f + ": " + (Array.isArray(v) ? v.join(" ") : (typeof v === "object" ?
          JSON.stringify(v) : String(v)));
      }).join("; ");
    }
    return new Error(what + ": " + text);
  }

  function busy(button, on) { if (button) { button.disabled = on; } }

  // --- sign up -----------------------------------------------------------------------------

  function kitText(name, code) {
    var where = location.origin;
    return ["pbem recovery kit", "", "server: " + where, "player: " + name,
            "recovery code: " + code, "",
            "Keep this file (or a printed copy) apart from your phone and computer.",
            "To sign in again on a new browser, or after this one forgot its data, open",
            where + "/signin and give your name and this code (or this file).",
            "If you lose both your browser's key and this code, nobody can move for you again.",
            ""].join("\n");
  }

  function showKit(name, code) {
    var kit = $("recovery-kit");
    $("recovery-code").textContent = code;
    var link = $("recovery-file"), text = kitText(name, code);
    $("kit-text").textContent = text;  /* what the file holds; what a printout shows */
    var blob = new Blob([text], {type: "text/plain"});
    link.href = URL.createObjectURL(blob);
    link.setAttribute("download", "pbem-recovery-" + name + ".txt");
    kit.hidden = false;
    kit.scrollIntoView({block: "start"});
  }

  function signup(form) {
    var button = $("signup-submit");
    var name = form.elements.name.value.trim();
    var email = form.elements.email.value.trim();
    var tz = form.elements.tz.value.trim() || "UTC";
    busy(button, true);
    say("signup-status", "Making your key in this browser…");
    Promise.resolve().then(function () {
      return keys().register(name, email || null, tz);
    }).then(function (r) {
      showKit(name, r.recovery_code);
      return keys().session(name);
    }).then(function () {
      signedInAs(name);
      $("signup").setAttribute("data-state", "kit");
      say("signup-status", "Signed up as " + name + ", and this browser is signed in.", "ok");
      form.hidden = true;
    }).catch(function (err) {
      say("signup-status", "Not signed up: " + err.message, "bad");
      busy(button, false);
    });
  }

  // --- sign in -------------------------------------------------------------------------------

  function signInAs(name, statusId) {
    return keys().session(name).then(function () {
      say(statusId, "Signed in as " + name + ".", "ok");
      location.reload();
    }, function (err) {
      say(statusId, "Not signed in: " + err.message +
          " (if you restored your key on another browser, this one's key no longer works: " +
          "use your recovery kit)", "bad");
    });
  }

  function heldKeys() {
    var box = $("held-keys"), list = $("held-list");
    if (!box) { return; }
    keys().signers().then(function (names) {
      if (!names.length) { return; }
      box.hidden = false;
      list.textContent = "";
      names.forEach(function (name) {
        var li = el("li");
        if (signedIn() === name) {
          li.appendChild(el("span", {}, name + ": signed in."));
        } else {
          var b = el("button", {type: "button", "class": "primary", "data-name": name},
                     "Sign in as " + name);
          b.addEventListener("click", function () { signInAs(name, "held-status"); });
          li.appendChild(b);
        }
        list.appendChild(li);
      });
      list.appendChild(el("li", {id: "held-status", "class": "status", role: "status"}));
    }).catch(function () {});
  }

  /* the banner of every page when this browser holds a key but has no session */
  function keyBanner() {
    var box = $("key-signin");
    if (!box || signedIn()) { return; }
    var k;
    try { k = keys(); } catch (e) { return; }
    k.signers().then(function (names) {
      if (!names.length) { return; }
      box.textContent = "";
      box.appendChild(el("span", {}, "This browser holds your key" +
                          (names.length > 1 ? "s" : "") + ". "));
      names.forEach(function (name) {
        var b = el("button", {type: "button", "class": "primary"}, "Sign in as " + name);
        b.addEventListener("click", function () { signInAs(name, "key-signin-status"); });
        box.appendChild(b);
        box.appendChild(document.createTextNode(" "));
      });
      box.appendChild(el("span", {id: "key-signin-status", "class": "status", role: "status"}));
      box.hidden = false;
    }).catch(function () {});
  }

  function readFile(input) {
    var file = input && input.files && input.files[0];
    if (!file) { return Promise.resolve(""); }
    if (file.size > 20000) { return Promise.reject(new Error("that file is not a recovery file")); }
    return file.text();
  }

  function restore(form) {
    var button = $("restore-submit");
    var name = form.elements.name.value.trim();
    var typed = form.elements.code.value.trim();
    busy(button, true);
    say("restore-status", "Checking your recovery kit…");
    readFile(form.elements.file).then(function (text) {
      var code = typed;
      if (!code && text) {
        var m = /pbemrc(?:-[a-z0-9]+)+/i.exec(text);
        code = m ? m[0] : "";
        var who = /^player:\s*(\S+)/m.exec(text);
        if (!name && who) { name = who[1]; form.elements.name.value = name; }
      }
      if (!name) { throw new Error("give your name"); }
      if (!code) { throw new Error("give your recovery code, or choose your recovery file"); }
      say("restore-status", "Making a new key for " + name + " in this browser…");
      return keys().restore(name, code);
    }).then(function (r) {
      return keys().session(name).then(function () { return r; });
    }).then(function (r) {
      signedInAs(name);
      var n = r.games.done.length, skipped = r.games.skipped.length;
      var text = "Signed in as " + name + " with a new key. " +
        (n ? "Your key was replaced in " + n + " game" + (n > 1 ? "s" : "") +
         " in progress. " : "") +
        (skipped ? skipped + " game" + (skipped > 1 ? "s" : "") + " could not be updated: " +
         r.games.skipped.map(function (s) { return s.game + " (" + s.why + ")"; }).join(", ") +
         ". " : "") + "Your old key no longer works.";
      say("restore-status", text, "ok");
      form.setAttribute("data-state", "done");
      var go = el("a", {"class": "button primary", href: "/", id: "restore-done"},
                  "Go to the lobby");
      form.appendChild(go);
    }).catch(function (err) {
      say("restore-status", "Not signed in: " + err.message, "bad");
      busy(button, false);
    });
  }

  // --- a new game ----------------------------------------------------------------------------

  function showType(form) {
    var type = form.elements.type.value;
    var sets = form.querySelectorAll("fieldset.options[data-type]");
    for (var i = 0; i < sets.length; i++) {
      var mine = sets[i].getAttribute("data-type") === type;
      sets[i].hidden = !mine;
      sets[i].disabled = !mine;
    }
    var opt = form.elements.type.selectedOptions[0], seats = form.elements.seats;
    var lo = parseInt(opt.getAttribute("data-min"), 10);
    var hi = parseInt(opt.getAttribute("data-max"), 10);
    seats.min = lo; seats.max = hi;
    var n = parseInt(seats.value, 10);
    if (!(n >= lo && n <= hi)) { seats.value = Math.max(lo, Math.min(hi, 2)); }
  }

  function whole(text) {
    return /^[0-9]{1,6}$/.test(text) ? parseInt(text, 10) : null;
  }

  function newGame(form) {
    var button = $("new-submit"), player = form.getAttribute("data-player");
    if (!player) { say("new-status", "Sign up or sign in on this browser first.", "bad"); return; }
    var els = form.elements, options = {};
    var set = form.querySelector('fieldset.options[data-type="' + els.type.value + '"]');
    var inputs = set ? set.querySelectorAll("[name^='option:']") : [];
    for (var i = 0; i < inputs.length; i++) {
      var input = inputs[i], key = input.name.slice(7), kind = input.getAttribute("data-kind");
      if (kind === "bool") { options[key] = input.checked; }
      else if (kind === "int") {
        var v = whole(input.value.trim());
        if (v === null) { say("new-status", key + " must be a whole number", "bad"); return; }
        options[key] = v;
      } else { options[key] = input.value; }
    }
    if (els.on_timeout.value !== "move") { options.on_timeout = els.on_timeout.value; }
    var seats = whole(els.seats.value.trim()), bots = whole(els.bots.value.trim() || "0");
    if (seats === null) { say("new-status", "give the number of players", "bad"); return; }
    var body = {type: els.type.value, seats: seats, options: options, bots: bots || 0,
                bot_level: els.bot_level.value, private: els.private.checked};
    var hours = els.move_hours.value.trim();
    if (hours) {
      if (whole(hours) === null) {
        say("new-status", "the time for a move is a whole number of hours", "bad");
        return;
      }
      body.move_hours = whole(hours);
    }
    busy(button, true);
    say("new-status", "Starting the game…");
    Promise.resolve().then(function () {
      return keys().signedFetch(player, "POST", "/api/games", body);
    }).then(function (a) {
      if (!a.ok) { throw refused(a, "The game was not started"); }
      say("new-status", "Started: game " + a.data.id + ".", "ok");
      location.assign("/g/" + encodeURIComponent(a.data.id));
    }).catch(function (err) {
      say("new-status", err.message.indexOf("The game") === 0 ? err.message :
          "The game was not started: " + err.message, "bad");
      busy(button, false);
    });
  }

  // --- joining -------------------------------------------------------------------------------

  function join(form) {
    var button = $("join-submit"), player = form.getAttribute("data-player");
    var body = {}, invite = form.getAttribute("data-invite");
    if (invite) { body.invite = invite; }
    busy(button, true);
    say("join-status", "Taking a seat…");
    Promise.resolve().then(function () {
      return keys().signedFetch(player, "POST", form.getAttribute("data-join"), body);
    }).then(function (a) {
      if (!a.ok) { throw refused(a, "Not joined"); }
      var mine = a.data.you || [];
      say("join-status", "You hold seat " + mine.join(", ") + ".", "ok");
      location.assign("/g/" + encodeURIComponent(a.data.id));
    }).catch(function (err) {
      say("join-status", err.message.indexOf("Not joined") === 0 ? err.message :
          "Not joined: " + err.message, "bad");
      busy(button, false);
    });
  }

  // --- claiming an offered seat (/seat/TOKEN) --------------------------------------------------

  function claim(form) {
    var button = $("claim-submit"), player = form.getAttribute("data-player");
    busy(button, true);
    say("claim-status", "Claiming the seat…");
    Promise.resolve().then(function () {
      return keys().signedFetch(player, "POST", form.getAttribute("data-claim"), {});
    }).then(function (a) {
      if (!a.ok) { throw refused(a, "Not claimed"); }
      if (a.data.status === "done") {
        say("claim-status", "Seat " + a.data.seat + " is yours.", "ok");
        location.assign("/g/" + encodeURIComponent(a.data.game));
        return;
      }
      say("claim-status", "Claimed: the seat is yours once " + a.data.signer +
          " signs the hand-over.", "ok");
    }).catch(function (err) {
      say("claim-status", err.message.indexOf("Not claimed") === 0 ? err.message :
          "Not claimed: " + err.message, "bad");
      busy(button, false);
    });
  }

  // --- entering a tournament (shared/tournament.py: the entry signs the tournament's id) ---

  function enter(form) {
    var button = $("enter-submit"), player = form.getAttribute("data-player");
    var tid = form.getAttribute("data-tournament");
    busy(button, true);
    say("enter-status", "Entering…");
    Promise.resolve().then(function () {
      return keys().signAs(player, "pbem-tournament-entry-v1\n", function (publicKey) {
        return {tournament: tid, player: player, public_key: publicKey};
      });
    }).then(function (signed) {
      return keys().signedFetch(player, "POST", form.getAttribute("data-join"), signed);
    }).then(function (a) {
      if (!a.ok) { throw refused(a, "Not entered"); }
      say("enter-status", "You have entered (" + a.data.entries.length + " players so far).",
          "ok");
      location.assign("/t/" + encodeURIComponent(tid));
    }).catch(function (err) {
      say("enter-status", err.message.indexOf("Not entered") === 0 ? err.message :
          "Not entered: " + err.message, "bad");
      busy(button, false);
    });
  }

  // --- settings ------------------------------------------------------------------------------

  function hour(select) { return select.value === "" ? null : parseInt(select.value, 10); }

  function settings(form) {
    var button = $("settings-submit"), player = form.getAttribute("data-player");
    var els = form.elements;
    var body = {tz: els.tz.value.trim(), email: els.email.value.trim() || null,
                notify: els.notify.value, quiet_start: hour(els.quiet_start),
                quiet_end: hour(els.quiet_end),
                webhook_url: els.webhook_url.value.trim() || null};
    var days = whole(els.vacation_days.value.trim() || "0");
    if (days === null) {
      say("settings-status", "vacation days are a whole number", "bad");
      return;
    }
    busy(button, true);
    say("settings-status", "Saving…");
    Promise.resolve().then(function () {
      return keys().signedFetch(player, "PATCH", "/api/players/me", body);
    }).then(function (a) {
      if (!a.ok) { throw refused(a, "Not saved"); }
      if (!days) { return a; }
      return keys().signedFetch(player, "POST", "/api/players/me/vacation", {days: days})
        .then(function (v) {
          if (!v.ok) { throw refused(v, "Settings saved, but no vacation taken"); }
          return v;
        });
    }).then(function (a) {
      var left = $("vacation-left");
      if (left && typeof a.data.vacation_days_left === "number") {
        left.textContent = String(a.data.vacation_days_left);
      }
      els.vacation_days.value = "0";
      say("settings-status", "Saved." + (days ? " Vacation until " +
          new Date(a.data.vacation_until).toLocaleString() + "." : ""), "ok");
    }).catch(function (err) {
      var m = err.message;
      say("settings-status", /^(Not saved|Settings saved)/.test(m) ? m : "Not saved: " + m, "bad");
    }).then(function () { busy(button, false); });
  }

  // --- another browser or phone: a one-time link, delegated by this browser's main key -------

  var DAY = 86400;

  function deviceLink(form) {
    var button = $("device-submit"), player = form.getAttribute("data-player");
    var label = form.elements.label.value.trim();
    var days = whole(form.elements.days.value.trim());
    var out = $("device-offer"), link;
    if (!label) {
      say("device-status", "Give the other device a name, like “phone”.", "bad");
      return;
    }
    if (!days || days > 365) { say("device-status", "Give 1 to 365 days.", "bad"); return; }
    busy(button, true);
    say("device-status", "Making a one-time link…");
    Promise.resolve().then(function () {
      return keys().linkStart(player, label);
    }).then(function (l) {
      link = l;
      $("device-url").textContent = l.url;
      out.hidden = false;
      out.setAttribute("data-state", "waiting");
      say("device-status", "Open this link on the other browser or phone (it works once, " +
          "within a few minutes). This page waits for it.");
      return waitForKey(player, l.id);
    }).then(function (seen) {
      $("device-fingerprint-here").textContent = seen.fingerprint;
      out.setAttribute("data-state", "key");
      say("device-status", "The other device made its key. Check that it shows the same " +
          "fingerprint, then confirm.");
      return new Promise(function (resolve, reject) {
        $("device-confirm").hidden = false;
        $("device-confirm-yes").onclick = function () { resolve(seen); };
        $("device-confirm-no").onclick = function () {
          $("device-confirm").hidden = true;
          // cancel the link on the server: the device that posted the key stops waiting
          var said = new Error("you said the fingerprints differ: nothing was delegated, " +
                               "and the link is cancelled");
          keys().linkCancel(player, link.id).then(function () { reject(said); }, function (e) {
            reject(new Error("you said the fingerprints differ: nothing was delegated (the " +
                             "link could not be cancelled: " + e.message + ")"));
          });
        };
      });
    }).then(function (seen) {
      $("device-confirm").hidden = true;
      var notAfter = Math.floor(Date.now() / 1000) + days * DAY;
      return keys().linkDeliver(player, link.id, seen.public_key, label, notAfter);
    }).then(function () {
      out.setAttribute("data-state", "done");
      say("device-status", "Done: “" + label + "” may now play for you for " + days +
          " days.", "ok");
    }).catch(function (err) {
      $("device-confirm").hidden = true;
      if (out) { out.setAttribute("data-state", "failed"); }
      say("device-status", "No device added: " + err.message, "bad");
    }).then(function () { busy(button, false); });
  }

  function waitForKey(player, id) {
    return new Promise(function (resolve, reject) {
      function poll() {
        keys().linkState(player, id).then(function (seen) {
          if (seen.status === "key") { resolve(seen); return; }
          if (seen.status !== "waiting") {
            reject(new Error("the link is " + seen.status + "; make a new one"));
            return;
          }
          setTimeout(poll, 1000);
        }, reject);
      }
      poll();
    });
  }

  // --- moves by mail: a key the server holds, delegated by this browser's main key ----------

  var MAIL_DAYS = 90;

  function mailSwitch(box) {
    var player = box.getAttribute("data-player"), on = box.checked;
    box.disabled = true;
    say("mail-status", on ? "Turning moves by mail on…" : "Turning moves by mail off…");
    Promise.resolve().then(function () {
      return on ? keys().mailOn(player, MAIL_DAYS) : keys().mailOff(player);
    }).then(function (r) {
      if (on) {
        say("mail-status", "Moves by mail are on until " +
            new Date(r.not_after * 1000).toLocaleString() + ": answer a turn notice with " +
            "your move on the first line.", "ok");
      } else {
        say("mail-status", "Moves by mail are off: the server wiped its key." +
            (r.length ? " Not recorded in game " + r.join(", ") + "." : ""), "ok");
      }
    }).catch(function (err) {
      box.checked = !on;
      say("mail-status", "Not changed: " + err.message, "bad");
    }).then(function () { box.disabled = false; });
  }

  // --- wiring --------------------------------------------------------------------------------

  function on(id, fn) {
    var form = $(id);
    if (!form) { return; }
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      try { fn(form); } catch (err) { say(id.replace("-form", "-status"), err.message, "bad"); }
    });
  }

  function start() {
    var tz = document.querySelector("input[data-browser-tz]");
    if (tz) { tz.value = browserTz(); }
    var tzButton = $("set-tz-browser");
    if (tzButton) {
      tzButton.addEventListener("click", function () { $("set-tz").value = browserTz(); });
    }
    if ($("signup-status")) {
      try {
        keys();
        say("signup-status", "");
      } catch (e) { say("signup-status", e.message, "bad"); }
    }
    on("signup-form", signup);
    on("restore-form", restore);
    on("new-game-form", newGame);
    on("join-form", join);
    on("claim-form", claim);
    on("enter-form", enter);
    on("settings-form", settings);
    on("device-form", deviceLink);
    var mailBox = $("set-mail-moves");
    if (mailBox) { mailBox.addEventListener("change", function () { mailSwitch(mailBox); }); }
    var printButton = $("recovery-print");
    if (printButton) { printButton.addEventListener("click", function () { window.print(); }); }
    var type = $("new-type");
    if (type) {
      type.addEventListener("change", function () { showType(type.form); });
      showType(type.form);
    }
    try { heldKeys(); } catch (e) { /* no key support: the forms say so when used */ }
    keyBanner();
  }

  /* for the settings page's other scripts (notices.js): the same words and status lines */
  window.pbemPage = {say: say, el: el, refused: refused, busy: busy, keys: keys};

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
