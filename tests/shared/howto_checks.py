"""Checks for the players' guides (HOWTO.md): the examples are moves a game accepts.

A guide's example works when the engine accepts it (``GAME.check``) in a position a player
can meet.  ``not_accepted`` looks for one: first in prepared positions (for moves random play
seldom reaches: a set-up option, a city's temple, a rare card), then at every position of a
few random games with fixed seeds.
"""

import random

from shared import IllegalMove, InvalidMove


def _accepts(game, state, seat, text):
    try:
        game.check(state, seat, text)
    except (IllegalMove, InvalidMove):
        return False
    return True


def not_accepted(game, examples, prepared=(), seeds=range(3), cap=3000, options=None):
    """The examples no position accepted: ``prepared`` is (state, seat) pairs; then random
    games of ``seeds`` (seats from the fewest to the most, in turn) with ``options``."""
    left = list(dict.fromkeys(examples))
    for state, seat in prepared:
        left = [e for e in left if not _accepts(game, state, seat, e)]
    span = game.max_seats - game.min_seats + 1
    for seed in seeds:
        if not left:
            break
        rnd = random.Random(seed)
        n = game.min_seats + seed % span
        state = game.new_game(game.seat_names(n), dict(options or {}), b"guide-%d" % seed)
        moves = 0
        while left and game.result(state) is None and moves < cap:
            to_act = game.to_act(state)
            for seat in to_act:
                left = [e for e in left if not _accepts(game, state, seat, e)]
            seat = rnd.choice(to_act)
            game.play(state, seat, rnd.choice(game.legal_moves(state, seat)), b"%d" % moves)
            moves += 1
    return left
