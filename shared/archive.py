"""The archive format and its offline verifier.

An archive is one JSON document::

    {"format": "pbem-archive-v1",
     "header": {"game": id, "type": "zarahemla", "rules_version": "1",
                "options": {...}, "seats": [{"seat", "player", "public_key"}],
                "seed_commitment": hex, "server_key": hex, "created": iso-8601},
     "genesis": hex,                       # genesis_hash(header)
     "entries": [{"seq", "envelope": canonical text, "signature": hex, "hash": hex}],
     "head": {"length", "hash", "signature"},   # signed by the server key
     "seed": hex or null,                  # revealed when the game is over
     "result": {...} or null}

``verify_archive`` checks, in order, the header, every hash link and every
signature, the server's signature of the head, then (when the seed is
revealed) the seed against its commitment and a full replay of every move
through the rules library.  It raises ``ArchiveError`` naming the first
fault it finds.
"""

from . import IllegalMove
from .envelope import (EnvelopeError, entry_hash, envelope_message, genesis_hash, head_message,
                       move_entropy, parse_canonical, seed_commitment, validate_envelope, verify)
from .games import get_game

FORMAT = "pbem-archive-v1"
HEADER_FIELDS = ("game", "type", "rules_version", "options", "seats", "seed_commitment",
                 "server_key", "created")


class ArchiveError(ValueError):
    """The first fault found in an archive; ``index`` is the entry's seq or None."""

    def __init__(self, message, index=None):
        super().__init__(message)
        self.message = message
        self.index = index


def _check_header(archive):
    if not isinstance(archive, dict) or archive.get("format") != FORMAT:
        raise ArchiveError(f"this is not a pbem archive (format {FORMAT} expected)")
    header = archive.get("header")
    if not isinstance(header, dict):
        raise ArchiveError("the archive has no header")
    missing = [f for f in HEADER_FIELDS if f not in header]
    if missing:
        raise ArchiveError(f"the header lacks {', '.join(missing)}")
    seats = header["seats"]
    if not isinstance(seats, list) or not seats or not all(
            isinstance(s, dict) and {"seat", "player", "public_key"} <= set(s) for s in seats):
        raise ArchiveError("the header's seats are malformed")
    if not isinstance(archive.get("entries"), list):
        raise ArchiveError("the archive has no list of entries")
    return header


def check_chain(archive):
    """Check header, links, signatures and the signed head; return the entries' envelopes.

    Raises ArchiveError at the first fault.
    """
    header = _check_header(archive)
    keys = {s["seat"]: s["public_key"] for s in header["seats"]}
    prev = genesis_hash(header)
    if archive.get("genesis") not in (None, prev):
        raise ArchiveError("the genesis hash does not match the header: the header was altered")
    envelopes = []
    for index, entry in enumerate(archive["entries"]):
        where = f"entry {index}"
        if not isinstance(entry, dict) or not isinstance(entry.get("envelope"), str) \
                or not isinstance(entry.get("signature"), str):
            raise ArchiveError(f"{where} is malformed", index)
        try:
            env = validate_envelope(parse_canonical(entry["envelope"]))
        except EnvelopeError as exc:
            raise ArchiveError(f"{where}: {exc.message}", index) from None
        if env["game"] != header["game"]:
            raise ArchiveError(f"{where} belongs to game {env['game']}, not {header['game']}",
                               index)
        if env["seq"] != index or entry.get("seq", index) != index:
            raise ArchiveError(f"{where} carries seq {env['seq']}: entries are missing or "
                               "out of order", index)
        if env["prev"] != prev:
            raise ArchiveError(f"{where} does not link to the entry before it (hash chain "
                               "broken)", index)
        forced = bool(env.get("forced"))
        if env["seat"] not in keys:
            raise ArchiveError(f"{where} is signed for seat {env['seat']!r}, which is not in "
                               "this game", index)
        key = header["server_key"] if forced else keys[env["seat"]]
        raw = entry["envelope"].encode("utf-8")
        if not verify(key, envelope_message(raw, forced), entry["signature"]):
            signer = "the server" if forced else f"seat {env['seat']}"
            raise ArchiveError(f"{where} has a bad signature (not signed by {signer})", index)
        digest = entry_hash(raw, entry["signature"])
        if entry.get("hash", digest) != digest:
            raise ArchiveError(f"{where} has a wrong hash", index)
        prev = digest
        envelopes.append(env)
    head = archive.get("head")
    if head is not None:
        if not isinstance(head, dict) or head.get("length") != len(envelopes) \
                or head.get("hash") != prev:
            raise ArchiveError("the signed head does not match the entries: entries were added "
                               "or removed")
        if not verify(header["server_key"], head_message(header["game"], head["length"],
                                                         head["hash"]), head.get("signature", "")):
            raise ArchiveError("the head's server signature is bad")
    return envelopes


def replay(game, header, seed, envelopes, upto=None):
    """Replay ``envelopes`` from a fresh game; return the state.

    Raises ArchiveError when a move is out of turn or illegal.
    """
    seats = [s["seat"] for s in header["seats"]]
    try:
        state = game.new_game(seats, header["options"], seed,
                              rules_version=header.get("rules_version"))
    except IllegalMove as exc:
        raise ArchiveError(f"the game cannot be set up from the header: {exc.message}") from None
    for env in envelopes[:upto]:
        seat = env["seat"]
        if seat not in game.to_act(state):
            raise ArchiveError(f"entry {env['seq']} ({seat}: {env['move']}) was played out of "
                               "turn", env["seq"])
        try:
            state = game.play(state, seat, env["move"],
                              move_entropy(header["game"], env["seq"], env["prev"]))
        except IllegalMove as exc:
            raise ArchiveError(f"entry {env['seq']} ({seat}: {env['move']}) is illegal: "
                               f"{exc.message}", env["seq"]) from None
    return state


def verify_archive(archive):
    """Verify an archive (a parsed JSON document).

    Returns a dict: ``entries`` (count), ``replayed`` (bool), ``game`` (the
    Game object), ``state`` (final state or None), ``view`` (spectator view
    or None), ``result``.  Raises ArchiveError with the first fault found.
    """
    envelopes = check_chain(archive)
    header = archive["header"]
    report = {"entries": len(envelopes), "replayed": False, "game": None, "state": None,
              "view": None, "result": archive.get("result")}
    seed_hex = archive.get("seed")
    try:
        game = get_game(header["type"])
    except KeyError:
        if seed_hex is None:  # a running game: the chain is all there is to check
            return report
        raise ArchiveError(f"unknown game type {header['type']!r}: this verifier cannot "
                           "replay it") from None
    report["game"] = game
    if seed_hex is None:
        return report
    if str(header["rules_version"]) not in game.rules_versions:
        raise ArchiveError(f"this archive was played under {header['type']} rules version "
                           f"{header['rules_version']}; this verifier plays versions "
                           f"{', '.join(game.rules_versions)} and cannot replay it")
    try:
        seed = bytes.fromhex(seed_hex)
    except (TypeError, ValueError):
        raise ArchiveError("the revealed seed is not hex") from None
    if seed_commitment(seed) != header["seed_commitment"]:
        raise ArchiveError("the revealed seed does not match its commitment")
    state = replay(game, header, seed, envelopes)
    result = game.result(state)
    if archive.get("result") is not None and result != archive["result"]:
        raise ArchiveError("replaying the moves gives another result than the archive states")
    report.update(replayed=True, state=state, view=game.view(state, None), result=result)
    return report
