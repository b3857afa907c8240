/* The settings page's notices: the "notify me on this device" switch (Web Push through the
   service worker /sw.js), the player's chat channels and webhooks (list, add, test,
   remove, a webhook's secret shown once and rotated) and their chat ids (the mentions of a
   game's own channel).

   Every request is signed by this browser's key, as the rest of the page's (keys.js
   signedFetch); the words and status lines are account.js's (window.pbemPage).  Text from
   the server is shown with textContent only. */
(function () {
  "use strict";

  function $(id) { return document.getElementById(id); }
  function page() { return window.pbemPage; }
  function say(id, text, kind) { page().say(id, text, kind); }

  function signed(method, path, body) {
    var player = document.body.getAttribute("data-player");
    return page().keys().signedFetch(player, method, path, body);
  }

  // --- Web Push: this browser's subscription ------------------------------------------------

  function pushSupported() {
    return !!(window.isSecureContext && navigator.serviceWorker && window.PushManager &&
              window.Notification);
  }

  function bytesOf(b64url) {
    var b64 = String(b64url).replace(/-/g, "+").replace(/_/g, "/");
    while (b64.length % 4) { b64 += "="; }
    var bin = atob(b64), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) { out[i] = bin.charCodeAt(i); }
    return out;
  }

  function sameBytes(buffer, bytes) {
    if (!buffer) { return false; }
    var a = new Uint8Array(buffer);
    if (a.length !== bytes.length) { return false; }
    for (var i = 0; i < a.length; i++) { if (a[i] !== bytes[i]) { return false; } }
    return true;
  }

  function worker() {
    return navigator.serviceWorker.register("/sw.js", {scope: "/"}).then(function () {
      return navigator.serviceWorker.ready;
    });
  }

  function currentSubscription() {
    return navigator.serviceWorker.getRegistration("/").then(function (reg) {
      return reg ? reg.pushManager.getSubscription() : null;
    });
  }

  function serverKey() {
    return fetch("/api/push/key", {headers: {Accept: "application/json"}, cache: "no-store"})
      .then(function (r) {
        if (!r.ok) { throw new Error("the server has no push key (it answered " + r.status + ")"); }
        return r.json();
      }).then(function (data) { return bytesOf(data.public_key); });
  }

  function deviceLabel() {
    var ua = navigator.userAgentData;
    var where = (ua && ua.platform) || (/Android|iPhone|iPad|Mac|Windows|Linux/.exec(
      navigator.userAgent) || ["a"])[0];
    return (where + " browser").slice(0, 64);
  }

  /* ask the browser, register the worker, subscribe with the server's VAPID key (a
     subscription made for another key is ended first), hand it to the server */
  function pushOn() {
    var sub;
    return Notification.requestPermission().then(function (answer) {
      if (answer !== "granted") {
        throw new Error(answer === "denied" ? "this browser refuses notices from this site: " +
                        "allow them in its site settings, then try again" :
                        "notices were not allowed");
      }
      return Promise.all([worker(), serverKey()]);
    }).then(function (both) {
      var reg = both[0], key = both[1];
      return reg.pushManager.getSubscription().then(function (old) {
        if (old && sameBytes(old.options && old.options.applicationServerKey, key)) {
          return old;
        }
        return (old ? old.unsubscribe() : Promise.resolve()).then(function () {
          return reg.pushManager.subscribe({userVisibleOnly: true, applicationServerKey: key});
        });
      });
    }).then(function (s) {
      sub = s;
      var body = s.toJSON();
      return signed("POST", "/api/players/me/push",
                    {endpoint: body.endpoint, keys: body.keys, label: deviceLabel()});
    }).then(function (a) {
      if (!a.ok) {
        var err = page().refused(a, "the server did not keep the subscription");
        return sub.unsubscribe().catch(function () {}).then(function () { throw err; });
      }
    });
  }

  function pushOff() {
    return currentSubscription().then(function (sub) {
      if (!sub) { return null; }
      return signed("DELETE", "/api/players/me/push", {endpoint: sub.endpoint})
        .then(function (a) {
          if (!a.ok && a.status !== 404) {  // 404: the server had forgotten it already
            throw page().refused(a, "the server still has the subscription");
          }
          return sub.unsubscribe();
        });
    });
  }

  var ON = "On: this device shows a notice when it is your move.";
  var OFF = "Off: no notices on this device.";

  function initPush(listing) {
    var box = $("set-push");
    if (!box) { return; }
    if (!pushSupported()) {
      say("push-status", "This browser cannot show notices from a site (it needs service " +
          "workers and Web Push).", "bad");
      return;
    }
    if (Notification.permission === "denied") {
      say("push-status", "This browser refuses notices from this site: allow them in its " +
          "site settings, then reload this page.", "bad");
      return;
    }
    /* on only when this browser has a subscription and the server keeps it for this player
       (it lists endpoints cut to 40 characters): a browser's subscription belongs to the
       last player who switched it on here */
    currentSubscription().then(function (sub) {
      if (!sub) { return [false, false]; }
      return listing.then(function (a) {
        var cut = sub.endpoint.slice(0, 40) + "...";
        return [true, a.ok && (a.data.push || []).some(function (p) {
          return p.endpoint === cut;
        })];
      });
    }).then(function (found) {
      box.checked = found[1];
      box.disabled = false;
      $("set-push-label").classList.remove("disabled");
      say("push-status", found[1] ? ON : found[0] ? "Off: this browser's notices go to " +
          "another player, or the server forgot them; switch on to have yours here." : OFF);
    }, function (err) { say("push-status", "Notices cannot be set here: " + err.message, "bad"); });
    box.addEventListener("change", function () {
      var want = box.checked;
      box.disabled = true;
      say("push-status", want ? "Asking this browser for notices…" : "Turning notices off…");
      (want ? pushOn() : pushOff()).then(function () {
        say("push-status", want ? ON : OFF, "ok");
        box.setAttribute("data-state", want ? "on" : "off");
      }, function (err) {
        box.checked = !want;
        box.setAttribute("data-state", "failed");
        say("push-status", (want ? "Not turned on: " : "Not turned off: ") + err.message, "bad");
      }).then(function () { box.disabled = false; });
    });
  }

  // --- chat channels and webhooks -----------------------------------------------------------

  var NAMES = {discord: "Discord", slack: "Slack", matrix: "Matrix", telegram: "Telegram",
               json: "Webhook"};

  function describe(ch) {
    var t = ch.target || {}, parts = [];
    if (ch.kind === "matrix") { parts.push("room " + t.room + " on " + t.homeserver); }
    else if (ch.kind === "telegram") { parts.push("chat " + t.chat_id); }
    else { parts.push(t.url); }
    if (t.mention) { parts.push("mentions " + t.mention); }
    if (ch.game) { parts.push("for game " + ch.game); }
    return parts.join(", ");
  }

  function button(text, action, id) {
    var b = page().el("button", {type: "button", "class": "small-button", "data-action": action,
                                 "data-channel": String(id)}, text);
    return b;
  }

  function render(channels) {
    var list = $("channels-list"), el = page().el;
    list.textContent = "";
    channels.forEach(function (ch) {
      var li = el("li", {"data-channel": String(ch.id), "data-kind": ch.kind,
                         "data-status": ch.status});
      li.appendChild(el("strong", {}, NAMES[ch.kind] || ch.kind));
      li.appendChild(document.createTextNode(" "));
      li.appendChild(el("span", {"class": "target"}, describe(ch)));
      if (ch.status !== "active") {
        li.appendChild(el("span", {"class": "warning"}, " Stopped: " +
                          (ch.stopped_reason || "it kept failing") +
                          " (a test that goes through starts it again)."));
      }
      var actions = el("span", {"class": "actions"});
      actions.appendChild(button("Send a test", "test", ch.id));
      if (ch.kind === "json") { actions.appendChild(button("New secret", "rotate", ch.id)); }
      actions.appendChild(button("Remove", "remove", ch.id));
      li.appendChild(actions);
      li.appendChild(el("p", {"class": "status", id: "channel-" + ch.id + "-status",
                              role: "status"}));
      list.appendChild(li);
    });
    $("channels-empty").hidden = channels.length > 0;
    list.setAttribute("data-loaded", String(channels.length));
  }

  function loadChannels(listing) {
    return (listing || signed("GET", "/api/players/me/channels", null)).then(function (a) {
      if (!a.ok) { throw page().refused(a, "Your channels could not be read"); }
      render(a.data.channels || []);
      showChatIds(a.data.chat_ids || {});
    });
  }

  // --- the player's chat ids (a game's channel mentions them) -------------------------------

  var CHAT_KINDS = ["discord", "slack", "matrix"];

  function showChatIds(ids) {
    var form = $("chat-ids-form");
    if (!form) { return; }
    CHAT_KINDS.forEach(function (k) { form.elements[k].value = ids[k] || ""; });
    form.setAttribute("data-loaded", "yes");
  }

  function saveChatIds(form) {
    var body = {}, button = $("chat-ids-submit");
    CHAT_KINDS.forEach(function (k) { body[k] = form.elements[k].value.trim() || null; });
    page().busy(button, true);
    say("chat-ids-status", "Saving…");
    signed("PUT", "/api/players/me/chat-ids", body).then(function (a) {
      if (!a.ok) { throw page().refused(a, "Not saved"); }
      showChatIds(a.data.chat_ids || {});
      say("chat-ids-status", "Saved.", "ok");
    }).catch(function (err) {
      say("chat-ids-status", /^Not saved/.test(err.message) ? err.message :
          "Not saved: " + err.message, "bad");
    }).then(function () { page().busy(button, false); });
  }

  function showSecret(secret) {
    $("channel-secret").textContent = secret;
    $("channel-secret-box").hidden = false;
    $("channel-secret-box").scrollIntoView({block: "center"});
  }

  function showKind(form) {
    var kind = form.elements.kind.value;
    var sets = form.querySelectorAll("fieldset[data-kind]");
    for (var i = 0; i < sets.length; i++) {
      var mine = sets[i].getAttribute("data-kind") === kind;
      sets[i].hidden = !mine;
      sets[i].disabled = !mine;
    }
  }

  function addChannel(form) {
    var kind = form.elements.kind.value, target = {};
    var set = form.querySelector('fieldset[data-kind="' + kind + '"]');
    var inputs = set.querySelectorAll("input[name]");
    for (var i = 0; i < inputs.length; i++) {
      var v = inputs[i].value.trim();
      if (v) { target[inputs[i].name] = v; }
    }
    var button = $("channel-submit");
    page().busy(button, true);
    say("channel-status", "Adding…");
    signed("POST", "/api/players/me/channels", {kind: kind, target: target}).then(function (a) {
      if (!a.ok) { throw page().refused(a, "Not added"); }
      for (var j = 0; j < inputs.length; j++) { inputs[j].value = ""; }
      say("channel-status", "Added: " + (NAMES[kind] || kind) + ". Send a test to see a " +
          "notice there.", "ok");
      if (a.data.secret) { showSecret(a.data.secret); }
      return loadChannels();
    }).catch(function (err) {
      say("channel-status", /^Not added/.test(err.message) ? err.message :
          "Not added: " + err.message, "bad");
    }).then(function () { page().busy(button, false); });
  }

  function act(b) {
    var id = Number(b.getAttribute("data-channel")), action = b.getAttribute("data-action");
    var status = "channel-" + id + "-status", base = "/api/players/me/channels/" + id;
    if (action === "remove" && b.getAttribute("data-armed") !== "yes") {
      b.setAttribute("data-armed", "yes");
      b.textContent = "Remove it?";
      say(status, "Click again to remove this channel.");
      return;
    }
    b.disabled = true;
    var done;
    if (action === "test") {
      say(status, "Sending a test…");
      done = signed("POST", base + "/test", null).then(function (a) {
        if (!a.ok) { throw page().refused(a, "Not sent"); }
        if (a.data.sent) {
          /* a stopped channel that works again is started anew: the list is redrawn first,
             then the redrawn line says so */
          return loadChannels().then(function () { say(status, "Sent: look for it there.",
                                                        "ok"); });
        }
        say(status, "Not sent: " + a.data.reason, "bad");
      });
    } else if (action === "rotate") {
      done = signed("POST", base + "/secret", null).then(function (a) {
        if (!a.ok) { throw page().refused(a, "No new secret"); }
        showSecret(a.data.secret);
        say(status, "A new secret: the old one signs nothing from now on.", "ok");
      });
    } else {
      done = signed("DELETE", base, null).then(function (a) {
        if (!a.ok) { throw page().refused(a, "Not removed"); }
        say("channel-status", "Removed.", "ok");
        return loadChannels();
      });
    }
    done.catch(function (err) {
      say(status, err.message, "bad");
    }).then(function () { b.disabled = false; });
  }

  function initChannels(listing) {
    var form = $("channel-form");
    if (!form) { return; }
    var kind = form.elements.kind;
    kind.addEventListener("change", function () { showKind(form); });
    showKind(form);
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      try { addChannel(form); } catch (err) { say("channel-status", err.message, "bad"); }
    });
    $("channels-list").addEventListener("click", function (e) {
      var b = e.target.closest("button[data-action]");
      if (b) { act(b); }
    });
    var chat = $("chat-ids-form");
    chat.addEventListener("submit", function (e) {
      e.preventDefault();
      try { saveChatIds(chat); } catch (err) { say("chat-ids-status", err.message, "bad"); }
    });
    $("channel-secret-done").addEventListener("click", function () {
      $("channel-secret").textContent = "";
      $("channel-secret-box").hidden = true;
    });
    loadChannels(listing).catch(function (err) { say("channel-status", err.message, "bad"); });
  }

  function start() {
    if (!page() || !document.body.getAttribute("data-player")) { return; }
    var listing;  // the player's channels and push subscriptions: one request for both
    try { listing = signed("GET", "/api/players/me/channels", null); }
    catch (err) { listing = Promise.reject(err); }
    listing.catch(function () {});
    initPush(listing);
    initChannels(listing);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
