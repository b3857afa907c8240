"""Device keys by delegation: a player's main key lets another key (a phone's, a browser's)
sign moves for them until a date.

A delegation body is::

    {"player": "ann", "device_key": "<64 hex Ed25519 public key>", "label": "phone",
     "not_after": 1800000000}

The main key signs ``DELEGATION_DOMAIN + canonical_json(body)``; a delegation travels as the
body's four fields plus ``"signature"`` (128 hex digits).  A move envelope made with a device
key carries its delegation in the envelope field ``"delegation"``, and the envelope's
signature is then the device key's (see ``shared.envelope.verify_entry``).  So every
delegated move carries the proof that the seat's key allowed it, and an archive needs no key
but the seats' own to verify offline.

A delegation labelled ``"mail"`` (:data:`MAIL_LABEL`) is a *mail key*: a key the server made
and holds, which the player allowed to sign the moves they send by plain mail (``pbem mail
on``).  Its scope is rules moves only: the table state refuses any table entry it signs
(``shared/table.py``), so the server cannot use it to revoke, rotate, hand over or take back;
and the archive verifier names every move it signed (``shared/archive.py``).

Pure: keys come in as hex or bytes, times as integers; no clock, no random source.
"""

import re

from .envelope import EnvelopeError, canonical_json, public_key_hex, sign, valid_public_key, verify

DELEGATION_DOMAIN = b"pbem-delegation-v1\n"
BODY_FIELDS = ("player", "device_key", "label", "not_after")
FIELDS = BODY_FIELDS + ("signature",)
MAX_LABEL = 40
#: the label of a mail key (the server holds it; it signs rules moves made by mail only)
MAIL_LABEL = "mail"
#: the largest not_after accepted: integers the browser's JSON writes exactly (2**53 - 1)
MAX_NOT_AFTER = 2 ** 53 - 1

_HEX64 = re.compile(r"[0-9a-f]{64}\Z")
_HEX128 = re.compile(r"[0-9a-f]{128}\Z")
#: a player name as the server registers it (server/auth.py)
_PLAYER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{1,31}\Z")
_LABEL = re.compile(r"[^\x00-\x1f\x7f]{1,40}\Z")


class DelegationError(EnvelopeError):
    """A delegation that is malformed or not signed by the key it must be signed by
    (code ``bad_delegation``)."""

    def __init__(self, message, code="bad_delegation"):
        super().__init__(message, code)


def valid_label(label):
    """True when ``label`` is 1 to 40 characters without control characters or outer spaces."""
    return isinstance(label, str) and bool(_LABEL.match(label)) and label == label.strip()


def is_mail_key(delegation):
    """True when ``delegation`` delegates a mail key (its label is :data:`MAIL_LABEL`)."""
    return isinstance(delegation, dict) and delegation.get("label") == MAIL_LABEL


def check_shape(delegation):
    """Check a delegation's fields and types (not its signature); return it.

    Raises DelegationError naming the first fault.
    """
    if not isinstance(delegation, dict):
        raise DelegationError("the delegation must be a JSON object")
    missing = [f for f in FIELDS if f not in delegation]
    if missing:
        raise DelegationError(f"the delegation lacks {', '.join(missing)}")
    extra = sorted(str(k) for k in set(delegation) - set(FIELDS))
    if extra:
        raise DelegationError(f"the delegation has unknown fields: {', '.join(extra)[:80]}")
    player = delegation["player"]
    if not isinstance(player, str) or not _PLAYER.match(player):
        raise DelegationError("the delegation's player is not a player name")
    key = delegation["device_key"]
    if not isinstance(key, str) or not _HEX64.match(key) or not valid_public_key(key):
        raise DelegationError("the delegation's device key is not an Ed25519 public key "
                              "(64 lowercase hex digits)")
    if not valid_label(delegation["label"]):
        raise DelegationError(f"the delegation's label must be 1 to {MAX_LABEL} characters, "
                              "without control characters or spaces at either end")
    not_after = delegation["not_after"]
    if not isinstance(not_after, int) or isinstance(not_after, bool) \
            or not 0 <= not_after <= MAX_NOT_AFTER:
        raise DelegationError("the delegation's not_after must be an integer time (seconds "
                              "since the epoch)")
    signature = delegation["signature"]
    if not isinstance(signature, str) or not _HEX128.match(signature):
        raise DelegationError("the delegation's signature is not 128 lowercase hex digits")
    return delegation


def body_of(delegation):
    """The signed part of a delegation: its four body fields."""
    return {k: delegation[k] for k in BODY_FIELDS}


def delegation_message(body):
    """The bytes the main key signs for a delegation ``body`` (extra keys are ignored)."""
    return DELEGATION_DOMAIN + canonical_json({k: body[k] for k in BODY_FIELDS})


def make_delegation(main_private_key, player, device_key, label, not_after):
    """A delegation of ``device_key`` (hex) for ``player``, signed by ``main_private_key``
    (raw 32 bytes), good until ``not_after`` (unix seconds).  Raises DelegationError."""
    body = {"player": player, "device_key": device_key, "label": label,
            "not_after": not_after}
    delegation = dict(body, signature="0" * 128)
    check_shape(delegation)
    delegation["signature"] = sign(main_private_key, delegation_message(body))
    return delegation


def verify_delegation(delegation, main_key, player=None):
    """Check ``delegation``'s shape and that ``main_key`` (hex) signed it (and, when given,
    that it names ``player``); return it.  Raises DelegationError (``bad_delegation``).

    Time is the caller's to check: compare ``not_after`` with the envelope's ``ts`` (and the
    server with its own clock).
    """
    check_shape(delegation)
    if player is not None and delegation["player"] != player:
        raise DelegationError(f"the delegation is for player {delegation['player'][:40]!r}, "
                              f"not {player[:40]!r}")
    if not isinstance(main_key, str) or not verify(main_key, delegation_message(delegation),
                                                     delegation["signature"]):
        raise DelegationError("the delegation is not signed by the seat's key")
    return delegation


def fingerprint(public_key):
    """A short fingerprint of a public key (hex) for people to compare by eye:
    the first 16 hex digits of its SHA-256, in groups of four (``ab12-cd34-ef56-7890``).

    keys.js computes the same (``pbemKeys.fingerprint``)."""
    import hashlib
    digest = hashlib.sha256(bytes.fromhex(public_key)).hexdigest()[:16]
    return "-".join(digest[i:i + 4] for i in range(0, 16, 4))


def device_public_key(private_key_bytes):
    """The hex public key of a device's raw private key."""
    return public_key_hex(private_key_bytes)
