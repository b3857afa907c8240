"""Set-up: who starts, the placement orders, the distance rule and starting resources."""

import pytest

from shared import IllegalMove
from shared.zarahemla import GAME
from shared.zarahemla.state import public_vp

from .helpers import bundle, finish_setup, new, play


def _placements(st):
    seq = []
    while st["phase"] == "setup":
        seat = GAME.to_act(st)[0]
        mv = GAME.legal_moves(st, seat)[0]
        seq.append((seat, mv.split()[0]))
        st = play(st, seat, mv)
    return [s for s, kind in seq if kind == "settle"], st


def test_rules_note_1_highest_starting_roll_starts_and_play_goes_clockwise():
    for i in range(10):
        st = GAME.new_game(["red", "blue", "white", "orange"], {}, b"who%d" % i)
        first = st["order"][0]
        seats = ["red", "blue", "white", "orange"]
        k = seats.index(first)
        assert st["order"] == seats[k:] + seats[:k]
        assert f"{first.capitalize()} starts" in st["events"][0]["public"]


def test_rules_note_2_snake_order_for_four_players():
    st = new(4)
    o = st["order"]
    settlers, st = _placements(st)
    assert settlers == o + o[::-1]
    assert all(public_vp(st, s) == 2 for s in o)


def test_rules_note_2_snake_order_for_three_players():
    settlers, _ = _placements(new(3))
    st = new(3)
    assert settlers == st["order"] + st["order"][::-1]


def test_rules_note_2_two_players_place_three_each_in_the_books_order():
    st = new(2)
    a, b = st["order"]
    settlers, st = _placements(st)
    assert settlers == [a, b, b, a, a, b]
    assert public_vp(st, a) == public_vp(st, b) == 3
    assert st["players"][a]["roads"] == 3


def test_setup_settlement_obeys_the_distance_rule():
    st = new(4)
    seat = st["order"][0]
    play(st, seat, "settle 13")
    play(st, seat, "road 13-18")
    nxt = GAME.to_act(st)[0]
    with pytest.raises(IllegalMove) as err:
        play(st, nxt, "settle 18")
    assert err.value.code == "distance"
    with pytest.raises(IllegalMove) as err:
        play(st, nxt, "settle 13")
    assert err.value.code == "occupied"


def test_setup_road_must_touch_the_new_settlement():
    st = new(4)
    seat = st["order"][0]
    play(st, seat, "settle 13")
    with pytest.raises(IllegalMove) as err:
        play(st, seat, "road 14-19")
    assert err.value.code == "not_connected"
    with pytest.raises(IllegalMove):
        play(st, st["order"][1], "settle 40")     # not their turn
    with pytest.raises(IllegalMove) as err:
        play(st, seat, "settle 40")                # road first
    assert err.value.code == "road_first"


def test_rules_note_15_setup_settlement_must_touch_a_numbered_hex():
    # corner 4 touches only hex A; make A the hideout to test the rule
    st = new(4)
    st["numbers"][0] = 0
    seat = st["order"][0]
    with pytest.raises(IllegalMove) as err:
        play(st, seat, "settle 4")
    assert err.value.code == "no_number"
    assert "settle 4" not in GAME.legal_moves(st, seat)


def test_rules_note_3_each_player_chooses_the_settlement_for_starting_resources():
    st = new(4)
    o = st["order"]
    spots = {o[0]: (13, 24), o[1]: (10, 31), o[2]: (35, 42), o[3]: (27, 49)}
    firsts = {o[0]: "road 13-18", o[1]: "road 10-15", o[2]: "road 35-40",
              o[3]: "road 27-33"}
    seconds = {o[0]: "road 24-30", o[1]: "road 25-31", o[2]: "road 42-47",
               o[3]: "road 45-49"}
    for s in o:
        play(st, s, f"settle {spots[s][0]}")
        play(st, s, firsts[s])
    for s in reversed(o):
        play(st, s, f"settle {spots[s][1]}")
        play(st, s, seconds[s])
    assert st["phase"] == "start"
    assert GAME.to_act(st) == o          # everyone owes the choice at once
    with pytest.raises(IllegalMove):
        play(st, o[0], "roll")
    with pytest.raises(IllegalMove) as err:
        play(st, o[0], "start 10")
    assert err.value.code == "not_yours"
    # 13 touches A (stone 5), D (wheat 2), E (brick 9)
    play(st, o[0], "start 13")
    assert st["players"][o[0]]["hand"] == bundle(stone=1, wheat=1, brick=1)
    assert o[0] not in GAME.to_act(st)
    with pytest.raises(IllegalMove):
        play(st, o[0], "start 24")
    # 31 touches J (hideout: nothing), K (wood 3), O (wheat 6)
    play(st, o[1], "start 31")
    assert st["players"][o[1]]["hand"] == bundle(wood=1, wheat=1)
    play(st, o[2], "start 35")
    # 27 touches only L (stone 11): one card from the jungle border
    play(st, o[3], "start 27")
    assert st["players"][o[3]]["hand"] == bundle(stone=1)
    assert st["phase"] == "play" and GAME.to_act(st) == [o[0]]
    assert GAME.view(st, None)["owes"][o[0]] == "roll the dice or play a card"


def test_options_are_checked():
    with pytest.raises(IllegalMove):
        GAME.new_game(["red", "blue"], {"vp_to_win": 9}, b"x")
    with pytest.raises(IllegalMove):
        GAME.new_game(["red", "blue"], {"board": "round"}, b"x")
    with pytest.raises(IllegalMove):
        GAME.new_game(["red"], {}, b"x")
    st = GAME.new_game(["red", "blue"], {"vp_to_win": "10"}, b"x")
    assert st["options"] == {"vp_to_win": 10, "board": "variable"}
    assert GAME.seat_names(3) == ["red", "blue", "white"]


def test_finish_setup_reaches_play():
    st = finish_setup(new(3))
    assert st["phase"] == "play"
    assert all(p["road_len"] >= 1 for p in st["players"].values())
    assert sum(sum(p["hand"]) for p in st["players"].values()) > 0
