"""Development cards: one per turn, not the turn bought, and every card's effect."""

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


def test_rules_note_7_a_card_may_be_played_before_the_roll():
    st = empty_play_state(rolled=False)
    give_dev(st, "red", "warrior")
    assert "play warrior" in GAME.legal_moves(st, "red")
    play(st, "red", "play warrior")
    assert GAME.view(st, "red")["owes"]["red"].startswith("move the robber")
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "roll")
    assert err.value.code == "robber_first"
    play(st, "red", "robber E")
    assert GAME.legal_moves(st, "red") == ["roll"]


def test_rules_note_7_only_one_card_per_turn():
    st = empty_play_state()
    give_dev(st, "red", "warrior", 2)
    play(st, "red", "play warrior")
    play(st, "red", "robber E")
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "play warrior")
    assert err.value.code == "one_card_per_turn"
    assert "play warrior" not in GAME.legal_moves(st, "red")


def test_rules_note_7_not_the_turn_it_was_bought():
    st = empty_play_state()
    give_dev(st, "red", "prosperity", new_this_turn=True)
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "play prosperity wood")
    assert err.value.code == "card_too_new"
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "play harvest 2wood")
    assert err.value.code == "no_card"
    play(st, "red", "end")
    st["turn"] = "red"
    st["rolled"] = True
    play(st, "red", "play prosperity wood")


def test_rules_note_9_largest_army_at_three_warriors_moves_only_to_more():
    st = empty_play_state()
    st["players"]["blue"]["warriors"] = 3
    st["army"] = "blue"
    st["players"]["red"]["warriors"] = 2
    give_dev(st, "red", "warrior", 2)
    play(st, "red", "play warrior")
    play(st, "red", "robber E")
    assert st["army"] == "blue"                   # 3 = 3
    st["dev_played"] = False
    play(st, "red", "play warrior")
    assert st["army"] == "red"                    # 4 > 3
    assert "Largest Army" in st["events"][-1]["public"]


def test_rules_note_25_no_card_while_a_seven_is_resolved():
    """RULES.md item 25.  The book lets a card come "at any time during your turn (even before
    your production roll)", but resolves a 7 as one sequence: "Each player who holds more than
    seven Resource Cards must select half ... You must then move the Gadianton Robber" and
    "The player then continues his turn with the trade phase."  It does not say whether a
    card may interrupt that sequence; we read it as one step: no card while discards or the
    robber move are owed."""
    st = empty_play_state(rolled=False)
    give_dev(st, "red", "warrior")
    give_dev(st, "red", "harvest")
    set_hand(st, "blue", wood=8)
    resolve_roll(st, "red", 7, "Red rolled 7")
    for text in ("play warrior", "play harvest 2wood"):
        with pytest.raises(IllegalMove) as err:
            play(st, "red", text)
        assert err.value.code == "waiting"
    play(st, "blue", "discard 4wood")
    for text in ("play warrior", "play harvest 2wood"):
        with pytest.raises(IllegalMove) as err:
            play(st, "red", text)
        assert err.value.code == "robber_first"
    assert all(m.startswith("robber ") for m in GAME.legal_moves(st, "red"))
    play(st, "red", "robber E")
    assert "play warrior" in GAME.legal_moves(st, "red")
    play(st, "red", "play warrior")                # the turn goes on: the card may come now


def test_rules_note_25_after_a_liahona_seven_the_robber_comes_before_anything():
    """RULES.md item 25: a Liahona "7" is resolved like a rolled one ("Instead of rolling the
    dice, you decide what the results of the roll will be"); no card comes before the robber
    (and the Liahona was the turn's one card: "You may play one – and only one – Development
    Card")."""
    st = empty_play_state(rolled=False)
    give_dev(st, "red", "liahona")
    give_dev(st, "red", "warrior")
    play(st, "red", "play liahona 7")
    assert st["robber_due"]
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "play warrior")
    assert err.value.code == "robber_first"
    assert "play warrior" not in GAME.legal_moves(st, "red")
    play(st, "red", "robber E")
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "play warrior")
    assert err.value.code == "one_card_per_turn"


def test_largest_army_first_at_three():
    st = empty_play_state()
    st["players"]["red"]["warriors"] = 2
    give_dev(st, "red", "warrior")
    play(st, "red", "play warrior")
    assert st["army"] == "red"


def test_rules_note_6_liahona_chooses_the_roll_instead_of_rolling():
    st = empty_play_state(rolled=False)
    put_building(st, "red", 13)        # A stone 5
    give_dev(st, "red", "liahona")
    play(st, "red", "play liahona 5")
    assert st["rolled"] and st["last_roll"] == 5 and st["dice"] is None
    assert st["players"]["red"]["hand"] == bundle(stone=1)
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "roll")
    assert err.value.code == "already_rolled"


def test_rules_note_6_liahona_choosing_seven_triggers_discards_and_the_robber():
    st = empty_play_state(rolled=False)
    give_dev(st, "red", "liahona")
    set_hand(st, "blue", wood=10)
    play(st, "red", "play liahona 7")
    assert st["discard"] == {"blue": 5}
    assert GAME.to_act(st) == ["blue"]
    play(st, "blue", "discard 5wood")
    assert st["robber_due"] and GAME.to_act(st) == ["red"]


def test_rules_note_6_liahona_only_before_the_roll():
    st = empty_play_state(rolled=True)
    give_dev(st, "red", "liahona")
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "play liahona 8")
    assert err.value.code == "already_rolled"
    assert not any(m.startswith("play liahona") for m in GAME.legal_moves(st, "red"))


def test_bountiful_harvest_takes_two_cards_from_the_bank():
    st = empty_play_state()
    give_dev(st, "red", "harvest")
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "play harvest 3wood")
    assert err.value.code == "wrong_count"
    play(st, "red", "play harvest 1wood+1stone")
    assert st["players"]["red"]["hand"] == bundle(wood=1, stone=1)
    assert total_cards(st) == 90


def test_rules_note_7_bountiful_harvest_is_limited_by_the_banks_stock():
    st = empty_play_state()
    give_dev(st, "red", "harvest", 2)
    set_hand(st, "blue", wood=18, brick=18, water=18, wheat=18, stone=17)
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "play harvest 2stone")
    assert err.value.code == "wrong_count"
    assert [m for m in GAME.legal_moves(st, "red") if "harvest" in m] == \
        ["play harvest 1stone"]
    play(st, "red", "play harvest 1stone")
    assert st["players"]["red"]["hand"] == bundle(stone=1)
    # an empty bank: the card is played for nothing
    st["dev_played"] = False
    assert sum(st["bank"]) == 0
    play(st, "red", "play harvest")
    assert st["players"]["red"]["dev"][3] == 0


def test_bountiful_harvest_refuses_a_resource_the_bank_lacks():
    st = empty_play_state()
    give_dev(st, "red", "harvest")
    set_hand(st, "blue", wood=17)
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "play harvest 2wood")
    assert err.value.code == "bank_empty"


def test_rules_note_18_road_building_places_two_free_roads_first():
    st = empty_play_state()
    put_building(st, "red", 13)
    give_dev(st, "red", "roads")
    play(st, "red", "play roads")
    assert st["free_roads"] == 2
    assert GAME.view(st, "red")["owes"]["red"] == "place 2 free road(s)"
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "end")
    assert err.value.code == "free_roads_first"
    play(st, "red", "road 13-18")
    play(st, "red", "road 18-23")
    assert st["players"]["red"]["hand"] == [0] * 5
    assert st["free_roads"] == 0 and st["players"]["red"]["roads"] == 2


def test_rules_note_7_road_building_gives_fewer_roads_when_fewer_fit():
    st = empty_play_state()
    put_building(st, "red", 4)                  # corner 4: paths 1-4 and 4-8 only
    put_building(st, "blue", 1)
    put_building(st, "blue", 12)
    put_road(st, "blue", 1, 5)
    put_road(st, "blue", 8, 12)
    put_road(st, "blue", 8, 13)
    give_dev(st, "red", "roads")
    play(st, "red", "play roads")
    play(st, "red", "road 1-4")                 # ends on blue's settlement
    assert st["free_roads"] == 1
    play(st, "red", "road 4-8")                 # nothing left to reach
    assert st["free_roads"] == 0


def test_road_building_with_one_road_left_in_stock():
    st = empty_play_state()
    put_building(st, "red", 13)
    st["players"]["red"]["roads"] = 14
    give_dev(st, "red", "roads")
    play(st, "red", "play roads")
    assert st["free_roads"] == 1
    play(st, "red", "road 13-18")
    assert st["free_roads"] == 0 and GAME.legal_moves(st, "red")[0] == "end"


def test_rules_note_18_road_building_needs_somewhere_to_build():
    st = empty_play_state()
    give_dev(st, "red", "roads")
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "play roads")
    assert err.value.code == "no_room"


def test_rules_note_7_temple_building_places_two_stones_capped_at_ten():
    st = empty_play_state()
    give_dev(st, "red", "temples", 2)
    st["players"]["red"]["stones"] = 1
    play(st, "red", "play temples")
    assert st["players"]["red"]["stones"] == 3 and st["temple"] == "red"
    st["dev_played"] = False
    st["players"]["red"]["stones"] = 9
    play(st, "red", "play temples")
    assert st["players"]["red"]["stones"] == 10
    give_dev(st, "red", "temples")
    st["dev_played"] = False
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "play temples")
    assert err.value.code == "no_pieces"


def test_prosperity_takes_every_card_of_one_resource_from_all_others():
    st = empty_play_state()
    give_dev(st, "red", "prosperity")
    set_hand(st, "red", wood=1)
    set_hand(st, "blue", wood=3, brick=1)
    set_hand(st, "white", wood=2)
    play(st, "red", "play prosperity wood")
    assert st["players"]["red"]["hand"] == bundle(wood=6)
    assert st["players"]["blue"]["hand"] == bundle(brick=1)
    assert st["players"]["white"]["hand"] == [0] * 5
    assert "took 5 wood" in st["events"][0]["public"]


def test_rules_note_7_prosperity_with_an_empty_market_is_played_for_nothing():
    st = empty_play_state()
    give_dev(st, "red", "prosperity")
    set_hand(st, "blue", brick=2)
    st["bank"][2] = 0                         # and the bank has no water either
    play(st, "red", "play prosperity water")
    assert st["players"]["red"]["hand"] == [0] * 5
    assert st["players"]["red"]["dev"][6] == 0 and st["dev_played"]
    assert "no one had any" in st["events"][0]["public"]


def test_warrior_robber_example_miles_may_rob_alvin_or_jon():
    st = empty_play_state(n=3)
    give_dev(st, "red", "warrior")
    put_building(st, "blue", 41)      # N, O, R
    put_building(st, "white", 30)     # I, J, N
    set_hand(st, "blue", wood=1)
    set_hand(st, "white", brick=1)
    play(st, "red", "play warrior")
    legal = GAME.legal_moves(st, "red")
    assert {"robber N blue", "robber N white", "robber N"} <= set(legal)
    play(st, "red", "robber N white")
    assert st["robber"] == HEX_NAMES.index("N")
    assert st["players"]["red"]["hand"] == bundle(brick=1)


def test_rules_note_21_victory_point_cards_are_never_played():
    st = empty_play_state()
    give_dev(st, "red", "vp")
    assert not any("vp" in m for m in GAME.legal_moves(st, "red"))
    with pytest.raises(IllegalMove):
        play(st, "red", "play vp")


def test_cards_with_a_road_reach_after_road_building_count_for_longest_road():
    st = empty_play_state()
    put_building(st, "red", 13)
    put_road(st, "red", 13, 18)
    put_road(st, "red", 18, 23)
    put_road(st, "red", 23, 29)
    give_dev(st, "red", "roads")
    play(st, "red", "play roads")
    play(st, "red", "road 29-34")
    assert st["longest"] is None
    play(st, "red", "road 34-39")
    assert st["longest"] == "red"
