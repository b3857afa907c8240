"""Archives built move by move for the tests, and the golden vectors
(shared/vectors/archive-v2.json) they were written from:
``python -m tests.helpers.archives --write`` rewrites the file from the keys, seed and moves it
lists (tests/shared/test_archive_vectors.py rebuilds every byte)."""

import copy
import json
import sys
from pathlib import Path

import shared
from shared.archive import FORMAT
from shared.envelope import (
    entry_hash,
    final_head_message,
    genesis_hash,
    make_envelope,
    move_entropy,
    public_key_hex,
    running_head_message,
    seed_commitment,
    sign,
    sign_envelope,
    start_message,
)
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

    def result(self):
        """The game's result now (None while it goes on)."""
        return self.game.result(self.state)

    def archive(self):
        """The archive now: running, or final once the game is over."""
        gid, n = self.header["game"], len(self.entries)
        result = self.result()
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


#: a key that belongs to no one in the vectors: a forger's
FORGER = bytes(range(200, 232))


def running_heads():
    return vector_builder().running_heads


def export_text(archive):
    """The bytes ``pbem export`` writes."""
    return json.dumps(archive, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # python -m tests.helpers.archives --write
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m tests.helpers.archives --write")
    from shared.games import register
    from tests.fixtures.pig import GAME as PIG
    register(PIG)
    VECTORS.write_text(json.dumps(make_vectors(), indent=1, ensure_ascii=False) + "\n",
                       "utf-8")
    print(f"wrote {VECTORS}")
