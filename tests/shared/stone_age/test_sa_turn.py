"""The turn: rolling for everyone, the 7, trading with the player on turn."""

import copy

import pytest

from shared.stone_age import board

from .helpers import GAME, cards_conserved, give, main_phase, new, play, refused, roll_to


def _clear_pieces(st):
    for s in st["seats"]:
        st["tribes"][s], st["nomads"][s] = [], []


#: the rules versions of the two maps: "3" plays map 1, the current version map 2
MAP_VERSIONS = ("3", GAME.rules_version)


def _numbers(st):
    return board.map_of(st).numbers


@pytest.mark.parametrize("version", MAP_VERSIONS)
def test_rulebook_example_blue_rolls_5_others_get_meat(version):
    """Blue rolls a 5: White, Red and Orange each get a Meat; Blue gets nothing."""
    st = new(4, version=version)
    _clear_pieces(st)
    st["current"] = "blue"
    # the map's Highlands 5 (i1 on map 1, c2 on map 2): three of its corners; a crossing
    # that touches no 5 for blue
    (five,) = [h for h in board.HEX_NAMES
               if board.HEXES[h]["terrain"] == "H" and _numbers(st)[h] == 5]
    corners = board.HEX_CROSSINGS[five]
    away = next(x for x in board.CROSSINGS
                if all(_numbers(st)[h] != 5 for h in board.HEXES_AT[x]))
    st["tribes"].update(red=[corners[0]], white=[corners[2]], orange=[corners[4]],
                        blue=[away])
    before = {s: list(st["hands"][s]) for s in st["seats"]}
    roll_to(st, "blue", 5)
    for s in ("red", "white", "orange"):
        assert st["hands"][s][0] == before[s][0] + 1
    assert st["hands"]["blue"] == before["blue"]
    assert st["phase"] == "main"
    cards_conserved(st)


def test_tribe_on_two_matching_landscapes_gets_two_cards():
    """Map 1 (rules version 3): 109 touches h2 and i3, both Forest 10.  Map 2 puts no number
    on two neighbouring landscapes (test_sa_board), so there it cannot happen."""
    st = new(4, version="3")
    _clear_pieces(st)
    st["tribes"]["red"] = [109]
    roll_to(st, "red", 10)
    assert st["hands"]["red"][3] == 1 + 2


@pytest.mark.parametrize("version", MAP_VERSIONS)
def test_figure_and_desert_block_production(version):
    st = new(4, version=version)
    number = _numbers(st)["i1"]                 # 107 touches h1 and i1 (Highlands)
    _clear_pieces(st)
    st["tribes"]["red"] = [107]
    free = roll_to(copy.deepcopy(st), "red", number)
    assert free["hands"]["red"][0] == 1         # unblocked, i1 gives a meat
    st["figures"]["neanderthal"] = "i1"
    blocked = roll_to(copy.deepcopy(st), "red", number)
    assert blocked["hands"]["red"][0] == 0
    st["figures"]["neanderthal"] = "b5"
    st["deserts"] = ["i1"]
    roll_to(st, "red", number)
    assert st["hands"]["red"][0] == 0


@pytest.mark.parametrize("version", MAP_VERSIONS)
def test_rules_note_13_supply_short_nobody_gets_it(version):
    """RULES.md note 13 (book silent: "Every player takes, for each tribe bordering a landscape
    with the rolled number, the raw material of that landscape from the corresponding supply
    stack" never says a stack runs out): a stack too short for everyone gives nobody any."""
    st = new(4, version=version)
    _clear_pieces(st)
    st["tribes"].update(red=[107], white=[116])         # both at i1 (Highlands)
    moved = st["supply"][0] - 1
    st["supply"][0] -= moved
    st["hands"]["orange"][0] += moved
    roll_to(st, "red", _numbers(st)["i1"])
    assert st["hands"]["red"][0] == 0 and st["hands"]["white"][0] == 0
    short = [e for e in st["events"] if e.get("kind") == "supply_short"]
    assert [e["data"]["resource"] for e in short] == ["meat"]
    assert short[0]["data"]["wanted"] == 2 and short[0]["data"]["left"] == 1
    if version != "3":
        assert short[0]["data"]["taker"] is None
    cards_conserved(st)


@pytest.mark.parametrize("version", MAP_VERSIONS)
def test_rules_note_13_a_lone_producer_takes_what_is_left(version):
    """RULES.md note 13 (book silent on a short stack): a lone producer takes what is left.
    From rules version 4 the log and the facts say so, as they do when several want it."""
    st = new(4, version=version)
    _clear_pieces(st)
    # two tribes of red at h2 (Forest): two hides wanted, one left in the stack
    st["tribes"]["red"] = [board.HEX_CROSSINGS["h2"][0], board.HEX_CROSSINGS["h2"][3]]
    moved = st["supply"][3] - 1
    st["supply"][3] -= moved
    st["hands"]["orange"][3] += moved
    number = _numbers(st)["h2"]
    wanted = sum(1 for x in st["tribes"]["red"] for h in board.HEXES_AT[x]
                 if _numbers(st)[h] == number)
    assert wanted >= 2
    roll_to(st, "red", number)
    assert st["hands"]["red"][3] == 1 + 1 and st["supply"][3] == 0
    short = [e for e in st["events"] if e.get("kind") == "supply_short"]
    if version == "3":
        assert short == []                          # version 3 said nothing (its logs stay)
    else:
        assert [e["data"] for e in short] == [{"resource": "hide", "wanted": wanted,
                                               "left": 1, "taker": "red"}]
        assert short[0]["public"] == f"the hide stack is short: red gets 1 of {wanted} hide"
    cards_conserved(st)


def test_bank_needs_the_card_in_the_stack():
    st = main_phase()
    give(st, "red", meat=3)
    give(st, "blue", flint=20)
    refused(st, "red", "bank 3meat for 1flint", "supply_empty")


def test_must_roll_first_and_only_on_your_turn():
    st = new(4)
    refused(st, "red", "end", "must_roll")
    refused(st, "blue", "roll", "not_your_turn")
    refused(st, "red", "develop food", "must_roll")


def test_rules_note_3_seven_discards_half_rounded_up_only_above_seven():
    """RULES.md note 3.  The book: "Every player who owns more than 7 raw material cards
    selects half of their raw material cards and discards them ... With an odd number, round up
    beforehand."  More than 7 discards ceil(n/2); exactly 7 keeps them."""
    st = new(4)
    give(st, "blue", meat=4, bone=4)          # 4+5+... blue holds 10
    give(st, "white", meat=3, flint=2)        # white holds 7
    give(st, "orange", flint=7)               # orange holds 9
    roll_to(st, "red", 7)
    assert st["phase"] == "discard"
    assert st["discards"] == {"blue": 5, "orange": 5}
    assert set(GAME.to_act(st)) == {"blue", "orange"}
    refused(st, "red", "neanderthal e3", "not_your_turn")
    refused(st, "blue", "discard 4meat", "wrong_count")
    refused(st, "blue", "discard 5flint", "cannot_afford")
    play(st, "orange", "discard 5flint")
    assert GAME.to_act(st) == ["blue"]
    play(st, "blue", "discard 4meat+1bone")
    assert st["phase"] == "main" and GAME.to_act(st) == ["red"]
    assert GAME.view(st, "red")["owes"]["red"].startswith("move the neanderthal")
    cards_conserved(st)


def test_rules_note_6_seven_moves_the_neanderthal_only_and_steals_at_random():
    """RULES.md note 6.  The book: "Whoever rolled the "7" moves the Neanderthal (not the
    Predator) to a different landscape field of Eurasia or Africa. Furthermore, they may draw a
    raw material card from the face-down hand of a player who has a tribe standing on that
    landscape field.\""""
    st = new(4)
    roll_to(st, "red", 7)
    assert st["phase"] == "main"
    refused(st, "red", "predator a8", "wrong_figure")
    refused(st, "red", "neanderthal a8", "wrong_region")
    refused(st, "red", "neanderthal b5", "must_move")
    refused(st, "red", "develop food", "pending")
    refused(st, "red", "neanderthal g3 steal white", "bad_victim")   # white not on g3
    # g3 has blue tribes on 78 and 94
    play(st, "red", "neanderthal g3 steal blue", b"x")
    assert st["figures"]["neanderthal"] == "g3"
    assert sum(st["hands"]["red"]) == 3 and sum(st["hands"]["blue"]) == 1
    ev = st["events"][-1]
    assert ev["public"] == "red steals a card from blue"
    assert "steals 1 " in ev["private"]["red"] and ev["private"]["blue"] == ev["private"]["red"]
    assert GAME.events_for(st["events"], "white")[-1] == "red steals a card from blue"
    cards_conserved(st)


def test_seven_steal_is_optional():
    """RULES.md note 6.  The book: "they may draw a raw material card": the steal is optional."""
    st = new(4)
    roll_to(st, "red", 7)
    play(st, "red", "neanderthal g3")
    assert st["pending"] == [] and sum(st["hands"]["red"]) == 2


def test_bank_trade_three_for_one():
    st = main_phase()
    give(st, "red", meat=6, bone=2)
    play(st, "red", "bank 3meat for 1flint")
    assert st["hands"]["red"] == [3, 2, 1, 0]
    play(st, "red", "bank 3meat for 1hide")
    refused(st, "red", "bank 2bone for 1flint", "bad_rate")
    refused(st, "red", "bank 3bone for 1flint", "cannot_afford")
    refused(st, "red", "bank 3meat for 1meat", "same_resource")
    cards_conserved(st)


def test_offer_accept_confirm():
    """The book's example: Tom offers a Hide for a Meat; Sabine accepts."""
    st = main_phase()
    give(st, "red", hide=1)
    give(st, "blue", meat=1)
    play(st, "red", "offer 1hide for 1meat")
    assert GAME.to_act(st) == ["red", "blue", "white", "orange"]
    owes = GAME.view(st, None)["owes"]
    assert owes["blue"].startswith("answer red's offer")
    refused(st, "white", "accept", "cannot_afford")
    play(st, "blue", "accept")
    play(st, "white", "decline")
    assert GAME.to_act(st) == ["red", "orange"]
    refused(st, "red", "confirm white", "not_accepted")
    play(st, "red", "confirm blue")
    assert st["hands"]["red"] == [1, 0, 0, 0] and st["hands"]["blue"] == [0, 0, 0, 1]
    assert st["offer"] is None and GAME.to_act(st) == ["red"]
    cards_conserved(st)


def test_counter_offer_and_addressed_offer():
    st = main_phase()
    give(st, "red", hide=2)
    give(st, "white", bone=1, flint=1)
    play(st, "red", "offer 1hide for 1bone to white")
    assert GAME.to_act(st) == ["red", "white"]
    refused(st, "blue", "accept", "no_offer")
    play(st, "white", "counter 1flint for 2hide")
    play(st, "red", "confirm white")
    assert st["hands"]["red"] == [0, 0, 1, 0] and st["hands"]["white"] == [0, 1, 0, 2]
    cards_conserved(st)


def test_an_open_offer_never_blocks_and_ending_withdraws_it():
    st = main_phase()
    give(st, "red", hide=1)
    play(st, "red", "offer 1hide for 1meat")
    refused(st, "red", "accept", "own_offer")
    play(st, "red", "end")
    assert st["offer"] is None and GAME.to_act(st) == ["blue"]
    refused(st, "white", "decline", "not_your_turn")


def test_withdraw_and_trade_only_with_the_player_on_turn():
    st = main_phase()
    give(st, "red", hide=1)
    give(st, "blue", meat=1)
    refused(st, "blue", "offer 1meat for 1hide", "not_your_turn")
    play(st, "red", "offer 1hide for 1meat")
    play(st, "red", "withdraw")
    refused(st, "blue", "accept", "no_offer")
    refused(st, "red", "withdraw", "no_offer")


def test_rules_note_11_trade_phase_ends_with_the_first_development():
    """RULES.md note 11.  The book: "their turn is divided into the following actions, which
    must be carried out in this order": roll, trade, develop; no trading after developing."""
    st = main_phase()
    give(st, "red", meat=4, bone=1, hide=1)
    play(st, "red", "offer 1hide for 1flint")
    play(st, "red", "develop food")
    assert st["offer"] is None
    refused(st, "red", "bank 3meat for 1flint", "trade_over")
    refused(st, "red", "offer 1meat for 1flint", "trade_over")


def test_confirm_when_partner_can_no_longer_pay_reveals_nothing_more():
    st = main_phase()
    give(st, "red", hide=2, meat=1)
    give(st, "blue", meat=1)
    play(st, "red", "offer 1hide for 1meat")
    play(st, "blue", "accept")
    st["hands"]["blue"][0] = 0      # (as if traded away)
    st["supply"][0] += 1
    err = refused(st, "red", "confirm blue", "partner_cannot")
    assert "meat" not in err.message


def test_the_offer_has_the_shape_of_shared_trade_like_zarahemlas():
    """Version 3: ``state["offer"]`` with ``owed``, the shape Zarahemla's offer has."""
    from shared.zarahemla import GAME as ZAR
    st = main_phase()
    give(st, "red", hide=1)
    give(st, "blue", meat=1)
    play(st, "red", "offer 1hide for 1meat to blue,white")
    offer = st["offer"]
    assert offer == {"from": "red", "give": [0, 0, 0, 1], "get": [1, 0, 0, 0],
                     "to": ["blue", "white"], "owed": ["blue", "white"], "answers": {}}
    play(st, "white", "decline")
    assert offer["owed"] == ["blue"]
    play(st, "blue", "accept")
    assert offer["owed"] == [] and offer["answers"]["blue"] == "accept"
    assert GAME.to_act(st) == ["red"]
    zst = ZAR.new_game(ZAR.seat_names(4), {}, b"shape")
    assert list(offer) == ["from", "give", "get", "to", "owed", "answers"]
    assert zst["offer"] is None and "offer" in st      # the same place in both games


def _old_snapshot_with_an_open_offer(version):
    """A snapshot as the server stored it before version 3: JSON text of a version-1 or -2
    state with an open offer in ``turn`` (and no ``owed``), two of three seats answered."""
    import json
    st = main_phase(version=version)
    give(st, "red", hide=2)
    give(st, "blue", meat=1)
    give(st, "white", bone=1)
    play(st, "red", "offer 1hide for 1meat")
    play(st, "white", "counter 1bone for 1hide")
    play(st, "orange", "decline")
    assert "offer" not in st and "owed" not in st["turn"]["offer"]
    return json.loads(json.dumps(st, separators=(",", ":")))


@pytest.mark.parametrize("version", ["1", "2"])
def test_an_old_snapshot_with_an_open_offer_loads_and_plays_on(version):
    """Old snapshots (the server's cached JSON states) keep their layout and play on: who
    owes an answer is worked out from ``to`` and ``answers``; the offer stays in ``turn``."""
    st = _old_snapshot_with_an_open_offer(version)
    assert GAME.to_act(st) == ["red", "blue"]
    assert GAME.view(st, None)["offer"]["waiting"] == ["blue"]
    assert "accept" in GAME.legal_moves(st, "blue")
    assert sorted(m for m in GAME.legal_moves(st, "red") if m.startswith("confirm")) == \
        ["confirm white"]
    play(st, "blue", "accept")
    assert GAME.to_act(st) == ["red"] and "owed" not in st["turn"]["offer"]
    play(st, "red", "confirm blue")
    assert st["turn"]["offer"] is None and "offer" not in st
    assert st["hands"]["red"] == [1, 0, 0, 1] and st["hands"]["blue"] == [0, 0, 0, 1]
    play(st, "red", "offer 1hide for 1meat to white")
    play(st, "red", "end")
    assert st["turn"]["offer"] is None and "offer" not in st


def test_an_old_snapshot_and_its_replay_agree():
    """The replay of an old game's log gives its snapshot's layout, byte for byte."""
    import json
    snap = _old_snapshot_with_an_open_offer("2")
    st = main_phase(version="2")
    give(st, "red", hide=2)
    give(st, "blue", meat=1)
    give(st, "white", bone=1)
    for seat, move in (("red", "offer 1hide for 1meat"), ("white", "counter 1bone for 1hide"),
                       ("orange", "decline")):
        play(st, seat, move)
    assert json.dumps(st, sort_keys=True) == json.dumps(snap, sort_keys=True)
