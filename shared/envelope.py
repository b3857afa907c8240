"""Signed move envelopes, canonical JSON and the hash chain.

An envelope is the JSON object a seat signs to make a move::

    {"game": "g7Hk2", "seq": 12, "prev": "<hex hash of entry 11>",
     "seat": "red", "move": "road 14-22", "nonce": "<random>", "ts": 1764420000}

It travels as its canonical serialisation (sorted keys, no insignificant
white space, UTF-8, integers only) so that the bytes signed are the bytes
stored.  The signature is Ed25519 over a domain prefix and those bytes.
Each log entry's hash covers the envelope and its signature; the envelope
names the previous entry's hash, so the log is a hash chain whose first link
is the hash of the game's header (``genesis_hash``).

Everything here is pure: keys come in as bytes, nothing touches a clock or a
random source.
"""

import hashlib
import json
import re

MOVE_DOMAIN = b"pbem-move-v1\n"
SERVER_MOVE_DOMAIN = b"pbem-server-move-v1\n"
ENTRY_DOMAIN = b"pbem-entry-v1\n"
GENESIS_DOMAIN = b"pbem-genesis-v1\n"
SEED_DOMAIN = b"pbem-seed-commitment-v1\n"
HEAD_DOMAIN = b"pbem-head-v1\n"
START_DOMAIN = b"pbem-start-v1\n"
RUNNING_HEAD_DOMAIN = b"pbem-running-head-v1\n"
FINAL_HEAD_DOMAIN = b"pbem-final-head-v1\n"
REQUEST_DOMAIN = b"pbem-request-v1\n"
DOCUMENTS_DOMAIN = b"pbem-archive-documents-v1\n"

ENVELOPE_FIELDS = ("game", "seq", "prev", "seat", "move", "nonce", "ts")
#: fields an envelope may carry besides ENVELOPE_FIELDS: ``forced`` (a server-signed move),
#: ``delegation`` (a move signed by a device key: its delegation, see shared/delegation.py) and
#: ``order`` (the hash of the standing order a forced entry carries out, shared/orders.py)
OPTIONAL_FIELDS = frozenset({"forced", "delegation", "order"})
MAX_MOVE_LENGTH = 500
_SIGNATURE_TEXT = re.compile(r"[0-9a-fA-F]{128}\Z")
MAX_NONCE_LENGTH = 64


class EnvelopeError(ValueError):
    """An envelope that is malformed, non-canonical or badly signed."""

    def __init__(self, message, code="bad_envelope"):
        super().__init__(message)
        self.message = message
        self.code = code


def _no_floats(text):
    raise EnvelopeError("numbers must be integers: floats are not canonical", "not_canonical")


def _no_constants(text):
    raise EnvelopeError(f"{text} is not valid JSON", "not_canonical")


def canonical_json(obj):
    """The canonical UTF-8 bytes of ``obj``: sorted keys, no spaces, no floats.

    >>> canonical_json({"b": 1, "a": "é"})
    b'{"a":"\\xc3\\xa9","b":1}'
    """
    _reject_floats(obj)
    try:
        return json.dumps(obj, sort_keys=True, separators=(",", ":"),
                          ensure_ascii=False, allow_nan=False).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate ("\ud800") has no UTF-8 form
        raise EnvelopeError("the text is not valid Unicode (a lone surrogate)",
                            "not_canonical") from None


def _reject_floats(obj):
    if isinstance(obj, float):
        raise EnvelopeError("numbers must be integers: floats are not canonical", "not_canonical")
    if isinstance(obj, dict):
        for key, value in obj.items():
            if not isinstance(key, str):
                raise EnvelopeError("object keys must be strings", "not_canonical")
            _reject_floats(value)
    elif isinstance(obj, list):
        for value in obj:
            _reject_floats(value)


def parse_canonical(data):
    """Parse canonical JSON bytes/str; raise EnvelopeError unless canonical."""
    if isinstance(data, str):
        try:
            raw = data.encode("utf-8")
        except UnicodeEncodeError:
            raise EnvelopeError("the envelope is not valid Unicode (a lone surrogate)",
                                "not_canonical") from None
    else:
        raw = bytes(data)
    try:
        obj = json.loads(raw.decode("utf-8"), parse_float=_no_floats,
                         parse_constant=_no_constants)
    except UnicodeDecodeError:
        raise EnvelopeError("the envelope is not UTF-8", "not_canonical") from None
    except json.JSONDecodeError as exc:
        raise EnvelopeError(f"the envelope is not JSON ({exc.msg})", "not_canonical") from None
    except RecursionError:  # "[[[[..." about 1,000 deep: no envelope is nested at all
        raise EnvelopeError("the envelope is nested too deeply", "not_canonical") from None
    if canonical_json(obj) != raw:
        raise EnvelopeError("the envelope is not in canonical form (sorted keys, no spaces, "
                            "UTF-8)", "not_canonical")
    return obj


def sha256_hex(data):
    return hashlib.sha256(data).hexdigest()


def seed_commitment(seed):
    """The public commitment to a game's secret seed (bytes -> hex)."""
    return sha256_hex(SEED_DOMAIN + seed)


def genesis_hash(header):
    """The hash that the first entry's ``prev`` names: it binds the header."""
    return sha256_hex(GENESIS_DOMAIN + canonical_json(header))


def entry_hash(envelope_bytes, signature_hex):
    """The hash of a log entry: envelope bytes and signature."""
    return sha256_hex(ENTRY_DOMAIN + envelope_bytes + b"\n" + signature_hex.encode("ascii"))


def move_entropy(game_id, seq, prev):
    """The entropy mixed into the randomness of move ``seq`` (see shared.rng)."""
    return f"{game_id}|{seq}|{prev}".encode("utf-8")


def validate_envelope(env):
    """Check an envelope's shape; return it.  Raises EnvelopeError."""
    if not isinstance(env, dict):
        raise EnvelopeError("the envelope must be a JSON object")
    missing = [f for f in ENVELOPE_FIELDS if f not in env]
    if missing:
        raise EnvelopeError(f"the envelope lacks {', '.join(missing)}")
    extra = sorted(set(env) - set(ENVELOPE_FIELDS) - OPTIONAL_FIELDS)
    if extra:
        raise EnvelopeError(f"the envelope has unknown fields: {', '.join(extra)}")
    for key in ("game", "prev", "seat", "move", "nonce"):
        if not isinstance(env[key], str):
            raise EnvelopeError(f"envelope field {key} must be a string")
    for key in ("seq", "ts"):
        if not isinstance(env[key], int) or isinstance(env[key], bool) or env[key] < 0:
            raise EnvelopeError(f"envelope field {key} must be a non-negative integer")
    if not env["move"].strip() or len(env["move"]) > MAX_MOVE_LENGTH:
        raise EnvelopeError(f"the move must be 1 to {MAX_MOVE_LENGTH} characters")
    if not env["nonce"] or len(env["nonce"]) > MAX_NONCE_LENGTH:
        raise EnvelopeError(f"the nonce must be 1 to {MAX_NONCE_LENGTH} characters")
    if "forced" in env and env["forced"] is not True:
        raise EnvelopeError("envelope field forced may only be true")
    # --- delegated moves (device keys, shared/delegation.py) ---
    if "delegation" in env:
        if "forced" in env:
            raise EnvelopeError("a forced move is the server's: it carries no delegation")
        from .delegation import check_shape
        check_shape(env["delegation"])
    # --- standing orders (shared/orders.py): a server-signed entry names its order's hash
    if "order" in env and (env.get("forced") is not True or not isinstance(env["order"], str)
                           or len(env["order"]) != 64
                           or env["order"].strip("0123456789abcdef")):
        raise EnvelopeError("envelope field order is a standing order's hash (64 lowercase "
                            "hex digits), on a forced entry only")
    return env


class EntryError(EnvelopeError):
    """A readable envelope whose log entry does not hold: another game, seq or link, a seat
    not in the game, a bad signature or a wrong hash.  Its message names the entry."""


def _entry_fault(subject, code, predicate):
    raise EntryError(f"{subject} {predicate}", code)


def read_envelope(envelope_text):
    """Parse and check one envelope's canonical text; return the envelope.

    Raises EnvelopeError (code ``not_canonical``, ``bad_envelope`` or ``bad_characters``):
    not a string, not canonical JSON, nested too deep, the wrong shape, or a NUL character
    (no move needs one, and no database column stores it).
    """
    if not isinstance(envelope_text, str):
        raise EnvelopeError("the envelope is not a string")
    try:
        env = validate_envelope(parse_canonical(envelope_text))
    except RecursionError:  # "[[[[..." 1,000 deep fits in 2,048 characters
        raise EnvelopeError("the envelope is nested too deeply to be an envelope",
                            "not_canonical") from None
    if any(isinstance(v, str) and "\x00" in v for v in env.values()):
        raise EnvelopeError("the envelope holds a NUL character", "bad_characters")
    return env


def verify_entry(envelope_text, signature, *, game_id=None, seq=None, prev=None,
                 seat_keys=None, server_key=None, forced=None, expected_hash=None,
                 subject="the entry", revoked=()):
    """Verify one log entry (an envelope's text and its signature); return (envelope, hash).

    The one check of a log entry, for the server's append path, the archive verifier and the
    client's log and head checks.  It reads the envelope (:func:`read_envelope`), then checks
    what the caller knows, in this order:

    - ``game_id``: the envelope names this game;
    - ``forced`` (True or False): the envelope is (or is not) a server-signed forced move;
    - ``seq``: the envelope's seq; ``prev``: the hash it links to (the entry before it);
    - ``seat_keys`` ({seat: public key hex}): its seat is in the game and the seat's key, or
      for a forced move ``server_key``, signed it.  An envelope carrying a ``delegation``
      (a device key's move, shared/delegation.py) holds when the seat's key signed the
      delegation, the device key signed the envelope, the envelope's ``ts`` is not past the
      delegation's ``not_after``, and the device key is not in ``revoked`` (device public
      keys revoked at this point of the log);
    - ``expected_hash``: the entry's stated hash is its real hash.

    Raises EnvelopeError for an unreadable envelope, EntryError (``wrong_game``,
    ``forced_reserved``, ``wrong_seq``, ``broken_link``, ``unknown_seat``, ``bad_signature``,
    ``bad_delegation``, ``delegation_expired``, ``device_revoked``, ``wrong_hash``) for an
    entry that does not hold; the message begins with ``subject``.
    """
    env = read_envelope(envelope_text)
    # exactly 128 hex digits: bytes.fromhex would skip white space, and "SIG\n" would verify
    # as SIG while hashing as another entry
    if not isinstance(signature, str) or not _SIGNATURE_TEXT.match(signature):
        raise EntryError(f"{subject} has a bad signature (not 128 hex digits)", "bad_signature")
    if game_id is not None and env["game"] != game_id:
        _entry_fault(subject, "wrong_game", f"belongs to game {env['game'][:40]!r}, not {game_id}")
    is_forced = bool(env.get("forced"))
    if forced is not None and is_forced != forced:
        raise EntryError("only the server may sign a forced move", "forced_reserved")
    if seq is not None and env["seq"] != seq:
        _entry_fault(subject, "wrong_seq", f"carries seq {env['seq']}: entries are missing or "
                     "out of order")
    if prev is not None and env["prev"] != prev:
        _entry_fault(subject, "broken_link", "does not link to the entry before it (hash chain "
                     "broken)")
    raw = envelope_text.encode("utf-8")
    if seat_keys is not None:
        if env["seat"] not in seat_keys:
            _entry_fault(subject, "unknown_seat", f"is signed for seat {env['seat'][:40]!r}, "
                         "which is not in this game")
        key = server_key if is_forced else seat_keys[env["seat"]]
        delegation = env.get("delegation")
        if delegation is not None:
            key = _delegated_key(subject, env, key)
        if key is None or not verify(key, envelope_message(raw, is_forced), signature):
            signer = "the server" if is_forced else f"seat {env['seat']}" + (
                "'s device key" if delegation is not None else "")
            _entry_fault(subject, "bad_signature", f"has a bad signature (not signed by {signer})")
        if delegation is not None:
            _delegation_in_force(subject, env, revoked)
    digest = entry_hash(raw, signature)
    if expected_hash is not None and expected_hash != digest:
        _entry_fault(subject, "wrong_hash", "has a wrong hash")
    return env, digest


def _delegated_key(subject, env, seat_key):
    """The device key of a delegated envelope, once its delegation verifies under the seat's
    key ``seat_key``.  Raises EntryError ``bad_delegation``."""
    from .delegation import DelegationError, verify_delegation
    try:
        verify_delegation(env["delegation"], seat_key)
    except DelegationError as exc:
        _entry_fault(subject, "bad_delegation", f"carries a delegation that does not hold for "
                     f"seat {env['seat']}: {exc.message}")
    return env["delegation"]["device_key"]


def _delegation_in_force(subject, env, revoked):
    """A delegated envelope's time is within its delegation and its device key is not
    revoked.  Raises EntryError ``delegation_expired`` or ``device_revoked``."""
    delegation = env["delegation"]
    if env["ts"] > delegation["not_after"]:
        _entry_fault(subject, "delegation_expired", f"is signed by device "
                     f"{delegation['label']!r} after its delegation ended")
    if revoked and delegation["device_key"] in revoked:
        _entry_fault(subject, "device_revoked", f"is signed by device {delegation['label']!r}, "
                     "whose key the player revoked")


def make_envelope(game, seq, prev, seat, move, nonce, ts, forced=False, delegation=None,
                  order=None):
    env = {"game": game, "seq": seq, "prev": prev, "seat": seat, "move": move,
           "nonce": nonce, "ts": ts}
    if forced:
        env["forced"] = True
    if delegation is not None:
        env["delegation"] = dict(delegation)
    if order is not None:
        env["order"] = order
    return validate_envelope(env)


# --- Ed25519 ------------------------------------------------------------
#
# libsodium (PyNaCl), imported on first use.  It is the reference implementation of RFC
# 8032's Ed25519, and a server worker loads 2 MB for it where cryptography's module (its own
# OpenSSL) costs 7-9 MB; it checks a signature in half the time.  Signatures are
# deterministic: the same key and message give the same bytes as any other Ed25519 library
# (the vectors in shared/vectors and the golden games keep them).  Its check is the strict
# one (it refuses small-order keys and a non-canonical S), so whatever it accepted verifies
# under any other library an archive's reader may use.

def _nacl():
    import nacl.exceptions
    import nacl.signing
    return nacl.signing, nacl.exceptions


_sodium = None


def _lib():
    """libsodium's functions through PyNaCl's own compiled binding (``nacl._sodium``),
    initialised once.  PyNaCl's Python layer (``nacl.bindings`` imports every primitive's
    wrapper, ``nacl.signing`` its encoders) costs a ``pbem`` command ~8 ms of imports for
    three calls; None when this PyNaCl has no such binding, and the public API is used."""
    global _sodium
    if _sodium is None:
        try:
            from nacl._sodium import ffi, lib
            if lib.sodium_init() < 0:  # pragma: no cover - libsodium could not start
                raise ImportError("sodium_init failed")
            lib.crypto_sign, lib.crypto_sign_open, lib.crypto_sign_seed_keypair  # noqa: B018
            _sodium = (ffi, lib)
        except (ImportError, AttributeError):  # pragma: no cover - another PyNaCl layout
            _sodium = False
    return _sodium or None


def _keypair(seed):
    """(public key, libsodium's 64-byte secret key) of a 32-byte seed."""
    ffi, lib = _lib()
    pk = ffi.new("unsigned char[]", 32)
    sk = ffi.new("unsigned char[]", 64)
    if len(seed) != 32 or lib.crypto_sign_seed_keypair(pk, sk, seed) != 0:
        raise ValueError("an Ed25519 private key is 32 bytes")
    return pk, sk


def public_key_hex(private_key_bytes):
    """The hex public key of a raw 32-byte Ed25519 private key."""
    sodium = _lib()
    if sodium is None:  # pragma: no cover - another PyNaCl layout
        signing, _ = _nacl()
        return signing.SigningKey(bytes(private_key_bytes)).verify_key.encode().hex()
    ffi, _ = sodium
    pk, _ = _keypair(bytes(private_key_bytes))
    return ffi.buffer(pk, 32)[:].hex()


def sign(private_key_bytes, message):
    """Ed25519 signature of ``message`` as hex."""
    sodium = _lib()
    if sodium is None:  # pragma: no cover - another PyNaCl layout
        signing, _ = _nacl()
        return signing.SigningKey(bytes(private_key_bytes)).sign(bytes(message)).signature.hex()
    ffi, lib = sodium
    _, sk = _keypair(bytes(private_key_bytes))
    message = bytes(message)
    signed = ffi.new("unsigned char[]", len(message) + 64)  # the signature, then the message
    lib.crypto_sign(signed, ffi.new("unsigned long long *"), message, len(message), sk)
    return ffi.buffer(signed, 64)[:].hex()


def verify(public_key_hex_, message, signature_hex):
    """True when ``signature_hex`` is a valid signature of ``message``."""
    if not isinstance(public_key_hex_, str) or not isinstance(signature_hex, str):
        return False
    try:
        raw = bytes.fromhex(public_key_hex_)
        sig = bytes.fromhex(signature_hex)
        message = bytes(message)
    except (ValueError, TypeError):
        return False
    if len(raw) != 32 or len(sig) != 64:
        return False
    sodium = _lib()
    if sodium is not None:
        # the check PyNaCl's VerifyKey.verify makes: crypto_sign_open of signature + message
        ffi, lib = sodium
        signed = sig + message
        out = ffi.new("unsigned char[]", len(signed))
        return lib.crypto_sign_open(out, ffi.new("unsigned long long *"), signed, len(signed),
                                    raw) == 0
    signing, exceptions = _nacl()  # pragma: no cover - another PyNaCl layout
    try:
        signing.VerifyKey(raw).verify(message, sig)
        return True
    except (exceptions.CryptoError, ValueError, TypeError):
        return False


def valid_public_key(text):
    """True when ``text`` is 64 hex digits: 32 bytes, which is all an Ed25519 public key is
    before a signature is checked against it (a key no signature can match is refused at
    the first one)."""
    if not isinstance(text, str) or len(text) != 64:
        return False
    try:
        return len(bytes.fromhex(text)) == 32
    except ValueError:
        return False


def envelope_message(envelope_bytes, forced=False):
    return (SERVER_MOVE_DOMAIN if forced else MOVE_DOMAIN) + envelope_bytes


def sign_envelope(private_key_bytes, env):
    """(canonical envelope text, hex signature) for an envelope dict."""
    raw = canonical_json(validate_envelope(env))
    return raw.decode("utf-8"), sign(private_key_bytes, envelope_message(raw, env.get("forced")))


def head_message(game_id, length, head_hash):
    """The live head the server signs in every view and log answer (history only grows).

    It says only "the log of this game had this length and this last hash"; it never says
    whether the game was running or over, so an archive never accepts it as its end.
    """
    return HEAD_DOMAIN + canonical_json({"game": game_id, "length": length, "hash": head_hash})


def start_message(game_id, genesis):
    """What the server signs once a game starts and its header is fixed: the game's id and
    its genesis hash (the hash of the header, see :func:`genesis_hash`)."""
    return START_DOMAIN + canonical_json({"game": game_id, "genesis": genesis})


def running_head_message(game_id, length, head_hash):
    """An archive's head while the game is running: ``length`` entries ending at
    ``head_hash``, status "playing".  It proves a prefix, never a whole game."""
    return RUNNING_HEAD_DOMAIN + canonical_json({"game": game_id, "length": length,
                                                 "hash": head_hash, "status": "playing"})


def final_head_message(game_id, length, head_hash, result, seed_hex):
    """An archive's head once the game is over: the length, the last hash, status "over",
    the result and the revealed seed (hex), all under one signature.  Only this message
    makes an archive complete; its domain differs from every other signed message."""
    return FINAL_HEAD_DOMAIN + canonical_json({"game": game_id, "length": length,
                                               "hash": head_hash, "status": "over",
                                               "result": result, "seed": seed_hex})


def documents_digest(messages, orders):
    """The hash of an archive's side documents, in their order: every signed message and
    standing order (and cancellation) as the archive holds them, signatures included."""
    return sha256_hex(DOCUMENTS_DOMAIN + canonical_json({"messages": messages,
                                                         "orders": orders}))


def documents_message(game_id, length, head_hash, status, reader, digest):
    """What the server signs for an archive's side documents (pbem-archive-v4): the set
    exported for ``reader`` (a player's name; None: a spectator's), its digest
    (:func:`documents_digest`), and the log head it was exported at (length, last hash and
    status), so that no message or order is dropped, added or moved unseen, nor the set
    moved to another export."""
    return DOCUMENTS_DOMAIN + canonical_json({"game": game_id, "length": length,
                                              "hash": head_hash, "status": status,
                                              "reader": reader, "digest": digest})


def request_message(method, path, ts, nonce, body):
    """The bytes a signed HTTP request signs: method, path+query, time, nonce, body hash."""
    return REQUEST_DOMAIN + "\n".join(
        [method.upper(), path, str(ts), nonce, sha256_hex(body or b"")]).encode("utf-8")
