"""Every game's board drawing survives hostile views: any field of a view replaced by a wrong
type, markup or control characters still draws a document that parses and stays safe."""

import pytest

from shared.games import get_game
from shared.rng import Rng
from tests.shared.svg_checks import check_safe, hostile_views

GAMES = {"zarahemla": 4, "stone_age": 4, "title_of_liberty": 3}


def _position(name):
    """A mid-game position of ``name`` reached by seeded random legal moves."""
    game = get_game(name)
    seats = game.seat_names(GAMES[name])
    state = game.new_game(seats, {}, b"svg-hostile")
    rng = Rng(b"svg-hostile-moves", name.encode())
    for ply in range(300):
        to_act = game.to_act(state)
        if not to_act:
            break
        seat = rng.choice(to_act)
        state = game.play(state, seat, rng.choice(sorted(game.legal_moves(state, seat))),
                          b"%d" % ply)
    return game, state, seats[0]


def _hostile(name, n):
    game, state, seat = _position(name)
    rng = Rng(b"svg-hostile", name.encode())
    for view in hostile_views(game.view(state, seat), rng, n):
        check_safe(game.svg(view))


@pytest.mark.parametrize("name", sorted(GAMES))
def test_hostile_views_still_draw_a_safe_document(name):
    _hostile(name, 40)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(GAMES))
def test_many_hostile_views_still_draw_a_safe_document(name):
    _hostile(name, 1500)
