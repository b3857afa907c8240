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


def test_a_bot_may_send_its_own_discard_or_offer_but_nothing_unlisted_otherwise():
    from shared.bots import may_play
    game = get_game("zarahemla")
    legal = ["discard 1wood", "end"]
    assert may_play(game, "discard 2brick+1stone", legal)      # open-ended: the rules judge it
    assert may_play(game, "offer 1wood for 1stone", legal)
    assert not may_play(game, "settle 14", legal)               # a closed kind must be listed
    assert not may_play(game, "settle ²", legal)
    assert not may_play(game, None, legal)


@pytest.mark.parametrize("name", ["zarahemla", "stone_age", "title_of_liberty"])
def test_every_game_has_its_own_greedy_bot(name):
    """A bot module that stopped importing (a renamed engine module) once made every level
    play at random without a word."""
    assert "greedy" in levels(get_game(name))
