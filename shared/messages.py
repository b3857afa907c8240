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
``shared.orders``) and the body's canonical JSON, made with the seat's key.  A document's
hash (:func:`document_hash`) names it.

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
    """The fields every side document has: exact keys, game, seat, at, nonce, ts."""
    if not isinstance(body, dict):
        raise DocumentError(f"{what} must be a JSON object")
    missing = [f for f in fields if f not in body]
    if missing:
        raise DocumentError(f"{what} lacks {', '.join(missing)}")
    extra = sorted(set(body) - set(fields))
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


def make_message(game, seat, to, at, text, nonce, ts):
    """A checked message body (see the module docstring)."""
    return validate_message({"kind": "message", "game": game, "seat": seat, "to": to,
                             "at": at, "text": text, "nonce": nonce, "ts": ts})


def document_message(domain, body):
    """The bytes a side document's signature covers."""
    return domain + canonical_json(body)


def sign_document(private_key, domain, body):
    """``{"body": body, "signature": hex}``, signed with ``private_key`` under ``domain``."""
    return {"body": body, "signature": sign(private_key, document_message(domain, body))}


def document_hash(body):
    """The hex hash that names a side document (its body; the signature is checked apart)."""
    return sha256_hex(DOCUMENT_HASH_DOMAIN + canonical_json(body))


def read_signed(doc, validators, seat_keys, game_id=None, length=None, what="the document"):
    """Check one signed side document; return its body.

    ``validators``: {kind: (validate(body), domain)}.  ``seat_keys``: {seat: public key hex};
    the body's seat must be one of them and its key must have signed.  ``game_id``: the game
    the body must name; ``length``: the log length ``at`` may not pass.  For a message, ``to``
    must be another seat of ``seat_keys``.  Raises DocumentError.
    """
    if not isinstance(doc, dict) or set(doc) != set(SIGNED_FIELDS):
        raise DocumentError(f"{what} must be an object with exactly body and signature")
    body, signature = doc["body"], doc["signature"]
    kind = body.get("kind") if isinstance(body, dict) else None
    if kind not in validators:
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
    if not verify(seat_keys[body["seat"]], message, signature):
        raise DocumentError(f"{what} has a bad signature (not signed by seat "
                            f"{body['seat']})", "bad_signature")
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
