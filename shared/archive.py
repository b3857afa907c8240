"""The archive format and its offline verifier.

An archive (format ``pbem-archive-v2``) is one JSON document with exactly these keys::

    {"format": "pbem-archive-v2",
     "header": {"game": id, "type": "zarahemla", "rules_version": "1",
                "options": {...}, "seats": [{"seat", "player", "public_key"}],
                "seed_commitment": hex, "server_key": hex, "created": iso-8601},
     "genesis": hex,                  # genesis_hash(header): what entry 0's prev names
     "start_signature": hex,          # the server's signature of start_message(game, genesis)
     "entries": [{"seq", "envelope": canonical text, "signature": hex, "hash": hex}],
     "head": {"game", "length", "hash", "status": "playing" or "over", "signature"},
     "seed": hex or null,             # revealed when the game is over
     "result": {...} or null}         # the result, when the game is over

An archive of format ``pbem-archive-v3`` has two more keys,
``"messages"`` and ``"orders"``: the signed table talk and standing orders (see the v3 part
below, ``shared/messages.py`` and ``shared/orders.py``); everything else is checked as in v2.
An archive of format ``pbem-archive-v4`` (what the server writes now) has one more key,
``"documents"``: the server's signature of which messages and orders the archive holds, in
their order, and for which reader (see the v4 part below); a v3 archive's report says that its
side documents are those its exporter chose.

Every object has exactly the keys shown (a missing or an unknown key is refused).  The header
is bound from the start: the genesis hash covers it and the server signs ``start_message``
(game id and genesis) once the game starts and its header is fixed.  The head is signed by the
server key named in the header: while the game runs as ``running_head_message`` (length, last
hash, status "playing"); once it is over as ``final_head_message``, which binds the length, the
last hash, status "over", the result and the seed under one signature.  The three messages and
the live head of the API (``head_message``) have distinct domain prefixes, so no signature
stands for another.

Verification has exactly three outcomes (``verify_archive``):

- **complete**: a v2 archive whose final head holds, whose seed matches its commitment and
  whose moves replay, through the rules library, to the game's end with the stated result;
- **a verified prefix**: every check holds, but the archive does not prove a whole game: a
  running game (its running head says how long the log was when the server signed it, not how
  it went on), or an archive of the old format ``pbem-archive-v1``, whose end is not signed
  as final (its chain, its signed head and, when the seed is there, the replay are checked,
  but it is never complete: export the game again for a v2 archive);
- **refused**: ``ArchiveError`` names the first fault and, when it is in an entry, its seq.

Checks, in order: the document's shape and format; the header's keys and types; the server
key, when the caller names the one expected; the genesis hash; the start signature; each
entry in order (keys, seq, canonical envelope, game, seq, link, seat, signature, hash); the
head (keys, game, length and hash against the entries, status, the seed against its
commitment, the result, the signature); then, when the game type is known, its rules version,
options and seats; and, when the seed is revealed, a full replay that must end the game at the
last entry with the stated result.

Table entries (moves beginning with ``@``: takebacks, key rotations, revocations, handovers
to a bot) are checked
by the one replay of ``shared.table``: each entry's signature against the seat keys the table
holds at that point of the log (after ``@rotate`` entries; the header keeps the keys the game
started with), the table's own rules on the chain alone, and, on the full replay, the
takebacks against what the moves revealed (the state is the replay without the moves taken
back).

An archive only proves what the server whose key is in its header signed: someone who
rewrites an archive and re-signs it all with a key of their own makes a consistent archive of
another server.  Pass ``server_key`` (``pbem verify --server-key``) to pin the real one.
"""

import json
import re

from . import IllegalMove
from .delegation import is_mail_key
from .envelope import (
    EntryError,
    EnvelopeError,
    canonical_json,
    documents_digest,
    documents_message,
    final_head_message,
    genesis_hash,
    head_message,
    running_head_message,
    seed_commitment,
    start_message,
    valid_public_key,
    verify,
)
from .games import get_game
from .table import LogReplay, TableError, is_table_move, revoked_for, verify_logged

FORMAT = "pbem-archive-v2"
OLD_FORMAT = "pbem-archive-v1"
HEADER_FIELDS = ("game", "type", "rules_version", "options", "seats", "seed_commitment",
                 "server_key", "created")
SEAT_FIELDS = ("seat", "player", "public_key")
ENTRY_FIELDS = ("seq", "envelope", "signature", "hash")
_TOP_FIELDS = {
    FORMAT: ("format", "header", "genesis", "start_signature", "entries", "head", "seed",
             "result"),
    OLD_FORMAT: ("format", "header", "genesis", "entries", "head", "seed", "result"),
}
_HEAD_FIELDS = {FORMAT: ("game", "length", "hash", "status", "signature"),
                OLD_FORMAT: ("game", "length", "hash", "signature")}
MAX_SEATS = 64
MAX_TEXT = 200

# --- pbem-archive-v3: table talk and standing orders (shared/messages.py, shared/orders.py) ----
# v3 is v2 with two more top-level keys: "messages" (the signed messages the archive's reader
# may read, each {"body", "signature"}) and "orders" (the signed standing orders and their
# cancellations: a seat's own while the game runs, every seat's once it is over).  Every
# document's signature is checked against its seat's key at the document's ``at`` (after
# ``@rotate`` entries; a device's document carries its delegation; shared/messages.py); an
# entry that carries "order" must follow from that order in the replay (with the table state:
# a pending takeback, the moves taken back; shared.orders.check_entry).  v1 and v2 archives hold
# neither, and an entry carrying an order is refused in them.
V3_FORMAT = "pbem-archive-v3"
_TOP_FIELDS[V3_FORMAT] = _TOP_FIELDS[FORMAT] + ("messages", "orders")
_HEAD_FIELDS[V3_FORMAT] = _HEAD_FIELDS[FORMAT]
#: the formats whose start and end the server signs (everything v2 checks, v3 checks too)
SIGNED_FORMATS = (FORMAT, V3_FORMAT)
MAX_DOCUMENTS = 200_000


def _check_side_documents(fmt, archive, header, envelopes, status, keys=None):
    """v3's messages and orders; returns {"messages": [bodies], "orders": OrderBook or None,
    "unseen_orders": entries whose order the archive does not hold (a running game)}.

    ``keys``: the ``shared.messages.KeyHistory`` of the log (each document is checked with
    the keys the table held at its ``at``: after rotations, with delegations, without revoked
    devices); the header's keys when None."""
    from .messages import DocumentError, KeyHistory, document_hash, read_message
    from .orders import OrderBook
    side = {"messages": [], "orders": None, "unseen_orders": 0}
    claimed = [env for env in envelopes if "order" in env]
    if fmt not in SIDE_FORMATS:
        if claimed:
            raise ArchiveError(f"entry {claimed[0]['seq']} carries a standing order, which a "
                               f"{fmt} archive cannot hold", claimed[0]["seq"])
        return side
    if keys is None:
        keys = KeyHistory({s["seat"]: s["public_key"] for s in header["seats"]})
    length = len(envelopes)
    messages, documents = archive["messages"], archive["orders"]
    if not isinstance(messages, list) or not isinstance(documents, list) \
            or len(messages) + len(documents) > MAX_DOCUMENTS:
        raise ArchiveError(f"the archive's messages and orders must be lists (at most "
                           f"{MAX_DOCUMENTS} documents)")
    seen = set()
    try:
        for i, doc in enumerate(messages):
            body = read_message(doc, keys, header["game"], length, f"message {i}")
            digest = document_hash(body)
            if digest in seen:
                raise ArchiveError(f"message {i} appears twice")
            seen.add(digest)
            side["messages"].append(body)
        try:
            game = get_game(header["type"])
        except (KeyError, TypeError):
            game = None
        book = OrderBook(documents, keys, game, header["game"], length)
    except DocumentError as exc:
        raise ArchiveError(exc.message) from None
    for env in claimed:
        where = f"entry {env['seq']}"
        if env["order"] not in book.orders:
            if status == "over":
                raise ArchiveError(f"{where} claims a standing order that is not in the "
                                   "archive", env["seq"])
            side["unseen_orders"] += 1  # another seat's order stays secret while it runs
            continue
        body = book.orders[env["order"]][0]
        if body["seat"] != env["seat"] or not book.active(env["order"], env["seq"]):
            raise ArchiveError(f"{where} claims an order of seat {body['seat']} that was not "
                               f"in force for {env['seat']} at that point", env["seq"])
    side["orders"] = book
    return side
# --- end of the v3 part ----------------------------------------------------------------------

# --- pbem-archive-v4: the server signs the set of side documents -------------------------------
# A v3 archive's messages and orders are each signed by their seat, but nothing signs which of
# them the archive holds: dropping or reordering messages still verified complete.  v4 adds
# one top-level key, "documents": {"reader", "digest", "signature"}: the server's signature
# (shared.envelope.documents_message) of the digest of the ordered messages and orders, of the
# reader they were exported for (a player's name, or null: a spectator's) and of the head
# (length, last hash, status).  A v3 archive still verifies; its report says that its side
# documents are those its exporter chose.
V4_FORMAT = "pbem-archive-v4"
_TOP_FIELDS[V4_FORMAT] = _TOP_FIELDS[V3_FORMAT] + ("documents",)
_HEAD_FIELDS[V4_FORMAT] = _HEAD_FIELDS[FORMAT]
SIGNED_FORMATS = SIGNED_FORMATS + (V4_FORMAT,)
#: the formats that carry messages and orders
SIDE_FORMATS = (V3_FORMAT, V4_FORMAT)
DOCUMENTS_FIELDS = ("reader", "digest", "signature")


def _check_documents_signature(fmt, archive, header, status):
    """v4: the server signed this set of side documents for this head; returns {"signed",
    "reader", "note"} (what the report says of the side documents)."""
    if fmt == V3_FORMAT:
        return {"signed": False, "reader": None,
                "note": f"the messages and standing orders of a {V3_FORMAT} archive are "
                        "those its exporter chose: the server does not sign which ones it "
                        "holds (export the game again for a " + V4_FORMAT + " archive)"}
    if fmt != V4_FORMAT:
        return {"signed": False, "reader": None, "note": None}
    block = archive["documents"]
    _exact_keys(block, DOCUMENTS_FIELDS, "the archive's documents")
    reader = block["reader"]
    if reader is not None and (not isinstance(reader, str) or not reader
                               or len(reader) > MAX_TEXT):
        raise ArchiveError("the archive's documents name no reader (a player's name or null)")
    if not isinstance(block["signature"], str) or not _HEX128.match(block["signature"]):
        raise ArchiveError("the documents' signature is not 128 lowercase hex digits")
    digest = documents_digest(archive["messages"], archive["orders"])
    if block["digest"] != digest:
        raise ArchiveError("the archive's messages or standing orders are not the ones the "
                           "server exported: some were dropped, added, changed or reordered")
    head = archive["head"]
    message = documents_message(header["game"], head["length"], head["hash"], status, reader,
                                digest)
    if not verify(header["server_key"], message, block["signature"]):
        raise ArchiveError("the server's signature of the archive's messages and standing "
                           "orders does not cover this set, its reader and this head")
    return {"signed": True, "reader": reader, "note": None}
# --- end of the v4 part ----------------------------------------------------------------------

_HEX64 = re.compile(r"[0-9a-f]{64}\Z")
_HEX128 = re.compile(r"[0-9a-f]{128}\Z")
# A seat's signature is stored as the server received it; the entry hash covers its exact
# text, so its case cannot change unseen.  Signatures the server makes must be lowercase.
_ENTRY_SIGNATURE = re.compile(r"[0-9a-fA-F]{128}\Z")


class ArchiveError(ValueError):
    """The first fault found in an archive; ``index`` is the entry's seq or None."""

    def __init__(self, message, index=None):
        super().__init__(message)
        self.message = message
        self.index = index


# --- reading ------------------------------------------------------------------------------

def _no_duplicates(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise ArchiveError(f"the file is not an archive: the key {_name(key)} appears "
                               "twice in one object")
        obj[key] = value
    return obj


def _no_float(text):
    raise ArchiveError(f"the file is not an archive: it holds the number {text[:20]}, and an "
                       "archive holds whole numbers only")


def _no_constant(text):
    raise ArchiveError(f"the file is not an archive: {text} is not JSON")


def load_archive(data):
    """Parse an archive file's text (str or bytes) strictly; return the document.

    Refuses with ArchiveError what is not UTF-8 JSON, a key given twice in one object, a
    fraction or NaN, and nesting too deep to read.  It does not verify: see
    :func:`verify_archive`.
    """
    try:
        text = data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data
        archive = json.loads(text, object_pairs_hook=_no_duplicates, parse_float=_no_float,
                             parse_constant=_no_constant)
        json.dumps(archive, ensure_ascii=False).encode("utf-8")  # no lone surrogate ("\ud800")
        return archive
    except UnicodeEncodeError:
        raise ArchiveError("the file is not an archive: it holds text that is not valid "
                           "Unicode (a lone surrogate)") from None
    except UnicodeDecodeError:
        raise ArchiveError("the file is not an archive: it is not UTF-8 text") from None
    except RecursionError:
        raise ArchiveError("the file is not an archive: it is nested too deeply") from None
    except ArchiveError:
        raise
    except ValueError as exc:
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)[:80]
        raise ArchiveError(f"the file is not an archive: it is not JSON ({reason})") from None


# --- the shape of the document ---------------------------------------------------------------

def _name(key):
    """A key or value from the file, quoted and cut short (it may be anything)."""
    try:
        text = repr(key)
    except ValueError:  # an int too long to print
        return "a huge number"
    return text if len(text) <= 40 else text[:37] + "..."


def _exact_keys(obj, expected, what, index=None):
    if not isinstance(obj, dict):
        raise ArchiveError(f"{what} is not a JSON object", index)
    missing = [k for k in expected if k not in obj]
    unknown = sorted(k for k in obj if k not in expected)
    faults = []
    if missing:
        faults.append("lacks " + ", ".join(missing))
    if unknown:
        faults.append("has unknown keys " + ", ".join(_name(k) for k in unknown[:3])
                      + (" ..." if len(unknown) > 3 else ""))
    if faults:
        raise ArchiveError(f"{what} {' and '.join(faults)}", index)


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _text(obj, key, what):
    value = obj[key]
    if not isinstance(value, str) or not value or len(value) > MAX_TEXT:
        raise ArchiveError(f"{what}'s {key} must be a string of 1 to {MAX_TEXT} characters")
    return value


def _check_format(archive):
    if not isinstance(archive, dict):
        raise ArchiveError("this is not a pbem archive: the file holds no JSON object")
    fmt = archive.get("format")
    if not isinstance(fmt, str) or fmt not in _TOP_FIELDS:
        raise ArchiveError(f"this is not a pbem archive: its format is {_name(fmt)}, not "
                           f"{V4_FORMAT} (or the older {V3_FORMAT}, {FORMAT} or "
                           f"{OLD_FORMAT})")
    _exact_keys(archive, _TOP_FIELDS[fmt], "the archive")
    return fmt


def _check_header(header):
    _exact_keys(header, HEADER_FIELDS, "the header")
    for key in ("game", "type", "rules_version", "created"):
        _text(header, key, "the header")
    options = header["options"]
    if not isinstance(options, dict) or not all(
            isinstance(v, (str, int)) or v is None for v in options.values()):
        raise ArchiveError("the header's options must be an object of strings, whole "
                           "numbers, true/false or null")
    seats = header["seats"]
    if not isinstance(seats, list) or not 1 <= len(seats) <= MAX_SEATS:
        raise ArchiveError(f"the header's seats must be a list of 1 to {MAX_SEATS} seats")
    for i, seat in enumerate(seats):
        what = f"seat {i} of the header"
        _exact_keys(seat, SEAT_FIELDS, what)
        _text(seat, "seat", what)
        _text(seat, "player", what)
        if not isinstance(seat["public_key"], str) or not _HEX64.match(seat["public_key"]) \
                or not valid_public_key(seat["public_key"]):
            raise ArchiveError(f"{what} has no valid public key (64 lowercase hex digits)")
    names = [s["seat"] for s in seats]
    if len(set(names)) != len(names):
        raise ArchiveError("the header names a seat twice")
    if not isinstance(header["seed_commitment"], str) \
            or not _HEX64.match(header["seed_commitment"]):
        raise ArchiveError("the header's seed commitment is not 64 lowercase hex digits")
    if not isinstance(header["server_key"], str) or not _HEX64.match(header["server_key"]) \
            or not valid_public_key(header["server_key"]):
        raise ArchiveError("the header's server key is not a valid public key (64 lowercase "
                           "hex digits)")
    return header


def _check_entries(archive, header, prev, keys=None):
    """Check every entry in order; return (envelopes, hash of the last entry or genesis).

    ``keys`` (a ``shared.messages.KeyHistory``) records the keys the table holds after each
    entry, for the side documents."""
    entries = archive["entries"]
    if not isinstance(entries, list):
        raise ArchiveError("the archive's entries are not a list")
    # the keys each entry is checked against are the table's at that point of the log (a
    # rotation changes a seat's key, a revocation retires a device key): shared/table.py
    table = LogReplay(None, header)
    envelopes = []
    for index, entry in enumerate(entries):
        where = f"entry {index}"
        _exact_keys(entry, ENTRY_FIELDS, where, index)
        if not _is_int(entry["seq"]) or entry["seq"] != index:
            raise ArchiveError(f"{where} carries seq {_name(entry['seq'])}: entries are "
                               "missing or out of order", index)
        if not isinstance(entry["envelope"], str):
            raise ArchiveError(f"{where}'s envelope is not a string", index)
        if not isinstance(entry["signature"], str) \
                or not _ENTRY_SIGNATURE.match(entry["signature"]):
            raise ArchiveError(f"{where}'s signature is not 128 hex digits", index)
        if not isinstance(entry["hash"], str) or not _HEX64.match(entry["hash"]):
            raise ArchiveError(f"{where}'s hash is not 64 lowercase hex digits", index)
        try:
            env, digest = verify_logged(table.table, entry["envelope"], entry["signature"],
                                        game_id=header["game"], seq=index, prev=prev,
                                        server_key=header["server_key"],
                                        expected_hash=entry["hash"], subject=where)
        except EntryError as exc:
            raise ArchiveError(exc.message, index) from None
        except EnvelopeError as exc:
            raise ArchiveError(f"{where}: {exc.message}", index) from None
        try:
            table.step(env)  # the table only (no seed here): keys, revocations, takebacks
        except TableError as exc:
            raise ArchiveError(f"{where} ({env['seat'][:40]}: {env['move'][:60]}) is refused: "
                               f"{exc.message}", index) from None
        if keys is not None:
            keys.observe(index, table.table)
        prev = digest
        envelopes.append(env)
    return envelopes, prev


def _head_message(fmt, header, head, archive):
    """The message the head's signature must cover (and the head's status)."""
    game_id = header["game"]
    if fmt == OLD_FORMAT:
        return head_message(game_id, head["length"], head["hash"]), None
    status = head["status"]
    if status == "playing":
        if archive["seed"] is not None or archive["result"] is not None:
            raise ArchiveError("the head says the game is running, but the archive carries a "
                               "seed or a result")
        return running_head_message(game_id, head["length"], head["hash"]), status
    if status == "over":
        seed, result = archive["seed"], archive["result"]
        if not isinstance(seed, str) or not _HEX64.match(seed):
            raise ArchiveError("the head says the game is over, but the archive reveals no "
                               "seed (64 lowercase hex digits)")
        if seed_commitment(bytes.fromhex(seed)) != header["seed_commitment"]:
            raise ArchiveError("the revealed seed does not match its commitment")
        if not isinstance(result, dict):
            raise ArchiveError("the head says the game is over, but the archive states no "
                               "result")
        try:
            message = final_head_message(game_id, head["length"], head["hash"], result, seed)
        except (EnvelopeError, RecursionError, ValueError):
            raise ArchiveError("the archive's result cannot be written as canonical JSON") \
                from None
        return message, status
    raise ArchiveError(f"the head's status is {_name(status)}, not playing or over")


def _check_head(fmt, archive, header, length, last):
    head = archive["head"]
    _exact_keys(head, _HEAD_FIELDS[fmt], "the head")
    if head["game"] != header["game"]:
        raise ArchiveError(f"the head is for game {_name(head['game'])}, not "
                           f"{header['game']}")
    if not _is_int(head["length"]) or not isinstance(head["hash"], str):
        raise ArchiveError("the head's length or hash is malformed")
    if head["length"] != length or head["hash"] != last:
        raise ArchiveError(f"the signed head (length {head['length']}) does not match the "
                           f"{length} entries: entries were added or removed")
    if not isinstance(head["signature"], str) or not _HEX128.match(head["signature"]):
        raise ArchiveError("the head's signature is not 128 lowercase hex digits")
    message, status = _head_message(fmt, header, head, archive)
    if not verify(header["server_key"], message, head["signature"]):
        if status == "over":
            raise ArchiveError("the final head's server signature does not cover this length, "
                               "last hash, result and seed")
        raise ArchiveError("the head's server signature is bad")
    return status


def _check_document(archive, server_key=None):
    """Everything but the replay; returns (format, status, envelopes)."""
    try:
        return _check_all(archive, server_key)
    except RecursionError:
        raise ArchiveError("the archive is nested too deeply") from None
    except ArchiveError:
        raise
    except EnvelopeError as exc:  # the header or the result has no canonical form
        raise ArchiveError(f"the archive cannot be written as canonical JSON: {exc.message}") \
            from None
    except ValueError:  # only from a caller's objects: an int too long to write, say
        raise ArchiveError("the archive holds a value that cannot be written as JSON") from None


def _check_all(archive, server_key):
    fmt = _check_format(archive)
    header = _check_header(archive["header"])
    if server_key is not None and header["server_key"] != server_key:
        raise ArchiveError(f"the archive is signed by server key {header['server_key'][:16]}..., "
                           f"not by the expected key {str(server_key)[:16]}...")
    genesis = genesis_hash(header)
    if archive["genesis"] != genesis:
        raise ArchiveError("the genesis hash does not match the header: the header was altered")
    if fmt in SIGNED_FORMATS:
        signature = archive["start_signature"]
        if not isinstance(signature, str) or not _HEX128.match(signature) or not verify(
                header["server_key"], start_message(header["game"], genesis), signature):
            raise ArchiveError("the server's start signature does not cover this header: it is "
                               "not the header the game started with")
    from .messages import KeyHistory
    keys = KeyHistory({s["seat"]: s["public_key"] for s in header["seats"]})
    envelopes, last = _check_entries(archive, header, genesis, keys)
    status = _check_head(fmt, archive, header, len(envelopes), last)
    side = _check_side_documents(fmt, archive, header, envelopes, status, keys)
    side["documents"] = _check_documents_signature(fmt, archive, header, status)
    return fmt, status, envelopes, side


def check_chain(archive, server_key=None):
    """Check shape, header, start, links, signatures and the signed head; return the envelopes.

    The replay is left out (see :func:`verify_archive`).  Raises ArchiveError at the first
    fault.
    """
    return _check_document(archive, server_key)[2]


# --- the replay ------------------------------------------------------------------------------

def _broke(exc):
    return f"{exc.__class__.__name__}: {str(exc)[:80]}"


def replay(game, header, seed, envelopes, upto=None, orders=None):
    """Replay ``envelopes`` from a fresh game; return the state (see :func:`replay_log`)."""
    return replay_log(game, header, seed, envelopes, upto, orders).state


def replay_log(game, header, seed, envelopes, upto=None, orders=None):
    """Replay ``envelopes`` from a fresh game; return the ``shared.table.LogReplay`` (the
    rules' state and the table state: keys, takebacks).

    ``orders`` (a ``shared.orders.OrderBook``): each entry that carries a standing order must
    follow from it at its point of the replay (``shared.orders.check_entry``).

    Raises ArchiveError when the game cannot be set up from the header, or an entry is out of
    turn, illegal, a table entry that may not be made then, breaks the rules library
    (whatever the library raised, named), or does not follow from the standing order it
    claims.
    """
    try:
        log = LogReplay(game, header, seed)
    except IllegalMove as exc:
        raise ArchiveError(f"the game cannot be set up from the header: {exc.message}") from None
    except Exception as exc:  # noqa: BLE001 - hostile headers must end in an ArchiveError
        raise ArchiveError(f"the game cannot be set up from the header ({_broke(exc)})") \
            from None
    for index, env in enumerate(envelopes[:upto]):
        seat, seq = env["seat"], env["seq"]
        where = f"entry {seq} ({seat}: {env['move'][:60]})"
        try:
            if orders is not None and "order" in env:  # v3: a standing order's entry
                _check_order_entry(game, log.state, log.table, env, orders,
                                   envelopes[:index], where)
                _check_order_holder(log.table, env, orders, where)
            if not is_table_move(env["move"]) and not log.pending() \
                    and seat not in game.to_act(log.state):
                raise ArchiveError(f"{where} was played out of turn", seq)
            log.step(env)
        except ArchiveError:
            raise
        except TableError as exc:
            raise ArchiveError(f"{where} is refused: {exc.message}", seq) from None
        except IllegalMove as exc:
            raise ArchiveError(f"{where} is illegal: {exc.message}", seq) from None
        except Exception as exc:  # noqa: BLE001 - a signed but hostile move must not crash
            raise ArchiveError(f"{where} breaks the rules library ({_broke(exc)})", seq) \
                from None
    return log


def _check_order_entry(game, state, table, env, orders, history, where):
    from .orders import OrderError, check_entry
    try:
        check_entry(game, state, env, orders, history, table)
    except OrderError as exc:
        raise ArchiveError(f"{where} {exc.message}", env["seq"]) from None


def _check_order_holder(table, env, orders, where):
    """An order made before its seat was handed to a bot (``@handover``) is its old player's:
    it makes no entry after the handover."""
    handed = (table.get("handed") or {}).get(env["seat"])
    found = orders.orders.get(env["order"])
    if handed is not None and found is not None and found[0]["at"] <= handed:
        raise ArchiveError(f"{where} claims a standing order written before {env['seat']} was "
                           f"handed to a bot at entry {handed}: a handover ends the seat's "
                           "orders", env["seq"])
    # an order a device signed ends when its player revokes that device (@revoke)
    delegation = found[0].get("delegation") if found is not None else None
    if delegation is not None and delegation["device_key"] in revoked_for(table, env["seat"]):
        raise ArchiveError(f"{where} claims a standing order signed by device "
                           f"{delegation['label']!r}, which its player revoked before this "
                           "entry: revoking a device ends the orders it signed", env["seq"])


def _check_setup(game, header):
    """The header sets up a game this library can play: rules version, options, seats."""
    version = header["rules_version"]
    if version not in game.rules_versions:
        raise ArchiveError(f"this archive was played under {header['type']} rules version "
                           f"{version}; this verifier plays versions "
                           f"{', '.join(game.rules_versions)} and cannot replay it")
    seats = [s["seat"] for s in header["seats"]]
    if not game.min_seats <= len(seats) <= game.max_seats:
        raise ArchiveError(f"the header has {len(seats)} seats; {header['type']} is played by "
                           f"{game.min_seats} to {game.max_seats}")
    try:
        options = game.normalize_options(header["options"], len(seats))
        names = list(game.seat_names(len(seats), options))
    except IllegalMove as exc:
        raise ArchiveError(f"the header's options are refused: {exc.message}") from None
    except Exception as exc:  # noqa: BLE001
        raise ArchiveError(f"the header's options are refused ({_broke(exc)})") from None
    if names != seats:
        raise ArchiveError(f"the header's seats are {', '.join(seats)}; a {header['type']} "
                           f"game of {len(seats)} has {', '.join(map(str, names))}")


def _same(replayed, stated):
    """True when the replay's result is the one the archive states, as the server stores it
    (through JSON: tuples become lists, keys strings)."""
    try:
        return canonical_json(json.loads(json.dumps(replayed))) == canonical_json(stated)
    except (EnvelopeError, RecursionError, ValueError, TypeError):
        return False


def mail_moves(envelopes):
    """Every entry signed by a mail key (a key the server holds, which the seat's player
    delegated to sign the moves they send by plain mail: shared/delegation.py), in order:
    {seq, seat, player, device_key, not_after, first_seq}, where ``first_seq`` is the first
    entry of the log that carries that delegation (the log holds no other record of it)."""
    first, out = {}, []
    for env in envelopes:
        delegation = env.get("delegation")
        if not is_mail_key(delegation):
            continue
        key = delegation["device_key"]
        first.setdefault(key, env["seq"])
        out.append({"seq": env["seq"], "seat": env["seat"], "player": delegation["player"],
                    "device_key": key, "not_after": delegation["not_after"],
                    "first_seq": first[key]})
    return out


def verify_archive(archive, server_key=None):
    """Verify an archive (a parsed JSON document; see :func:`load_archive`).

    ``server_key`` (hex), when given, is the server key the archive must be signed by.
    Returns a report: ``complete`` (True only for a v2 archive of a finished game whose final
    head, seed and replay all hold; False for a verified prefix), ``format``, ``status``
    ("playing" or "over"; None for a v1 archive), ``entries`` (count), ``head`` ({length,
    hash}), ``server_key``, ``replayed`` (bool), ``game`` (the Game object or None),
    ``state`` and ``view`` (after the replay, or None), ``table`` (the table state after the
    replay: keys, takebacks; ``shared.table``), ``result``, ``note`` (why a prefix is not
    complete), ``handovers`` (each ``@handover``: seq, seat, the new holder's name: a bot's
    or a substitute's, forced) and ``mail_moves`` (each move a mail key signed: see
    :func:`mail_moves`).
    Raises ArchiveError with the first fault found.

    >>> verify_archive({"format": "pbem-archive-v2", "header": {}, "genesis": ""})
    Traceback (most recent call last):
    ...
    shared.archive.ArchiveError: the archive lacks start_signature, entries, head, seed, result
    """
    fmt, status, envelopes, side = _check_document(archive, server_key)
    header = archive["header"]
    report = {"complete": False, "format": fmt, "status": status, "entries": len(envelopes),
              "head": {"length": archive["head"]["length"], "hash": archive["head"]["hash"]},
              "server_key": header["server_key"], "replayed": False, "game": None,
              "state": None, "view": None, "result": None, "note": None, "table": None,
              "messages": side["messages"],
              # v4: whether the server signed the set of messages and orders, for whom
              "documents": side["documents"],
              "orders": len(side["orders"].orders) if side["orders"] else 0,
              "order_entries": sum(1 for env in envelopes if "order" in env),
              # the seats handed to a bot (shared/table.py @handover), checked with the chain
              "handovers": [{"seq": env["seq"], "seat": env["seat"],
                             "player": env["move"].split(" ")[1],
                             "forced": bool(env.get("forced"))}
                            for env in envelopes if env["move"].startswith("@handover ")],
              # the moves a mail key signed (the server holds it: shared/delegation.py)
              "mail_moves": mail_moves(envelopes)}
    try:
        game = get_game(header["type"])
    except KeyError:
        game = None
    if fmt == OLD_FORMAT:
        report["note"] = (f"{OLD_FORMAT} is an older format whose end is not signed as final, "
                          "so it cannot show that the game is complete")
    elif status == "playing":
        report["note"] = ("the game is still running: the server signed that its log had "
                          "this length, not how the game goes on")
        if side["unseen_orders"]:  # v3: other seats' orders stay secret while the game runs
            report["note"] += (f"; {side['unseen_orders']} entries were played for standing "
                               "orders this archive does not show (another seat's, secret "
                               "until the game ends)")
    if game is None:
        if fmt in SIGNED_FORMATS and status == "playing":
            report["note"] += (f"; this verifier does not know game type "
                               f"{_name(header['type'])}, so it checked signatures and links "
                               "only")
            return report
        if archive["seed"] is None:
            return report
        raise ArchiveError(f"unknown game type {_name(header['type'])}: this verifier cannot "
                           "replay it")
    report["game"] = game
    seed_hex = archive["seed"]
    if seed_hex is None:  # a prefix: nothing to replay, but the header must set up a game
        if header["rules_version"] not in game.rules_versions:
            report["note"] += (f"; this verifier does not play rules version "
                               f"{_name(header['rules_version'])} of {header['type']}")
        else:
            _check_setup(game, header)
        return report
    _check_setup(game, header)
    if not isinstance(seed_hex, str) or not _HEX64.match(seed_hex):
        raise ArchiveError("the revealed seed is not 64 lowercase hex digits")
    if seed_commitment(bytes.fromhex(seed_hex)) != header["seed_commitment"]:
        raise ArchiveError("the revealed seed does not match its commitment")
    log = replay_log(game, header, bytes.fromhex(seed_hex), envelopes, orders=side["orders"])
    state = log.state
    try:
        result = log.result()  # a resignation, a draw or an abort ends a game too
        view = log.view(None)
    except Exception as exc:  # noqa: BLE001
        raise ArchiveError(f"the rules library cannot read the replayed game ({_broke(exc)})") \
            from None
    if fmt in SIGNED_FORMATS:
        if result is None:
            raise ArchiveError(f"the head says the game is over, but the replay of its "
                               f"{len(envelopes)} moves does not end it")
        if not _same(result, archive["result"]):
            raise ArchiveError("replaying the moves gives another result than the archive "
                               "states")
        report["complete"] = True
    elif archive["result"] is not None and not _same(result, archive["result"]):
        raise ArchiveError("replaying the moves gives another result than the archive states")
    report.update(replayed=True, state=state, view=view, result=result, table=log.table)
    return report
