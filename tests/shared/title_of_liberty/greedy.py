"""A simple greedy player for Title of Liberty, and the balance script.

Run ``python -m tests.shared.title_of_liberty.greedy [games]`` from the
repository root to print how often random and greedy players win (the table in
RULES.md, "Balance").

The greedy player: gives food to a hungry army, otherwise passes; arms and
trains whatever it can; marches by the shortest route to the nearest held city
(or else a battlefield, or rests); in battle offers the wine, leads scouts up
the forest paths, picks the duel with the best dice (sparing the captain) and
stops when fewer than six soldiers are left.
"""

import random
import sys
import time

from shared.title_of_liberty import GAME, parse_move
from shared.title_of_liberty.board import KIND
from shared.title_of_liberty.combat import duel_dice


def _moves_of(legal, verb):
    return [m for m in legal if m.split()[0] == verb]


def greedy_choice(state, seat, legal, rnd):
    """The greedy player's move among ``legal`` (texts)."""
    army = state["armies"][seat]
    if seat != state["turn"]:
        receiver = state["armies"][state["turn"]]
        gift = f"give {state['turn']} 2 food"
        if receiver["food"] <= 1 and army["food"] >= 4 and gift in legal:
            return gift
        return "pass"
    if state["phase"] == "start":
        for verb in ("arm", "buy"):
            options = _moves_of(legal, verb)
            if options:
                # as many as possible, infantry first (the best die)
                return max(options, key=lambda m: (int(m.split()[1]), "infantry" in m, m))
        if "attack" in legal and KIND[army["at"]] == "city":
            return "attack"
        marches = [parse_move(m).args for m in _moves_of(legal, "move")]
        cities = [r for r in marches if KIND[r[-1]] == "city"
                  and not state["cities"][r[-1]]["liberated_by"]]
        if cities:
            return "move " + "".join(min(cities, key=lambda r: (len(r), r)))
        fields = [r for r in marches if KIND[r[-1]] in ("hill", "seashore")]
        if fields and sum(army["live"].values()) >= 15:
            return "move " + "".join(min(fields, key=lambda r: (len(r), r)))
        if "rest" in legal:
            return "rest"
        return legal[0]
    # in battle
    fighters = sum(army["live"].values()) - army["live"]["captain"]
    if fighters < 6:
        return "stop"
    if "wine" in legal:
        return "wine"
    leads = _moves_of(legal, "lead")
    if leads:
        return max(leads, key=lambda m: (sum(n for _, n in parse_move(m).args), m))
    duels = []
    for text in _moves_of(legal, "duel"):
        ntype, on_path, ltype, place = parse_move(text).args
        if ntype == "captain":
            continue
        n_die, l_die = duel_dice(state, seat, ntype, on_path, ltype)
        duels.append((n_die - l_die, text))
    if duels:
        return max(duels)[1]
    sectors = _moves_of(legal, "sector")
    if sectors:
        return sectors[0]
    return "stop"


def balance(games=200, rounds=12):
    """{(player, armies, short): (wins, games, avg moves)} over ``games`` each."""
    table = {}
    for player, chooser in (("random", None), ("greedy", greedy_choice)):
        for short in (False, True):
            for n in range(1, 6):
                wins = moves = 0
                for seed in range(games):
                    state, played = _game(seed, n, short, rounds, chooser)
                    wins += bool(GAME.result(state)["winners"])
                    moves += played
                table[(player, n, short)] = (wins, games, moves / games)
    return table


def _game(seed, n, short, rounds, chooser):
    rnd = random.Random(seed)
    state = GAME.new_game(GAME.seat_names(n), {"rounds": rounds, "short_game": short},
                          b"balance-%d" % seed)
    played = 0
    while GAME.result(state) is None:
        seat = rnd.choice(GAME.to_act(state))
        legal = GAME.legal_moves(state, seat)
        text = chooser(state, seat, legal, rnd) if chooser else rnd.choice(legal)
        GAME.play(state, seat, text, entropy=b"%d" % played)
        played += 1
    return state, played


def main():
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    start = time.time()
    table = balance(games)
    print(f"{games} games per cell, 12 rounds")
    print("player  game   armies:    1      2      3      4      5")
    for player in ("random", "greedy"):
        for short in (False, True):
            cells = []
            for n in range(1, 6):
                wins, total, _ = table[(player, n, short)]
                cells.append(f"{100 * wins / total:5.1f}%")
            print(f"{player:<7} {'short' if short else 'full ':<6}          "
                  + "  ".join(cells))
    moves = sum(m for _, _, m in table.values()) / len(table)
    print(f"average moves per game {moves:.0f}; {time.time() - start:.0f} s")


if __name__ == "__main__":
    main()

__all__ = ["greedy_choice", "balance"]
