"""Record and replay the golden Title of Liberty games (one per rules version).

``python -m tests.shared.title_of_liberty.golden VERSION PATH [SEATS SEED [OPTIONS]]`` records
a game (by default three armies, seed 3, no options): the greedy
player of ``shared/bots/title_of_liberty.py`` (with one move in ten chosen at random among
the legal moves, so the log also reaches gifts, rests and forest paths) plays three armies
from a fixed seed; the log, the options and the sha256 of the final state are written to PATH.
Recorded files are never
rewritten: they prove that an old game keeps replaying to the same state under its own rules.
"""

import hashlib
import json
import random
import sys

from shared.bots.title_of_liberty import choose_for_state as greedy_choice
from shared.title_of_liberty import GAME


def state_hash(state):
    text = json.dumps(state, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def record(version, seats=3, seed=3, options=None, cap=600):
    rnd = random.Random(seed)
    seed_bytes = b"golden-%d" % seed
    options = dict(options or {})
    state = GAME.new_game(GAME.seat_names(seats), options, seed_bytes, rules_version=version)
    moves = []
    while GAME.result(state) is None and len(moves) < cap:
        seat = rnd.choice(GAME.to_act(state))
        legal = GAME.legal_moves(state, seat)
        if rnd.random() < 0.1:
            text = rnd.choice(legal)
        else:
            text = greedy_choice(state, seat, legal, rnd)
        entropy = "chain%d" % len(moves)
        GAME.play(state, seat, text, entropy.encode())
        moves.append([seat, text, entropy])
    return {
        "about": (f"A fixed game log (rules version {version}): replaying it must give this "
                  "exact state. If a change to the rules alters the result, bump "
                  "rules_version and record a new log."),
        "rules_version": version, "seats": GAME.seat_names(seats), "options": options,
        "seed_hex": seed_bytes.hex(), "result": GAME.result(state),
        "moves": moves, "state_sha256": state_hash(state),
    }


def replay(data):
    """The final state of a recorded log, played under its own rules version."""
    state = GAME.new_game(data["seats"], data["options"], bytes.fromhex(data["seed_hex"]),
                          rules_version=data["rules_version"])
    for seat, move, entropy in data["moves"]:
        state = GAME.play(state, seat, move, entropy.encode())
    return state


if __name__ == "__main__":
    # VERSION PATH [SEATS SEED [OPTIONS-JSON]]
    extra = sys.argv[3:]
    out = record(sys.argv[1], seats=int(extra[0]) if extra else 3,
                 seed=int(extra[1]) if len(extra) > 1 else 3,
                 options=json.loads(extra[2]) if len(extra) > 2 else None)
    moves = out.pop("moves")
    sha = out.pop("state_sha256")
    head = json.dumps(out, indent=1)[:-2]
    lines = ",\n".join("  " + json.dumps(m) for m in moves)
    with open(sys.argv[2], "w") as f:
        f.write(f'{head},\n "moves": [\n{lines}\n ],\n "state_sha256": "{sha}"\n}}\n')
    print(len(moves), out["result"], sha)
