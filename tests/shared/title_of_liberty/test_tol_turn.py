"""The order of a turn: gifts, buying and arming, wounded, rounds and time."""

import pytest

from shared import IllegalMove
from shared.title_of_liberty import GAME

from .helpers import act, fresh, pass_all


def test_rules_note_9_other_captains_may_give_at_the_start_of_a_turn():
    """RULES.md note 9: gifts are a duty others may fulfil, never a wait."""
    state = fresh(3)
    assert GAME.to_act(state) == ["moroni", "helaman", "lehi"]
    owes = GAME.view(state, None)["owes"]
    assert owes["helaman"] == "give food, gold or weapons to moroni, or pass"
    GAME.play(state, "helaman", "give moroni 2 food")
    assert state["armies"]["moroni"]["food"] == 7
    assert state["armies"]["helaman"]["food"] == 3
    GAME.play(state, "helaman", "pass")
    assert GAME.to_act(state) == ["moroni", "lehi"]
    # moroni need not wait for lehi: marching closes the window
    GAME.play(state, "moroni", "rest")
    assert state["turn"] == "helaman"
    assert GAME.to_act(state) == ["helaman", "moroni", "lehi"]


def test_gifts_go_only_to_the_army_whose_turn_it_is():
    state = fresh(3)
    with pytest.raises(IllegalMove, match="army whose turn it is, moroni"):
        GAME.check(state, "helaman", "give lehi 1 food")
    with pytest.raises(IllegalMove, match="cannot give 6 food"):
        GAME.check(state, "helaman", "give moroni 6 food")
    with pytest.raises(IllegalMove, match="not your turn|owe no gift|start of another"):
        GAME.check(state, "moroni", "give moroni 1 food")


def test_gifts_of_gold_and_weapons_buy_and_arm_in_the_same_turn():
    state = fresh(2)
    state["armies"]["helaman"]["gold"] = 3
    state["armies"]["helaman"]["weapons"] = 2
    GAME.play(state, "helaman", "give moroni 3 gold")
    GAME.play(state, "helaman", "give moroni 2 weapons")
    GAME.play(state, "moroni", "buy 3 archers")
    army = state["armies"]["moroni"]
    assert army["gold"] == 0 and army["unarmed"]["archer"] == 3
    GAME.play(state, "moroni", "arm 2 archers")
    assert army["live"]["archer"] == 10 and army["unarmed"]["archer"] == 1
    assert army["weapons"] == 0
    with pytest.raises(IllegalMove, match="takes 1 weapon and your army has 0"):
        GAME.check(state, "moroni", "arm 1 archer")


def test_rules_note_6_buying_costs_one_gold_and_only_foot_soldiers_version_2():
    """RULES.md note 6: 1 gold a soldier (unarmed), 1 weapon to arm; no captains; scouts
    only up to two an army (version 1: no scouts at all)."""
    state = fresh(version="2")
    with pytest.raises(IllegalMove, match="cost 1 gold"):
        GAME.check(state, "moroni", "buy 1 infantry")
    state["armies"]["moroni"]["gold"] = 1
    GAME.check(state, "moroni", "buy 1 infantry")
    with pytest.raises(IllegalMove, match="at most 2 scouts"):
        GAME.check(state, "moroni", "buy 1 scout")
    with pytest.raises(IllegalMove, match="cannot buy captains"):
        GAME.check(state, "moroni", "buy 1 captain")


def test_rules_note_27_buying_only_before_marching():
    """RULES.md note 27: soldiers are trained at the beginning of the turn, not in battle."""
    state = fresh()
    state["armies"]["moroni"]["gold"] = 2
    act(state, "moroni", "move bountiful~mulek")
    with pytest.raises(IllegalMove, match="in battle"):
        GAME.check(state, "moroni", "buy 1 infantry")


def test_rules_note_7_wounded_return_at_the_start_of_the_owners_next_turn():
    state = fresh(2)
    pass_all(state)
    state["armies"]["moroni"]["live"]["infantry"] -= 3
    state["armies"]["moroni"]["wounded"]["infantry"] += 3
    GAME.play(state, "moroni", "rest")
    assert state["armies"]["moroni"]["wounded"]["infantry"] == 3  # not yet
    pass_all(state)
    GAME.play(state, "helaman", "rest")
    assert state["armies"]["moroni"]["wounded"]["infantry"] == 0
    assert state["armies"]["moroni"]["live"]["infantry"] == 14


def test_rules_note_2_time_up_means_the_lamanites_win():
    """RULES.md note 2: a round is every living army's turn; when the budget is spent, lose."""
    state = fresh(2, rounds=2)
    for _ in range(3):
        pass_all(state)
        GAME.play(state, state["turn"], "rest")
    assert state["round"] == 2 and GAME.result(state) is None
    pass_all(state)
    GAME.play(state, "helaman", "rest")
    result = GAME.result(state)
    assert result["outcome"] == "lamanites" and "rounds are spent" in result["reason"]
    assert GAME.to_act(state) == []
    with pytest.raises(IllegalMove, match="over"):
        GAME.check(state, "moroni", "rest")


def test_a_lost_army_is_skipped_in_the_turn_order():
    state = fresh(3)
    state["armies"]["helaman"]["alive"] = False
    pass_all(state)
    GAME.play(state, "moroni", "rest")
    assert state["turn"] == "lehi"
    assert "helaman" not in GAME.to_act(state)


def test_rules_note_26_timeout_policy():
    """RULES.md note 26: givers pass, a battle stops, an idle army rests;
    with no food it renews a free attack or starves."""
    state = fresh(2)
    assert GAME.timeout_move(state, "helaman") == "pass"
    assert GAME.timeout_move(state, "moroni") == "rest"
    act(state, "moroni", "move bountiful~mulek")
    assert GAME.timeout_move(state, "moroni") == "stop"
    GAME.play(state, "moroni", "stop")
    pass_all(state)
    GAME.play(state, "helaman", "rest")
    state["armies"]["moroni"]["food"] = 0
    assert GAME.timeout_move(state, "moroni") == "attack"
    state["armies"]["moroni"]["at"] = "w1"
    # version 2: a starving army waits while a captain with food may still give it some
    assert GAME.to_act(state) == ["helaman"]
    pass_all(state)
    assert GAME.timeout_move(state, "moroni") == "starve"
    with pytest.raises(IllegalMove):
        GAME.timeout_move(state, "lehi")


def test_rules_note_26_a_starving_army_waits_for_the_givers():
    """RULES.md note 26 with note 12: an army with no food but gold owes a move (it may buy)
    while a captain may still give it food; its timeout waits (None) until the captains have
    given or passed, and then it starves."""
    state = fresh(2)
    GAME.play(state, "helaman", "pass")
    GAME.play(state, "moroni", "rest")
    pass_all(state)
    GAME.play(state, "helaman", "rest")
    state["armies"]["moroni"]["food"] = 0
    state["armies"]["moroni"]["at"] = "w1"
    state["armies"]["moroni"]["gold"] += 2  # from the box: enough to buy a soldier
    state["box"]["gold"] -= 2
    owing = GAME.to_act(state)
    assert "moroni" in owing and "helaman" in owing  # moroni may buy; helaman may give
    assert GAME.timeout_move(state, "moroni") is None
    with pytest.raises(IllegalMove) as refused:
        GAME.check(state, "moroni", "starve")
    assert refused.value.code == "awaiting_gifts"
    GAME.play(state, "helaman", GAME.timeout_move(state, "helaman"))  # the giver's timeout
    assert GAME.timeout_move(state, "moroni") == "starve"
    GAME.play(state, "moroni", "starve")
    assert not state["armies"]["moroni"]["alive"]
