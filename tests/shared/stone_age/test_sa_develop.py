"""Development: nomads, moving, tribes, progress tracks (RULES.md notes)."""

from shared.stone_age import board

from .helpers import GAME, cards_conserved, give, main_phase, play, refused


def test_create_a_nomad_costs_hide_and_meat_next_to_a_tribe():
    st = main_phase()
    st["nomads"]["red"] = []
    refused(st, "red", "nomad 100", "cannot_afford")
    give(st, "red", meat=2, hide=2)
    refused(st, "red", "nomad 63", "not_adjacent")
    refused(st, "red", "nomad 86", "occupied")       # blue's nomad
    play(st, "red", "nomad 100")
    assert st["nomads"]["red"] == [100] and st["hands"]["red"] == [1, 0, 0, 1]
    play(st, "red", "nomad 84")
    give(st, "red", meat=1, hide=1)
    refused(st, "red", "nomad 99", "no_pieces")
    cards_conserved(st)


def test_rules_note_9_no_nomad_across_a_condition_box():
    """RULES.md note 9 (book silent: "places the nomad on a free crossing next to one of their
    tribes"): a nomad is never placed across a condition box (a case the map never makes)."""
    st = main_phase()
    st["tribes"]["red"] = [64]
    give(st, "red", meat=1, hide=1)
    refused(st, "red", "nomad 58", "not_adjacent")    # 58-64 is box A
    play(st, "red", "nomad 71")


def test_rules_note_9_map_2_a_tribe_on_13_places_no_nomad_across_box_r():
    """RULES.md note 9: on map 2 the people chip at 13 ends box R (13-20); a tribe founded
    there places its nomad on 6, its one other neighbour, never over the box on 20."""
    st = main_phase()
    assert board.map_of(st).box_on[(13, 20)] == "R"
    st["tribes"]["red"] = [13]
    give(st, "red", meat=1, hide=1)
    refused(st, "red", "nomad 20", "not_adjacent")
    play(st, "red", "nomad 6")
    assert st["nomads"]["red"][-1] == 6


def test_move_costs_one_meat_for_two_crossings_plus_food():
    st = main_phase()
    give(st, "red", meat=2)
    refused(st, "red", "move 99-92", "no_nomad")
    play(st, "red", "move 100-93-101")
    assert st["hands"]["red"][0] == 1 and st["nomads"]["red"] == [101]
    st["tracks"]["red"][0] = 1                        # Food 1: 3 crossings per meat
    play(st, "red", "move 101-109-118-110")
    assert st["hands"]["red"][0] == 0 and st["nomads"]["red"] == [110]
    refused(st, "red", "move 110-118", "cannot_afford")


def test_rules_note_4_version_1_paid_steps_are_shared_by_both_nomads():
    """RULES.md note 4, rules version 1 only (old games keep it): Meat bought crossings for
    the turn, shared by both nomads.  Version 2 binds them to one nomad (test_sa_book)."""
    st = main_phase(version="1")
    for s in st["seats"]:
        st["nomads"][s] = []
    st["nomads"]["red"] = [102, 63]
    give(st, "red", meat=1)
    play(st, "red", "move 102-110")
    assert st["turn"]["steps"] == 1
    play(st, "red", "move 63-69")                      # uses the paid step
    assert st["hands"]["red"][0] == 0 and st["turn"]["steps"] == 0
    refused(st, "red", "move 69-63", "cannot_afford")


def test_pass_occupied_crossings_but_stop_on_a_free_one():
    st = main_phase()
    give(st, "red", meat=2)
    play(st, "red", "move 100-93-85")                 # over orange's tribe on 93
    refused(st, "red", "move 85-93", "occupied")
    refused(st, "red", "move 85-78", "occupied")
    play(st, "red", "move 85-78-71")                  # over blue's tribe on 78
    assert st["nomads"]["red"] == [71]


def test_move_must_follow_paths():
    st = main_phase()
    give(st, "red", meat=2)
    refused(st, "red", "move 100-102", "not_adjacent")


def test_condition_box_needs_clothing_and_construction():
    st = main_phase()
    st["nomads"]["red"] = [64]
    give(st, "red", meat=2)
    err = refused(st, "red", "move 64-58", "condition_box")
    assert "Clothing 1" in err.message
    st["tracks"]["red"][3] = 1
    st["pools"]["I"] = {"adapt-y": 1, "disruption": 5}
    from .helpers import entropy_where
    entropy_where(st, "red", "move 64-58", lambda t: t["taken"]["red"] == ["adapt-y"])
    assert st["boxes"]["A"] == "red" and st["adaptation"]["y"] == "red"
    assert GAME.view(st, None)["scores"]["red"] == 1


def test_condition_box_crossed_twice_only_the_first_takes_the_chip():
    """RULES.md note 15.  The book: "The first player who fulfills the condition of a box and
    moves onto the crossing beyond the box with a nomad receives the adjacent event chip.\""""
    st = main_phase()
    st["nomads"]["red"] = [64]
    st["nomads"]["blue"] = [71]
    st["tracks"]["red"][3] = st["tracks"]["blue"][3] = 1
    st["tracks"]["red"][2] = st["tracks"]["blue"][2] = 1
    st["pools"]["I"] = {"adapt-y": 6}
    give(st, "red", meat=2)
    give(st, "blue", meat=2)
    play(st, "red", "move 64-58")
    assert st["boxes"]["A"] == "red" and st["taken"]["red"] == ["adapt-y"]
    play(st, "red", "move 58-64")                   # back across: nothing more
    assert st["taken"]["red"] == ["adapt-y"]
    play(st, "red", "end")
    st["phase"] = "main"
    play(st, "blue", "move 71-64-58")               # box A again (64 is free now)
    assert st["taken"]["blue"] == [] and st["boxes"]["A"] == "red"
    assert st["pools"]["I"] == {"adapt-y": 5}


def test_found_a_tribe_on_a_people_chip():
    st = main_phase()
    st["nomads"]["red"] = [59]
    give(st, "red", hide=1, bone=1, flint=1)
    st["nomads"]["blue"] = [58]
    refused(st, "red", "tribe 58", "no_nomad")
    st["nomads"]["red"] = [58]
    refused(st, "red", "tribe 58", "no_chip")
    st["nomads"]["red"] = [59]
    refused(st, "red", "tribe 59 remove 92", "no_remove")
    play(st, "red", "tribe 59")
    assert 59 in st["tribes"]["red"] and st["nomads"]["red"] == []
    assert "59" not in st["chips"] and st["people"]["red"] == [1, 0, 0, 0]
    assert GAME.view(st, None)["scores"]["red"] == 1
    cards_conserved(st)


def test_rules_note_7_sixth_tribe_removes_an_african_one():
    """RULES.md note 7.  The book: "If all 5 of a player's tribes are already on the board and
    they want to create another tribe, they must remove one of their tribes from Africa. If they
    no longer have a tribe in Africa, they remove any tribe of their choice.\""""
    st = main_phase()
    st["tribes"]["red"] = [92, 107, 3, 9, 15]          # two still in Africa
    st["nomads"]["red"] = [59]
    give(st, "red", hide=2, bone=2, flint=2)
    refused(st, "red", "tribe 59", "must_remove")
    refused(st, "red", "tribe 59 remove 9", "must_remove_africa")
    refused(st, "red", "tribe 59 remove 60", "bad_remove")
    play(st, "red", "tribe 59 remove 107")
    assert sorted(st["tribes"]["red"]) == [3, 9, 15, 59, 92]
    st["tribes"]["red"] = [3, 9, 15, 21, 59]           # none left in Africa
    st["nomads"]["red"] = [60]
    play(st, "red", "tribe 60 remove 9")
    assert sorted(st["tribes"]["red"]) == [3, 15, 21, 59, 60]


def test_rules_note_1_develop_costs_and_food_step_2_costs_one_bone():
    """RULES.md note 1.  The book's example: "Player "Orange" pays one Bone and advances their
    marker stone on the Food progress track to the 2nd step.\""""
    st = main_phase()
    st["tracks"]["red"][0] = 1
    give(st, "red", bone=1)
    play(st, "red", "develop food")
    assert st["tracks"]["red"][0] == 2 and st["hands"]["red"] == [0, 0, 0, 0]
    refused(st, "red", "develop food", "cannot_afford")


def test_rules_note_2_fifth_step_is_unique_and_gives_art():
    """RULES.md note 2.  The book: "The player who first reaches the 5th step of a track
    receives the victory-point card displayed there. All other players may no longer advance
    their marker stone to this 5th step.\""""
    st = main_phase()
    st["tracks"]["red"][3] = 4
    st["tracks"]["blue"][3] = 4
    give(st, "red", hide=2, bone=2)
    play(st, "red", "develop clothing")
    assert st["art"]["clothing"] == "red" and GAME.view(st, None)["scores"]["red"] == 1
    refused(st, "red", "develop clothing", "track_full")
    play(st, "red", "end")
    st["phase"] = "main"
    give(st, "blue", hide=2, bone=2)
    refused(st, "blue", "develop clothing", "step_taken")


def test_rules_note_5_hunting_moves_a_figure_without_stealing():
    """RULES.md note 5 (book silent on stealing).  The book: "With each progress, the player
    once moves the Neanderthal in Africa or Eurasia, or the Predator in America or Australia.\""""
    st = main_phase()
    give(st, "red", flint=1)
    give(st, "blue", meat=3)
    play(st, "red", "develop hunting")
    assert GAME.to_act(st) == ["red"]
    refused(st, "red", "end", "pending")
    refused(st, "red", "predator g3", "wrong_region")
    refused(st, "red", "neanderthal g3 steal blue", "no_steal")
    play(st, "red", "predator a8")
    assert st["figures"]["predator"] == "a8" and st["pending"] == []
    cards_conserved(st)
