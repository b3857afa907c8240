/* The browser key: an Ed25519 key made here with WebCrypto (not extractable), kept in
 * IndexedDB, delegated by the player's main key through a one-time link
 * (`pbem device add --browser`).  The server never sees the private key.
 *
 * For the page's move builder:
 *   window.pbemKeys.available(gameId, seat) -> Promise<bool>
 *       true when this browser holds a delegated key of the player of `seat`, in force now.
 *   window.pbemKeys.signEnvelope(envObject) -> Promise<{envelope, signature}>
 *       adds the key's delegation (and a nonce and ts when missing), writes the envelope as
 *       canonical JSON (shared/envelope.canonical_json: sorted keys, no spaces, UTF-8,
 *       integers only) and signs "pbem-move-v1\n" + its bytes; POST both to
 *       /api/games/GAME/moves.
 *   window.pbemKeys.signDocument(domain, bodyObject) -> Promise<{body, signature}>
 *       the same for a side document (shared/messages.py: the table talk's messages): the
 *       delegation goes into the body; POST {body, signature}.
 * Also: canonicalJson(obj) -> string, fingerprint(hex) -> Promise<string>, players() ->
 * Promise<[{player, label, device_key, not_after}]>, forget(player) -> Promise.
 *
 * On /device/TOKEN (the link page) it runs the link flow: make a key, store it, post its
 * public key, show its fingerprint, wait for the delegation the player's CLI signs, store it.
 */
(function () {
  "use strict";
  if (window.pbemKeys) { return; }

  var DB_NAME = "pbem-keys";
  var STORE = "keys";
  var MOVE_DOMAIN = "pbem-move-v1\n";
  var enc = new TextEncoder();

  // --- canonical JSON (shared/envelope.canonical_json) ----------------------------------

  function codePointCompare(a, b) {
    // Python sorts str keys by code point; JS's default sort is by UTF-16 unit
    var ia = 0, ib = 0;
    while (ia < a.length && ib < b.length) {
      var ca = a.codePointAt(ia), cb = b.codePointAt(ib);
      if (ca !== cb) { return ca < cb ? -1 : 1; }
      ia += ca > 0xffff ? 2 : 1;
      ib += cb > 0xffff ? 2 : 1;
    }
    return (a.length - ia) - (b.length - ib);
  }

  function wellFormed(s) {
    if (typeof s.isWellFormed === "function") { return s.isWellFormed(); }
    return !/[\ud800-\udbff](?![\udc00-\udfff])|(^|[^\ud800-\udbff])[\udc00-\udfff]/.test(s);
  }

  function canonicalJson(value) {
    if (value === null) { return "null"; }
    if (value === true) { return "true"; }
    if (value === false) { return "false"; }
    if (typeof value === "number") {
      if (!Number.isSafeInteger(value)) {
        throw new Error("numbers must be integers: floats are not canonical");
      }
      return String(value);
    }
    if (typeof value === "string") {
      if (!wellFormed(value)) { throw new Error("the text is not valid Unicode (a lone surrogate)"); }
      return JSON.stringify(value);  // escapes exactly ", \ and U+0000..U+001F, as Python does
    }
    if (Array.isArray(value)) {
      return "[" + value.map(canonicalJson).join(",") + "]";
    }
    if (typeof value === "object") {
      var keys = Object.keys(value).sort(codePointCompare);
      return "{" + keys.map(function (k) {
        return canonicalJson(k) + ":" + canonicalJson(value[k]);
      }).join(",") + "}";
    }
    throw new Error("a " + typeof value + " has no canonical JSON form");
  }

  // --- bytes ----------------------------------------------------------------------------

  function hex(buffer) {
    return Array.prototype.map.call(new Uint8Array(buffer), function (b) {
      return ("0" + b.toString(16)).slice(-2);
    }).join("");
  }

  function unhex(text) {
    var out = new Uint8Array(text.length / 2);
    for (var i = 0; i < out.length; i++) { out[i] = parseInt(text.substr(2 * i, 2), 16); }
    return out;
  }

  function concat(a, b) {
    var out = new Uint8Array(a.length + b.length);
    out.set(a, 0);
    out.set(b, a.length);
    return out;
  }

  function fingerprint(publicKeyHex) {
    return crypto.subtle.digest("SHA-256", unhex(publicKeyHex)).then(function (d) {
      var h = hex(d).slice(0, 16);
      return [h.slice(0, 4), h.slice(4, 8), h.slice(8, 12), h.slice(12, 16)].join("-");
    });
  }

  function randomNonce() {
    var b = new Uint8Array(12);
    crypto.getRandomValues(b);
    return hex(b);
  }

  // --- IndexedDB: one record per player {player, privateKey, publicKey, device_key,
  //     label, delegation}; a key waiting for its delegation is stored as "pending:TOKEN" ---

  function openDb() {
    return new Promise(function (resolve, reject) {
      var req = indexedDB.open(DB_NAME, 1);
      req.onupgradeneeded = function () { req.result.createObjectStore(STORE, {keyPath: "id"}); };
      req.onsuccess = function () { resolve(req.result); };
      req.onerror = function () { reject(req.error); };
    });
  }

  function withStore(mode, fn) {
    return openDb().then(function (db) {
      return new Promise(function (resolve, reject) {
        var tx = db.transaction(STORE, mode);
        var result;
        tx.oncomplete = function () { db.close(); resolve(result); };
        tx.onerror = tx.onabort = function () { db.close(); reject(tx.error); };
        var req = fn(tx.objectStore(STORE));
        if (req) { req.onsuccess = function () { result = req.result; }; }
      });
    });
  }

  function getRecord(id) { return withStore("readonly", function (s) { return s.get(id); }); }
  function putRecord(rec) { return withStore("readwrite", function (s) { return s.put(rec); }); }
  function deleteRecord(id) { return withStore("readwrite", function (s) { return s.delete(id); }); }
  function allRecords() { return withStore("readonly", function (s) { return s.getAll(); }); }

  function nowSeconds() { return Math.floor(Date.now() / 1000); }

  function inForce(rec) {
    return !!(rec && rec.delegation && nowSeconds() <= rec.delegation.not_after);
  }

  // the player who holds `seat` in game `gameId` (public: GET /api/games/ID)
  function seatPlayer(gameId, seat) {
    return fetch("/api/games/" + encodeURIComponent(gameId), {headers: {Accept: "application/json"}})
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (game) {
        var found = game && (game.seats || []).filter(function (s) { return s.seat === seat; })[0];
        return found ? found.player : null;
      });
  }

  function recordFor(gameId, seat) {
    return seatPlayer(gameId, seat).then(function (player) {
      return player ? getRecord("player:" + player) : null;
    });
  }

  function available(gameId, seat) {
    return recordFor(gameId, seat).then(inForce, function () { return false; });
  }

  function signBytes(privateKey, bytes) {
    return crypto.subtle.sign({name: "Ed25519"}, privateKey, bytes).then(hex);
  }

  function signEnvelope(envObject) {
    var env = Object.assign({}, envObject);
    if (env.nonce === undefined) { env.nonce = randomNonce(); }
    if (env.ts === undefined) { env.ts = nowSeconds(); }
    return recordFor(env.game, env.seat).then(function (rec) {
      if (!rec || !rec.delegation) {
        throw new Error("this browser holds no key for seat " + env.seat +
                        ": run pbem device add --browser");
      }
      if (env.ts > rec.delegation.not_after) {
        throw new Error("this browser's delegation has ended: run pbem device add --browser");
      }
      env.delegation = rec.delegation;
      var text = canonicalJson(env);
      return signBytes(rec.privateKey, concat(enc.encode(MOVE_DOMAIN), enc.encode(text)))
        .then(function (signature) { return {envelope: text, signature: signature}; });
    });
  }

  /* A side document (shared/messages.py: a message, an order) signed with this browser's
     key for `body.seat`: its delegation goes into the body (as into a move's envelope) and
     the signature covers `domain` + the body's canonical JSON. */
  function signDocument(domain, bodyObject) {
    var body = Object.assign({}, bodyObject);
    if (body.nonce === undefined) { body.nonce = randomNonce(); }
    if (body.ts === undefined) { body.ts = nowSeconds(); }
    return recordFor(body.game, body.seat).then(function (rec) {
      if (!rec || !rec.delegation) {
        throw new Error("this browser holds no key for seat " + body.seat +
                        ": run pbem device add --browser");
      }
      if (body.ts > rec.delegation.not_after) {
        throw new Error("this browser's delegation has ended: run pbem device add --browser");
      }
      body.delegation = rec.delegation;
      var text = canonicalJson(body);
      return signBytes(rec.privateKey, concat(enc.encode(domain), enc.encode(text)))
        .then(function (signature) { return {body: body, signature: signature}; });
    });
  }

  function players() {
    return allRecords().then(function (recs) {
      return recs.filter(function (r) { return r.delegation; }).map(function (r) {
        return {player: r.player, label: r.delegation.label, device_key: r.device_key,
                not_after: r.delegation.not_after};
      });
    });
  }

  // --- the link page: /device/TOKEN -------------------------------------------------------

  function say(el, text, kind) {
    el.textContent = text;
    el.className = "device-status" + (kind ? " " + kind : "");
  }

  function postJson(url, body) {
    return fetch(url, {method: "POST", headers: {"Content-Type": "application/json",
                                                 Accept: "application/json"},
                       body: JSON.stringify(body)})
      .then(function (r) {
        return r.json().then(function (data) {
          if (!r.ok) { throw new Error((data.error && data.error.message) || ("error " + r.status)); }
          return data;
        });
      });
  }

  function linkFlow(box) {
    var token = box.getAttribute("data-token");
    var player = box.getAttribute("data-player");
    var status = document.getElementById("device-status");
    var fpOut = document.getElementById("device-fingerprint");
    var pendingId = "pending:" + token;
    var keys, publicHex;
    say(status, "Making this browser's key…");
    crypto.subtle.generateKey({name: "Ed25519"}, false, ["sign", "verify"])
      .then(function (kp) {
        keys = kp;
        return crypto.subtle.exportKey("raw", kp.publicKey);  // the public half only
      })
      .then(function (raw) {
        publicHex = hex(raw);
        return putRecord({id: pendingId, player: player, privateKey: keys.privateKey,
                          publicKey: keys.publicKey, device_key: publicHex, delegation: null});
      })
      .then(function () {
        return postJson("/api/device-links/" + encodeURIComponent(token) + "/key",
                        {public_key: publicHex});
      })
      .then(function (answer) {
        return fingerprint(publicHex).then(function (mine) {
          if (mine !== answer.fingerprint) { throw new Error("the server's fingerprint differs"); }
          fpOut.textContent = mine;
          box.setAttribute("data-device-key", publicHex);
          say(status, "Compare this fingerprint with the one your terminal shows, and answer " +
              "yes there. Waiting for the delegation…");
          return waitForDelegation(token);
        });
      })
      .then(function (delegation) {
        if (delegation.device_key !== publicHex || delegation.player !== player) {
          throw new Error("the delegation is not for this browser's key");
        }
        return putRecord({id: "player:" + player, player: player, privateKey: keys.privateKey,
                          publicKey: keys.publicKey, device_key: publicHex,
                          label: delegation.label, delegation: delegation})
          .then(function () { return deleteRecord(pendingId); })
          .then(function () {
            var until = new Date(delegation.not_after * 1000);
            say(status, "Done: this browser may now move for " + player + " (device “" +
                delegation.label + "”) until " + until.toLocaleString() + ".", "ok");
            box.setAttribute("data-state", "done");
          });
      })
      .catch(function (err) {
        say(status, "This browser's key was not delegated: " + err.message, "bad");
        box.setAttribute("data-state", "failed");
        deleteRecord(pendingId).catch(function () {});
      });
  }

  function waitForDelegation(token) {
    return new Promise(function (resolve, reject) {
      function poll() {
        fetch("/api/device-links/" + encodeURIComponent(token) + "/delegation",
              {headers: {Accept: "application/json"}})
          .then(function (r) {
            return r.json().then(function (data) {
              if (!r.ok) { throw new Error((data.error && data.error.message) || ("error " + r.status)); }
              return data;
            });
          })
          .then(function (data) {
            if (data.status === "done") { resolve(data.delegation); } else { setTimeout(poll, 1000); }
          })
          .catch(reject);
      }
      poll();
    });
  }

  window.pbemKeys = {
    available: available,
    signEnvelope: signEnvelope,
    signDocument: signDocument,
    canonicalJson: canonicalJson,
    fingerprint: fingerprint,
    players: players,
    forget: function (player) { return deleteRecord("player:" + player); }
  };

  function start() {
    var box = document.getElementById("device-link");
    if (box && box.getAttribute("data-state") === "ready") { linkFlow(box); }
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
}());
