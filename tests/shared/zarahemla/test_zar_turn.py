"""The turn: roll first, production, the bank's limits, a 7, the robber, passing."""

import pytest

from shared import IllegalMove
from shared.zarahemla import GAME
from shared.zarahemla.board import HEX_NAMES
from shared.zarahemla.turn import resolve_roll

from .helpers import (
    bundle,
    empty_play_state,
    give_dev,
    play,
    put_building,
    put_road,
    set_hand,
    total_cards,
)


def H(letter):
    return HEX_NAMES.index(letter)


def test_rules_note_19_the_roll_comes_before_trading_and_building():
    """RULES.md item 19.  "Rolls for resource production (mandatory)" then "Trades, builds,
    and buys in any order": trading and building wait for the roll.  But "Players may at
    anytime during their turn help to build the Temple" (said three times): from rules
    version 3 a Temple Stone may also be placed before the roll; version 2 refused it."""
    st = empty_play_state(rolled=False)
    put_building(st, "red", 13)
    put_road(st, "red", 13, 18)
    set_hand(st, "red", wood=1, brick=1, stone=4)
    for text in ("road 18-23", "bank 4stone for 1wheat", "offer 1wood for 1water", "end",
                 "buy"):
        with pytest.raises(IllegalMove) as err:
            play(st, "red", text)
        assert err.value.code == "roll_first"
    assert GAME.legal_moves(st, "red") == ["roll", "temple"]
    old = empty_play_state(rolled=False, rules_version="2")
    set_hand(old, "red", brick=1, stone=1)
    with pytest.raises(IllegalMove) as err:
        play(old, "red", "temple")
    assert err.value.code == "roll_first"
    assert GAME.legal_moves(old, "red") == ["roll"]
    play(st, "red", "temple")
    assert st["players"]["red"]["stones"] == 1 and not st["rolled"]
    assert st["players"]["red"]["hand"] == bundle(wood=1, stone=3)
    assert st["events"][-1]["public"] == "Red placed a Temple Stone (1 in all)."
    assert GAME.legal_moves(st, "red") == ["roll"]          # brick spent: no second stone
    with pytest.raises(IllegalMove) as err:
        play(st, "blue", "roll")
    assert err.value.code == "not_your_turn"
    play(st, "red", "roll", b"x")
    assert st["rolled"] and st["dice"] and sum(st["dice"]) == st["last_roll"]
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "roll")
    assert err.value.code == "already_rolled"


def test_production_settlement_one_city_two_and_the_robber_hex_nothing():
    # beginner board: A stone 5, N stone 5, C wood 8, Q brick 8
    st = empty_play_state()
    put_building(st, "red", 13)              # A D E
    put_building(st, "blue", 9, city=True)   # A B E
    put_building(st, "white", 36)            # J N O
    resolve_roll(st, "red", 5, "test")
    assert st["players"]["red"]["hand"] == bundle(stone=1)
    assert st["players"]["blue"]["hand"] == bundle(stone=2)
    assert st["players"]["white"]["hand"] == bundle(stone=1)
    st["robber"] = H("A")
    resolve_roll(st, "red", 5, "test")
    assert st["players"]["red"]["hand"] == bundle(stone=1)      # robber on A
    assert st["players"]["white"]["hand"] == bundle(stone=2)    # N still produces
    assert total_cards(st) == 90


def test_faq_blue_gets_three_stone_from_a_settlement_and_a_city():
    st = empty_play_state()
    put_building(st, "blue", 13)
    put_building(st, "blue", 5, city=True)   # A B
    resolve_roll(st, "red", 5, "test")
    assert st["players"]["blue"]["hand"] == bundle(stone=3)


def test_rules_note_10_bank_shortage_with_several_takers_gives_nobody_that_resource():
    st = empty_play_state()
    put_building(st, "red", 13)
    put_building(st, "blue", 9, city=True)
    set_hand(st, "orange", stone=16)                # the bank keeps 2 stone
    events = resolve_roll(st, "red", 5, "test")
    assert st["players"]["red"]["hand"] == [0] * 5
    assert st["players"]["blue"]["hand"] == [0] * 5
    assert st["bank"][4] == 2
    assert "short of stone" in events[0]["public"]


def test_rules_note_10_bank_shortage_with_one_taker_gives_what_is_left():
    st = empty_play_state()
    put_building(st, "blue", 9, city=True)          # A and B: stone 5 and water 10
    set_hand(st, "orange", stone=17)                # the bank keeps 1 stone
    events = resolve_roll(st, "red", 5, "Red rolled 5")
    assert st["players"]["blue"]["hand"] == bundle(stone=1)
    assert st["bank"][4] == 0
    assert "only 1 stone" in events[0]["public"]


def test_rules_note_4_the_books_seven_guido_discards_five_of_eleven():
    # Jeremy (red) rolls 7 holding 6 cards, Miles (blue) 7, Guido (white) 11
    st = empty_play_state(n=3, rolled=False)
    set_hand(st, "red", wood=6)
    set_hand(st, "blue", brick=7)
    set_hand(st, "white", wood=4, water=3, wheat=4)
    resolve_roll(st, "red", 7, "Red rolled 7")
    assert st["discard"] == {"white": 5}
    assert GAME.to_act(st) == ["white"]
    assert GAME.view(st, "red")["owes"] == {"white": "discard 5 cards"}
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "robber E")
    assert err.value.code == "waiting"
    with pytest.raises(IllegalMove) as err:
        play(st, "white", "discard 2wood+2water")
    assert err.value.code == "wrong_count"
    with pytest.raises(IllegalMove) as err:
        play(st, "white", "discard 5water")
    assert err.value.code == "cannot_afford"
    with pytest.raises(IllegalMove) as err:
        play(st, "blue", "discard 3brick")
    assert err.value.code == "no_discard"
    play(st, "white", "discard 3wood+2water")
    assert st["players"]["white"]["hand"] == bundle(wood=1, water=1, wheat=4)
    assert GAME.to_act(st) == ["red"]
    assert "robber" in GAME.view(st, None)["owes"]["red"]
    assert total_cards(st) == 90


def test_rules_note_4_seven_with_several_discarders_all_owe_at_once():
    st = empty_play_state(rolled=False)
    set_hand(st, "red", wood=9)
    set_hand(st, "blue", brick=8)
    set_hand(st, "white", stone=7)
    set_hand(st, "orange", wheat=15)
    give_dev(st, "white", "warrior", 3)        # development cards do not count
    resolve_roll(st, "red", 7, "Red rolled 7")
    assert st["discard"] == {"red": 4, "blue": 4, "orange": 7}
    assert GAME.to_act(st) == ["red", "blue", "orange"]
    play(st, "orange", "discard 7wheat")
    assert GAME.to_act(st) == ["red", "blue"]
    assert GAME.legal_moves(st, "red")[0].startswith("discard")
    play(st, "red", "discard 4wood")
    with pytest.raises(IllegalMove):
        play(st, "red", "robber E")
    play(st, "blue", "discard 4brick")
    assert GAME.to_act(st) == ["red"]
    play(st, "red", "robber E")
    assert st["robber"] == H("E")
    assert GAME.view(st, None)["owes"]["red"].startswith("trade")


def test_rules_note_5_robber_must_move_to_another_numbered_hex_and_steals_at_random():
    st = empty_play_state()
    st["robber_due"] = True
    put_building(st, "blue", 13)     # A D E
    put_building(st, "white", 24)    # E I J
    put_building(st, "red", 19)      # E F J
    set_hand(st, "blue", wood=2)
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "robber J")
    assert err.value.code == "same_hex"
    st["robber"] = H("A")
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "robber J")
    assert err.value.code == "hideout"
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "robber E white")        # white has no card
    assert err.value.code == "bad_victim"
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "robber E red")
    assert err.value.code == "bad_victim"
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "robber E orange")
    assert err.value.code == "bad_victim"
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "end")
    assert err.value.code == "robber_first"
    legal = GAME.legal_moves(st, "red")
    assert "robber E blue" in legal and "robber E white" not in legal
    assert "robber J" not in legal and "robber A" not in legal
    play(st, "red", "robber E blue", b"entropy")
    assert st["players"]["red"]["hand"] == bundle(wood=1)
    assert st["players"]["blue"]["hand"] == bundle(wood=1)
    ev = st["events"][0]
    assert ev["public"] == "Red moved the robber to E and stole a card from Blue."
    assert "1 wood" in ev["private"]["red"] and "1 wood" in ev["private"]["blue"]
    assert GAME.events_for(st["events"], "white") == [ev["public"]]
    assert st["robber_due"] is False


def test_rules_note_17_stealing_is_optional_and_impossible_without_victims():
    st = empty_play_state()
    st["robber_due"] = True
    put_building(st, "blue", 13)
    set_hand(st, "blue", wood=2)
    play(st, "red", "robber E")
    assert st["players"]["blue"]["hand"] == bundle(wood=2)


def test_ending_the_turn_passes_clockwise_and_resets_the_turn():
    st = empty_play_state()
    give_dev(st, "red", "warrior", new_this_turn=True)
    st["dev_played"] = True
    play(st, "red", "end")
    assert st["turn"] == "blue" and not st["rolled"] and not st["dev_played"]
    assert st["players"]["red"]["new"] == [0] * 7
    assert GAME.to_act(st) == ["blue"]
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "end")
    assert err.value.code == "not_your_turn"
    st["rolled"] = True
    play(st, "blue", "end")
    st["rolled"] = True
    play(st, "white", "end")
    st["rolled"] = True
    play(st, "orange", "end")
    assert st["turn"] == "red"
