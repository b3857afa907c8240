"""Record the golden game of the current rules version (not a test).

Run once when a rules version is final: ``python -m tests.shared.stone_age.record_golden``.
It plays random legal moves from a fixed seed to the end of the game, picking the first seed
whose game shows the rules that version changed, and writes ``golden_game_v<N>.json``.  A
recorded file is never rewritten: ``test_golden_game_replays_to_the_recorded_state`` replays
it under its own version, so a later rules change that alters the result must bump the version
instead.
"""

import hashlib
import json
import os
import sys

from shared.rng import Rng
from shared.stone_age import GAME

#: event kinds a version's golden game must contain (each entry: at least one of these kinds)
WANTED = {"2": [{"exploration"}, {"take", "take_declined"}, {"steal"}, {"event_chip"},
                {"desert"}, {"trade"}, {"win"}]}
WANTED["3"] = WANTED["2"]        # the rules of version 2; the offer in shared.trade's place
WANTED["4"] = WANTED["2"]        # map 2, the lone short stack logged, the youngest begins


def play(seed, options, version, cap=20000):
    st = GAME.new_game(GAME.seat_names(4), options, seed, rules_version=version)
    rng = Rng(b"golden-players", seed)
    kinds = {e.get("kind") for e in st["events"]}
    moves = []
    while GAME.to_act(st) and len(moves) < cap:
        seat = rng.choice(GAME.to_act(st))
        text = rng.choice(GAME.legal_moves(st, seat))
        entropy = b"golden|%d" % len(moves)
        GAME.play(st, seat, text, entropy)
        moves.append([seat, text, entropy.hex()])
        kinds |= {e.get("kind") for e in st["events"]}
    return st, moves, kinds


def main():
    version = GAME.rules_version
    path = os.path.join(os.path.dirname(__file__), f"golden_game_v{version}.json")
    if os.path.exists(path):
        sys.exit(f"{path} exists: a recorded golden game is never rewritten")
    options = {"setup": "advanced"}
    for i in range(200):
        seed = b"golden-stone-age-v%s-%d" % (version.encode(), i)
        st, moves, kinds = play(seed, options, version)
        if GAME.result(st) and all(want & kinds for want in WANTED.get(version, [])):
            break
    else:
        sys.exit("no seed shows every wanted event")
    text = json.dumps(st, sort_keys=True, separators=(",", ":"))
    doc = {"about": "A recorded random game played to its end under rules version "
                    f"{version}: replaying it must give the same final state. If a rules change "
                    "breaks this, bump rules_version and keep the old behaviour for old games.",
           "rules_version": version, "seed": seed.hex(), "seats": st["seats"],
           "options": options, "final_sha256": hashlib.sha256(text.encode()).hexdigest(),
           "final_scores": GAME.view(st, None)["scores"], "moves": moves}
    with open(path, "w", encoding="utf-8") as f:
        head = json.dumps({k: v for k, v in doc.items() if k != "moves"}, indent=1)[:-2]
        f.write(head + ',\n"moves": [\n')
        f.write(",\n".join(json.dumps(m) for m in moves))
        f.write("\n]\n}\n")
    print(f"wrote {path}: seed {seed!r}, {len(moves)} moves, winner "
          f"{GAME.result(st)['winners']}")


if __name__ == "__main__":
    main()
