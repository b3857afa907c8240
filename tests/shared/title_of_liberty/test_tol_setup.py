"""Set-up: cities, flags, garrisons, items, armies, options (rulebook: SETTING UP THE GAME)."""

import pytest

from shared import IllegalMove
from shared.title_of_liberty import GAME
from shared.title_of_liberty.board import (
    CITIES,
    KIND,
    PORTS,
    POS,
    ROAD_NEXT,
    SEA_NEXT,
    SPACES,
    START,
    TOWNS,
)
from shared.title_of_liberty.legal import routes

from .helpers import fresh


def test_seats_are_the_five_armies_in_order():
    assert GAME.seat_names(5) == ["moroni", "helaman", "lehi", "teancum", "antipus"]
    assert GAME.seat_names(1) == ["moroni"]
    with pytest.raises(IllegalMove):
        GAME.seat_names(6)


def test_rules_note_1_the_six_cities_are_the_setup_list():
    """RULES.md note 1: Morianton, Antiparah, Gid, Manti, Mulek, Nephihah; Moroni is a town."""
    assert set(CITIES) == {"morianton", "antiparah", "gid", "manti", "mulek", "nephihah"}
    assert "moroni" in TOWNS and "manti" not in TOWNS
    assert set(TOWNS) == {"cumeni", "judea", "lehi", "zeezrom", "moroni"}


@pytest.mark.parametrize("version", ["1", "2"])
def test_every_city_flies_a_lamanite_flag_with_full_garrison_and_items(version):
    """Version 1 places the city items at set-up; version 2 before the first attack (see
    test_tol_book.test_city_items_come_from_the_box_at_the_first_attack)."""
    state = fresh(2, version=version)
    for name in CITIES:
        city = state["cities"][name]
        assert city["liberated_by"] is None
        for sector in ("palace", "stockade", "armory", "market"):
            sec = city["sectors"][sector]
            assert sec["tower"] == {"archer": 1}
            assert sec["gate"] == {"archer": 1, "infantry": 1}
            assert sec["taken_by"] is None
        assert city["temple"]["lower"] == {"infantry": 3}
        items = (5, 5, 5) if version == "1" else (0, 0, 0)
        assert (city["gold"], city["weapons"], city["food"]) == items


def test_rules_note_14_amalickiah_holds_the_upper_temple_of_morianton():
    """RULES.md note 14: the king replaces the city captain in Morianton (5 city captains)."""
    state = fresh()
    assert state["cities"]["morianton"]["temple"]["upper"] == {"king": 1}
    for name in CITIES:
        if name != "morianton":
            assert state["cities"][name]["temple"]["upper"] == {"captain": 1}


def test_each_army_starts_at_bountiful_with_its_troops_and_five_food():
    state = fresh(5)
    for seat in state["seats"]:
        army = state["armies"][seat]
        assert army["at"] == START
        assert army["live"] == {"captain": 1, "scout": 2, "infantry": 14, "archer": 8,
                                "slinger": 5}
        assert army["food"] == 5 and army["gold"] == 0 and army["weapons"] == 0


def test_rules_note_22_lamanite_pool_is_shown_never_spent():
    """RULES.md note 22: every battle gets its full complement; the pool is for reference."""
    view = GAME.view(fresh(), None)
    assert view["lamanites"]["pool"] == {"king": 1, "city captain": 5, "battle captain": 10,
                                         "infantry": 120, "archer": 50}


def test_rules_note_2_default_round_budget_and_options():
    """RULES.md note 2: 12 rounds by default; deadline_hours is stored and shown."""
    opts = GAME.normalize_options({}, 3)
    assert opts == {"rounds": 12, "cities": "book", "difficulty": "book", "deadline_hours": 0}
    opts = GAME.normalize_options({}, 3, rules_version="1")
    assert opts == {"rounds": 12, "short_game": False, "deadline_hours": 0}
    state = fresh(2, rounds=5, deadline_hours=48)
    view = GAME.view(state, "moroni")
    assert view["rounds"] == 5 and view["deadline_hours"] == 48
    assert "wall-clock limit 48 hours" in GAME.render(view)
    with pytest.raises(IllegalMove, match="at least 1, or 0 for the difficulty's budget"):
        GAME.normalize_options({"rounds": -1}, 1)  # 0 is allowed: say so
    with pytest.raises(IllegalMove):
        GAME.normalize_options({"rounds": 0}, 1, rules_version="1")
    # version 2: 0 (the default) is the difficulty's budget
    assert GAME.normalize_options({"rounds": 0}, 1)["rounds"] == 12
    assert GAME.normalize_options({"difficulty": "hard"}, 1)["rounds"] == 8
    assert GAME.normalize_options({"difficulty": "hard", "rounds": 20}, 1)["rounds"] == 20
    with pytest.raises(IllegalMove, match="short_game belongs to rules version 1"):
        GAME.normalize_options({"short_game": True}, 1)
    assert GAME.normalize_options({"short_game": "true"}, 2, rules_version="1")["short_game"]
    with pytest.raises(IllegalMove, match="must be one of"):
        GAME.normalize_options({"difficulty": "easy-peasy"}, 1)
    with pytest.raises(IllegalMove):
        GAME.normalize_options({"colour": "red"}, 1)
    assert GAME.normalize_options({"deadline_hours": None}, 1)["deadline_hours"] == 0


def test_board_graph_is_connected_and_symmetric():
    for space in SPACES:
        assert space in POS
        for other in ROAD_NEXT[space]:
            assert space in ROAD_NEXT[other]
    seen = {START}
    todo = [START]
    while todo:
        space = todo.pop()
        for other in ROAD_NEXT[space] + SEA_NEXT[space]:
            if other not in seen:
                seen.add(other)
                todo.append(other)
    assert seen == set(SPACES)
    assert set(SEA_NEXT["bountiful"]) == set(PORTS) - {"bountiful"}


def test_routes_force_choices_battlefield_on_the_short_way():
    """Bountiful to Mulek by road: 2 steps through s1 (a battle) or 4 around it."""
    assert KIND["s1"] == "seashore"
    state = fresh()
    state["armies"]["moroni"]["food"] = 10
    found = {r[-1]: r for r in routes(state, "moroni")}
    assert found["s1"] == ("bountiful", "-", "s1")
    # the road route to Gid must go round s1 and Mulek
    assert "s1" not in found["gid"] and "mulek" not in found["gid"]


def test_the_south_west_lies_behind_a_battle_until_a_city_falls():
    """RULES.md, the main board: Manti's corner is reached through h2, s3 or h3 at first."""
    state = fresh()
    state["armies"]["moroni"]["food"] = 30
    ends = {r[-1] for r in routes(state, "moroni")}
    assert not ends & {"cumeni", "zeezrom", "v6", "w4", "manti", "h3"}
    assert {"h2", "s3"} <= ends
    state["cities"]["antiparah"]["liberated_by"] = "moroni"
    ends = {r[-1] for r in routes(state, "moroni")}
    assert {"cumeni", "zeezrom", "v6", "w4", "manti"} <= ends
