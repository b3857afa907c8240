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
 *
 * A browser may also be a player's home, holding the player's MAIN key (made here, never
 * extractable, never sent: /signup), as a CLI home holds its key file:
 *   register(name, email, tz) -> Promise<{player, recovery_code}>: makes the main key and a
 *       recovery key (the CLI's recovery code: client/commands_table.py), registers the
 *       public key with the recovery key's certificate (POST /api/players, signed by the new
 *       key, as `pbem register` does).  The recovery code is shown once; it is not kept.
 *   restore(name, code) -> Promise<{player, games}>: a new main key for `name` by its
 *       recovery code (`pbem key rotate --recovery-code`): the proof of
 *       shared.table.key_rotation_message signed by the recovery key, the new key's recovery
 *       certificate, and an `@rotate NEW recovery RPUB CERT` entry in every game in progress.
 *   signedFetch(player, method, path, body) -> Promise<{ok, status, data}>: a signed API
 *       request (server/auth.py: X-Pbem-* headers over shared.envelope.request_message) by
 *       the key this browser holds for `player` (main, or delegated device key).
 *   signAs(player, domain, bodyOf) -> Promise<{public_key, signature}>: domain + the
 *       canonical JSON of bodyOf(public key) signed by that key (a tournament entry).
 *   session(player) -> Promise: the pages' session cookie from that key (POST /api/session).
 *   homes() -> Promise<[name]>: the players whose main key this browser holds.
 *   readRecoveryCode(text) -> Promise<Uint8Array>: the recovery key's 32 bytes (a mistyped
 *       code is refused by its check letters).
 */
(function () {
  "use strict";
  if (window.pbemKeys) { return; }

  var DB_NAME = "pbem-keys";
  var STORE = "keys";
  var MOVE_DOMAIN = "pbem-move-v1\n";
  var REQUEST_DOMAIN = "pbem-request-v1\n";
  var RECOVERY_DOMAIN = "pbem-recovery-v1\n";
  var KEY_ROTATION_DOMAIN = "pbem-key-rotation-v2\n";
  var RECOVERY_PREFIX = "pbemrc";
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

  function isMain(rec) { return !!(rec && rec.kind === "main"); }

  function inForce(rec) {
    return isMain(rec) ||
      !!(rec && rec.delegation && nowSeconds() <= rec.delegation.not_after);
  }

  var NO_KEY = "sign in on this browser first (the Sign in page: your recovery kit, or a " +
    "link from a device that is signed in)";

  function checkUsable(rec, seat, ts) {
    if (!rec || !(isMain(rec) || rec.delegation)) {
      throw new Error("this browser holds no key for seat " + seat + ": " + NO_KEY);
    }
    if (!isMain(rec) && ts > rec.delegation.not_after) {
      throw new Error("this browser's delegation has ended: " + NO_KEY);
    }
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

  /* a main key is usable while it is still the player's key (not rotated away from, on
     another browser or by the CLI); a device key while its delegation is in force */
  function available(gameId, seat) {
    return recordFor(gameId, seat).then(function (rec) {
      if (!isMain(rec)) { return inForce(rec); }
      return fetch("/api/players/" + encodeURIComponent(rec.player),
                   {headers: {Accept: "application/json"}, cache: "no-store"})
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (p) { return !!p && p.public_key === rec.public_key; });
    }).catch(function () { return false; });
  }

  function signBytes(privateKey, bytes) {
    return crypto.subtle.sign({name: "Ed25519"}, privateKey, bytes).then(hex);
  }

  function signEnvelope(envObject) {
    var env = Object.assign({}, envObject);
    if (env.nonce === undefined) { env.nonce = randomNonce(); }
    if (env.ts === undefined) { env.ts = nowSeconds(); }
    return recordFor(env.game, env.seat).then(function (rec) {
      checkUsable(rec, env.seat, env.ts);
      if (!isMain(rec)) { env.delegation = rec.delegation; }
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
      checkUsable(rec, body.seat, body.ts);
      if (!isMain(rec)) { body.delegation = rec.delegation; }
      var text = canonicalJson(body);
      return signBytes(rec.privateKey, concat(enc.encode(domain), enc.encode(text)))
        .then(function (signature) { return {body: body, signature: signature}; });
    });
  }

  /* A document signed by the key this browser holds for `player` (main, or its device key):
     "domain" + the body's canonical JSON, as shared/tournament.py's entries are signed.
     Resolves {public_key, signature}: the key that signed and its signature. */
  function signAs(player, domain, bodyOf) {
    return getRecord("player:" + player).then(function (rec) {
      if (!rec || !(isMain(rec) || rec.delegation)) {
        throw new Error("this browser holds no key for " + player + ": " + NO_KEY);
      }
      var publicKey = isMain(rec) ? rec.public_key : rec.device_key;
      var text = canonicalJson(bodyOf(publicKey));
      return signBytes(rec.privateKey, concat(enc.encode(domain), enc.encode(text)))
        .then(function (signature) { return {public_key: publicKey, signature: signature}; });
    });
  }

  function players() {
    return allRecords().then(function (recs) {
      return recs.filter(function (r) { return r.delegation && !isMain(r); }).map(function (r) {
        return {player: r.player, label: r.delegation.label, device_key: r.device_key,
                not_after: r.delegation.not_after};
      });
    });
  }


  // --- a browser as a player's home: the main key, signed requests, recovery -------------

  function sha256Hex(bytes) {
    return crypto.subtle.digest("SHA-256", bytes).then(hex);
  }

  var B32 = "abcdefghijklmnopqrstuvwxyz234567";

  function base32(bytes) {
    var out = "", bits = 0, value = 0;
    for (var i = 0; i < bytes.length; i++) {
      value = (value << 8) | bytes[i];
      bits += 8;
      while (bits >= 5) { out += B32[(value >>> (bits - 5)) & 31]; bits -= 5; }
    }
    if (bits > 0) { out += B32[(value << (5 - bits)) & 31]; }
    return out;
  }

  function unbase32(text) {
    var out = [], bits = 0, value = 0;
    for (var i = 0; i < text.length; i++) {
      var v = B32.indexOf(text[i]);
      if (v < 0) { return null; }
      value = ((value << 5) | v) & 0xffff;
      bits += 5;
      if (bits >= 8) { out.push((value >>> (bits - 8)) & 255); bits -= 8; }
    }
    return new Uint8Array(out);
  }

  /* four check letters, as client/commands_table.py's _check: a mistyped code is caught */
  function checkLetters(raw) {
    return crypto.subtle.digest("SHA-256", raw).then(function (d) {
      return base32(new Uint8Array(d).slice(0, 5)).slice(0, 4);
    });
  }

  function formatRecoveryCode(raw) {
    return checkLetters(raw).then(function (check) {
      var text = base32(raw), groups = [];
      for (var i = 0; i < text.length; i += 4) { groups.push(text.slice(i, i + 4)); }
      return [RECOVERY_PREFIX].concat(groups, [check]).join("-");
    });
  }

  function readRecoveryCode(code) {
    var words = String(code || "").trim().toLowerCase().replace(/\s+/g, "-").split("-")
      .filter(function (w) { return w; });
    if (words.length < 3 || words[0] !== RECOVERY_PREFIX) {
      return Promise.reject(new Error("that is not a recovery code (they begin with " +
                                      RECOVERY_PREFIX + "-)"));
    }
    var raw = unbase32(words.slice(1, -1).join(""));
    var check = words[words.length - 1];
    if (!raw || raw.length !== 32) {
      return Promise.reject(new Error("the recovery code is mistyped (its check letters do " +
                                      "not match)"));
    }
    return checkLetters(raw).then(function (want) {
      if (want !== check) {
        throw new Error("the recovery code is mistyped (its check letters do not match)");
      }
      return raw;
    });
  }

  /* an Ed25519 private key from its 32 raw bytes (PKCS#8 wrapping), with its public half */
  var PKCS8_PREFIX = [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70,
                      0x04, 0x22, 0x04, 0x20];

  function importSeed(raw) {
    var der = concat(new Uint8Array(PKCS8_PREFIX), raw);
    return crypto.subtle.importKey("pkcs8", der, {name: "Ed25519"}, true, ["sign"])
      .then(function (key) {
        return crypto.subtle.exportKey("jwk", key).then(function (jwk) {
          var b64 = jwk.x.replace(/-/g, "+").replace(/_/g, "/");
          while (b64.length % 4) { b64 += "="; }
          var bin = atob(b64), pub = new Uint8Array(bin.length);
          for (var i = 0; i < bin.length; i++) { pub[i] = bin.charCodeAt(i); }
          return {privateKey: key, publicHex: hex(pub)};
        });
      });
  }

  function newMainKey() {
    var keys;
    return crypto.subtle.generateKey({name: "Ed25519"}, false, ["sign", "verify"])
      .then(function (kp) { keys = kp; return crypto.subtle.exportKey("raw", kp.publicKey); })
      .then(function (raw) {
        return {privateKey: keys.privateKey, publicKey: keys.publicKey, publicHex: hex(raw)};
      });
  }

  function mainRecord(player, key) {
    return {id: "player:" + player, kind: "main", player: player, privateKey: key.privateKey,
            publicKey: key.publicKey, device_key: null, public_key: key.publicHex,
            delegation: null};
  }

  function homes() {
    return allRecords().then(function (recs) {
      return recs.filter(isMain).map(function (r) { return r.player; });
    }, function () { return []; });
  }

  function jsonAnswer(r) {
    return r.json().then(function (data) { return {ok: r.ok, status: r.status, data: data}; },
                         function () { return {ok: r.ok, status: r.status, data: {}}; });
  }

  function failure(a) {
    var e = (a.data && a.data.error) || {};
    var err = new Error(e.message || ("the server answered " + a.status));
    err.code = e.code;
    err.status = a.status;
    return err;
  }

  /* the X-Pbem-* headers of a request signed by `key` (server/auth.py) */
  function requestHeaders(player, key, device, method, path, bodyText) {
    var ts = String(nowSeconds()), n = randomNonce() + randomNonce();
    return sha256Hex(enc.encode(bodyText || "")).then(function (digest) {
      var message = REQUEST_DOMAIN + [method.toUpperCase(), path, ts, n, digest].join("\n");
      return signBytes(key, enc.encode(message));
    }).then(function (signature) {
      var h = {"X-Pbem-Player": player, "X-Pbem-Timestamp": ts, "X-Pbem-Nonce": n,
               "X-Pbem-Signature": signature, Accept: "application/json"};
      if (device) { h["X-Pbem-Device"] = device; }
      if (bodyText) { h["Content-Type"] = "application/json"; }
      return h;
    });
  }

  function fetchSignedBy(player, key, device, method, path, body) {
    var text = body === undefined || body === null ? "" : JSON.stringify(body);
    return requestHeaders(player, key, device, method, path, text).then(function (headers) {
      return fetch(path, {method: method, headers: headers, body: text || undefined,
                          credentials: "same-origin", cache: "no-store"});
    }).then(jsonAnswer);
  }

  function signedFetch(player, method, path, body) {
    return getRecord("player:" + player).then(function (rec) {
      if (!rec || !(isMain(rec) || rec.delegation)) {
        throw new Error("this browser holds no key for " + player + ": " + NO_KEY);
      }
      return fetchSignedBy(player, rec.privateKey, isMain(rec) ? null : rec.device_key,
                           method, path, body);
    });
  }

  function session(player) {
    return signedFetch(player, "POST", "/api/session", null).then(function (a) {
      if (!a.ok) { throw failure(a); }
      return a.data;
    });
  }

  function register(name, email, tz) {
    var key, seed = new Uint8Array(32), recovery, code;
    crypto.getRandomValues(seed);
    return getRecord("player:" + name).then(function (rec) {
      if (isMain(rec)) { throw new Error("this browser already holds " + name + "'s key"); }
      return newMainKey();
    }).then(function (k) {
      key = k;
      return importSeed(seed);
    }).then(function (r) {
      recovery = r;
      return formatRecoveryCode(seed);
    }).then(function (c) {
      code = c;
      var cert = canonicalJson({player: name, recovery_key: recovery.publicHex});
      return signBytes(key.privateKey, enc.encode(RECOVERY_DOMAIN + cert));
    }).then(function (cert) {
      var body = {name: name, public_key: key.publicHex, tz: tz || "UTC",
                  recovery_key: recovery.publicHex, recovery_cert: cert};
      if (email) { body.email = email; }
      return fetchSignedBy(name, key.privateKey, null, "POST", "/api/players", body);
    }).then(function (a) {
      if (!a.ok) { throw failure(a); }
      return putRecord(mainRecord(name, key)).then(function () {
        document.dispatchEvent(new CustomEvent("pbem:keys"));
        return {player: a.data, recovery_code: code};
      });
    });
  }

  /* `@rotate NEW recovery RPUB CERT` in each game in progress where a seat of `name` still
     has a key the recovery key covers (client/commands_table.py rotate_key) */
  function rotateGames(name, key, recovery, certs) {
    var done = [], skipped = [];
    return fetchSignedBy(name, key.privateKey, null, "GET",
                         "/api/games?status=playing&limit=200", null)
      .then(function (a) {
        if (!a.ok) { throw failure(a); }
        return (a.data.games || []).reduce(function (chain, game) {
          return (game.you || []).reduce(function (inner, seat) {
            return inner.then(function () {
              return rotateSeat(name, game.id, seat, key, recovery, certs)
                .then(function (seq) {
                  if (seq !== null) { done.push({game: game.id, seat: seat, seq: seq}); }
                }, function (err) { skipped.push({game: game.id, seat: seat, why: err.message}); });
            });
          }, chain);
        }, Promise.resolve());
      })
      .then(function () { return {done: done, skipped: skipped}; });
  }

  function rotateSeat(name, gameId, seat, key, recovery, certs) {
    var base = "/api/games/" + encodeURIComponent(gameId);
    return fetch(base + "/table", {headers: {Accept: "application/json"}, cache: "no-store"})
      .then(jsonAnswer).then(function (a) {
        if (!a.ok) { throw failure(a); }
        var current = (a.data.keys || {})[seat];
        if (current === key.publicHex) { return null; }
        if (!certs[current]) {
          throw new Error("its key is not one the recovery key covers");
        }
        var text = "@rotate " + key.publicHex + " recovery " + recovery.publicHex + " " +
          certs[current];
        return fetch(base + "/view", {headers: {Accept: "application/json"}, cache: "no-store"})
          .then(jsonAnswer).then(function (v) {
            if (!v.ok) { throw failure(v); }
            var env = {game: gameId, seq: v.data.next_seq, prev: v.data.prev, seat: seat,
                       move: text, nonce: randomNonce(), ts: nowSeconds()};
            var envText = canonicalJson(env);
            return signBytes(recovery.privateKey, concat(enc.encode(MOVE_DOMAIN),
                                                         enc.encode(envText)))
              .then(function (signature) {
                return fetch(base + "/moves", {
                  method: "POST", cache: "no-store",
                  headers: {"Content-Type": "application/json", Accept: "application/json"},
                  body: JSON.stringify({envelope: envText, signature: signature})});
              });
          }).then(jsonAnswer).then(function (m) {
            if (!m.ok) { throw failure(m); }
            return m.data.seq;
          });
      });
  }

  function restore(name, code) {
    var recovery, profile, key, certs;
    return readRecoveryCode(code).then(importSeed).then(function (r) {
      recovery = r;
      return fetch("/api/players/" + encodeURIComponent(name),
                   {headers: {Accept: "application/json"}, cache: "no-store"});
    }).then(jsonAnswer).then(function (a) {
      if (a.status === 404) { throw new Error("no player is registered as " + name); }
      if (!a.ok) { throw failure(a); }
      profile = a.data;
      if (profile.recovery_key !== recovery.publicHex) {
        throw new Error("that recovery code is not the one registered for " + name);
      }
      certs = profile.recovery_certs || {};
      return newMainKey();
    }).then(function (k) {
      key = k;
      var proof = canonicalJson({player: name, old_key: profile.public_key,
                                 public_key: key.publicHex,
                                 rotation: profile.key_rotations || 0});
      return Promise.all([
        signBytes(recovery.privateKey, enc.encode(KEY_ROTATION_DOMAIN + proof)),
        signBytes(key.privateKey, enc.encode(RECOVERY_DOMAIN + canonicalJson(
          {player: name, recovery_key: recovery.publicHex})))]);
    }).then(function (sigs) {
      return fetch("/api/players/" + encodeURIComponent(name) + "/key", {
        method: "POST", cache: "no-store",
        headers: {"Content-Type": "application/json", Accept: "application/json"},
        body: JSON.stringify({public_key: key.publicHex, by: "recovery", proof: sigs[0],
                              recovery_cert: sigs[1]})});
    }).then(jsonAnswer).then(function (a) {
      if (!a.ok) { throw failure(a); }
      return putRecord(mainRecord(name, key));
    }).then(function () {
      document.dispatchEvent(new CustomEvent("pbem:keys"));
      return rotateGames(name, key, recovery, certs);
    }).then(function (games) {
      return {player: name, public_key: key.publicHex, games: games};
    });
  }

  /* Let another browser or phone play for `player`, as `pbem device add --browser` does,
     from this browser's main key (client/commands_devices.py _add_browser):
       linkStart(player, label) -> the one-time link {id, url, expires_at, status}
       linkState(player, id) -> {status: waiting|key|delegated|done|cancelled|expired, ...};
       linkCancel(player, id): the player answered No: the link is cancelled on the server
       linkDeliver(player, id, deviceKey, label, notAfter): the delegation
         (shared/delegation.py: DELEGATION_DOMAIN + canonical JSON of player, device_key,
         label, not_after) signed by the main key, posted for the other browser to fetch. */
  var DELEGATION_DOMAIN = "pbem-delegation-v1\n";

  function mainFor(player, what) {
    return getRecord("player:" + player).then(function (rec) {
      if (!isMain(rec)) {
        throw new Error("only a browser holding " + player + "'s main key (the one signed " +
                        "up or restored here) can " + (what || "let another device play"));
      }
      return rec;
    });
  }

  function linkStart(player, label) {
    return mainFor(player).then(function () {
      return signedFetch(player, "POST", "/api/devices/links", {label: label});
    }).then(function (a) { if (!a.ok) { throw failure(a); } return a.data; });
  }

  function linkState(player, id) {
    return signedFetch(player, "GET", "/api/devices/links/" + Number(id), null)
      .then(function (a) { if (!a.ok) { throw failure(a); } return a.data; });
  }

  function linkCancel(player, id) {
    return signedFetch(player, "POST", "/api/devices/links/" + Number(id) + "/cancel", {})
      .then(function (a) { if (!a.ok) { throw failure(a); } return a.data; });
  }

  function linkDeliver(player, id, deviceKey, label, notAfter) {
    var body = {player: player, device_key: deviceKey, label: label, not_after: notAfter};
    return mainFor(player).then(function (rec) {
      return signBytes(rec.privateKey, enc.encode(DELEGATION_DOMAIN + canonicalJson(body)));
    }).then(function (signature) {
      var delegation = Object.assign({}, body, {signature: signature});
      return signedFetch(player, "POST", "/api/devices/links/" + Number(id) + "/delegation",
                         {delegation: delegation});
    }).then(function (a) { if (!a.ok) { throw failure(a); } return a.data; });
  }

  /* moves by mail (server/game/mailkeys.py): mailOn(player, days) signs, with this
     browser's main key, the delegation of the key the server makes (label "mail");
     mailOff(player) has the server wipe it, then appends "@revoke KEY" signed by the main key
     to each running game of the player (as pbem mail off does); resolves to the games it
     could not record it in. */
  function mailOn(player, days) {
    var made;
    return mainFor(player, "turn moves by mail on").then(function () {
      return signedFetch(player, "POST", "/api/mail/key", {});
    }).then(function (a) {
      if (!a.ok) { throw failure(a); }
      made = a.data;
      if (made.label !== "mail" || made.player !== player) {
        throw new Error("the server's answer is not a mail key of yours: nothing delegated");
      }
      var body = {player: player, device_key: made.device_key, label: "mail",
                  not_after: nowSeconds() + days * 86400};
      return getRecord("player:" + player).then(function (rec) {
        return signBytes(rec.privateKey, enc.encode(DELEGATION_DOMAIN + canonicalJson(body)));
      }).then(function (signature) {
        return signedFetch(player, "POST", "/api/mail/key/delegation",
                           {delegation: Object.assign({}, body, {signature: signature})});
      });
    }).then(function (a) { if (!a.ok) { throw failure(a); } return a.data; });
  }

  function mailOff(player) {
    var keys, missed = [];
    return mainFor(player, "turn moves by mail off").then(function () {
      return signedFetch(player, "POST", "/api/mail/key/revoke", {});
    }).then(function (a) {
      if (!a.ok) { throw failure(a); }
      keys = a.data.revoked || [];
      return signedFetch(player, "GET", "/api/games?status=playing", null);
    }).then(function (a) {
      if (!a.ok) { throw failure(a); }
      var chain = Promise.resolve();
      (a.data.games || []).forEach(function (g) {
        (g.you || []).forEach(function (seat) {
          keys.forEach(function (key) {
            chain = chain.then(function () { return revokeIn(g.id, seat, key); })
              .catch(function () { missed.push(g.id); });
          });
        });
      });
      return chain.then(function () { return missed; });
    });
  }

  function revokeIn(gameId, seat, key) {
    var path = "/api/games/" + encodeURIComponent(gameId);
    return fetch(path + "/view", {headers: {Accept: "application/json"}}).then(jsonAnswer)
      .then(function (a) {
        if (!a.ok) { throw failure(a); }
        return signEnvelope({game: gameId, seq: a.data.next_seq, prev: a.data.prev,
                             seat: seat, move: "@revoke " + key});
      }).then(function (signed) {
        return fetch(path + "/moves", {
          method: "POST", headers: {"Content-Type": "application/json",
                                    Accept: "application/json"},
          body: JSON.stringify(signed)});
      }).then(jsonAnswer).then(function (a) { if (!a.ok) { throw failure(a); } });
  }

  /* the players this browser can sign for now: its main keys and its delegations in force */
  function signers() {
    return allRecords().then(function (recs) {
      return recs.filter(function (r) {
        return r.id.indexOf("player:") === 0 && inForce(r);
      }).map(function (r) { return r.player; });
    }, function () { return []; });
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
    getRecord("player:" + player)
      .then(function (rec) {
        if (isMain(rec)) {
          throw new Error("this browser already holds " + player + "'s main key: it needs " +
                          "no other");
        }
        return crypto.subtle.generateKey({name: "Ed25519"}, false, ["sign", "verify"]);
      })
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
          say(status, "Compare this fingerprint with the one the device that made this " +
              "link shows (your other browser, or your terminal), and confirm there. " +
              "Waiting for its permission…");
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
            document.dispatchEvent(new CustomEvent("pbem:keys"));
            /* the pages' session from the new key, so that this browser is signed in */
            return session(player).catch(function () {});
          })
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
    forget: function (player) { return deleteRecord("player:" + player); },
    homes: homes,
    signers: signers,
    linkStart: linkStart,
    linkState: linkState,
    linkCancel: linkCancel,
    linkDeliver: linkDeliver,
    mailOn: mailOn,
    mailOff: mailOff,
    register: register,
    restore: restore,
    signedFetch: signedFetch,
    signAs: signAs,
    session: session,
    readRecoveryCode: readRecoveryCode,
    formatRecoveryCode: formatRecoveryCode
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
