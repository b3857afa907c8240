"""Longest Road: 5+, strictly longer takes it, branches do not count, broken roads."""

from shared.zarahemla.roads import road_length, update_longest
from shared.zarahemla.state import public_vp

from .helpers import edge, empty_play_state, play, put_building, put_path, put_road, set_hand

RED_ROAD = [8, 13, 18, 23, 29, 34, 39, 44]          # seven roads


def _book_example():
    st = empty_play_state()
    put_building(st, "red", 44)
    put_path(st, "red", RED_ROAD)
    put_road(st, "red", 18, 24)                       # branches
    put_road(st, "red", 34, 28)
    update_longest(st)
    return st


def test_book_example_1_seven_roads_with_branches_take_the_card():
    st = _book_example()
    assert st["players"]["red"]["road_len"] == 7
    assert st["longest"] == "red" and public_vp(st, "red") == 3


def test_five_roads_are_needed():
    st = empty_play_state()
    put_building(st, "red", 8)
    put_path(st, "red", [8, 13, 18, 23, 29])
    assert st["longest"] is None
    set_hand(st, "red", wood=1, brick=1)
    play(st, "red", "road 29-34")
    assert st["longest"] == "red"
    assert "takes the Longest Road (5 roads)" in st["events"][-1]["public"]


def test_a_loop_counts_every_road_and_a_corner_may_be_passed_twice():
    st = empty_play_state()
    put_building(st, "red", 9)
    put_path(st, "red", [9, 14, 19, 24, 18, 13, 9])      # the ring of hex E
    assert road_length(st, "red") == 6
    put_road(st, "red", 19, 25)
    put_road(st, "red", 25, 31)
    assert road_length(st, "red") == 8


def test_rules_note_8_only_a_strictly_longer_road_takes_the_card():
    st = _book_example()
    put_building(st, "blue", 3)
    put_path(st, "blue", [3, 7, 11, 16, 21, 27])      # 5
    set_hand(st, "blue", wood=3, brick=3)
    st["turn"] = "blue"
    play(st, "blue", "road 27-33")                    # 6
    play(st, "blue", "road 33-38")                    # 7 = 7: red keeps it
    assert st["longest"] == "red"
    play(st, "blue", "road 38-43")                    # 8 > 7
    assert st["longest"] == "blue"
    assert "from Red" in st["events"][-1]["public"]


def test_book_example_2_blue_breaks_the_road_and_takes_the_card():
    st = _book_example()
    put_building(st, "blue", 48)
    put_path(st, "blue", [29, 35, 40, 45, 49, 52, 48])   # six roads, ends next to 29
    assert st["longest"] == "red"
    set_hand(st, "blue", wood=1, brick=1, water=1, wheat=1)
    st["turn"] = "blue"
    play(st, "blue", "settle 29")
    assert st["players"]["red"]["road_len"] == 4
    assert st["longest"] == "blue"
    assert public_vp(st, "red") == 1 and public_vp(st, "blue") == 4


def test_rules_note_8_a_tie_after_the_break_leaves_the_card_with_its_holder():
    st = _book_example()
    put_building(st, "blue", 22)
    put_path(st, "blue", [34, 28, 22, 17, 12, 8])         # five roads
    # red's branch 28-34 becomes blue's: blue's road reaches 34 from 28
    st["roads"][edge(28, 34)] = "blue"
    st["players"]["red"]["roads"] -= 1
    update_longest(st)
    assert st["longest"] == "red"
    set_hand(st, "blue", wood=1, brick=1, water=1, wheat=1)
    st["turn"] = "blue"
    play(st, "blue", "settle 34")
    assert st["players"]["red"]["road_len"] == 5
    assert st["players"]["blue"]["road_len"] == 5
    assert st["longest"] == "red"


def test_rules_note_8_a_road_broken_below_five_returns_the_card_to_the_table():
    st = _book_example()
    put_building(st, "blue", 40)
    put_path(st, "blue", [40, 35, 29])
    set_hand(st, "blue", wood=1, brick=1, water=1, wheat=1)
    st["turn"] = "blue"
    play(st, "blue", "settle 29")
    assert st["longest"] is None
    assert "back to the table" in st["events"][-1]["public"]


def test_rules_note_8_a_holder_broken_to_a_tie_below_five_loses_the_card():
    """RULES.md item 8, where the book contradicts itself: "If, after a Road is broken, there
    is a tie for the Longest Road, the original player keeps the card" against "This card
    goes to the player with the longest Road of at least five Road segments".  A holder
    broken to 4 and tied at 4 keeps nothing: the five-segment minimum wins."""
    st = _book_example()
    put_building(st, "blue", 41)
    put_path(st, "blue", [41, 45, 40, 35, 29])            # four roads, ending at 29
    set_hand(st, "blue", wood=1, brick=1, water=1, wheat=1)
    st["turn"] = "blue"
    play(st, "blue", "settle 29")
    assert st["players"]["red"]["road_len"] == 4
    assert st["players"]["blue"]["road_len"] == 4
    assert st["longest"] is None


def test_rules_note_8_a_tie_between_the_others_after_a_break_returns_the_card():
    st = _book_example()
    put_building(st, "blue", 48)
    put_path(st, "blue", [29, 35, 40, 45, 49, 52, 48])    # 6
    put_building(st, "white", 3)
    put_path(st, "white", [3, 7, 11, 16, 21, 27, 33])     # 6
    assert st["longest"] == "red"
    set_hand(st, "blue", wood=1, brick=1, water=1, wheat=1)
    st["turn"] = "blue"
    play(st, "blue", "settle 29")
    assert st["longest"] is None
    # the next strictly longer road takes it
    set_hand(st, "white", wood=1, brick=1)
    st["turn"] = "white"
    play(st, "white", "road 33-38")
    assert st["longest"] == "white"


def test_faq_an_interrupted_road_can_still_be_extended():
    st = _book_example()
    put_building(st, "blue", 48)
    put_path(st, "blue", [29, 35, 40, 45, 49, 52, 48])
    st["turn"] = "blue"
    set_hand(st, "blue", wood=1, brick=1, water=1, wheat=1)
    play(st, "blue", "settle 29")
    st["turn"] = "red"
    set_hand(st, "red", wood=1, brick=1)
    play(st, "red", "road 40-44")
    assert st["players"]["red"]["road_len"] == 4
    assert st["roads"][edge(40, 44)] == "red"


def test_an_own_settlement_does_not_break_the_road():
    st = empty_play_state()
    put_building(st, "red", 8)
    put_path(st, "red", [8, 13, 18, 23, 29, 34])
    put_building(st, "red", 23)
    update_longest(st)
    assert st["players"]["red"]["road_len"] == 5
