"""``python -m bench.bots [--games N] [--pairing NAME,...] [--think] [--jobs J]``

Measures the bots of ``shared/bots``: win rates over seeded games per pairing, seats
rotated, with a 95% Wilson confidence interval, and the think time per move at each level.
Every game has a fixed seed (game ``i`` of a pairing uses ``b"bots-<pairing>-<i>"`` and the
bots' generators ``random.Random`` seeded from ``i`` and the seat), so a run is
reproducible.  It only measures: it never fails.  docs/BOTS.md publishes its output.

Pairings:

* ``zar-greedy-random``: two-player Zarahemla, greedy against random;
* ``zar-strong-greedy``: two-player Zarahemla, strong against greedy;
* ``sa-greedy-random``: three-player Stone Age, one greedy seat against two random ones;
* ``sa-strong-greedy``: three-player Stone Age, one strong seat against two greedy ones;
* ``tol``: Title of Liberty, a team of bots with one to five armies (``--tol-armies``) at
  each difficulty and level (``--tol-levels``; every level plays the same seeded wars).
"""

import argparse
import math
import random
import statistics
import sys
import time

from shared.bots import legal_or_again
from shared.games import get_game

#: a game that has not ended after this many moves is counted as unfinished (no winner)
MOVE_CAP = {"zarahemla": 3000, "stone_age": 3000, "title_of_liberty": 20000}

PAIRINGS = {
    "zar-greedy-random": ("zarahemla", ["greedy", "random"]),
    "zar-strong-greedy": ("zarahemla", ["strong", "greedy"]),
    "sa-greedy-random": ("stone_age", ["greedy", "random", "random"]),
    "sa-strong-greedy": ("stone_age", ["strong", "greedy", "greedy"]),
}


def play_game(game, levels, seed, options=None, budget=None, times=None, clock=None):
    """One game with ``levels[i]`` in seat ``i``; returns (result or None, moves played).

    When ``times`` is a dict, the think time of each bot move is appended to
    ``times[level]`` (measured with ``clock``, outside the bots).
    """
    seats = game.seat_names(len(levels))
    by_seat = dict(zip(seats, levels))
    state = game.new_game(seats, options or {}, seed)
    rngs = {s: random.Random(f"{seed!r}|{s}") for s in seats}
    chooser = random.Random(f"{seed!r}|order")
    played = 0
    while game.result(state) is None and played < MOVE_CAP[game.name]:
        acting = game.to_act(state)
        seat = chooser.choice(acting)
        legal = game.legal_moves(state, seat)
        view = game.view(state, seat)
        start = clock() if times is not None else 0
        move = legal_or_again(game, view, seat, legal, rngs[seat], by_seat[seat], budget)
        if times is not None:
            times.setdefault(by_seat[seat], []).append(clock() - start)
        state = game.play(state, seat, move, b"%d" % played)
        played += 1
    return game.result(state), played


def wilson(wins, n, z=1.96):
    """The 95% Wilson score interval of a proportion, as (low, high)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _pairing_game(name, i, budget=None, times=None, clock=time.perf_counter):
    """Game ``i`` of pairing ``name``: (1 if the tested level won, 1 if unfinished, moves)."""
    game_name, levels = PAIRINGS[name]
    game = get_game(game_name)
    k = i % len(levels)
    rotated = levels[k:] + levels[:k]          # the tested level sits in seat -k
    hero = (len(levels) - k) % len(levels)
    seats = game.seat_names(len(levels))
    result, n = play_game(game, rotated, b"bots-%s-%d" % (name.encode(), i),
                          budget=budget, times=times, clock=clock)
    if result is None:
        return 0, 1, n
    return int(seats[hero] in result.get("winners", ())), 0, n


def _timed_game(args):
    """A worker process's game: (won, unfinished, moves, {level: think times})."""
    name, i, budget = args
    times = {}
    won, unfinished, n = _pairing_game(name, i, budget, times)
    return won, unfinished, n, times


def pairing(name, games, budget=None, times=None, clock=time.perf_counter, first=0, jobs=1):
    """(wins of the first level, games, unfinished, average moves) with seats rotated.

    ``jobs`` > 1 plays the games in that many processes (same seeds, same results; the
    think times are then measured inside the workers)."""
    wins = unfinished = moves = 0
    if jobs > 1:
        import multiprocessing
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            work = [(name, i, budget) for i in range(first, first + games)]
            for won, unf, n, ts in pool.imap_unordered(_timed_game, work):
                wins, unfinished, moves = wins + won, unfinished + unf, moves + n
                if times is not None:
                    for level, xs in ts.items():
                        times.setdefault(level, []).extend(xs)
        return wins, games, unfinished, moves / max(1, games)
    for i in range(first, first + games):
        won, unf, n = _pairing_game(name, i, budget, times, clock)
        wins, unfinished, moves = wins + won, unfinished + unf, moves + n
    return wins, games, unfinished, moves / max(1, games)


def _tol_game(args):
    armies, difficulty, level, i, budget = args
    result, _ = play_game(get_game("title_of_liberty"), [level] * armies, b"bots-tol-%d" % i,
                          options={"difficulty": difficulty}, budget=budget)
    return int(result is not None and bool(result.get("winners")))


def tol_cell(games, armies, difficulty, level, first=0, jobs=1, budget=None):
    """(team wins, games) for a Title of Liberty team of ``armies`` bots at ``level``
    (game ``i`` has seed ``bots-tol-<i>``, so every level plays the same wars)."""
    work = [(armies, difficulty, level, i, budget) for i in range(first, first + games)]
    if jobs > 1:
        import multiprocessing
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            return sum(pool.imap_unordered(_tol_game, work)), games
    return sum(map(_tol_game, work)), games


def _pct(x):
    return f"{100 * x:.0f}%"


SECTION = "bots"


def section(run):
    """The ``bots`` section of ``python -m bench``: think time per move at each level (two
    Zarahemla games of strong against greedy, one of greedy against random) and a small
    win-rate sample; the full win-rate run is ``python -m bench.bots`` (docs/BOTS.md)."""
    from .common import percentile
    games = 1 if run.settings.quick else 3
    times = {}
    wins, n, _, _ = pairing("zar-strong-greedy", games, times=times, first=1000)
    pairing("zar-greedy-random", games, times=times, first=1000)
    for level in ("random", "greedy", "strong"):
        ts = times.get(level)
        if not ts:
            continue
        median = 1000 * percentile(ts, 50)
        p99 = 1000 * percentile(ts, 99)
        if level == "strong":
            run.add(SECTION, "strong bot think time, median", f"{median:.0f} ms",
                    "<= 1000 ms", median <= 1000)
            run.add(SECTION, "strong bot think time, p99", f"{p99:.0f} ms", "<= 3000 ms",
                    p99 <= 3000)
        else:
            run.add(SECTION, f"{level} bot think time, median / p99",
                    f"{median:.1f} / {p99:.1f} ms")
    run.add(SECTION, "strong beats greedy (Zarahemla, sample)", f"{wins}/{n} games")
    run.note(SECTION, "win rates over 200 games per pairing: python -m bench.bots "
             "(docs/BOTS.md)")


def main(argv=None):
    if argv is not None and not isinstance(argv, (list, tuple)):
        return section(argv)      # called by ``python -m bench`` with its Run
    parser = argparse.ArgumentParser(prog="python -m bench.bots",
                                     description=__doc__.split("\n\n")[1])
    parser.add_argument("--games", type=int, default=200, help="games per pairing (200)")
    parser.add_argument("--first", type=int, default=0, help="index of the first game (0)")
    parser.add_argument("--pairing", default=",".join(list(PAIRINGS) + ["tol"]),
                        help="comma-separated pairings (all)")
    parser.add_argument("--nodes", type=int, default=None,
                        help="node budget of the strong level (shared.bots.search default)")
    parser.add_argument("--tol-levels", default="random,greedy,strong",
                        help="Title of Liberty levels to measure (random,greedy,strong)")
    parser.add_argument("--tol-armies", default="1,2,3,4,5",
                        help="Title of Liberty team sizes (1,2,3,4,5)")
    parser.add_argument("--tol-difficulty", default="book,hard")
    parser.add_argument("--jobs", type=int, default=1,
                        help="processes playing the games of a pairing (1)")
    parser.add_argument("--think", action="store_true",
                        help="also report the think time per move at each level")
    args = parser.parse_args(argv)
    budget = {"nodes": args.nodes} if args.nodes else None
    start = time.time()
    names = args.pairing.split(",")
    times = {} if args.think else None
    rows = []
    for name in names:
        if name == "tol":
            continue
        wins, n, unfinished, avg = pairing(name, args.games, budget, times, first=args.first,
                                           jobs=args.jobs)
        lo, hi = wilson(wins, n)
        game_name, levels = PAIRINGS[name]
        rows.append(f"| {name} | {levels[0]} vs {', '.join(levels[1:])} | {wins}/{n} | "
                    f"{_pct(wins / n)} | {_pct(lo)}-{_pct(hi)} | {unfinished} | {avg:.0f} |")
        print(rows[-1])
        sys.stdout.flush()
    if rows:
        print("\n| pairing | seats | wins | rate | 95% CI | unfinished | moves/game |")
        print("|---|---|---|---|---|---|---|")
        print("\n".join(rows))
    if "tol" in names:
        print(f"\nTitle of Liberty: team wins ({args.games} games per cell)\n")
        sizes = [int(n) for n in args.tol_armies.split(",")]
        print("| level | difficulty | " + " | ".join(
            f"{n} arm{'y' if n == 1 else 'ies'}" for n in sizes) + " |")
        print("|---|---|" + "---|" * len(sizes))
        for level in args.tol_levels.split(","):
            for difficulty in args.tol_difficulty.split(","):
                cells = []
                for armies in sizes:
                    wins, n = tol_cell(args.games, armies, difficulty, level, args.first,
                                       args.jobs, budget)
                    lo, hi = wilson(wins, n)
                    cells.append(f"{_pct(wins / n)} ({_pct(lo)}-{_pct(hi)})")
                print(f"| {level} | {difficulty} | " + " | ".join(cells) + " |")
                sys.stdout.flush()
    if times:
        print("\n| level | moves timed | median | 99th percentile | max |")
        print("|---|---|---|---|---|")
        for level, ts in sorted(times.items()):
            ts = sorted(ts)
            p99 = ts[min(len(ts) - 1, int(0.99 * len(ts)))]
            print(f"| {level} | {len(ts)} | {1000 * statistics.median(ts):.1f} ms | "
                  f"{1000 * p99:.1f} ms | {1000 * ts[-1]:.1f} ms |")
    print(f"\n{time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
