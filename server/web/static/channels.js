/* The game's own notice channel from the game page (_channels.html).  No build step, no
   inline script.

   For a player seated in the game: lists the game's channels (GET /api/games/ID/channels),
   sets one (POST, a Discord or Slack webhook address) and removes one (DELETE
   /api/games/ID/channels/CID), every request signed by this browser's key for the player
   (window.pbemKeys.signedFetch, keys.js: the main key, or a device key with its delegation).
   Every text from the server is shown with textContent: nothing is parsed as HTML here. */
(function () {
  "use strict";

  function $(id) { return document.getElementById(id); }

  function say(text, kind) {
    var p = $("game-channel-status");
    p.textContent = text;
    p.className = "status" + (kind ? " " + kind : "");
  }

  function refused(a) {
    var e = (a.data && a.data.error) || {};
    return new Error(e.message || ("the server answered HTTP " + a.status));
  }

  function signed(box, method, path, body) {
    return window.pbemKeys.signedFetch(box.getAttribute("data-player"), method, path, body)
      .then(function (a) { if (!a.ok) { throw refused(a); } return a.data; });
  }

  function where(ch) {
    var t = ch.target || {};
    return t.url || t.homeserver || t.chat_id || "";
  }

  function show(box, channels) {
    var list = $("game-channel-list");
    list.textContent = "";
    channels.forEach(function (ch) {
      var li = document.createElement("li"), text = document.createElement("span");
      var button = document.createElement("button");
      li.setAttribute("data-channel", String(ch.id));
      li.setAttribute("data-kind", ch.kind);
      text.textContent = ch.kind + " " + where(ch) + (ch.status === "active" ? "" :
        " (stopped" + (ch.stopped_reason ? ": " + ch.stopped_reason : "") + ")");
      button.type = "button";
      button.textContent = "Remove";
      button.className = "channel-remove";
      button.addEventListener("click", function () { remove(box, ch.id, button); });
      li.appendChild(text);
      li.appendChild(document.createTextNode(" "));
      li.appendChild(button);
      list.appendChild(li);
    });
    if (!channels.length) {
      var none = document.createElement("li");
      none.className = "hint";
      none.textContent = "No channel yet.";
      list.appendChild(none);
    }
    box.setAttribute("data-loaded", String(channels.length));
  }

  function load(box) {
    return signed(box, "GET", box.getAttribute("data-path"), null).then(function (data) {
      show(box, data.channels || []);
    });
  }

  function remove(box, id, button) {
    button.disabled = true;
    say("Removing channel " + id + "…");
    signed(box, "DELETE", box.getAttribute("data-path") + "/" + Number(id), null)
      .then(function () { return load(box); })
      .then(function () { say("Channel " + id + " removed.", "ok"); })
      .catch(function (err) {
        button.disabled = false;
        say("Not removed: " + err.message, "bad");
      });
  }

  function add(box) {
    var kind = $("game-channel-kind").value, url = $("game-channel-url").value.trim();
    var submit = $("game-channel-submit");
    if (!url) { say("Give the channel's webhook address first.", "bad"); return; }
    submit.disabled = true;
    say("Setting the channel…");
    signed(box, "POST", box.getAttribute("data-path"), {kind: kind, target: {url: url}})
      .then(function (made) {
        $("game-channel-url").value = "";
        return load(box).then(function () {
          say("Channel " + made.id + " (" + made.kind + ") set: each move posts there.", "ok");
        });
      })
      .catch(function (err) { say("Not set: " + err.message, "bad"); })
      .then(function () { submit.disabled = false; });
  }

  function start() {
    var box = $("game-channels");
    if (!box) { return; }
    if (!window.pbemKeys || typeof window.pbemKeys.signedFetch !== "function") { return; }
    box.hidden = false;
    $("game-channel-form").addEventListener("submit", function (e) {
      e.preventDefault();
      add(box);
    });
    load(box).catch(function (err) {
      box.setAttribute("data-loaded", "failed");
      say("The game's channels could not be read: " + err.message, "bad");
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
