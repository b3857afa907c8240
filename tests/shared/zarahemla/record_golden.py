"""Record a golden Zarahemla log for the current rules version (not a test).

Run: ``python -m tests.shared.zarahemla.record_golden OUT.json [seed]``.

Plays random legal moves (the choices from ``random.Random(seed)``, the dice from the
game's seed and each move's entropy) until the game ends or 1500 moves, and writes the
seats, options, seed, moves with their entropy, the kinds of event seen, the SHA-256 of
the final state and the SHA-256 of every move's events in turn (both as sorted-key compact
JSON: the state holds only the last move's events, so the second pins every fact).  A
recorded file is never edited: when a rules change alters a replay, bump the rules version
and record a new file.
"""

import hashlib
import json
import random
import sys

from shared.zarahemla import GAME

SEATS = ["red", "blue", "white", "orange"]


def compact(data):
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def record(seed, cap=1500):
    rng = random.Random(seed)
    seed_hex = b"golden-v%s-%d" % (GAME.rules_version.encode(), seed)
    options = {"board": "beginner", "vp_to_win": 10}
    st = GAME.new_game(SEATS, options, seed_hex)
    kinds = {e.get("kind") for e in st["events"]}
    events = hashlib.sha256(compact(st["events"]).encode())
    moves = []
    while st["phase"] != "over" and len(moves) < cap:
        seat = rng.choice(GAME.to_act(st))
        legal = GAME.legal_moves(st, seat)
        # fewer idle offers and answers than uniform choice, so the game gets somewhere
        busy = [m for m in legal if not m.startswith(("offer", "counter", "withdraw"))]
        move = rng.choice(busy if busy and rng.random() < 0.8 else legal)
        entropy = f"chain{len(moves)}"
        st = GAME.play(st, seat, move, entropy.encode())
        kinds.update(e.get("kind") for e in st["events"])
        events.update(compact(st["events"]).encode())
        moves.append([seat, move, entropy])
    return {
        "about": f"A fixed game log (rules version {GAME.rules_version}): replaying it must "
                 "give this exact state. If a change to the rules alters the result, bump "
                 "rules_version and record a new log.",
        "rules_version": GAME.rules_version,
        "seats": SEATS,
        "options": options,
        "seed_hex": seed_hex.hex(),
        "moves": moves,
        "kinds_seen": sorted(kinds),
        "state_sha256": hashlib.sha256(compact(st).encode()).hexdigest(),
        "events_sha256": events.hexdigest(),
    }


if __name__ == "__main__":
    data = record(int(sys.argv[2]) if len(sys.argv) > 2 else 7)
    with open(sys.argv[1], "w") as f:
        json.dump(data, f, indent=0)
        f.write("\n")
    print(len(data["moves"]), "moves;", ", ".join(data["kinds_seen"]))
