"""Main board movement: food per space, boat trips, village food, battle sites, starvation."""

import copy

import pytest

from shared import IllegalMove
from shared.title_of_liberty import GAME

from .helpers import act, fresh, pass_all


def army(state, seat="moroni"):
    return state["armies"][seat]


def test_one_food_per_space_and_village_food_collected():
    state = fresh()
    act(state, "moroni", "move bountiful-v2-w1")
    # 2 spaces cost 2 food; v2 (a village passed through) gives 1
    assert army(state)["food"] == 5 - 2 + 1
    assert army(state)["at"] == "w1"


def test_village_stopped_on_is_empty_until_the_army_leaves():
    state = fresh(2)
    pass_all(state)
    act(state, "moroni", "move bountiful-v2")
    assert army(state)["food"] == 5
    assert state["empty_food"] == {"v2": "moroni"}
    pass_all(state)
    act(state, "helaman", "move bountiful-v2")  # the token is gone: no food for helaman
    assert army(state, "helaman")["food"] == 4
    pass_all(state)
    act(state, "moroni", "move v2-w1")
    # moroni left v2: a new token is placed there
    assert "v2" not in state["empty_food"]


def test_rules_note_17_a_boat_trip_costs_one_food_port_to_port():
    """RULES.md note 17: every port reaches every other by one boat trip of 1 food."""
    state = fresh()
    act(state, "moroni", "move bountiful~moroni-nephihah")
    assert army(state)["food"] == 5 - 2 + 1  # Moroni is a town: its food is gathered
    assert state["phase"] == "battle" and state["battle"]["site"] == "nephihah"


def test_rules_note_17_two_boat_steps_in_a_row_are_refused():
    state = fresh()
    with pytest.raises(IllegalMove, match="straight from port to port"):
        GAME.check(state, "moroni", "move bountiful~lehi~moroni")


def test_rules_note_17_a_route_may_not_pass_a_space_twice_version_2():
    state = fresh(version="2")
    with pytest.raises(IllegalMove, match="twice"):
        GAME.check(state, "moroni", "move bountiful-v2-bountiful")


def test_route_must_follow_roads():
    state = fresh()
    with pytest.raises(IllegalMove, match="no road goes from bountiful to w1"):
        GAME.check(state, "moroni", "move bountiful-w1")
    with pytest.raises(IllegalMove, match="by boat write bountiful~lehi"):
        GAME.check(state, "moroni", "move bountiful-lehi")
    with pytest.raises(IllegalMove, match="starts where your army stands"):
        GAME.check(state, "moroni", "move v2-w1")


def test_must_attack_a_battlefield_met_on_the_route():
    state = fresh()
    with pytest.raises(IllegalMove, match="meets a battle at s1"):
        GAME.check(state, "moroni", "move bountiful-s1-mulek")
    with pytest.raises(IllegalMove, match="meets a battle at mulek"):
        GAME.check(state, "moroni", "move bountiful~mulek-gid")


def test_a_liberated_city_can_be_passed_through():
    state = fresh()
    state["cities"]["mulek"]["liberated_by"] = "moroni"
    act(state, "moroni", "move bountiful~mulek-gid")
    assert state["battle"]["site"] == "gid"


def test_route_food_is_paid_up_front():
    """RULES.md note 17: food gathered on the way cannot pay for the same march."""
    state = fresh()
    army(state)["food"] = 2
    with pytest.raises(IllegalMove, match="needs 3 food and your army has 2"):
        GAME.check(state, "moroni", "move bountiful-v2-w1-v4")


def test_rules_note_19_free_return_to_a_city_left_unfinished():
    """RULES.md note 19: renewing an attack on the held city you stand in is free."""
    state = fresh()
    act(state, "moroni", "move bountiful~mulek")
    act(state, "moroni", "stop")
    assert army(state)["at"] == "mulek"
    food = army(state)["food"]
    act(state, "moroni", "attack")
    assert army(state)["food"] == food
    assert state["phase"] == "battle"


def test_rules_note_19_renewing_on_a_battlefield_costs_one_food():
    state = fresh()
    act(state, "moroni", "move bountiful-s1", 2)
    act(state, "moroni", "stop")
    food = army(state)["food"]
    act(state, "moroni", "attack")
    assert army(state)["food"] == food - 1
    with pytest.raises(IllegalMove, match="nothing to attack"):
        GAME.check(fresh(), "moroni", "attack")


def test_version_1_rest_eats_one_food():
    """Rules version 1: staying put ate a food (version 2 follows the book: see test_tol_book)."""
    state = fresh(version="1")
    act(state, "moroni", "rest")
    assert army(state)["food"] == 4 and army(state)["at"] == "bountiful"


@pytest.mark.parametrize("version", ["1", "2"])
def test_rules_note_12_starvation_takes_the_army_from_the_game(version):
    """RULES.md note 12: no food and no free attack: the only march is to starve.
    "YOU CANNOT MOVE WITHOUT FOOD. YOUR ARMY STARVES AND IS TAKEN FROM THE GAME!" """
    state = fresh(2, version=version)
    army(state)["food"] = 0
    army(state, "helaman")["food"] = 0
    state["givers"] = []
    legal = GAME.legal_moves(state, "moroni")
    assert "starve" in legal and "rest" not in legal
    assert not [m for m in legal if m.startswith("move")]
    with pytest.raises(IllegalMove, match="has none|has no food"):
        GAME.check(state, "moroni", "rest")
    GAME.play(state, "moroni", "starve")
    assert not army(state)["alive"] and army(state)["fate"] == "it starved"
    assert state["turn"] == "helaman"
    GAME.play(state, "helaman", "starve")
    assert GAME.result(state)["outcome"] == "lamanites"
    assert GAME.result(state)["winners"] == []


def test_starve_is_refused_when_food_remains():
    state = fresh()
    with pytest.raises(IllegalMove, match="need not starve"):
        GAME.check(state, "moroni", "starve")


def test_a_gift_of_food_saves_a_starving_army():
    state = fresh(2)
    army(state)["food"] = 0
    assert "helaman" in GAME.to_act(state)
    GAME.play(state, "helaman", "give moroni 2 food")
    assert "starve" not in GAME.legal_moves(state, "moroni")
    GAME.play(state, "moroni", "move bountiful-v2-w1")


def test_illegal_move_leaves_state_unchanged():
    state = fresh(2)
    before = copy.deepcopy(state)
    for text in ("move bountiful-s1-mulek", "move bountiful-v2-v2", "give helaman 1 food",
                 "duel infantry archer", "buy 3 archers", "arm 1 infantry", "stop",
                 "sector palace", "wine", "lead 2 infantry", "nonsense", ""):
        for seat in ("moroni", "helaman"):
            with pytest.raises(IllegalMove):
                GAME.play(state, seat, text)
            assert state == before


def test_rules_note_18_bountiful_has_no_food():
    state = fresh()
    act(state, "moroni", "move bountiful-v2")
    act(state, "moroni", "move v2-bountiful")
    # v2 was emptied on arrival, so leaving it gives nothing; Bountiful has none
    assert army(state)["food"] == 5 - 1
