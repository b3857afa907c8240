"""The machinery the games share: the Move type, seats, seeds, bundles and the trade protocol."""

import copy
import pickle

import pytest

from shared import IllegalMove, InvalidMove
from shared.bundles import exchange, fields, has, notation, transfer
from shared.games import get_game
from shared.move import Move
from shared.seats import check_seats, seed_bytes
from shared.trade import check_sides, terms, trade_text


def test_a_move_is_immutable_hashable_and_its_repr_pastes_back():
    from shared.zarahemla.notation import Move as ZMove
    m = ZMove.parse("offer 1wood for 1water to blue,white")
    assert isinstance(m, Move) and m.kind == "offer"
    assert eval(repr(m), {"Move": ZMove}) == m
    assert str(m) == "offer 1wood for 1water to blue,white"
    assert pickle.loads(pickle.dumps(m)) == m and copy.deepcopy(m) == m
    assert {m: 1}[ZMove.parse(str(m))] == 1
    with pytest.raises(AttributeError):
        m.kind = "bank"


def test_the_same_text_seed_gives_the_same_game_in_each_game_as_before():
    """One way to read a seed; Zarahemla's versions 1 and 2 keep reading hex text as hex."""
    assert seed_bytes(b"\x01\x02") == b"\x01\x02"
    assert seed_bytes("abcd") == b"abcd"
    assert seed_bytes("abcd", hex_text=True) == b"\xab\xcd"
    assert seed_bytes("not hex", hex_text=True) == b"not hex"
    with pytest.raises(TypeError):
        seed_bytes(1234)
    for name in ("zarahemla", "stone_age", "title_of_liberty"):
        game = get_game(name)
        seats = game.seat_names(max(game.min_seats, 3) if game.max_seats >= 3 else 1)
        text = game.new_game(seats, {}, "abcd")
        raw = game.new_game(seats, {}, b"\xab\xcd" if name == "zarahemla" else b"abcd")
        assert text == raw


@pytest.mark.parametrize("name,seats,words", [
    ("zarahemla", ["red"], "2 to 4 players, not 1"),
    ("zarahemla", ["red", "red"], "only once"),
    ("zarahemla", ["red", "green"], "'green' is not a seat of The Settlers of Zarahemla: the "
                                    "players are red, blue, white, orange"),
    ("stone_age", ["blue", "red", "white"], "the seats for 3 players are red, blue, white"),
    ("title_of_liberty", [], "1 to 5 armies, not 0"),
    ("title_of_liberty", ["moroni", "\x1b[2J"], "the armies are moroni, helaman"),
])
def test_seats_are_checked_once_for_every_game(name, seats, words):
    game = get_game(name)
    with pytest.raises(IllegalMove) as exc:
        game.new_game(seats, {}, b"seed")
    assert exc.value.code == "bad_seats" and words in exc.value.message


def test_check_seats_returns_a_list_and_refuses_a_count_that_is_not_a_number():
    game = get_game("title_of_liberty")
    assert check_seats(game, ("moroni",)) == ["moroni"]
    with pytest.raises(IllegalMove):
        game.seat_names(True)


def test_bundles():
    hand, bank = [2, 1, 0, 0, 0], [5, 5, 5, 5, 5]
    assert has(hand, (2, 1, 0, 0, 0)) and not has(hand, (0, 2, 0, 0, 0))
    names = ("wood", "brick", "water", "wheat", "stone")
    assert notation((2, 1, 0, 0, 0), names) == "2wood+1brick" and notation((0,) * 5, names) == ""
    assert fields((2, 1, 0, 0, 0), names)["wood"] == 2 and len(fields(hand, names)) == 5
    transfer(hand, bank, (1, 1, 0, 0, 0))
    assert hand == [1, 0, 0, 0, 0] and bank == [6, 6, 5, 5, 5]
    exchange(hand, (1, 0, 0, 0, 0), bank, (0, 0, 2, 0, 0))
    assert hand == [0, 0, 2, 0, 0] and bank == [7, 6, 3, 5, 5]


def test_the_trade_protocol():
    names = ("meat", "bone")
    with pytest.raises(IllegalMove) as exc:
        check_sides((1, 0), (0, 0), names)
    assert exc.value.code == "empty_side"
    with pytest.raises(IllegalMove) as exc:
        check_sides((1, 1), (1, 0), names, "counter-offer")
    assert exc.value.code == "same_resource" and "meat" in exc.value.message
    offer = {"from": "red", "give": [1, 0], "get": [0, 1], "to": ["blue", "white", "orange"],
             "answers": {"blue": "accept", "white": {"give": [0, 2], "get": [1, 0]},
                         "orange": "decline"}}
    assert terms(offer, "blue") == ([1, 0], [0, 1])
    assert terms(offer, "white") == ([1, 0], [0, 2])   # a counter is written from its side
    assert terms(offer, "orange") is None and terms(offer, "green") is None
    assert trade_text("offer", (1, 0), (0, 2), names, ("blue",)) == "offer 1meat for 2bone to blue"


@pytest.mark.parametrize("name", ["zarahemla", "stone_age", "title_of_liberty", "pig"])
def test_a_refused_move_leaves_the_state_and_its_events_as_they_were(name):
    game = get_game(name)
    seats = game.seat_names(max(game.min_seats, 3) if game.max_seats >= 3 else game.min_seats)
    state = game.new_game(seats, {}, b"refused")
    before = copy.deepcopy(state)
    idle = [s for s in seats if s not in game.to_act(state)] or [None]
    for seat, text in [(game.to_act(state)[0], "no such move \u0663"),
                       (idle[0], game.legal_moves(state, game.to_act(state)[0])[0])]:
        with pytest.raises((IllegalMove, InvalidMove)):
            game.play(state, seat, text)
        assert state == before
