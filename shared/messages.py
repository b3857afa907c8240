"""Table talk: signed messages in a game, and the signed documents they share with orders.

A message is a *side document*: signed by the sending seat's player, kept apart from the move
log (never part of the rules' state) and put in the archive (``pbem-archive-v3``).  Its body::

    {"kind": "message", "game": "g7Hk2", "seat": "red", "to": null or "blue",
     "at": 12, "text": "Nice road.", "nonce": "<random>", "ts": 1764420000}

``at`` is the length of the log when it was written (the seq of the next entry): a message is
shown after entry ``at - 1`` and before entry ``at``.  ``to`` names one seat for private press
(only the sender's and that seat's players may read it); null is for the whole table.

Every side document travels as ``{"body": {...}, "signature": hex}``; the signature is Ed25519
over a domain prefix of its own (:data:`MESSAGE_DOMAIN`, and the order domains of
``shared.orders``) and the body's canonical JSON.  A document's hash (:func:`document_hash`)
names it.

Which key signs: the key the table holds for the seat *when the document was written* (at log
length ``at``: the header's key, or the key of the seat's last ``@rotate`` entry before seq
``at``; :class:`KeyHistory`), or a device key of that seat's player.  A device's document
carries its delegation in the body (``"delegation"``: shared/delegation.py, signed by the
seat's key at ``at``), as a device's move carries it in its envelope; it holds while the body's
``ts`` is not past the delegation's ``not_after`` and no ``@revoke`` of the device key came
before seq ``at``.  So a document written after a rotation, or from a device home, verifies
offline with the log alone, and one written before a rotation or a revocation stays valid.

Pure: no clock (``ts`` comes in), no randomness (``nonce`` comes in), no I/O.
"""

import unicodedata

from .envelope import EnvelopeError, canonical_json, sha256_hex, sign, verify

MESSAGE_DOMAIN = b"pbem-message-v1\n"
DOCUMENT_HASH_DOMAIN = b"pbem-document-v1\n"
MESSAGE_FIELDS = ("kind", "game", "seat", "to", "at", "text", "nonce", "ts")
SIGNED_FIELDS = ("body", "signature")
MAX_MESSAGE_LENGTH = 500
MAX_NONCE_LENGTH = 64
MAX_NAME = 40
#: the optional body field of a document a device key signed (shared/delegation.py)
DELEGATION = "delegation"
#: characters that reorder or hide text on a screen (bidirectional overrides and isolates)
_BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")


class DocumentError(ValueError):
    """A side document (message, order, cancellation) that is malformed or badly signed."""

    def __init__(self, message, code="bad_document"):
        super().__init__(message)
        self.message = message
        self.code = code


def check_text(text, limit, what="the message", newlines=True):
    """Refuse text a table cannot show safely; return it.

    It must be a string of 1 to ``limit`` characters that is not only white space and has
    no control character (a newline only where ``newlines``), no lone surrogate and no
    bidirectional override (which would make a screen show another text than was signed).
    Raises DocumentError (``bad_text``).
    """
    if not isinstance(text, str):
        raise DocumentError(f"{what} must be text", "bad_text")
    if not text.strip() or len(text) > limit:
        raise DocumentError(f"{what} must be 1 to {limit} characters", "bad_text")
    for ch in text:
        if ch == "\n" and newlines:
            continue
        category = unicodedata.category(ch)
        if category in ("Cc", "Cs") or ch in _BIDI or ch in "\u2028\u2029":
            raise DocumentError(f"{what} holds a control character ({ch!r}); write plain "
                                "text", "bad_text")
    return text


def printable(text, newlines=False):
    """``text`` with every character a terminal or a mail reader would act on escaped.

    Control characters, bidirectional overrides and (unless ``newlines``) newlines become
    their Python escapes, so a forged archive's text cannot drive a terminal.

    >>> printable("hi\\x1b[31m\\nthere")
    'hi\\\\x1b[31m\\\\nthere'
    """
    out = []
    for ch in str(text):
        if ch == "\n" and newlines:
            out.append(ch)
        elif ch.isprintable() and ch not in _BIDI:
            out.append(ch)
        else:
            out.append(repr(ch)[1:-1] if ch not in _BIDI else f"\\u{ord(ch):04x}")
    return "".join(out)


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def check_common(body, fields, what):
    """The fields every side document has: exact keys (and, from a device, ``delegation``),
    game, seat, at, nonce, ts."""
    if not isinstance(body, dict):
        raise DocumentError(f"{what} must be a JSON object")
    missing = [f for f in fields if f not in body]
    if missing:
        raise DocumentError(f"{what} lacks {', '.join(missing)}")
    if DELEGATION in body:
        from .delegation import DelegationError, check_shape
        try:
            check_shape(body[DELEGATION])
        except DelegationError as exc:
            raise DocumentError(f"{what}: {exc.message}", "bad_delegation") from None
    extra = sorted(set(body) - set(fields) - {DELEGATION})
    if extra:
        raise DocumentError(f"{what} has unknown fields: {', '.join(map(str, extra))[:80]}")
    for key in ("game", "seat", "nonce"):
        if not isinstance(body[key], str) or not body[key] or len(body[key]) > MAX_NAME + 24:
            raise DocumentError(f"{what}'s {key} must be a short string")
    for key in ("at", "ts"):
        if not _is_int(body[key]) or body[key] < 0 or body[key] > 2 ** 53:
            raise DocumentError(f"{what}'s {key} must be a non-negative integer")
    return body


def validate_message(body):
    """Check a message body's shape and text; return it.  Raises DocumentError."""
    check_common(body, MESSAGE_FIELDS, "the message")
    if body["kind"] != "message":
        raise DocumentError("the message's kind must be \"message\"")
    if body["to"] is not None and (not isinstance(body["to"], str) or not body["to"]
                                   or len(body["to"]) > MAX_NAME):
        raise DocumentError("the message's to must be a seat or null")
    if body["to"] == body["seat"]:
        raise DocumentError("a message cannot be addressed to its own sender's seat",
                            "bad_recipient")
    check_text(body["text"], MAX_MESSAGE_LENGTH)
    return body


def with_delegation(body, delegation):
    """``body`` with a device's ``delegation`` in it (unchanged when it is None)."""
    if delegation is not None:
        body[DELEGATION] = dict(delegation)
    return body


def make_message(game, seat, to, at, text, nonce, ts, delegation=None):
    """A checked message body (see the module docstring); ``delegation`` when a device key
    signs it."""
    return validate_message(with_delegation(
        {"kind": "message", "game": game, "seat": seat, "to": to, "at": at, "text": text,
         "nonce": nonce, "ts": ts}, delegation))


def document_message(domain, body):
    """The bytes a side document's signature covers."""
    return domain + canonical_json(body)


def sign_document(private_key, domain, body):
    """``{"body": body, "signature": hex}``, signed with ``private_key`` under ``domain``."""
    return {"body": body, "signature": sign(private_key, document_message(domain, body))}


def document_hash(body):
    """The hex hash that names a side document (its body; the signature is checked apart)."""
    return sha256_hex(DOCUMENT_HASH_DOMAIN + canonical_json(body))


class KeyHistory:
    """The seat keys and revoked device keys a table held along a log, to check a side
    document with the keys of its ``at``.

    Fed by a walk of the log (``shared.table.LogReplay``): :meth:`observe` after each entry
    with the table state it left.  ``keys_at(at)`` is what the table held after entries
    ``0 .. at - 1`` (before entry ``at``).
    """

    def __init__(self, keys, revoked=()):
        # (seq, keys, revoked) after seq; revoked: a frozenset (every seat's) or, from a
        # table state, {seat: frozenset}: the keys its player revoked (shared.table)
        self._points = [(-1, dict(keys), _revocations(None, revoked))]

    @classmethod
    def of_table(cls, table):
        """The history of a table state taken as it stands (the server's, at the head: a
        document it takes is written at the log's length)."""
        return cls(table["keys"], _revocations(table))

    def observe(self, seq, table):
        """Record the table state after entry ``seq`` (kept only when keys or revocations
        changed)."""
        last = self._points[-1]
        revoked = _revocations(table)
        if table["keys"] != last[1] or revoked != last[2]:
            self._points.append((seq, dict(table["keys"]), revoked))

    def revoked_for(self, at, seat):
        """The device keys revoked for ``seat``'s delegations before entry ``at``."""
        revoked = self.at(at)[1]
        return revoked.get(seat, frozenset()) if isinstance(revoked, dict) else revoked

    def seats(self):
        return self._points[0][1]

    def at(self, at):
        """({seat: key}, frozenset of revoked device keys) before entry ``at``."""
        found = self._points[0]
        for point in self._points:
            if point[0] < at:
                found = point
            else:
                break
        return found[1], found[2]


def _revocations(table, revoked=()):
    """{seat: frozenset of the device keys revoked for it} of a table state (shared.table's
    ``revoked_for``), or ``revoked`` as a frozenset when there is no table."""
    if table is None:
        return frozenset(revoked)
    if not table["revoked"]:
        return frozenset()
    from .table import revoked_for
    return {seat: revoked_for(table, seat) for seat in table["keys"]}


def signer_of(body, seat_key, revoked, what="the document"):
    """The public key that must have signed ``body``: the seat's key ``seat_key``, or the
    device key of a delegation that key signed (in force at the body's ``ts``, not revoked).
    Raises DocumentError (``bad_delegation``, ``delegation_expired``, ``device_revoked``)."""
    delegation = body.get(DELEGATION)
    if delegation is None:
        return seat_key
    from .delegation import DelegationError, verify_delegation
    try:
        verify_delegation(delegation, seat_key)
    except DelegationError as exc:
        raise DocumentError(f"{what} carries a delegation that does not hold for seat "
                            f"{body['seat'][:40]} at seq {body['at']}: {exc.message}",
                            "bad_delegation") from None
    if body["ts"] > delegation["not_after"]:
        raise DocumentError(f"{what} is signed by device {delegation['label']!r} after its "
                            "delegation ended", "delegation_expired")
    if delegation["device_key"] in revoked:
        raise DocumentError(f"{what} is signed by device {delegation['label']!r}, revoked "
                            f"before seq {body['at']}", "device_revoked")
    return delegation["device_key"]


def read_signed(doc, validators, seat_keys, game_id=None, length=None, what="the document"):
    """Check one signed side document; return its body.

    ``validators``: {kind: (validate(body), domain)}.  ``seat_keys``: a :class:`KeyHistory`
    (the keys of the body's ``at`` sign), or {seat: public key hex} (those keys, whatever the
    ``at``, and no device revoked); the body's seat must be one of them and its key, or a
    device key it delegated to (see :func:`signer_of`), must have signed.  ``game_id``: the
    game the body must name; ``length``: the log length ``at`` may not pass.  For a message,
    ``to`` must be another seat.  Raises DocumentError.
    """
    history = seat_keys if isinstance(seat_keys, KeyHistory) else KeyHistory(seat_keys)
    seat_keys = history.seats()
    if not isinstance(doc, dict) or set(doc) != set(SIGNED_FIELDS):
        raise DocumentError(f"{what} must be an object with exactly body and signature")
    body, signature = doc["body"], doc["signature"]
    kind = body.get("kind") if isinstance(body, dict) else None
    if not isinstance(kind, str) or kind not in validators:
        raise DocumentError(f"{what}'s kind must be one of {', '.join(validators)}")
    validate, domain = validators[kind]
    try:
        validate(body)
    except EnvelopeError as exc:
        raise DocumentError(f"{what}: {exc.message}") from None
    if game_id is not None and body["game"] != game_id:
        raise DocumentError(f"{what} belongs to game {body['game'][:40]!r}, not {game_id}",
                            "wrong_game")
    if body["seat"] not in seat_keys:
        raise DocumentError(f"{what} is signed for seat {body['seat'][:40]!r}, which is not "
                            "in this game", "unknown_seat")
    if kind == "message" and body["to"] is not None and body["to"] not in seat_keys:
        raise DocumentError(f"{what} is addressed to seat {body['to'][:40]!r}, which is not "
                            "in this game", "bad_recipient")
    if length is not None and body["at"] > length:
        raise DocumentError(f"{what} says it was written at seq {body['at']}, after the log's "
                            f"end ({length})", "bad_at")
    if not isinstance(signature, str) or len(signature) != 128:
        raise DocumentError(f"{what}'s signature is not 128 hex digits", "bad_signature")
    try:
        message = document_message(domain, body)
    except EnvelopeError as exc:
        raise DocumentError(f"{what}: {exc.message}") from None
    keys = history.at(body["at"])[0]
    signer = signer_of(body, keys[body["seat"]], history.revoked_for(body["at"], body["seat"]),
                       what)
    if not verify(signer, message, signature):
        device = " (its device key)" if signer != keys[body["seat"]] else ""
        raise DocumentError(f"{what} has a bad signature (not signed by seat "
                            f"{body['seat']}{device} with its key at seq {body['at']})",
                            "bad_signature")
    return body


MESSAGE_VALIDATORS = {"message": (validate_message, MESSAGE_DOMAIN)}


def read_message(doc, seat_keys, game_id=None, length=None, what="the message"):
    """:func:`read_signed` for a message."""
    return read_signed(doc, MESSAGE_VALIDATORS, seat_keys, game_id, length, what)


def visible_to(body, seats):
    """True when a reader holding ``seats`` (a collection; empty: a spectator) may read the
    message: a public one, or a private one they sent or receive."""
    return body["to"] is None or body["seat"] in seats or body["to"] in seats


def interleave(entries, messages):
    """Log entries and messages in reading order: each message just before entry ``at``.

    ``entries``: dicts with ``seq``; ``messages``: dicts with ``at`` (kept in their order for
    equal ``at``).  Returns [("entry", e) or ("message", m)].
    """
    out, pending = [], sorted(messages, key=lambda m: m["at"])
    i = 0
    for e in entries:
        while i < len(pending) and pending[i]["at"] <= e["seq"]:
            out.append(("message", pending[i]))
            i += 1
        out.append(("entry", e))
    out.extend(("message", m) for m in pending[i:])
    return out
