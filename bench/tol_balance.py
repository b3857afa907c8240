"""``python -m bench.tol_balance [--games N] [--difficulty book,hard] [--players ...]``

``--players`` takes some of greedy, random, strong.  Measures how often a Title of Liberty
team wins, for one to five armies, under the game's current rules version (printed with the
table): the purposeful (greedy) player of ``shared/bots/title_of_liberty.py``, its
``strong`` level (the greedy player with rollouts at the marches and stops) and a random
player (uniform over the legal moves).  Every game has a fixed seed (game ``i`` of
a cell uses seed ``b"balance-<i>"`` and the chooser's ``random.Random(i)``), so a run is
reproducible; it prints a Markdown table (the one in shared/title_of_liberty/RULES.md,
"Balance").  It only measures: it never fails.
"""

import argparse
import random
import sys
import time

from shared.bots.title_of_liberty import choose_for_state as greedy_choice
from shared.title_of_liberty import GAME
from shared.title_of_liberty.state import over_code


def strong_choice(state, seat, legal, rnd):
    """The ``strong`` level (rollouts of the greedy team, shared/bots/title_of_liberty.py),
    given only ``seat``'s view; its generator is drawn from the game's chooser."""
    from shared.bots import choose_move
    return choose_move(GAME, GAME.view(state, seat), seat, legal,
                       random.Random(rnd.getrandbits(64)), "strong")


PLAYERS = {"greedy": greedy_choice, "random": None, "strong": strong_choice}


def play(seed, armies, options, chooser):
    """One game; returns (final state, moves played)."""
    rnd = random.Random(seed)
    state = GAME.new_game(GAME.seat_names(armies), options, b"balance-%d" % seed)
    played = 0
    while GAME.result(state) is None:
        seat = rnd.choice(GAME.to_act(state))
        legal = GAME.legal_moves(state, seat)
        text = chooser(state, seat, legal, rnd) if chooser else rnd.choice(legal)
        GAME.play(state, seat, text, entropy=b"%d" % played)
        played += 1
    return state, played


def cell(games, armies, options, chooser):
    """(wins, games, average moves, {reason of loss: n})."""
    wins = moves = 0
    losses = {}
    for seed in range(games):
        state, n = play(seed, armies, options, chooser)
        result = GAME.result(state)
        moves += n
        if result["winners"]:
            wins += 1
        else:
            why = {"no_army": "no army left"}.get(over_code(result), over_code(result))
            losses[why] = losses.get(why, 0) + 1
    return wins, games, moves / games, losses


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.tol_balance",
                                     description=__doc__.split("\n\n")[1])
    parser.add_argument("--games", type=int, default=100, help="games per cell (100)")
    parser.add_argument("--difficulty", default="book,hard",
                        help="comma-separated difficulty levels (book,hard)")
    parser.add_argument("--players", default="greedy,random",
                        help="comma-separated players (greedy,random; strong is slow: "
                             "rollouts at every march and stop)")
    parser.add_argument("--armies", default="1,2,3,4,5", help="team sizes (1,2,3,4,5)")
    args = parser.parse_args(argv)
    sizes = [int(n) for n in args.armies.split(",")]
    start = time.time()
    print(f"Title of Liberty, rules version {GAME.rules_version}: share of games the "
          f"Nephites win ({args.games} games per cell)\n")
    print("| player | difficulty | " + " | ".join(
        f"{n} arm{'y' if n == 1 else 'ies'}" for n in sizes) + " |")
    print("|---|---|" + "---|" * len(sizes))
    notes = []
    for player in args.players.split(","):
        for level in args.difficulty.split(","):
            cells = []
            for n in sizes:
                wins, games, avg, losses = cell(args.games, n, {"difficulty": level},
                                                PLAYERS[player])
                cells.append(f"{100 * wins / games:.0f}%")
                notes.append(f"{player} {level} {n}: {wins}/{games} won, {avg:.0f} moves a "
                             f"game, losses {losses or '-'}")
            print(f"| {player} | {level} | " + " | ".join(cells) + " |")
            sys.stdout.flush()
    print()
    for line in notes:
        print(line)
    print(f"\n{time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
