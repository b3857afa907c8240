"""Building: roads, settlements, cities, Temple Stones, development cards; costs and stock."""

import pytest

from shared import IllegalMove
from shared.zarahemla import GAME
from shared.zarahemla.state import public_vp, total_vp

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


def test_road_costs_wood_and_brick_and_must_connect():
    st = empty_play_state()
    put_building(st, "red", 13)
    set_hand(st, "red", wood=2, brick=2)
    play(st, "red", "road 13-18")
    assert st["players"]["red"]["hand"] == bundle(wood=1, brick=1)
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "road 30-35")
    assert err.value.code == "not_connected"
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "road 13-18")
    assert err.value.code == "occupied"
    play(st, "red", "road 18-23")
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "road 23-29")
    assert err.value.code == "cannot_afford"
    assert "costs 1wood+1brick" in err.value.message
    assert total_cards(st) == 90


def test_faq_no_road_behind_an_opponents_settlement():
    st = empty_play_state()
    put_building(st, "red", 13)
    put_road(st, "red", 13, 18)
    put_building(st, "blue", 18)          # blue settles on the end of red's road
    set_hand(st, "red", wood=3, brick=3)
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "road 18-23")
    assert err.value.code == "not_connected"
    assert "road 18-23" not in GAME.legal_moves(st, "red")
    play(st, "red", "road 9-13")           # still fine from its own settlement


def test_settlement_needs_own_road_distance_rule_and_cost():
    st = empty_play_state()
    put_building(st, "red", 13)
    put_road(st, "red", 13, 18)
    put_road(st, "red", 18, 23)
    set_hand(st, "red", wood=2, brick=2, water=2, wheat=2)
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "settle 18")
    assert err.value.code == "distance"
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "settle 30")
    assert err.value.code == "not_connected"
    play(st, "red", "settle 23")
    assert st["owner"][22] == "red" and public_vp(st, "red") == 2
    assert st["players"]["red"]["hand"] == bundle(wood=1, brick=1, water=1, wheat=1)


def test_settlement_stock_is_five():
    st = empty_play_state()
    for c in (1, 3, 22, 27, 52):
        put_building(st, "red", c)
    put_road(st, "red", 13, 18)
    put_building(st, "red", 13)
    st["players"]["red"]["settlements"] = 5
    put_road(st, "red", 18, 23)
    set_hand(st, "red", wood=1, brick=1, water=1, wheat=1)
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "settle 23")
    assert err.value.code == "no_pieces"


def test_rules_note_14_city_on_the_same_turn_as_its_settlement():
    st = empty_play_state()
    put_building(st, "red", 13)
    put_road(st, "red", 13, 18)
    put_road(st, "red", 18, 23)
    set_hand(st, "red", wood=1, brick=1, water=1, wheat=3, stone=3)
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "city 23")                 # no settlement there yet
    assert err.value.code == "not_yours"
    play(st, "red", "settle 23")
    play(st, "red", "city 23")
    assert st["level"][22] == 2
    p = st["players"]["red"]
    assert (p["settlements"], p["cities"]) == (1, 1)
    assert public_vp(st, "red") == 3
    assert p["hand"] == [0] * 5
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "city 23")
    assert err.value.code == "already_city"


def test_city_stock_is_four_and_returns_the_settlement():
    st = empty_play_state()
    for c in (1, 3, 22, 27):
        put_building(st, "red", c, city=True)
    put_building(st, "red", 52)
    set_hand(st, "red", wheat=2, stone=3)
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "city 52")
    assert err.value.code == "no_pieces"
    with pytest.raises(IllegalMove) as err:
        play(st, "blue", "city 52")
    assert err.value.code == "not_your_turn"


def test_temple_stone_costs_brick_and_stone_and_gives_the_contributor_card_at_three():
    st = empty_play_state()
    set_hand(st, "red", brick=11, stone=11)
    for _i in range(2):
        play(st, "red", "temple")
    assert st["temple"] is None
    play(st, "red", "temple")
    assert st["temple"] == "red" and public_vp(st, "red") == 2
    st["players"]["red"]["stones"] = 10
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "temple")
    assert err.value.code == "no_pieces"
    assert "temple" not in GAME.legal_moves(st, "red")


def test_rules_note_9_temple_card_moves_only_to_a_strictly_larger_count():
    st = empty_play_state()
    st["players"]["blue"]["stones"] = 3
    st["temple"] = "blue"
    set_hand(st, "red", brick=4, stone=4)
    for _ in range(3):
        play(st, "red", "temple")
    assert st["temple"] == "blue"                 # 3 = 3: blue keeps it
    play(st, "red", "temple")
    assert st["temple"] == "red"                  # 4 > 3
    assert "Greatest Temple Contributor" in st["events"][-1]["public"]


def test_buying_a_development_card_draws_from_the_counts_and_is_private():
    st = empty_play_state()
    set_hand(st, "red", stone=1, water=1, wheat=1)
    play(st, "red", "buy", b"e")
    p = st["players"]["red"]
    assert sum(p["dev"]) == 1 and p["new"] == p["dev"]
    assert sum(st["deck"]) == 28
    ev = st["events"][0]
    assert ev["public"] == "Red bought a development card."
    assert "You bought a development card" in ev["private"]["red"]
    assert p["hand"] == [0] * 5
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "buy")
    assert err.value.code == "cannot_afford"


def test_rules_note_26_an_empty_deck_cannot_be_bought_from():
    """RULES.md item 26.  The book: "When you buy a Development Card, take the top card from
    the stack" is silent on an empty stack; under Building it says "You cannot build an item
    that is out of stock", and we read buying a card the same way: refused, not listed."""
    st = empty_play_state()
    st["deck"] = [0] * 7
    set_hand(st, "red", stone=1, water=1, wheat=1)
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "buy")
    assert err.value.code == "deck_empty"
    assert "buy" not in GAME.legal_moves(st, "red")


def test_rules_note_11_buying_the_winning_victory_point_card_wins_at_once():
    # Molly: 2 settlements, Longest Road, 3 cities, one VP card; buys another VP card
    st = empty_play_state()
    for c in (1, 3):
        put_building(st, "red", c)
    for c in (22, 27, 52):
        put_building(st, "red", c, city=True)
    st["longest"] = "red"
    give_dev(st, "red", "vp")
    st["deck"] = [0, 4, 0, 0, 0, 0, 0]            # only VP cards left: the draw is one
    set_hand(st, "red", stone=1, water=1, wheat=1)
    assert total_vp(st, "red") == 11 and public_vp(st, "red") == 10
    play(st, "red", "buy")
    assert st["phase"] == "over"
    assert GAME.result(st)["winners"] == ["red"]
    assert GAME.to_act(st) == []
    assert "2 Victory Point cards revealed" in st["events"][-1]["public"]
    v = GAME.view(st, "blue")
    assert v["status"] == "over" and v["scores"]["red"] == 12
    with pytest.raises(IllegalMove) as err:
        play(st, "red", "end")
    assert err.value.code == "game_over"


def test_rules_note_11_vp_option_ten_and_a_win_at_the_start_of_the_turn():
    st = empty_play_state(vp_to_win=10)
    for c in (22, 27, 52):
        put_building(st, "blue", c, city=True)
    st["longest"] = "blue"
    give_dev(st, "blue", "vp", 2)
    assert total_vp(st, "blue") == 10
    play(st, "red", "end")                          # blue has 10 at the start of its turn
    assert st["phase"] == "over" and st["result"]["winners"] == ["blue"]


def test_rules_note_22_points_on_another_players_turn_win_only_on_ones_own_turn():
    st = empty_play_state(vp_to_win=10)
    for c in (22, 27, 52):
        put_building(st, "blue", c, city=True)
    give_dev(st, "blue", "vp", 4)
    set_hand(st, "red", brick=1, stone=1)
    play(st, "red", "temple")
    assert st["phase"] == "play"


@pytest.mark.parametrize("item,move", [("road", "road 8-13"), ("settle", "settle 23"),
                                       ("city", "city 13"), ("temple", "temple"),
                                       ("buy", "buy")])
def test_listed_builds_need_exactly_their_cost(item, move):
    """legal_moves spells the costs out for speed: with exactly the cost the build is listed,
    with any one card of it missing it is not (and play agrees)."""
    from shared.zarahemla.state import COST, RESOURCES
    st = empty_play_state()
    put_building(st, "red", 13)
    put_road(st, "red", 13, 18)
    put_road(st, "red", 18, 23)
    cost = dict(zip(RESOURCES, COST[item]))
    set_hand(st, "red", **cost)
    assert move in GAME.legal_moves(st, "red")
    GAME.check(st, "red", move)
    for r, n in cost.items():
        if n:
            set_hand(st, "red", **{**cost, r: n - 1})
            assert move not in GAME.legal_moves(st, "red"), r
            with pytest.raises(IllegalMove):
                GAME.check(st, "red", move)
