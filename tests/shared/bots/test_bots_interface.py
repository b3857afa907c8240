"""The bot interface (shared/bots): levels, fallbacks and refusals."""

import random

import pytest

from shared.bots import LEVELS, BotError, choose_move, levels
from shared.games import get_game


@pytest.mark.parametrize("name", ["zarahemla", "stone_age", "title_of_liberty"])
@pytest.mark.parametrize("level", LEVELS)
def test_every_level_answers_a_legal_move(name, level):
    game = get_game(name)
    seats = game.seat_names(3)
    state = game.new_game(seats, {}, b"bots")
    seat = game.to_act(state)[0]
    legal = game.legal_moves(state, seat)
    move = choose_move(game, game.view(state, seat), seat, legal, random.Random(7), level)
    assert move in legal
    assert "random" in levels(game)


def test_unknown_level_and_no_legal_move_are_refused():
    game = get_game("zarahemla")
    with pytest.raises(BotError, match="no bot level 'godlike'"):
        choose_move(game, {}, "red", ["end"], random.Random(1), "godlike")
    with pytest.raises(BotError, match="no legal move"):
        choose_move(game, {}, "red", [], random.Random(1), "random")
