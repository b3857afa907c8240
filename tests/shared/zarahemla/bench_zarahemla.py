"""Speed of the Zarahemla engine (not a test).

Run: ``python -m tests.shared.zarahemla.bench_zarahemla [games]``.

Random play = for each action: list the legal moves of a seat that owes one,
choose one uniformly, apply it with ``play`` (parse, check, apply).  Also the
time of ``check`` of one submitted move.
"""

import random
import sys
import time
import timeit

from shared.zarahemla import GAME

SEATS = ["red", "blue", "white", "orange"]


def random_play(n_games, cap=6000):
    actions = 0
    start = time.perf_counter()
    for seed in range(n_games):
        rng = random.Random(seed)
        st = GAME.new_game(SEATS[:2 + seed % 3], {}, b"bench%d" % seed)
        moves = 0
        while st["phase"] != "over" and moves < cap:
            seat = rng.choice(GAME.to_act(st))
            GAME.play(st, seat, rng.choice(GAME.legal_moves(st, seat)))
            moves += 1
        actions += moves
    return actions, time.perf_counter() - start


def check_time(samples=300):
    """Mean microseconds of GAME.check of one listed move, in random positions."""
    from shared.zarahemla.notation import _CACHE
    rng = random.Random(99)
    st = GAME.new_game(SEATS, {}, b"check")
    times = []
    for i in range(20000):
        if st["phase"] == "over" or len(times) >= samples:
            break
        seat = rng.choice(GAME.to_act(st))
        legal = GAME.legal_moves(st, seat)
        if i % 20 == 0:
            move = rng.choice(legal)
            warm = timeit.timeit(lambda: GAME.check(st, seat, move), number=200) / 200
            _CACHE.clear()           # and once with a cold notation cache
            start = time.perf_counter()
            GAME.check(st, seat, move)
            cold = time.perf_counter() - start
            times.append((warm, cold))
        GAME.play(st, seat, rng.choice(legal))
    warm = sum(t[0] for t in times) / len(times) * 1e6
    cold = sum(t[1] for t in times) / len(times) * 1e6
    return warm, cold


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    actions, secs = random_play(n)
    print(f"{n} games, {actions} actions, {actions / n:.0f} per game, "
          f"{actions / secs:,.0f} actions/s")
    warm, cold = check_time()
    print(f"check: {warm:.1f} microseconds per move ({cold:.1f} with the text not seen before)")
