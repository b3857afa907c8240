"""Rules version 2: the engine back to the book.  Each test quotes the passage
of ``docs/rulebooks/stone-age-rulebook.txt`` it guards, and names the RULES.md note."""


from shared.stone_age import board

from .helpers import (
    GAME,
    cards_conserved,
    give,
    main_phase,
    play,
    points,
    refused,
    second_to_spread,
)


def _only_red_nomads(st, *xs):
    for s in st["seats"]:
        st["nomads"][s] = []
    st["nomads"]["red"] = list(xs)


# --- note 4: a Meat moves one nomad ----------------------------------------------------------

def test_rules_note_4_a_meat_moves_one_nomad_not_both():
    """RULES.md note 4.  The book: "If a player pays one Meat, they may move one of their
    nomads up to 2 crossings."  The crossing left over from red's Meat belongs to the nomad
    it was paid for: the other nomad cannot use it."""
    st = main_phase()
    _only_red_nomads(st, 102, 63)
    give(st, "red", meat=1)
    play(st, "red", "move 102-110")
    assert st["turn"]["paid"] == {"110": 1} and st["hands"]["red"][0] == 0
    refused(st, "red", "move 63-69", "cannot_afford")
    assert "move 63-69" not in GAME.legal_moves(st, "red")
    assert "move 110-118" in GAME.legal_moves(st, "red")
    play(st, "red", "move 110-118")                       # its own paid crossing
    assert st["turn"]["paid"] == {} and st["nomads"]["red"] == [118, 63]
    refused(st, "red", "move 118-110", "cannot_afford")
    cards_conserved(st)


def test_rules_note_4_two_meat_move_both_nomads():
    """RULES.md note 4.  The book: "If a player pays 2 or more 'Meat,' they may move a nomad
    correspondingly further in one turn, or move both nomads (if a second one is in play).\""""
    st = main_phase()
    _only_red_nomads(st, 102, 63)
    give(st, "red", meat=2)
    play(st, "red", "move 102-110-118")
    play(st, "red", "move 63-70-64")
    assert st["hands"]["red"][0] == 0 and st["turn"]["paid"] == {}


def test_rules_note_4_the_book_example_red_pays_2_meat_and_moves_4():
    """RULES.md note 4.  The book: "Player 'Red' places a nomad next to one of their tribes,
    pays 2x Meat, and moves the nomad 4 spaces across the orange-colored figures.\""""
    st = main_phase()
    _only_red_nomads(st)
    give(st, "red", meat=3, hide=1)
    play(st, "red", "nomad 100")
    play(st, "red", "move 100-93-85-78-71")               # over orange's 93, blue's 78
    assert st["nomads"]["red"] == [71] and st["hands"]["red"] == [0, 0, 0, 0]


def test_rules_note_4_a_nomad_created_after_the_meat_gets_none_of_its_crossings():
    """RULES.md note 4.  Crossings are paid for one nomad ("If a player pays one Meat, they
    may move one of their nomads up to 2 crossings"): a nomad created after that Meat was
    paid has no share in it (version 1 let it use the leftover)."""
    for version, second_may_move in (("2", False), ("1", True)):
        st = main_phase(version=version)
        _only_red_nomads(st, 102)
        give(st, "red", meat=2, hide=1)
        play(st, "red", "move 102-110")                    # 1 Meat, 1 crossing left
        play(st, "red", "nomad 115")                       # the second Meat
        assert st["hands"]["red"][0] == 0
        if second_may_move:
            play(st, "red", "move 115-124")
        else:
            refused(st, "red", "move 115-124", "cannot_afford")
            play(st, "red", "move 110-118")


def test_rules_note_4_paid_crossings_go_with_the_nomad_that_becomes_a_tribe():
    """RULES.md note 4.  A nomad turned into a tribe "takes the nomad back into their supply":
    the crossings paid for it are gone with it."""
    st = main_phase()
    _only_red_nomads(st, 52)
    give(st, "red", meat=1, hide=1, bone=1, flint=1)
    play(st, "red", "move 52-59")                          # 59 holds a yellow chip
    assert st["turn"]["paid"] == {"59": 1}
    play(st, "red", "tribe 59")
    assert st["turn"]["paid"] == {}


def test_rules_note_4_the_book_example_hans_one_meat_three_crossings():
    """RULES.md note 4 (book followed; the example agrees with it).  "Hans has developed the
    second progress steps of both the 'Clothing' and 'Construction' areas. He gives up one
    'Meat' and moves his nomad 3 crossings. Since he was the first to move across the box
    marked '2/1,' he takes the associated event chip."  One Meat buys 2 crossings plus one
    per Food step, so Hans has Food 1: the example names the levels the box asks for and
    only leaves out his Food level; with Food 0 one Meat is short."""
    st = main_phase()
    _only_red_nomads(st, 24)
    st["tracks"]["red"] = [0, 0, 2, 2]                    # Construction 2, Clothing 2
    give(st, "red", meat=1)
    refused(st, "red", "move 24-17-10-4", "cannot_afford")
    st["tracks"]["red"][0] = 1                            # Food 1
    assert board.BOXES["H"][:4] == (4, 10, 2, 1)          # box H, marked 2/1
    play(st, "red", "move 24-17-10-4")
    assert st["boxes"]["H"] == "red" and len(st["taken"]["red"]) == 1
    assert st["hands"]["red"][0] == 0


# --- note 10: the second player "may take" a free chip ---------------------------------------

def test_rules_note_10_the_second_player_may_take_a_free_chip():
    """RULES.md note 10.  The book: "the second player who manages to own at least one people
    chip from every people receives one victory point: they may take any free (unoccupied)
    people chip from the board and place it in front of themselves.\""""
    st = second_to_spread()
    assert GAME.to_act(st) == ["blue"]
    legal = GAME.legal_moves(st, "blue")
    assert legal[0] == "take none" and "take 46" in legal
    st["nomads"]["white"] = [45]
    refused(st, "blue", "take 45", "not_free")
    refused(st, "blue", "end", "pending")
    play(st, "blue", "take 46")
    assert "46" not in st["chips"] and points(st, "blue") == 5
    assert st["events"][-1]["kind"] == "take"
    assert st["events"][-1]["data"] == {"seat": "blue", "crossing": 46, "people": "p"}


def test_rules_note_10_the_second_player_may_decline_and_the_timeout_declines():
    """RULES.md note 10 and the timeout policy.  "they may take": a choice, so `take none`
    declines; a player who lets the deadline pass takes nothing (the server makes no choice
    the book leaves to the player, as with the optional steal on a 7)."""
    st = second_to_spread()
    chips = dict(st["chips"])
    assert GAME.timeout_move(st, "blue") == "take none"
    play(st, "blue", "take none")
    assert st["chips"] == chips and points(st, "blue") == 4 and st["pending"] == []
    assert st["events"][-1]["kind"] == "take_declined"
    assert GAME.legal_moves(st, "blue")[0] == "end"


# --- note 8: Exploration once the event is carried out ---------------------------------------

def _cross_box_a(st, seat, chip, start=64, end=58):
    st["nomads"][seat] = [start]
    st["tracks"][seat][3] = max(st["tracks"][seat][3], 1)
    st["pools"]["I"] = {chip: 1}
    st["boxes"]["A"] = None
    give(st, seat, meat=1)
    play(st, seat, f"move {start}-{end}")


def test_rules_note_8_exploration_waits_until_the_figure_has_moved():
    """RULES.md note 8.  The book: "When a player has carried out the event of an event chip,
    they place it face down in front of themselves. Whoever is first to have brought 2 event
    chips into their possession receives the 'Exploration' card."  The second chip is a
    Disruption Figure: Exploration comes when the figure has moved, not when the chip turns."""
    st = main_phase()
    _cross_box_a(st, "red", "adapt-y")
    _cross_box_a(st, "red", "disruption", start=58, end=64)
    assert len(st["taken"]["red"]) == 2
    assert st["exploration"] is None
    assert GAME.view(st, None)["chips_carried_out"]["red"] == 1
    play(st, "red", "predator a8")
    assert st["exploration"] == "red" and points(st, "red") == 1 + 2
    kinds = [e["kind"] for e in st["events"]]
    assert kinds == ["figure", "exploration"]
    assert st["events"][-1]["data"] == {"seat": "red", "from": None, "chips": 2}


def test_rules_note_8_exploration_waits_until_the_desert_is_placed():
    """RULES.md note 8.  "When a player has carried out the event of an event chip ...": a
    Desertification chip is carried out when its desert lies on the board."""
    st = main_phase()
    _cross_box_a(st, "red", "adapt-y")
    _cross_box_a(st, "red", "desert-H", start=58, end=64)
    assert st["exploration"] is None
    play(st, "red", "desert i1")
    assert st["exploration"] == "red"


def test_rules_note_8_exploration_changes_hands_only_after_the_event():
    """RULES.md note 8.  "But: if another player has more event chips, this card must be
    handed over to them immediately" - counted, like the first award, in chips carried out."""
    st = main_phase()
    st["taken"]["red"] = ["adapt-y", "adapt-g"]
    st["exploration"] = "red"
    st["taken"]["blue"] = ["adapt-p", "adapt-c"]
    st["current"] = "blue"
    _cross_box_a(st, "blue", "disruption")
    assert st["exploration"] == "red"
    play(st, "blue", "neanderthal g1")
    assert st["exploration"] == "blue"


def test_rules_note_8_version_1_awarded_exploration_when_the_chip_turned():
    """Rules version 1 (old games keep it): Exploration came with the second chip turned."""
    st = main_phase(version="1")
    _cross_box_a(st, "red", "adapt-y")
    _cross_box_a(st, "red", "disruption", start=58, end=64)
    assert st["exploration"] == "red" and st["pending"]


# --- note 9: never arises on this map --------------------------------------------------------

def test_rules_note_9_no_tribe_can_stand_at_a_condition_box():
    """RULES.md note 9.  The book: "places the nomad on a free crossing next to one of their
    tribes."  Tribes stand only on black crossings and people-chip crossings, and none of
    those ends a condition box's path, so a new nomad is never next to a tribe across a box."""
    ends = {x for box in board.BOXES.values() for x in box[:2]}
    assert not ends & (set(board.BLACK) | set(board.PEOPLE_CHIPS))


# --- RULES.md keeps its promises ------------------------------------------------------------

def test_every_rules_note_is_marked_and_every_test_it_names_exists():
    """Each numbered note of RULES.md says whether the book is silent, contradicts itself or
    is followed, quotes the book, and names tests that exist; every note has a test."""
    import os
    import re
    here = os.path.dirname(__file__)
    root = os.path.join(here, "..", "..", "..", "shared", "stone_age", "RULES.md")
    with open(root, encoding="utf-8") as f:
        text = f.read()
    choices = text[text.index("## Rule choices"):text.index("## Timeout policy")]
    notes = re.split(r"\n(?=\d+\. \*\*)", choices)[1:]
    assert [int(n.split(".")[0]) for n in notes] == list(range(1, 23))
    for note in notes:
        head = note[:note.index(")")]
        assert re.search(r"book (silent|contradicts itself|followed)|not a rule", head), head
    sources = ""
    for name in os.listdir(here):
        if name.endswith(".py"):
            with open(os.path.join(here, name), encoding="utf-8") as f:
                sources += f.read()
    for name in set(re.findall(r"`(test_\w+)`", text)):
        assert f"def {name}(" in sources, name
    for n in range(1, 21):
        assert f"test_rules_note_{n}_" in sources, n


def test_every_quotation_in_the_rule_choices_is_in_the_book():
    """A note's "quoted" passages are the rulebook's own words (RULES.md writes the book's
    inner double quotes as single quotes; " ... " marks a cut)."""
    import os
    import re
    here = os.path.dirname(__file__)
    with open(os.path.join(here, "..", "..", "..", "shared", "stone_age", "RULES.md"),
              encoding="utf-8") as f:
        text = f.read()
    book_path = os.path.join(here, "..", "..", "..", "docs", "rulebooks", "stone-age-rulebook.txt")
    with open(book_path, encoding="utf-8") as f:
        book = " ".join(f.read().split())
    choices = " ".join(text[text.index("## Rule choices"):text.index("## Timeout policy")].split())
    quotes = re.findall(r'"([^"]+)"', choices)
    assert len(quotes) > 40
    for quote in quotes:
        for frag in quote.split(" ... "):
            frag = frag.strip(" .")
            assert frag in book or frag.replace("'", '"') in book, frag


def _note(text, n):
    start = text.index(f"\n{n}. **")
    return " ".join(text[start:text.index(f"\n{n + 1}. **", start)].split())


def test_rules_notes_4_and_18_say_what_the_book_says():
    """Notes 4 and 18 called the book contradictory where it is not.  The Hans example ("He
    gives up one 'Meat' and moves his nomad 3 crossings") only leaves out his Food level;
    "Whoever rolls highest begins and places one of their tribes" is about placing the
    tribes, and "The youngest player begins" still picks the first player."""
    import os
    here = os.path.dirname(__file__)
    with open(os.path.join(here, "..", "..", "..", "shared", "stone_age", "RULES.md"),
              encoding="utf-8") as f:
        text = f.read()
    four, eighteen = _note(text, 4), _note(text, 18)
    for note in (four, eighteen):
        assert "(book followed" in note.split(")")[0] and "contradicts itself" not in note
    assert "leaves out his Food level; it does not contradict the rule" in four
    assert '"The youngest player begins"' in eighteen and "that \"begins\" is the placing" \
        in eighteen
    assert "Then red rolls first" in eighteen
