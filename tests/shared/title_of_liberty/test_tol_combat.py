"""Battle rules on the Seashore/River Bank and Hill insets: dice, duels, scouts, captives."""

import pytest

from shared import IllegalMove
from shared.title_of_liberty import GAME
from shared.title_of_liberty.combat import fate, lamanite_die, nephite_die

from .helpers import act, conserved, fresh, kill, pass_all


def test_dice_chart():
    assert [fate(20, r) for r in (1, 2, 3, 4, 5, 7, 8, 20)] == [
        "killed", "killed", "wounded", "wounded", "captured", "captured", "fit", "fit"]
    assert [fate(12, r) for r in (2, 4, 6, 7)] == ["killed", "wounded", "captured", "fit"]
    assert [fate(10, r) for r in (1, 3, 5, 6, 7, 10)] == [
        "killed", "wounded", "captured", "captured", "fit", "fit"]
    assert [fate(8, r) for r in (2, 3, 5, 6, 8)] == [
        "killed", "wounded", "captured", "fit", "fit"]


def test_dice_entitlements():
    assert nephite_die("moroni", "captain", False) == 20
    assert nephite_die("moroni", "scout", True) == 12
    assert nephite_die("moroni", "infantry", False) == 10
    assert nephite_die("moroni", "infantry", True) == 12
    assert nephite_die("lehi", "archer", False) == 8
    assert nephite_die("lehi", "slinger", True) == 10
    assert lamanite_die("king", False) == 12 and lamanite_die("captain", True) == 12
    assert lamanite_die("archer", False) == 10 and lamanite_die("archer", True) == 10
    assert lamanite_die("infantry", False) == 8 and lamanite_die("infantry", True) == 10


def test_helamans_stronger_infantry():
    """SPECIAL NOTE: Helaman's infantry roll purple d12, blue d20 on the hill or the boat."""
    assert nephite_die("helaman", "infantry", False) == 12
    assert nephite_die("helaman", "infantry", True) == 20
    state = fresh(2)
    pass_all(state)
    GAME.play(state, "moroni", "rest")
    pass_all(state)
    act(state, "helaman", "move bountiful~s2", 1)  # zone 1: Nephites on the boat
    dice = act(state, "helaman", "duel infantry infantry", 17, 3)
    assert dice.sides == [20, 8]
    assert state["fields"]["s2"]["lamanites"]["infantry"] == 10  # wounded, carried off


def test_rules_note_4_seashore_placement_rerolls_a_four():
    """RULES.md note 4: Seashore d4: 1 beach, 2 grass, 3 hill, 4 rolled again."""
    for rolls, zone in (((1,), 1), ((2,), 2), ((3,), 3), ((4, 4, 3), 3)):
        state = fresh()
        act(state, "moroni", "move bountiful-s1", *rolls)
        assert state["battle"]["zone"] == zone
        assert state["fields"]["s1"]["lamanites"] == {"captain": 1, "infantry": 11,
                                                      "archer": 4}


def test_hill_placement():
    for roll, zone in ((1, 1), (2, 1), (3, 2), (4, 2)):
        state = fresh()
        act(state, "moroni", "move bountiful-v2-h1", roll)
        assert state["battle"]["zone"] == zone and state["battle"]["kind"] == "hill"


def test_rules_note_23_advantage_by_zone_version_2():
    """RULES.md note 23: the zone alone sets the Advantage; of the Lamanites only
    infantry gain from it."""
    state = fresh(version="2")
    act(state, "moroni", "move bountiful-s1", 1)  # came by road, still fights from the boat
    assert act(state, "moroni", "duel infantry archer", 9, 2).sides == [12, 10]
    assert act(state, "moroni", "duel captain infantry", 9, 2).sides == [20, 8]
    state = fresh(version="2")
    act(state, "moroni", "move bountiful-s1", 3)  # Lamanites on the hill
    assert act(state, "moroni", "duel infantry infantry", 9, 2).sides == [10, 10]
    state = fresh(version="2")
    act(state, "moroni", "move bountiful-v2-h1", 1)  # Lamanites in the valley
    assert act(state, "moroni", "duel archer infantry", 9, 2).sides == [10, 8]


def test_rules_note_3_duel_loser_reads_own_roll_and_ties_roll_again():
    """RULES.md note 3: higher roll wins, a tie is rolled again, the loser's own roll decides."""
    state = fresh()
    act(state, "moroni", "move bountiful-s1", 2)
    act(state, "moroni", "duel infantry archer", 5, 5, 2, 6)
    army = state["armies"]["moroni"]
    assert army["dead"]["infantry"] == 1 and army["live"]["infantry"] == 13
    assert "after 1 tie" in state["events"][0]["public"]
    act(state, "moroni", "duel infantry archer", 9, 6)  # archer loses with 6: captured
    assert army["captives"] == {"archer": 1}
    act(state, "moroni", "duel infantry archer", 9, 8)  # archer loses with 8: fit for duty
    assert state["fields"]["s1"]["lamanites"]["archer"] == 3
    act(state, "moroni", "duel infantry archer", 4, 7)  # infantry loses with 4: wounded
    assert army["wounded"]["infantry"] == 1
    assert conserved(state)


def test_captured_nephites_go_to_the_nearest_citys_stockade_version_2():
    state = fresh(version="2")
    act(state, "moroni", "move bountiful-s1", 2)
    act(state, "moroni", "duel archer archer", 5, 9)  # d8 5: captured
    assert state["cities"]["mulek"]["stockade"] == {"moroni": {"archer": 1}}
    assert GAME.view(state, None)["armies"]["moroni"]["captured"] == 1
    assert conserved(state)


def test_scout_led_assault_negates_the_lamanite_hill_advantage():
    """Hill zone 2: scouts lead at most 5 up the forest paths; Lamanite infantry lose the hill."""
    state = fresh()
    act(state, "moroni", "move bountiful-v2-h1", 3)
    assert state["battle"]["zone"] == 2
    assert act(state, "moroni", "duel infantry infantry", 9, 3).sides == [10, 10]
    with pytest.raises(IllegalMove, match="at most 5"):
        GAME.check(state, "moroni", "lead 4 infantry 2 archers")
    with pytest.raises(IllegalMove, match="went up a forest path"):
        GAME.check(state, "moroni", "duel infantry@path infantry")
    act(state, "moroni", "lead 3 infantry 2 archers")
    assert state["battle"]["path"] == {"scout": 1, "infantry": 3, "archer": 2}
    assert act(state, "moroni", "duel infantry@path infantry", 9, 3).sides == [10, 8]
    # a scout-led archer still faces only the infantry's white die
    assert act(state, "moroni", "duel archer@path infantry", 7, 2).sides == [8, 8]
    # the second scout takes the second path; there is no third
    act(state, "moroni", "lead 5 infantry")
    with pytest.raises(IllegalMove, match="both forest paths"):
        GAME.check(state, "moroni", "lead 1 infantry")
    assert "lead 1 infantry" not in GAME.legal_moves(state, "moroni")


def test_lead_only_against_lamanites_on_their_hill():
    """The refusals use the board's own words: a seashore inset's "3 HILL" is not the Hill
    inset's "2 LAMANITE HILL", and the valley is "1 VALLEY"."""
    state = fresh()
    act(state, "moroni", "move bountiful-v2-h1", 1)
    board = GAME.render(GAME.view(state, "moroni"))
    with pytest.raises(IllegalMove, match="1 VALLEY, not on the 2 LAMANITE HILL") as exc:
        GAME.check(state, "moroni", "lead 2 infantry")
    assert "1  VALLEY" in board and "2  LAMANITE HILL" in board
    state = fresh()
    act(state, "moroni", "move bountiful-s1", 3)
    board = GAME.render(GAME.view(state, "moroni"))
    with pytest.raises(IllegalMove) as exc:
        GAME.check(state, "moroni", "lead 2 infantry")
    message = str(exc.value)
    # the board heads this inset SEASHORE / RIVER BANK and labels the zone 3 HILL
    assert "SEASHORE / RIVER BANK" in board and "3 HILL" in board
    assert "SEASHORE / RIVER BANK inset" in message and "its 3 HILL has no forest paths" \
        in message and "HILL battlefield (h1, h2, h3)" in message
    inset = board.split("BATTLE:")[1].split("DICE NUMBERS CHART")[0]
    assert "The SEASHORE / RIVER BANK inset has no forest paths: its 3 HILL" in \
        inset.replace("\n", " ")


def test_path_losses_leave_the_path():
    state = fresh()
    act(state, "moroni", "move bountiful-v2-h1", 4)
    act(state, "moroni", "lead 1 infantry")
    act(state, "moroni", "duel infantry@path infantry", 1, 5)
    assert state["battle"]["path"] == {"scout": 1}
    with pytest.raises(IllegalMove, match="no infantry free to fight on the forest paths"):
        GAME.check(state, "moroni", "duel infantry@path infantry")


def test_winning_a_battlefield_collects_its_supplies_and_ends_the_turn():
    """RULES.md note 5: a won battlefield yields 5 food, 2 weapons and 2 gold."""
    state = fresh(2)
    pass_all(state)
    act(state, "moroni", "move bountiful-s1", 2)
    for _ in range(11):
        kill(state, "moroni", "captain", "infantry")
    for _ in range(4):
        kill(state, "moroni", "captain", "archer")
    kill(state, "moroni", "captain", "captain")
    army = state["armies"]["moroni"]
    assert (army["food"], army["weapons"], army["gold"]) == (4 + 5, 2, 2)
    assert "s1" not in state["fields"]
    assert state["turn"] == "helaman" and state["battle"] is None
    assert state["killed"] == {"infantry": 11, "archer": 4, "captain": 1}


def test_rules_note_8_another_army_continues_an_unfinished_battle():
    """RULES.md note 8: the survivors stay; another army pays its way there and fights on."""
    state = fresh(2)
    pass_all(state)
    act(state, "moroni", "move bountiful-s1", 3)
    kill(state, "moroni", "captain", "archer")
    act(state, "moroni", "stop")
    assert state["fields"]["s1"]["lamanites"] == {"captain": 1, "infantry": 11, "archer": 3}
    pass_all(state)
    act(state, "helaman", "move bountiful-s1")  # no new placement roll
    assert state["battle"]["zone"] == 3
    kill(state, "helaman", "captain", "archer")
    assert state["fields"]["s1"]["lamanites"]["archer"] == 2


def test_rules_note_15_a_killed_captain_loses_the_army():
    """RULES.md note 15: the captain is the army on the main board."""
    state = fresh(2)
    pass_all(state)
    act(state, "moroni", "move bountiful-s1", 2)
    act(state, "moroni", "duel captain infantry", 2, 7)
    army = state["armies"]["moroni"]
    assert not army["alive"] and army["fate"] == "its captain was killed"
    assert state["turn"] == "helaman" and state["battle"] is None
    assert conserved(state)


def test_rules_note_24_battle_stops_when_no_soldier_is_left():
    state = fresh(2)
    pass_all(state)
    army = state["armies"]["moroni"]
    army["live"] = {"captain": 1, "scout": 0, "infantry": 0, "archer": 0, "slinger": 0}
    army["dead"] = {"captain": 0, "scout": 2, "infantry": 14, "archer": 8, "slinger": 5}
    act(state, "moroni", "move bountiful-s1", 2)
    act(state, "moroni", "duel captain infantry", 3, 7)  # wounded
    assert state["turn"] == "helaman"
    assert army["alive"] and army["wounded"]["captain"] == 1


def test_duel_errors_are_plain():
    state = fresh()
    act(state, "moroni", "move bountiful-s1", 2)
    with pytest.raises(IllegalMove, match="no Lamanite king"):
        GAME.check(state, "moroni", "duel captain king")
    with pytest.raises(IllegalMove, match="only a city has towers"):
        GAME.check(state, "moroni", "duel captain archer@tower")
    with pytest.raises(IllegalMove, match="only a city has sectors"):
        GAME.check(state, "moroni", "sector palace")
    with pytest.raises(IllegalMove, match="only in a city"):
        GAME.check(state, "moroni", "wine")
    state["armies"]["moroni"]["live"]["slinger"] = 0
    with pytest.raises(IllegalMove, match="no slinger free"):
        GAME.check(state, "moroni", "duel slinger archer")


def test_rules_note_16_every_live_soldier_is_on_the_inset():
    """RULES.md note 16: no separate muster; path soldiers fight from the path only."""
    state = fresh()
    act(state, "moroni", "move bountiful-v2-h1", 3)
    kinds = {m.split()[1] for m in GAME.legal_moves(state, "moroni") if m.startswith("duel")}
    assert kinds == {"captain", "scout", "infantry", "archer", "slinger"}
    state["armies"]["moroni"]["live"]["slinger"] = 2
    state["armies"]["moroni"]["dead"]["slinger"] = 3
    act(state, "moroni", "lead 2 slingers")
    with pytest.raises(IllegalMove, match="no slinger free to fight"):
        GAME.check(state, "moroni", "duel slinger infantry")
    GAME.check(state, "moroni", "duel slinger@path infantry")


def test_rules_note_25_a_scout_may_lead_a_captain_or_go_alone():
    state = fresh()
    act(state, "moroni", "move bountiful-v2-h1", 4)
    act(state, "moroni", "lead 1 captain 4 infantry")
    act(state, "moroni", "lead")
    assert state["battle"]["path"] == {"scout": 2, "captain": 1, "infantry": 4}
    assert act(state, "moroni", "duel captain@path infantry", 9, 2).sides == [20, 8]
    with pytest.raises(IllegalMove, match="no scout free"):
        state["battle"]["leads"] = 1
        GAME.check(state, "moroni", "lead 1 archer")


def test_rules_note_28_lamanite_captives_stay_on_the_army_board():
    state = fresh()
    act(state, "moroni", "move bountiful-s1", 2)
    act(state, "moroni", "duel captain captain", 20, 5)  # d12 5: captured
    view = GAME.view(state, None)
    assert view["armies"]["moroni"]["lamanite_captives"] == {"captain": 1}
    assert "Lamanite captives: 1 capt" in GAME.render(view)
