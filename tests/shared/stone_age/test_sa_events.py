"""Event chips, Exploration, Spread and winning (RULES.md notes 8-10, 12)."""

import pytest

from .helpers import (
    GAME,
    cards_conserved,
    found_tribe,
    give,
    main_phase,
    play,
    points,
    refused,
)


def _cross_box_a(st, seat, chip, start=64, end=58):
    """Put ``seat``'s nomad on ``start`` and cross box A (58-64) turning up ``chip``."""
    st["nomads"][seat] = [start]
    st["tracks"][seat][3] = max(st["tracks"][seat][3], 1)
    st["pools"]["I"] = {chip: 1}
    st["boxes"]["A"] = None
    give(st, seat, meat=1)
    play(st, seat, f"move {start}-{end}")


def test_desertification_covers_an_african_landscape_of_the_chip_kind():
    st = main_phase()
    _cross_box_a(st, "red", "desert-H")
    assert st["taken"]["red"] == ["desert-H"]
    assert GAME.view(st, "red")["owes"]["red"] == "place a desert on an African Highlands"
    refused(st, "red", "end", "pending")
    refused(st, "red", "desert e3", "not_africa")
    refused(st, "red", "desert g1", "wrong_terrain")      # g1 is Mountains
    play(st, "red", "desert i1")                          # Highlands 5
    assert st["deserts"] == ["i1"] and st["pending"] == []
    refused_state = st
    assert "~des~" in GAME.render(GAME.view(refused_state, None))


def test_rules_note_12_desertification_with_no_landscape_left_does_nothing():
    """RULES.md note 12 (book silent).  The book: "The player places a desert on a landscape
    shown on the chip. Important: only landscapes of Africa (next to black crossings) may be
    covered with deserts."  No uncovered African landscape of that kind: no effect."""
    st = main_phase()
    st["deserts"] = ["f2", "i1", "j2"]                    # every African Highlands
    _cross_box_a(st, "red", "desert-H")
    assert st["pending"] == [] and st["taken"]["red"] == ["desert-H"]


def test_rules_note_16_disruption_figure_chip_moves_a_figure_and_must_steal():
    """RULES.md note 16.  The book: "Whoever turns up this chip immediately moves the
    Neanderthal to a landscape field in Eurasia/Africa, or the Predator in America/Australia.
    Furthermore, they draw a raw material card from a fellow player who has a tribe standing on
    that landscape field."  "they draw" (the 7 says "may draw"): the steal is required."""
    st = main_phase()
    give(st, "blue", meat=1, bone=1)
    _cross_box_a(st, "red", "disruption")
    refused(st, "red", "neanderthal g3", "must_steal")   # blue has tribes on g3
    refused(st, "red", "predator g3 steal blue", "wrong_region")
    play(st, "red", "neanderthal g3 steal blue")
    assert sum(st["hands"]["blue"]) == 1 and sum(st["hands"]["red"]) == 1
    cards_conserved(st)


def test_disruption_figure_chip_with_nobody_to_rob():
    st = main_phase()
    _cross_box_a(st, "red", "disruption")
    play(st, "red", "predator a8")                         # nobody there: no steal
    assert st["figures"]["predator"] == "a8"


def test_adaptation_card_is_a_victory_point():
    st = main_phase()
    _cross_box_a(st, "red", "adapt-y")
    assert st["adaptation"]["y"] == "red" and points(st, "red") == 1


def test_rules_note_8_exploration_first_to_two_chips_then_to_whoever_has_more():
    """RULES.md note 8.  The book: "Whoever is first to have brought 2 event chips into their
    possession receives the "Exploration" card. But: if another player has more event chips,
    this card must be handed over to them immediately.\""""
    st = main_phase()
    _cross_box_a(st, "red", "adapt-y")
    assert st["exploration"] is None
    _cross_box_a(st, "red", "adapt-g", start=58, end=64)
    assert st["exploration"] == "red" and points(st, "red") == 2 + 2
    st["current"] = "blue"
    st["turn"]["developing"] = False
    st["taken"]["blue"] = ["disruption", "disruption"]
    _cross_box_a(st, "blue", "adapt-p")
    play(st, "blue", "neanderthal g1") if st["pending"] else None
    assert st["exploration"] == "blue"
    assert points(st, "red") == 2 and points(st, "blue") == 1 + 2


def test_exploration_does_not_move_on_a_tie():
    """RULES.md note 8.  The book: "if another player has more event chips, this card must be
    handed over": only strictly more; a tie leaves it where it is."""
    st = main_phase()
    st["taken"]["red"] = ["adapt-y", "adapt-g"]
    st["exploration"] = "red"
    st["taken"]["blue"] = ["disruption"]
    st["current"] = "blue"
    _cross_box_a(st, "blue", "adapt-p")
    assert st["exploration"] == "red"


def test_rules_note_10_version_1_the_second_player_must_take_a_free_chip():
    """RULES.md note 10, rules version 1 only (old games keep it): the take was forced.
    Version 2 lets the player decline (test_sa_book)."""
    st = main_phase(version="1")
    found_tribe(st, "red", 59, [0, 1, 1, 1])          # 59 is yellow
    assert st["spread"] == "red" and points(st, "red") == 4 + 2
    st["current"] = "blue"
    found_tribe(st, "blue", 44, [0, 1, 1, 1])         # 44 is yellow too
    assert st["spread"] == "red" and st["spread2"] == "blue"
    assert GAME.to_act(st) == ["blue"]
    assert GAME.view(st, "blue")["owes"]["blue"] == "take a free people chip from the board"
    st["nomads"]["white"] = [45]
    refused(st, "blue", "take 45", "not_free")   # a nomad stands on it
    refused(st, "blue", "take 30", "no_chip")
    refused(st, "blue", "take none", "must_take")
    assert GAME.timeout_move(st, "blue") == "take 1"
    play(st, "blue", "take 46")
    assert "46" not in st["chips"] and points(st, "blue") == 5
    st["current"] = "white"
    found_tribe(st, "white", 45, [1, 0, 1, 1])
    assert st["spread2"] == "blue" and st["pending"] == []


def test_win_at_ten_points_on_your_own_turn():
    st = main_phase()
    st["people"]["red"] = [2, 2, 2, 0]
    st["spread"] = None
    st["tracks"]["red"][0] = 4
    give(st, "red", bone=2, meat=2)
    st["people"]["red"] = [3, 2, 2, 1]
    st["spread"] = "red"                         # 8 + 2 = 10 but not yet checked
    play(st, "red", "develop food")              # the book's Wolfgang example: Art -> 11
    assert st["phase"] == "over" and GAME.result(st)["winners"] == ["red"]
    assert GAME.to_act(st) == [] and GAME.view(st, None)["status"] == "over"
    refused(st, "red", "end", "game_over")
    # the reason starts with the seat's name: it is not a sentence of its own
    text = " ".join(GAME.render(GAME.view(st, None)).split())
    assert "Game over: red won (red has 11 victory points on their turn)." in text


def test_the_book_example_wolfgang_wins_with_art():
    """7 people chips + Spread (9 points), first to Food step 5: Venus, 10 points."""
    st = main_phase()
    st["people"]["red"] = [2, 2, 2, 1]
    st["spread"] = "red"
    st["tracks"]["red"][0] = 4
    give(st, "red", bone=2, meat=2)
    assert points(st, "red") == 9
    play(st, "red", "develop food")
    assert points(st, "red") == 10 and GAME.result(st)["winners"] == ["red"]


def test_no_win_off_turn():
    """Only the player on turn can win; points gained on others' turns wait for theirs."""
    st = main_phase()
    st["people"]["blue"] = [3, 3, 3, 1]
    give(st, "red", meat=1)
    play(st, "red", "end")
    assert st["phase"] == "roll"


def test_rules_note_19_points_gained_before_your_turn_win_when_it_comes():
    """RULES.md note 19.  The book: "The game ends as soon as a player, on their turn, has at
    least 10 victory points.\""""
    st = main_phase()
    st["people"]["blue"] = [3, 3, 3, 1]
    play(st, "red", "end")
    from .helpers import roll_to
    roll_to(st, "blue", 6)
    assert st["phase"] == "over" and GAME.result(st)["winners"] == ["blue"]


def test_rules_note_14_chip_drawn_from_its_numeral_when_taken():
    """RULES.md note 14.  The book: "They are shuffled around a bit so that no one knows anymore
    which symbol is on the back."  The chip is drawn from its numeral's remaining pool when
    the box is first crossed, and "they immediately turn it face up"."""
    st = main_phase()
    assert st["pools"] == {k: dict(v) for k, v in __import__(
        "shared.stone_age.board", fromlist=["x"]).CHIP_POOLS.items()}
    st["nomads"]["red"] = [64]
    st["tracks"]["red"][3] = 1
    give(st, "red", meat=1)
    before = sum(st["pools"]["I"].values())
    play(st, "red", "move 64-58", b"any")
    chip = st["taken"]["red"][0]
    assert sum(st["pools"]["I"].values()) == before - 1
    assert chip in __import__("shared.stone_age.board", fromlist=["x"]).CHIP_POOLS["I"]
    assert sum(st["pools"]["II"].values()) == 6 and sum(st["pools"]["III"].values()) == 6
    # the face is public: every viewer sees it in the view and the log
    from shared.stone_age.develop import chip_name
    for viewer in (None, "blue", "red"):
        assert GAME.view(st, viewer)["event_chips"]["red"] == [chip_name(chip)]
    # different entropy, possibly another chip: the draw depends on the move's randomness
    faces = set()
    for i in range(30):
        trial = main_phase()
        trial["nomads"]["red"] = [64]
        trial["tracks"]["red"][3] = 1
        give(trial, "red", meat=1)
        play(trial, "red", "move 64-58", b"e%d" % i)
        faces.add(trial["taken"]["red"][0])
    assert len(faces) > 1


def test_rules_note_15_passing_a_box_without_stopping_takes_its_chip():
    """RULES.md note 15.  The book's example: Hans "moves his nomad 3 crossings. Since he was
    the first to move across the box ... he takes the associated event chip": the nomad need
    not stop beyond the box."""
    st = main_phase()
    st["nomads"]["red"] = [70]
    st["tracks"]["red"][3] = 1
    st["pools"]["I"] = {"adapt-y": 6}
    give(st, "red", meat=2)
    play(st, "red", "move 70-64-58-52")
    assert st["boxes"]["A"] == "red" and st["nomads"]["red"] == [52]


def test_rules_note_17_a_figure_must_change_landscape():
    """RULES.md note 17.  The book: the 7 moves the Neanderthal "to a different landscape
    field"; "the Neanderthal may only be placed on landscapes of Africa and Eurasia, and the
    Predator only on landscapes of America and Australia.\""""
    st = main_phase()
    give(st, "red", flint=1)
    play(st, "red", "develop hunting")
    refused(st, "red", "predator b6", "must_move")
    refused(st, "red", "neanderthal b5", "must_move")
    st["deserts"] = ["i1"]
    play(st, "red", "neanderthal i1")                      # a desert is still a landscape


@pytest.mark.parametrize("version", ["3", GAME.rules_version])
def test_rules_note_18_who_starts(version):
    """RULES.md note 18.  The book: "The youngest player begins" (the first seat, red, in
    every game from rules version 4); advanced: "Whoever rolls highest begins and places one
    of their tribes on a black crossing": the highest set-up roll places first.  Version 3
    also gave that player the first turn."""
    from .helpers import new
    assert new(4, version=version)["current"] == "red"
    assert new(3, version=version)["current"] == "red"
    firsts = set()
    for i in range(12):
        st = new(4, setup="advanced", seed=b"who-%d" % i, version=version)
        # the set-up dice are facts (version 2): no need to read the text
        rolls = [e["data"]["rolls"] for e in st["events"] if e["kind"] == "setup_roll"]
        last = {s: r["total"] for s, r in rolls[-1].items()}
        best = max(last, key=last.get)
        assert best == st["current"] == st["place_order"][0]
        assert st["first"] == (best if version == "3" else "red")
        assert list(last.values()).count(last[best]) == 1
        assert st["events"][-1]["data"]["seat"] == best
        firsts.add(best)
    assert len(firsts) > 1


def test_rules_note_20_a_nomad_may_return_to_its_start():
    """RULES.md note 20 (book silent).  "A nomad may change direction as often as it likes
    during its move": cross box A and come back in one paid move."""
    st = main_phase()
    st["nomads"]["red"] = [64]
    st["tracks"]["red"][3] = 1
    st["pools"]["I"] = {"adapt-y": 6}
    give(st, "red", meat=1)
    play(st, "red", "move 64-58-64")
    assert st["nomads"]["red"] == [64] and st["boxes"]["A"] == "red"
    assert st["hands"]["red"][0] == 0


def test_rules_note_12_second_desert_chip_of_a_kind_with_nothing_left_lapses():
    """RULES.md note 12 (book silent): two Desertification chips in one move, one landscape
    left; the second has no effect."""
    st = main_phase()
    st["deserts"] = ["f2", "i1"]                          # j2 is the last Highlands
    st["nomads"]["red"] = [58]
    st["tracks"]["red"][3] = st["tracks"]["red"][2] = 1
    st["pools"]["I"] = {"desert-H": 6}
    give(st, "red", meat=2)
    play(st, "red", "move 58-64-71-65")                   # boxes A and B
    assert st["taken"]["red"] == ["desert-H", "desert-H"]
    assert [p["kind"] for p in st["pending"]] == ["desert", "desert"]
    play(st, "red", "desert j2")
    assert st["pending"] == []
    assert any("no effect" in e["public"] for e in st["events"])
    assert GAME.legal_moves(st, "red")


def test_victory_points_count_chips_art_adaptation_exploration_and_spread():
    """People chips, Art and Adaptation 1 each, Exploration and Spread 2; tribes nothing."""
    st = main_phase()
    assert all(points(st, s) == 0 for s in st["seats"])     # three tribes each, no chips
    st["people"]["blue"] = [1, 0, 2, 0]
    st["art"]["food"] = "blue"
    st["adaptation"]["c"] = "blue"
    st["exploration"] = "blue"
    st["spread"] = "blue"
    assert points(st, "blue") == 3 + 1 + 1 + 2 + 2
    assert GAME.view(st, "white")["scores"]["blue"] == 9
