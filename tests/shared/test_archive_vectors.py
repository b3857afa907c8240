"""The archive's signed messages and a whole v2 archive against their golden vectors
(shared/vectors/archive-v2.json).

The vectors were written by ``python -m tests.shared.test_archive_vectors --write`` from the
keys, seed and moves they list; a test rebuilds every byte from those inputs, so a change to
the format, a domain prefix or the canonical form shows here before it breaks an archive.
"""

import copy
import json
import sys
from pathlib import Path

import pytest

import shared
from shared.archive import FORMAT, ArchiveError, check_chain, verify_archive
from shared.envelope import (canonical_json, entry_hash, envelope_message, final_head_message,
                             genesis_hash, head_message, make_envelope, move_entropy,
                             public_key_hex, running_head_message, seed_commitment, sign,
                             sign_envelope, start_message, verify)
from shared.games import get_game

VECTORS = Path(shared.__file__).parent / "vectors" / "archive-v2.json"


class ArchiveBuilder:
    """Builds archives offline exactly as the server writes them (and, with other keys, as a
    forger would): sign, chain and apply moves, then sign the start and a running or a final
    head with ``server_key``."""

    def __init__(self, game_type, game_id, seat_keys, server_key, seed, options,
                 players=None, created="2026-01-01T00:00:00+00:00"):
        self.game = get_game(game_type)
        self.keys = dict(seat_keys)
        self.server_key = server_key
        self.seed = seed
        players = players or {s: f"p{i}" for i, s in enumerate(self.keys)}
        self.header = {"game": game_id, "type": game_type,
                       "rules_version": str(self.game.rules_version), "options": options,
                       "seats": [{"seat": s, "player": players[s],
                                  "public_key": public_key_hex(k)}
                                 for s, k in self.keys.items()],
                       "seed_commitment": seed_commitment(seed),
                       "server_key": public_key_hex(server_key), "created": created}
        self.genesis = genesis_hash(self.header)
        self.state = self.game.new_game(list(self.keys), options, seed)
        self.entries = []
        self.prev = self.genesis
        self.running_heads = {0: self.head_signature(0, self.genesis)}

    def head_signature(self, length, head_hash):
        return sign(self.server_key, running_head_message(self.header["game"], length,
                                                          head_hash))

    def move(self, seat, text, forced=False):
        seq = len(self.entries)
        env = make_envelope(self.header["game"], seq, self.prev, seat, text, f"vector-{seq}",
                            1_800_000_000 + seq, forced=forced)
        raw, sig = sign_envelope(self.server_key if forced else self.keys[seat], env)
        self.state = self.game.play(self.state, seat, text,
                                    move_entropy(self.header["game"], seq, self.prev))
        digest = entry_hash(raw.encode("utf-8"), sig)
        self.entries.append({"seq": seq, "envelope": raw, "signature": sig, "hash": digest})
        self.prev = digest
        if self.game.result(self.state) is None:  # the server signs a head at every length
            self.running_heads[len(self.entries)] = self.head_signature(len(self.entries),
                                                                        digest)

    def archive(self):
        """The archive now: running, or final once the game is over."""
        gid, n = self.header["game"], len(self.entries)
        result = self.game.result(self.state)
        over = result is not None
        result = json.loads(json.dumps(result)) if over else None
        message = (final_head_message(gid, n, self.prev, result, self.seed.hex()) if over
                   else running_head_message(gid, n, self.prev))
        return {"format": FORMAT, "header": copy.deepcopy(self.header), "genesis": self.genesis,
                "start_signature": sign(self.server_key, start_message(gid, self.genesis)),
                "entries": copy.deepcopy(self.entries),
                "head": {"game": gid, "length": n, "hash": self.prev,
                         "status": "over" if over else "playing",
                         "signature": sign(self.server_key, message)},
                "seed": self.seed.hex() if over else None, "result": result}


def prefix(archive, length, running_heads):
    """The archive cut to ``length`` entries, ending at the genuine running head signed then."""
    cut = copy.deepcopy(archive)
    cut["entries"] = cut["entries"][:length]
    last = cut["entries"][-1]["hash"] if length else cut["genesis"]
    cut["head"] = {"game": cut["header"]["game"], "length": length, "hash": last,
                   "status": "playing", "signature": running_heads[length]}
    cut["seed"] = cut["result"] = None
    return cut


def _key(i):
    return bytes(range(32 * i, 32 * i + 32))


def vector_builder():
    """The golden game: Pig to 12, north and east, one forced move by the server (seq 1)."""
    b = ArchiveBuilder("pig", "vectorarchive", {"north": _key(0), "east": _key(1)}, _key(2),
                       bytes([1]) * 32, {"target": 12}, players={"north": "ann", "east": "bob"})
    game = b.game
    b.move("north", "peek")
    b.move("north", "roll", forced=True)
    while game.result(b.state) is None:
        seat = game.to_act(b.state)[0]
        b.move(seat, "hold" if b.state["pot"] >= 4 else "roll")
    return b


def make_vectors():
    b = vector_builder()
    archive = b.archive()
    gid, genesis, final = "vectorarchive", b.genesis, archive["head"]
    running_length = 2
    running_hash = b.entries[running_length - 1]["hash"]
    start_msg = start_message(gid, genesis)
    run_msg = running_head_message(gid, running_length, running_hash)
    final_msg = final_head_message(gid, final["length"], final["hash"], archive["result"],
                                   archive["seed"])
    return {
        "comment": "Golden vectors of pbem-archive-v2. Private keys: north = bytes 0..31, east = "
                   "bytes 32..63, server = bytes 64..95; seed = 32 bytes of 01. Changing any of "
                   "these breaks every archive ever written.",
        "keys": {"north": _key(0).hex(), "east": _key(1).hex(), "server": _key(2).hex()},
        "public_keys": {"north": public_key_hex(_key(0)), "east": public_key_hex(_key(1)),
                        "server": public_key_hex(_key(2))},
        "moves": [[json.loads(e["envelope"])["seat"], json.loads(e["envelope"])["move"],
                   bool(json.loads(e["envelope"]).get("forced"))] for e in b.entries],
        "start": {"game": gid, "genesis": genesis, "message_hex": start_msg.hex(),
                  "signature": sign(_key(2), start_msg)},
        "running_head": {"game": gid, "length": running_length, "hash": running_hash,
                         "message_hex": run_msg.hex(), "signature": sign(_key(2), run_msg)},
        "final_head": {"game": gid, "length": final["length"], "hash": final["hash"],
                       "result": archive["result"], "seed": archive["seed"],
                       "message_hex": final_msg.hex(), "signature": sign(_key(2), final_msg)},
        "archive": archive,
    }


V = json.loads(VECTORS.read_text("utf-8")) if VECTORS.exists() else None


def test_the_vectors_rebuild_byte_for_byte():
    """Every byte of the file follows from its keys, seed and moves (Ed25519 is deterministic,
    so the server may sign these messages when it exports rather than store them)."""
    assert canonical_json(make_vectors()) == canonical_json(V)


def test_start_message_and_signature():
    s = V["start"]
    msg = start_message(s["game"], s["genesis"])
    assert msg.hex() == s["message_hex"]
    assert msg.startswith(b"pbem-start-v1\n")
    assert sign(bytes.fromhex(V["keys"]["server"]), msg) == s["signature"]
    assert s["genesis"] == genesis_hash(V["archive"]["header"])


def test_running_head_message_and_signature():
    h = V["running_head"]
    msg = running_head_message(h["game"], h["length"], h["hash"])
    assert msg.hex() == h["message_hex"]
    assert msg == (b'pbem-running-head-v1\n{"game":"vectorarchive","hash":"' + h["hash"].encode()
                   + b'","length":2,"status":"playing"}')
    assert verify(V["public_keys"]["server"], msg, h["signature"])


def test_final_head_message_and_signature():
    h = V["final_head"]
    msg = final_head_message(h["game"], h["length"], h["hash"], h["result"], h["seed"])
    assert msg.hex() == h["message_hex"]
    assert msg.startswith(b"pbem-final-head-v1\n")
    assert json.loads(msg.split(b"\n", 1)[1]) == {
        "game": h["game"], "length": h["length"], "hash": h["hash"], "status": "over",
        "result": h["result"], "seed": h["seed"]}
    assert verify(V["public_keys"]["server"], msg, h["signature"])


def test_no_signed_message_stands_for_another():
    """Domain separation: each server signature verifies as its own message only."""
    server = V["public_keys"]["server"]
    s, r, f = V["start"], V["running_head"], V["final_head"]
    messages = {
        "start": start_message(s["game"], s["genesis"]),
        "running": running_head_message(r["game"], r["length"], r["hash"]),
        "final": final_head_message(f["game"], f["length"], f["hash"], f["result"], f["seed"]),
        "live head (running)": head_message(r["game"], r["length"], r["hash"]),
        "live head (final)": head_message(f["game"], f["length"], f["hash"]),
        "running at the final length": running_head_message(f["game"], f["length"],
                                                             f["hash"]),
        "move": envelope_message(canonical_json({"game": s["game"]})),
        "forced move": envelope_message(canonical_json({"game": s["game"]}), forced=True),
    }
    signatures = {"start": s["signature"], "running": r["signature"],
                  "final": f["signature"]}
    for name, sig in signatures.items():
        assert [m for m, msg in messages.items() if verify(server, msg, sig)] == [name]


def test_the_golden_archive_is_complete_and_verified():
    report = verify_archive(copy.deepcopy(V["archive"]))
    assert report["complete"] and report["replayed"] and report["status"] == "over"
    assert report["result"] == V["final_head"]["result"]
    assert report["entries"] == V["final_head"]["length"] == len(V["moves"])
    assert V["moves"][1] == ["north", "roll", True]  # a forced move, signed by the server
    assert report["head"] == {"length": V["final_head"]["length"],
                              "hash": V["final_head"]["hash"]}
    assert verify_archive(V["archive"], server_key=V["public_keys"]["server"])["complete"]
    with pytest.raises(ArchiveError, match="not by the expected key"):
        verify_archive(V["archive"], server_key=V["public_keys"]["north"])


def test_a_running_prefix_is_verified_but_not_complete():
    r = V["running_head"]
    cut = prefix(V["archive"], r["length"], {r["length"]: r["signature"]})
    report = verify_archive(cut)
    assert not report["complete"] and report["status"] == "playing"
    assert report["entries"] == 2 and report["head"] == {"length": 2, "hash": r["hash"]}
    assert "still running" in report["note"] and not report["replayed"]
    assert len(check_chain(cut)) == 2


if __name__ == "__main__":  # python -m tests.shared.test_archive_vectors --write
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m tests.shared.test_archive_vectors --write")
    from tests.fixtures.pig import GAME as PIG
    from shared.games import register
    register(PIG)
    VECTORS.write_text(json.dumps(make_vectors(), indent=1, ensure_ascii=False) + "\n",
                       "utf-8")
    print(f"wrote {VECTORS}")
