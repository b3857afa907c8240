"""Speed of the Stone Age engine (not a test).

Run: ``python -m tests.shared.stone_age.bench_stone_age [games]``.

Random play = for each action: list the legal moves of a seat that owes one,
choose one uniformly, apply it with ``play`` (parse, check, apply).  Also
the time of ``check`` and ``legal_moves`` alone in a mid-game position.
"""

import sys
import time
import timeit

from shared.rng import Rng
from shared.stone_age import GAME


def random_play(n_games, cap=20000):
    actions, finished = 0, 0
    start = time.perf_counter()
    for g in range(n_games):
        st = GAME.new_game(GAME.seat_names(3 + g % 2),
                           {"setup": "advanced" if g % 5 == 0 else "fixed"}, b"bench%d" % g)
        rng = Rng(b"bench-players", b"%d" % g)
        moves = 0
        while GAME.to_act(st) and moves < cap:
            seat = rng.choice(GAME.to_act(st))
            GAME.play(st, seat, rng.choice(GAME.legal_moves(st, seat)), b"%d" % moves)
            moves += 1
        actions += moves
        finished += GAME.result(st) is not None
    elapsed = time.perf_counter() - start
    return actions, finished, elapsed


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    actions, finished, elapsed = random_play(n)
    print(f"{n} games, {finished} finished, {actions / n:.0f} actions per game, "
          f"{actions / elapsed:,.0f} actions/s (legal_moves + play)")
    st = GAME.new_game(GAME.seat_names(4), {}, b"bench-mid")
    rng = Rng(b"mid")
    for i in range(600):
        seat = rng.choice(GAME.to_act(st))
        GAME.play(st, seat, rng.choice(GAME.legal_moves(st, seat)), b"%d" % i)
    seat = GAME.to_act(st)[0]
    move = GAME.legal_moves(st, seat)[-1]
    t_check = min(timeit.repeat(lambda: GAME.check(st, seat, move), number=2000, repeat=3)) / 2000
    t_legal = min(timeit.repeat(lambda: GAME.legal_moves(st, seat), number=500, repeat=3)) / 500
    print(f"check: {t_check * 1e6:.1f} us; legal_moves: {t_legal * 1e6:.1f} us "
          f"({len(GAME.legal_moves(st, seat))} moves)")


if __name__ == "__main__":
    main()
