"""The City inset: towers, gates, the temple, sectors, rewards, the Stockade and the wine."""

import pytest

from shared import IllegalMove
from shared.title_of_liberty import GAME

from .helpers import act, clear_temple, conserved, fresh, kill, pass_all, take_sector


def attack_mulek(state, seat="moroni"):
    """Sail to Mulek, or (version 2) march round by land when the one boat lies elsewhere."""
    pass_all(state)
    at = state["armies"][seat]["at"]
    if state.get("boat", at) == at:
        act(state, seat, f"move {at}~mulek")
    else:
        act(state, seat, f"move {at}-v2-w1-v4-mulek")


def test_rules_note_20_gate_then_temple_then_the_sector():
    """RULES.md note 20: tower and gate first, then the temple (lower, upper), then the prize."""
    state = fresh(2)
    attack_mulek(state)
    with pytest.raises(IllegalMove, match="choose a sector"):
        GAME.check(state, "moroni", "duel captain archer@tower")
    with pytest.raises(IllegalMove, match="say where the Lamanite stands"):
        GAME.check(state, "moroni", "duel captain archer")
    act(state, "moroni", "sector palace")
    with pytest.raises(IllegalMove, match="through an open gate"):
        GAME.check(state, "moroni", "duel captain infantry@temple")
    kill(state, "moroni", "captain", "archer@tower")
    kill(state, "moroni", "captain", "archer@gate")
    kill(state, "moroni", "captain", "infantry@gate")
    city = state["cities"]["mulek"]
    assert city["sectors"]["palace"]["taken_by"] is None  # the temple still holds
    with pytest.raises(IllegalMove, match="no Lamanite captain at the temple"):
        GAME.check(state, "moroni", "duel captain captain@temple")  # lower level first
    clear_temple(state, "moroni")
    assert city["temple"]["cleared"]
    assert city["sectors"]["palace"]["taken_by"] == "moroni"
    assert state["armies"]["moroni"]["gold"] == 5 and city["gold"] == 0
    assert state["armies"]["moroni"]["sectors"] == ["mulek:palace"]
    assert state["battle"]["sector"] is None and state["phase"] == "battle"
    # after the temple, a sector needs only its tower and gate
    take_sector(state, "moroni", "armory")
    assert city["sectors"]["armory"]["taken_by"] == "moroni"
    assert state["armies"]["moroni"]["weapons"] == 5
    take_sector(state, "moroni", "market")
    assert state["armies"]["moroni"]["food"] == 4 + 5
    take_sector(state, "moroni", "stockade")
    assert city["liberated_by"] == "moroni"
    assert state["armies"]["moroni"]["flags"] == ["mulek"]
    assert state["turn"] == "helaman"
    assert "MULEK[N]" in GAME.render(GAME.view(state, None))


def test_rules_note_21_uncaptured_sectors_are_reinforced_when_an_attack_ends():
    """RULES.md note 21: captured sectors stay taken; the others get a full garrison again."""
    state = fresh(1)
    attack_mulek(state)
    take_sector(state, "moroni", "palace")
    clear_temple(state, "moroni")
    act(state, "moroni", "sector market")
    kill(state, "moroni", "captain", "archer@tower")
    act(state, "moroni", "stop")
    city = state["cities"]["mulek"]
    assert city["sectors"]["palace"]["taken_by"] == "moroni"
    assert city["sectors"]["palace"]["tower"] == {}
    assert city["sectors"]["market"]["tower"] == {"archer": 1}
    assert city["temple"]["cleared"]


def test_rules_note_7_temple_wounded_return_when_the_attack_ends():
    state = fresh(1)
    attack_mulek(state)
    take_sector(state, "moroni", "palace")
    act(state, "moroni", "duel captain infantry@temple", 20, 3)  # wounded
    kill(state, "moroni", "captain", "infantry@temple")
    assert state["cities"]["mulek"]["temple"]["lower"] == {"infantry": 1}
    act(state, "moroni", "stop")
    assert state["cities"]["mulek"]["temple"]["lower"] == {"infantry": 2}
    assert state["cities"]["mulek"]["sectors"]["palace"]["gate"] == {"archer": 1,
                                                                    "infantry": 1}


def test_a_city_taken_over_two_attacks_by_two_different_armies():
    state = fresh(2)
    attack_mulek(state)
    take_sector(state, "moroni", "palace")
    clear_temple(state, "moroni")
    take_sector(state, "moroni", "armory")
    act(state, "moroni", "stop")
    # helaman sails to Mulek and needs only the two sectors left
    attack_mulek(state, "helaman")
    sectors = [m for m in GAME.legal_moves(state, "helaman") if m.startswith("sector")]
    assert sectors == ["sector stockade", "sector market"]
    take_sector(state, "helaman", "stockade")
    take_sector(state, "helaman", "market")
    city = state["cities"]["mulek"]
    assert city["liberated_by"] == "helaman"
    assert city["sectors"]["palace"]["taken_by"] == "moroni"
    assert state["armies"]["helaman"]["flags"] == ["mulek"]
    assert state["armies"]["moroni"]["sectors"] == ["mulek:palace", "mulek:armory"]
    assert GAME.view(state, None)["scores"] == {"moroni": 0, "helaman": 1}


def test_captives_freed_by_another_armys_stockade_version_2():
    """Stockade: free all Nephite captives, even those of other Nephite commanders."""
    state = fresh(2, version="2")
    attack_mulek(state)
    act(state, "moroni", "sector palace")
    act(state, "moroni", "duel infantry archer@tower", 5, 7)  # d10 5: captured
    act(state, "moroni", "duel archer archer@tower", 3, 9)  # d8 3: wounded
    act(state, "moroni", "duel archer archer@tower", 5, 9)  # d8 5: captured
    city = state["cities"]["mulek"]
    assert city["stockade"] == {"moroni": {"infantry": 1, "archer": 1}}
    act(state, "moroni", "stop")
    attack_mulek(state, "helaman")
    take_sector(state, "helaman", "stockade")
    clear_temple(state, "helaman")
    assert city["sectors"]["stockade"]["taken_by"] == "helaman"
    assert city["stockade"] == {}
    moroni = state["armies"]["moroni"]
    assert moroni["live"]["infantry"] == 14 and moroni["live"]["archer"] == 7
    assert "freeing 2 of moroni" in " ".join(e["public"] for e in state["events"])
    assert conserved(state)


def test_captives_go_to_the_next_citys_stockade_when_this_one_is_taken_version_2():
    state = fresh(1, version="2")
    attack_mulek(state)
    take_sector(state, "moroni", "stockade")
    clear_temple(state, "moroni")
    act(state, "moroni", "sector palace")
    act(state, "moroni", "duel infantry archer@tower", 5, 6)  # captured
    assert state["cities"]["nephihah"]["stockade"] == {"moroni": {"infantry": 1}}


def test_rules_note_13_with_no_stockade_left_captives_are_killed_version_2():
    state = fresh(1, version="2")
    for name in state["cities"]:
        state["cities"][name]["sectors"]["stockade"]["taken_by"] = "moroni"
    act(state, "moroni", "move bountiful-s1", 2)
    act(state, "moroni", "duel infantry archer", 5, 9)
    assert state["armies"]["moroni"]["dead"]["infantry"] == 1
    assert conserved(state)


def test_rules_note_10_version_1_drugged_wine_once_per_sector_per_attack():
    """Rules version 1 (RULES.md, version-1 note 10): d4 = 1 captures tower and gate; once per
    sector per attack; a success only opens the gate."""
    state = fresh(1, version="1")
    attack_mulek(state)
    with pytest.raises(IllegalMove, match="choose a sector first"):
        GAME.check(state, "moroni", "wine")
    act(state, "moroni", "sector palace")
    act(state, "moroni", "wine", 3)
    with pytest.raises(IllegalMove, match="already offered in the palace"):
        GAME.check(state, "moroni", "wine")
    act(state, "moroni", "sector armory")
    act(state, "moroni", "wine", 1)
    city = state["cities"]["mulek"]
    assert state["armies"]["moroni"]["captives"] == {"archer": 2, "infantry": 1}
    assert city["sectors"]["armory"]["gate"] == {}
    # the armory's gate is open, but its prize lies beyond the temple
    assert city["sectors"]["armory"]["taken_by"] is None
    clear_temple(state, "moroni")
    assert city["sectors"]["armory"]["taken_by"] == "moroni"
    # once the temple has fallen, the wine takes a sector at once
    act(state, "moroni", "sector market")
    act(state, "moroni", "wine", 1)
    assert city["sectors"]["market"]["taken_by"] == "moroni"
    act(state, "moroni", "sector palace")
    assert "wine" not in GAME.legal_moves(state, "moroni")


def test_wine_cannot_be_used_at_the_temple():
    state = fresh(1)
    attack_mulek(state)
    act(state, "moroni", "sector palace")
    kill(state, "moroni", "captain", "archer@tower")
    kill(state, "moroni", "captain", "archer@gate")
    kill(state, "moroni", "captain", "infantry@gate")
    # only the temple is left to fight for the palace: the wine has no one to drug
    with pytest.raises(IllegalMove, match="cannot be used at the temple"):
        GAME.check(state, "moroni", "wine")


def test_rules_note_14_amalickiah_is_only_ever_killed():
    """RULES.md note 14: a wounded or captured result leaves Amalickiah fighting."""
    state = fresh(1)
    pass_all(state)
    act(state, "moroni", "move bountiful~lehi-morianton")
    take_sector(state, "moroni", "palace")
    for _ in range(3):
        kill(state, "moroni", "captain", "infantry@temple")
    act(state, "moroni", "duel captain king@temple", 20, 4)  # wounded: he fights on
    act(state, "moroni", "duel captain king@temple", 20, 6)  # captured: he fights on
    assert state["cities"]["morianton"]["temple"]["upper"] == {"king": 1}
    assert not state["king_killed"]
    act(state, "moroni", "duel captain king@temple", 20, 2)
    assert state["king_killed"]
    assert state["cities"]["morianton"]["temple"]["cleared"]
    assert "AMALICKIAH IS KILLED" in state["events"][0]["public"]
