"""Rules version 2: the engine follows the rulebook.

Every test quotes the passage of ``docs/rulebooks/nephite-war-rules.txt`` it guards.  The
version-1 behaviour each one replaces is kept for old games (see the ``version="1"`` tests
here and in the other files, and the golden game).
"""

import pytest

from shared import IllegalMove
from shared.title_of_liberty import GAME
from shared.title_of_liberty.state import BOX, box_total, required_cities

from .helpers import act, clear_temple, conserved, fresh, kill, pass_all, take_sector


def army(state, seat="moroni"):
    return state["armies"][seat]


def facts(state, kind):
    """The data of this move's events of ``kind`` (rules version 2 records them)."""
    return [f["data"] for f in GAME.facts_for(state["events"], None) if f["kind"] == kind]


# --- 4. cities to retake ----------------------------------------------------------------

def test_item_4_each_army_not_used_one_city_fewer():
    """SHORT VERSION GAME: "For each army not used, one City fewer is needed to be retaken.
    (Example: 4 armies must retake 5 cities; 1 army must retake 2 cities." -- the default of
    rules version 2; six for every team is the option cities=all."""
    for n, need in ((1, 2), (2, 3), (3, 4), (4, 5), (5, 6)):
        assert fresh(n)["required"] == need
        assert required_cities({}, n, "2") == need
        assert fresh(n, cities="all")["required"] == 6
    assert GAME.view(fresh(4), None)["required"] == 5


def test_item_4_one_army_wins_with_morianton_and_one_more_city():
    """"1 army must retake 2 cities"; "The one Nephite city that must be used in each game
    is Morianton, because that is the location of Amalickiah.\""""
    state = fresh(1)
    state["cities"]["mulek"]["liberated_by"] = "moroni"
    act(state, "moroni", "move bountiful~lehi-morianton")
    take_sector(state, "moroni", "palace")
    clear_temple(state, "moroni", upper="king")
    for sector in ("armory", "market", "stockade"):
        if GAME.result(state) is None:
            take_sector(state, "moroni", sector)
    result = GAME.result(state)
    assert result["outcome"] == "nephites" and result["winners"] == ["moroni"]
    assert facts(state, "game_over")[0]["cities"] == ["morianton", "mulek"]
    assert facts(state, "game_over")[0]["why"] == "won"


def test_item_4_two_cities_without_morianton_do_not_win():
    state = fresh(1)
    for name in ("mulek", "gid"):
        state["cities"][name]["liberated_by"] = "moroni"
    state["king_killed"] = True  # even so: Morianton itself must be retaken
    act(state, "moroni", "move bountiful~moroni-nephihah")
    take_sector(state, "moroni", "palace")
    clear_temple(state, "moroni")
    for sector in ("armory", "market", "stockade"):
        take_sector(state, "moroni", sector)
    assert state["cities"]["nephihah"]["liberated_by"] == "moroni"
    assert GAME.result(state) is None


# --- 5. drugged wine -----------------------------------------------------------------

def test_item_5_drugged_wine_takes_the_sector():
    """DRUGGED WINE: "Shake the yellow die for results (1 = Lamanites drink wine; 2-4 = they
    do not drink the wine). Gate and tower soldiers are captured if they drink the wine, and
    you take that sector." -- the sector and its prize at once, the temple still to fight."""
    state = fresh(1)
    act(state, "moroni", "move bountiful~mulek")
    act(state, "moroni", "sector palace")
    act(state, "moroni", "wine", 1)
    city = state["cities"]["mulek"]
    assert city["sectors"]["palace"]["taken_by"] == "moroni"
    assert army(state)["gold"] == 5 and city["gold"] == 0
    assert army(state)["captives"] == {"archer": 2, "infantry": 1}
    assert not city["temple"]["cleared"] and city["liberated_by"] is None
    wine = facts(state, "wine")[0]
    assert wine["roll"] == 1 and wine["drunk"] and wine["captured"] == {"archer": 2,
                                                                      "infantry": 1}
    assert facts(state, "sector_taken")[0] == {"army": "moroni", "city": "mulek",
                                                "sector": "palace", "prize": {"gold": 5}}
    # the open gate leads to the temple; a taken sector is not re-manned after a stop
    assert "temple" in GAME.view(state, None)["battle"]["targets"]
    act(state, "moroni", "stop")
    assert city["sectors"]["palace"]["gate"] == {} and city["sectors"]["armory"]["gate"]


def test_item_5_drugged_wine_one_time_for_each_sector_for_the_whole_game():
    """"a Nephite captain may use the Drugged Wine token one time for each sector": renewing
    the attack (or another captain coming) does not offer the same sector the wine again."""
    state = fresh(2)
    pass_all(state)
    act(state, "moroni", "move bountiful~mulek")
    act(state, "moroni", "sector armory")
    act(state, "moroni", "wine", 3)
    assert facts(state, "wine")[0]["drunk"] is False
    with pytest.raises(IllegalMove, match="one time for each sector"):
        GAME.check(state, "moroni", "wine")
    act(state, "moroni", "stop")
    pass_all(state)
    act(state, "helaman", "rest")
    pass_all(state)
    act(state, "moroni", "attack")
    act(state, "moroni", "sector armory")
    assert "wine" not in GAME.legal_moves(state, "moroni")
    with pytest.raises(IllegalMove, match="one time for each sector"):
        GAME.check(state, "moroni", "wine")
    act(state, "moroni", "sector market")
    assert "wine" in GAME.legal_moves(state, "moroni")
    assert GAME.view(state, None)["cities"]["mulek"]["wine"] == ["armory"]


def test_item_5_wine_cannot_be_used_at_the_temple():
    """"This cannot be used against troops at the temple.\""""
    state = fresh(1)
    act(state, "moroni", "move bountiful~mulek")
    take_sector_gate_only(state)
    with pytest.raises(IllegalMove, match="cannot be used at the temple"):
        GAME.check(state, "moroni", "wine")


def take_sector_gate_only(state):
    act(state, "moroni", "sector palace")
    kill(state, "moroni", "captain", "archer@tower")
    kill(state, "moroni", "captain", "archer@gate")
    kill(state, "moroni", "captain", "infantry@gate")


# --- 6. recruits ----------------------------------------------------------------------

def test_item_6_a_new_soldier_of_your_choice_scouts_too_version_2():
    """GETTING NEW SOLDIERS: "You may train a new soldier (your choice; all cost the same) by
    paying one gold coin per soldier." Scouts too, within "Maximum of two scouts available
    per Nephite army"; captains are not soldiers to train (one captain is the army)."""
    state = fresh(1, version="2")
    army(state)["gold"] = 4
    army(state)["weapons"] = 2
    state["box"]["gold"] -= 4
    state["box"]["weapons"] -= 2
    with pytest.raises(IllegalMove, match="at most 2 scouts"):
        GAME.check(state, "moroni", "buy 1 scout")
    army(state)["live"]["scout"] = 0
    army(state)["dead"]["scout"] = 2  # both scouts fell: two may be trained again
    assert "buy 2 scouts" in GAME.legal_moves(state, "moroni")
    assert "buy 3 scouts" not in GAME.legal_moves(state, "moroni")
    act(state, "moroni", "buy 2 scouts")
    assert army(state)["unarmed"]["scout"] == 2 and army(state)["gold"] == 2
    assert facts(state, "buy")[0] == {"army": "moroni", "n": 2, "soldier": "scout", "gold": 2}
    act(state, "moroni", "arm 2 scouts")
    assert army(state)["live"]["scout"] == 2
    with pytest.raises(IllegalMove, match="at most 2 scouts"):
        GAME.check(state, "moroni", "buy 1 scout")
    with pytest.raises(IllegalMove, match="cannot buy captains"):
        GAME.check(state, "moroni", "buy 1 captain")
    assert conserved(state)


def test_item_6_version_1_still_refuses_scouts():
    state = fresh(1, version="1")
    army(state)["gold"] = 3
    with pytest.raises(IllegalMove, match="cannot buy scouts"):
        GAME.check(state, "moroni", "buy 1 scout")
    assert not [m for m in GAME.legal_moves(state, "moroni") if "scout" in m]


# --- 7. resting -----------------------------------------------------------------------

def test_item_7_staying_put_costs_no_food():
    """MAIN BOARD MOVEMENTS: "one food token must be used for each space moved" -- an army
    that does not move uses none."""
    state = fresh(1)
    act(state, "moroni", "rest")
    assert army(state)["food"] == 5 and army(state)["at"] == "bountiful"
    assert facts(state, "rest")[0]["food_paid"] == 0
    for _ in range(12 - 1):
        if GAME.result(state):
            break
        act(state, "moroni", "rest")
    assert army(state)["food"] == 5


def test_item_7_no_food_means_starving():
    """"YOU CANNOT MOVE WITHOUT FOOD. YOUR ARMY STARVES AND IS TAKEN FROM THE GAME!" -- an
    army with no food (after the gifts) cannot stay in the field: it starves, unless it
    renews a City attack, for which "No food is needed"."""
    state = fresh(1)
    army(state)["food"] = 0
    state["box"]["food"] += 5
    assert GAME.legal_moves(state, "moroni") == ["starve"]
    state = fresh(1)
    act(state, "moroni", "move bountiful~mulek")
    act(state, "moroni", "stop")
    state["box"]["food"] += army(state)["food"]
    army(state)["food"] = 0
    assert sorted(GAME.legal_moves(state, "moroni")) == ["attack"]


# --- 8. what the box holds -----------------------------------------------------------

def test_item_8_the_box_holds_finite_supplies():
    """EQUIPMENT: "50 food tokens  50 weapon tokens  30 Gold coins  15 Silver coins" --
    the armies' food, the village tokens, city and battlefield items all come from it, and
    every token stays somewhere (money counted in gold, a silver coin worth 5)."""
    state = fresh(5)
    assert BOX == {"food": 50, "weapons": 50, "gold": 105}
    # 5 armies x 5 food, 12 villages and towns x 1
    assert state["box"] == {"food": 50 - 25 - 12, "weapons": 50, "gold": 105}
    for item in BOX:
        assert box_total(state, item) == BOX[item]
    view = GAME.view(state, None)
    assert view["box"] == state["box"] and view["boat"] == "bountiful"


def test_item_8_city_items_come_from_the_box_at_the_first_attack():
    """NOTE: "each city attacked during the game must be given a full complement of items
    and Lamanite soldiers before Nephite forces begin an attack on it"; "City items are not
    renewed"."""
    state = fresh(1)
    box = dict(state["box"])
    act(state, "moroni", "move bountiful~mulek")
    city = state["cities"]["mulek"]
    assert (city["gold"], city["weapons"], city["food"]) == (5, 5, 5)
    assert state["box"] == {"food": box["food"] - 5 + 1, "weapons": box["weapons"] - 5,
                            "gold": box["gold"] - 5}
    begins = facts(state, "battle_begins")[0]
    assert begins["items_placed"] == {"gold": 5, "weapons": 5, "food": 5}
    act(state, "moroni", "stop")
    act(state, "moroni", "attack")
    assert facts(state, "battle_begins")[0]["items_placed"] is None  # not renewed
    assert conserved(state)


def test_item_8_an_empty_box_places_what_it_has():
    """RULES.md choice 30: when a pile runs out, what is left is placed (perhaps nothing)."""
    state = fresh(1)
    state["armies"]["moroni"]["weapons"] += state["box"]["weapons"] - 3
    state["box"]["weapons"] = 3
    state["armies"]["moroni"]["gold"] += state["box"]["gold"]
    state["box"]["gold"] = 0
    act(state, "moroni", "move bountiful~mulek")
    city = state["cities"]["mulek"]
    assert (city["gold"], city["weapons"], city["food"]) == (0, 3, 5)
    assert conserved(state)


def test_item_8_battlefield_supplies_come_from_the_box_each_battle():
    """"5 food tokens on each battlefield ... this is done for each battle during the game"
    -- from the box, so battles fought again and again drain it."""
    state = fresh(1)
    state["box"]["gold"], army(state)["gold"] = 1, 104
    act(state, "moroni", "move bountiful-s1", 2)
    field = state["fields"]["s1"]
    assert (field["food"], field["weapons"], field["gold"]) == (5, 2, 1)
    assert state["box"]["gold"] == 0
    assert facts(state, "battle_begins")[0]["supplies"] == {"food": 5, "weapons": 2, "gold": 1}
    assert conserved(state)


def test_item_8_paid_food_weapons_and_gold_go_back_to_the_box():
    state = fresh(1)
    box = dict(state["box"])
    act(state, "moroni", "move bountiful-v2-w1")  # 2 food paid, v2's token taken and replaced
    assert state["box"]["food"] == box["food"] + 2 - 1
    army(state)["gold"], state["box"]["gold"] = 2, box["gold"] - 2
    army(state)["weapons"], state["box"]["weapons"] = 1, box["weapons"] - 1
    act(state, "moroni", "buy 2 infantry")
    act(state, "moroni", "arm 1 infantry")
    assert state["box"]["gold"] == box["gold"] and state["box"]["weapons"] == box["weapons"]
    assert conserved(state)


def test_item_8_a_village_with_no_token_left_gives_nothing_until_the_box_refills():
    """"A new token is placed on the village/town after you leave the space" -- from the box;
    with the box empty the village stays bare, and is refilled at the end of a later turn."""
    state = fresh(1)
    army(state)["food"] += state["box"]["food"]
    state["box"]["food"] = 0
    act(state, "moroni", "move bountiful-v2-w1")  # pays 2 food into the box, gathers v2
    assert state["box"]["food"] == 1  # 2 paid, 1 replaced v2's token at once
    assert "v2" not in state["bare"]
    state["bare"].append("v4")  # (its token handed to the army, to keep the count)
    army(state)["food"] += state["box"]["food"] + 1
    state["box"]["food"] = 0
    food = army(state)["food"]
    act(state, "moroni", "move w1-v4")
    assert army(state)["food"] == food - 1  # nothing to gather at the bare v4
    assert state["bare"] == []  # the food paid refilled it at the end of the turn
    assert state["box"]["food"] == 0
    assert conserved(state)


def test_item_8_one_boat():
    """EQUIPMENT: "1 Nephite boat" -- it sails from the port where it lies and stays where
    it lands; another army must walk to it."""
    state = fresh(2)
    pass_all(state)
    act(state, "moroni", "move bountiful~lehi")
    assert state["boat"] == "lehi"
    assert facts(state, "march")[0]["boat"] == "lehi"
    pass_all(state)
    with pytest.raises(IllegalMove, match="one boat and it lies at lehi"):
        GAME.check(state, "helaman", "move bountiful~mulek")
    assert not [m for m in GAME.legal_moves(state, "helaman") if "~" in m]
    act(state, "helaman", "move bountiful-v2")
    pass_all(state)
    act(state, "moroni", "move lehi~moroni")
    assert state["boat"] == "moroni"
    pass_all(state)
    with pytest.raises(IllegalMove, match="one boat and it lies at moroni"):
        GAME.check(state, "helaman", "move v2-bountiful~mulek")


def test_item_8_version_1_boats_and_piles_never_run_out():
    state = fresh(2, version="1")
    pass_all(state)
    act(state, "moroni", "move bountiful~lehi")
    pass_all(state)
    GAME.check(state, "helaman", "move bountiful~mulek")
    assert "box" not in state and GAME.view(state, None)["box"] is None


# --- 11. facts as data ---------------------------------------------------------------

def test_item_11_duel_dice_and_results_are_fields():
    """"Use the following numbers chart for results based on throws of the dice" -- both dice,
    both rolls, the winner and the loser's fate are fields of the duel event."""
    state = fresh(1)
    act(state, "moroni", "move bountiful-s1", 2)
    act(state, "moroni", "duel infantry archer", 5, 5, 7, 3)  # a tie, then 7 vs 3
    duel = facts(state, "duel")[0]
    assert duel == {"army": "moroni", "nephite": "infantry", "on_path": False,
                    "lamanite": "archer", "place": None, "nephite_die": 10,
                    "lamanite_die": 10, "nephite_roll": 7, "lamanite_roll": 3, "ties": 1,
                    "winner": "nephite", "loser_fate": "wounded", "applied": "wounded"}
    act(state, "moroni", "duel infantry archer", 1, 2)
    duel = facts(state, "duel")[0]
    assert duel["winner"] == "lamanite" and duel["loser_fate"] == "killed"


def test_item_11_stockade_temple_wounded_and_battle_are_in_the_view_version_2():
    """Stockade: "Free all Nephite captives" -- who is held, by kind of soldier; Lamanite
    wounded "are returned to the City at the conclusion of a Nephite attack"."""
    state = fresh(1, version="2")
    act(state, "moroni", "move bountiful~mulek")
    act(state, "moroni", "sector palace")
    act(state, "moroni", "duel infantry archer@tower", 5, 7)  # d10 5: captured
    kill(state, "moroni", "captain", "archer@tower")
    kill(state, "moroni", "captain", "archer@gate")
    kill(state, "moroni", "captain", "infantry@gate")
    act(state, "moroni", "duel captain infantry@temple", 20, 3)  # wounded
    view = GAME.view(state, "moroni")
    city = view["cities"]["mulek"]
    assert city["stockade_by_kind"] == {"moroni": {"infantry": 1}}
    assert city["temple_wounded"] == {"lower": {"infantry": 1}, "upper": {}}
    assert view["armies"]["moroni"]["captured_by_kind"] == {"infantry": 1}
    battle = view["battle"]
    assert battle["sector"] == "palace" and battle["targets"] == {"temple": {"infantry": 2}}
    held = [d for d in facts(state, "duel")] or []
    assert held == [{"army": "moroni", "nephite": "captain", "on_path": False,
                     "lamanite": "infantry", "place": "temple", "nephite_die": 20,
                     "lamanite_die": 8, "nephite_roll": 20, "lamanite_roll": 3, "ties": 0,
                     "winner": "nephite", "loser_fate": "wounded", "applied": "wounded"}]
    act(state, "moroni", "stop")
    back = facts(state, "reinforced")[0]
    assert back["temple_returned"] == {"lower": {"infantry": 1}}
    assert back["sectors"] == ["palace", "stockade", "armory", "market"]


def test_item_11_captive_destination_and_placement_rolls_are_fields_version_2():
    state = fresh(1, version="2")
    act(state, "moroni", "move bountiful-s1", 4, 3)  # a 4 is rolled again
    begins = facts(state, "battle_begins")[0]
    assert begins["rolls"] == [4, 3] and begins["zone"] == 3
    assert begins["lamanites"] == {"captain": 1, "infantry": 11, "archer": 4}
    act(state, "moroni", "duel infantry archer", 5, 9)
    assert facts(state, "duel")[0]["held_in"] == "mulek"


def test_item_11_every_event_of_a_version_2_game_has_a_kind():
    from shared.bots.title_of_liberty import choose_for_state as greedy_choice

    from .helpers import random_game
    kinds = set()

    def every(state, seat, text):
        for fact in GAME.facts_for(state["events"], None):
            assert fact["kind"], state["events"]
            kinds.add(fact["kind"])
            if fact["kind"] == "game_over":
                assert fact["data"]["why"] in ("won", "time", "no_army")
            if fact["kind"] == "army_lost":
                assert fact["data"]["lost"] in ("starved", "captain_killed",
                                                "captain_captured")

    for seed in range(6):
        random_game(seed, chooser=greedy_choice, every=every)
    assert kinds >= {"march", "duel", "battle_begins", "sector_taken", "turn", "game_over"}


def test_item_11_version_1_events_stay_text_only():
    # through the template's play, which strips the facts of a version without them
    # (Game.versions_without_facts); a rule applied directly makes them at every version
    state = fresh(1, version="1")
    GAME.play(state, "moroni", "move bountiful-s1", b"dice")
    assert state["events"] and all(set(e) == {"public"} for e in state["events"])


# --- 12. old games keep their rules --------------------------------------------------

def test_item_12_versions():
    assert GAME.rules_version == "3" and GAME.rules_versions == ("1", "2", "3")
    assert fresh(1)["rules_version"] == "3"
    assert fresh(1, version="2")["rules_version"] == "2"
    assert "rules_version" not in fresh(1, version="1")
    assert GAME.new_game(["moroni"], {"short_game": True}, b"s", rules_version="1")[
        "required"] == 2
    with pytest.raises(IllegalMove, match="short_game"):
        GAME.new_game(["moroni"], {"short_game": True}, b"s")
    # a version-1 archive header carries its normalized options: they still set up a game
    old = GAME.normalize_options({}, 2, rules_version="1")
    assert GAME.new_game(["moroni", "helaman"], old, b"s", rules_version="1")["required"] == 6


# --- 13. difficulty levels ----------------------------------------------------------

def test_item_13_the_book_is_the_default_difficulty():
    """"The Lamanite army initially is composed of ... 120 Infantry 50 Archers"; a city gets
    "1 Archer on each tower", "1 Archer and 1 infantry on each gate", "3 Infantry on the
    temple's lower level"; a battle "1 Captain 11 Infantry 4 Archers"."""
    state = fresh(1)
    assert state["options"]["difficulty"] == "book" and state["options"]["rounds"] == 12
    city = state["cities"]["gid"]
    assert city["sectors"]["market"]["tower"] == {"archer": 1}
    assert city["sectors"]["market"]["gate"] == {"archer": 1, "infantry": 1}
    assert city["temple"]["lower"] == {"infantry": 3}
    act(state, "moroni", "move bountiful-s1", 2)
    assert state["fields"]["s1"]["lamanites"] == {"captain": 1, "infantry": 11, "archer": 4}


def test_item_13_hard_means_more_lamanites_fewer_rounds_a_smaller_box():
    state = fresh(2, difficulty="hard")
    assert state["options"]["rounds"] == 8
    assert state["box"] == {"food": 35 - 10 - 12, "weapons": 35, "gold": 70}
    city = state["cities"]["mulek"]
    assert city["sectors"]["market"]["tower"] == {"archer": 2}
    assert city["sectors"]["market"]["gate"] == {"archer": 2, "infantry": 4}
    assert city["temple"]["lower"] == {"infantry": 10}
    pass_all(state)
    act(state, "moroni", "move bountiful-s1", 2)
    assert state["fields"]["s1"]["lamanites"] == {"captain": 1, "infantry": 15, "archer": 6}
    act(state, "moroni", "stop")
    pass_all(state)
    act(state, "helaman", "move bountiful~mulek")
    act(state, "helaman", "sector market")
    kill(state, "helaman", "captain", "archer@tower")
    act(state, "helaman", "stop")  # the hard garrison is put back in full
    assert city["sectors"]["market"]["tower"] == {"archer": 2}
    assert conserved(state)
    assert "Difficulty: hard" in " ".join(GAME.render(GAME.view(state, None)).split())
    # a lone army faces one archer a tower and eight temple infantry
    alone = fresh(1, difficulty="hard")["cities"]["gid"]
    assert alone["sectors"]["market"]["tower"] == {"archer": 1}
    assert alone["sectors"]["market"]["gate"] == {"archer": 2, "infantry": 4}
    assert alone["temple"]["lower"] == {"infantry": 8}


def test_item_7_a_starving_army_waits_for_the_food_gifts():
    """ORDER OF MOVEMENT: "1. Collect any food/weapons/money that other Nephite captains may
    want to give you" comes before "4. Pay number of food tokens needed to move": an army with
    no food does not starve while a captain holding food may still give it some."""
    state = fresh(3)
    state["box"]["food"] += army(state)["food"] + army(state, "lehi")["food"]
    army(state)["food"] = 0
    army(state, "lehi")["food"] = 0
    army(state, "lehi")["gold"] = 1
    state["box"]["gold"] -= 1
    assert GAME.to_act(state) == ["helaman", "lehi"]
    assert "moroni" not in GAME.owes(state)
    assert GAME.legal_moves(state, "moroni") == []
    with pytest.raises(IllegalMove, match="helaman may still give you food"):
        GAME.check(state, "moroni", "starve")
    GAME.play(state, "helaman", "pass")
    # lehi holds only gold: it cannot feed moroni, so moroni may now starve
    assert GAME.to_act(state) == ["moroni", "lehi"]
    assert GAME.legal_moves(state, "moroni") == ["starve"]
    state = fresh(2)
    state["box"]["food"] += army(state)["food"]
    army(state)["food"] = 0
    GAME.play(state, "helaman", "give moroni 1 food")
    assert "starve" not in GAME.legal_moves(state, "moroni")
    GAME.play(state, "moroni", "move bountiful-v2")
    assert army(state)["alive"] and conserved(state)


def test_item_7_version_1_starves_at_once():
    state = fresh(2, version="1")
    army(state)["food"] = 0
    assert "starve" in GAME.legal_moves(state, "moroni")
    assert GAME.to_act(state) == ["moroni", "helaman"]


def test_item_11_why_an_army_is_lost_and_why_the_war_ended_are_fields():
    """"YOU CANNOT MOVE WITHOUT FOOD. YOUR ARMY STARVES AND IS TAKEN FROM THE GAME!" and
    "Lamanites win the war if you cannot retake all six cities and kill Amalickiah!" -- how an
    army was lost and why the war ended are codes (``lost``, ``why``) in the facts and the
    view, not only the sentences ("it starved", "the 12 rounds are spent.")."""
    state = fresh(1)
    state["box"]["food"] += army(state)["food"]
    army(state)["food"] = 0
    act(state, "moroni", "starve")
    assert facts(state, "army_lost")[0]["lost"] == "starved"
    assert facts(state, "game_over")[0]["why"] == "no_army"
    view = GAME.view(state, None)
    assert view["armies"]["moroni"]["lost"] == "starved" and view["result"]["why"] == "no_army"
    assert GAME.view(fresh(1), None)["armies"]["moroni"]["lost"] is None
    state = fresh(1, rounds=1)
    act(state, "moroni", "rest")
    assert facts(state, "game_over")[0]["why"] == "time"
    assert GAME.view(state, "moroni")["result"]["why"] == "time"
    state = fresh(1)
    GAME.play(state, "moroni", "concede")
    assert facts(state, "game_over")[0]["why"] == "conceded"
    state = fresh(1)
    act(state, "moroni", "move bountiful-s1", 2)
    act(state, "moroni", "duel captain captain", 1, 2)  # the captain is killed
    assert facts(state, "army_lost")[0]["lost"] == "captain_killed"
    state = fresh(1)
    act(state, "moroni", "move bountiful-s1", 2)
    act(state, "moroni", "duel captain captain", 5, 6)  # d20 5: captured
    assert facts(state, "army_lost")[0]["lost"] == "captain_captured"
    assert GAME.view(state, None)["armies"]["moroni"]["lost"] == "captain_captured"
    # version 1 keeps text-only events: no fact is invented for them
    old = fresh(1, version="1")
    old["armies"]["moroni"]["food"] = 0
    GAME.play(old, "moroni", "starve")
    assert all(f["kind"] is None for f in GAME.facts_for(old["events"], None))


def test_rules_note_29_a_lost_armys_supplies_go_back_to_the_box():
    """RULES.md note 29 (the book is silent on a lost army's goods): "YOUR ARMY STARVES AND IS
    TAKEN FROM THE GAME!" -- its food, weapons and money go back into the box ("50 food
    tokens", "50 weapon tokens", "30 Gold coins"), said in the army_lost facts."""
    state = fresh(1)
    army(state)["gold"], army(state)["weapons"] = 3, 2
    state["box"]["gold"] -= 3
    state["box"]["weapons"] -= 2
    act(state, "moroni", "move bountiful-s1", 2)  # pays 1 food: 4 left
    box = dict(state["box"])
    act(state, "moroni", "duel captain captain", 1, 2)  # the captain is killed
    assert not army(state)["alive"]
    assert facts(state, "army_lost")[0]["to_box"] == {"food": 4, "weapons": 2, "gold": 3}
    assert (army(state)["food"], army(state)["weapons"], army(state)["gold"]) == (0, 0, 0)
    assert state["box"]["food"] == box["food"] + 4
    assert state["box"]["weapons"] == box["weapons"] + 2
    assert state["box"]["gold"] == box["gold"] + 3
    assert conserved(state)
