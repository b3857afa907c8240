"""shared.preview: a move's check and its effect, told to the mover before signing, never
tell more than the mover's own view (no die, no draw, no other seat's card)."""

import random

import pytest

from shared.games import get_game
from shared.preview import check_move
from tests.helpers.hidden import SWAP, _other_seed

from .bots.helpers import GAMES, clone, positions


def _zarahemla_setup():
    game = get_game("zarahemla")
    return game, game.new_game(["red", "blue"], {"board": "beginner"}, b"preview-1")


def test_a_legal_placement_is_told_with_its_effect_and_what_follows():
    game, state = _zarahemla_setup()
    answer = check_move(game, state, "red", "settle  14", random.Random(1))
    assert answer["legal"] and answer["move"] == "settle 14"
    assert answer["outcome"] == "certain"
    assert answer["events"] == ["Red placed a settlement on 14."]
    assert answer["changes"] == ["your points: 0 -> 1"]
    assert answer["next"] == {"red": "place a road next to 14 (road 14-CORNER)"}


def test_an_illegal_move_is_refused_with_the_rules_reason():
    game, state = _zarahemla_setup()
    game.play(state, "red", "settle 14")
    far = check_move(game, state, "red", "road 1-4")
    assert not far["legal"] and "14" in far["reason"] and far["code"]
    wrong_seat = check_move(game, state, "blue", "settle 1")
    assert not wrong_seat["legal"] and wrong_seat["code"] == "not_your_turn"
    garbage = check_move(game, state, "red", "settle 99")
    assert not garbage["legal"] and "1 to 54" in garbage["reason"]


def test_a_roll_is_left_to_chance_and_its_dice_are_not_told():
    game, state = _zarahemla_setup()
    while game.to_act(state):
        seat = game.to_act(state)[0]
        legal = game.legal_moves(state, seat)
        if legal == ["roll"] or "roll" in legal:
            break
        game.play(state, seat, legal[0], b"x")
    answer = check_move(game, state, seat, "roll", random.Random(1))
    assert answer["legal"] and answer["outcome"] == "chance"
    assert "events" not in answer and "changes" not in answer
    real = game.play(clone(state), seat, "roll", b"the real entropy")
    for text in game.events_for(real["events"], seat):
        assert text not in answer["summary"]


@pytest.mark.parametrize("name", GAMES)
def test_hidden_cards_and_the_seed_never_change_the_answer(name):
    """Two states that differ only in what the mover may not know give the same answer for
    every move (same generator): the answer is a function of the mover's view."""
    game = get_game(name)
    compared = 0
    seen = set()
    for seed in range(2):
        for state, seat in positions(name, seed, every=7, limit=10, n=3):
            twin = clone(state)
            if not SWAP[name](twin, seat):
                continue
            _other_seed(twin)
            assert game.view(twin, seat) == game.view(state, seat)
            legal = game.legal_moves(state, seat)
            if sorted(legal) != sorted(game.legal_moves(twin, seat)):
                continue
            for move in legal[:12]:
                a = check_move(game, state, seat, move, random.Random(5))
                b = check_move(game, twin, seat, move, random.Random(5))
                assert a == b, (name, seat, move)
                compared += 1
                seen.add(a["outcome"])
    assert compared >= 40
    assert "certain" in seen


def test_the_state_is_not_changed_by_a_check():
    for name in GAMES:
        game = get_game(name)
        for state, seat in positions(name, 3, every=13, limit=4, n=3):
            before = clone(state)
            for move in game.legal_moves(state, seat)[:5]:
                check_move(game, state, seat, move, random.Random(2))
            assert state == before
