"""The designed world map (RULES.md, "The map")."""

from collections import Counter

from shared.stone_age import board

from .helpers import GAME, new


def _region_contacts():
    contacts = Counter()
    for path, sides in board._EDGE_SIDES.items():
        regions = {board.HEXES[h]["region"] for h, _ in sides}
        if len(regions) == 2:
            contacts[frozenset(regions)] += 1
    return contacts


def test_four_regions_and_landscapes():
    regions = Counter(h["region"] for h in board.HEXES.values())
    assert set(regions) == {"e", "f", "a", "u"}
    terrains = Counter(h["terrain"] for h in board.HEXES.values())
    assert set(terrains) == {"H", "S", "M", "F"}
    assert board.PRODUCES == {"H": 0, "S": 1, "M": 2, "F": 3}   # meat bone flint hide
    numbers = {h["number"] for h in board.HEXES.values()}
    assert numbers == set(range(2, 13)) - {7}


def test_regions_meet_only_at_the_land_bridge_and_two_crossings():
    """Eurasia-America meet on one path (the land bridge), Africa and Australia on one each."""
    contacts = _region_contacts()
    assert contacts == {frozenset("ea"): 1, frozenset("ef"): 1, frozenset("eu"): 1}


def test_every_region_and_the_world_is_connected():
    seen, todo = {1}, [1]
    while todo:
        x = todo.pop()
        for y in board.ADJ[x]:
            if y not in seen:
                seen.add(y)
                todo.append(y)
    assert len(seen) == board.NUM_CROSSINGS


def test_every_way_out_of_a_region_passes_a_condition_box():
    """Walking from inside a region without crossing a box never leaves that region."""
    def reach(start):
        seen, todo = {start}, [start]
        while todo:
            x = todo.pop()
            for y in board.ADJ[x]:
                if y not in seen and frozenset((x, y)) not in board.BOX_AT:
                    seen.add(y)
                    todo.append(y)
        return seen

    for start, region in ((92, "f"), (44, "e"), (48, "a"), (141, "u")):
        for x in reach(start):
            assert any(board.HEXES[h]["region"] == region for h in board.HEXES_AT[x]), (start, x)


def test_black_crossings_people_chips_and_boxes():
    assert len(board.BLACK) == 12
    assert all(x in board.AFRICA_CROSSINGS for x in board.BLACK)
    assert Counter(board.PEOPLE_CHIPS.values()) == {"y": 8, "g": 8, "p": 8, "c": 8}
    assert Counter(board.PEOPLE_CHIPS[x] for x in board.MARKED_3P) == \
        {"y": 5, "g": 5, "p": 5, "c": 5}
    assert not any(x in board.AFRICA_CROSSINGS for x in board.PEOPLE_CHIPS)
    assert len(board.BOXES) == 18
    assert sum(sum(p.values()) for p in board.CHIP_POOLS.values()) == 18
    numerals = Counter(b[4] for b in board.BOXES.values())
    assert numerals == {k: sum(p.values()) for k, p in board.CHIP_POOLS.items()}
    kinds = Counter(c.split("-")[0] for p in board.CHIP_POOLS.values() for c, n in p.items()
                    for _ in range(n))
    assert kinds == {"desert": 10, "disruption": 4, "adapt": 4}
    assert board.DESERTS == 10


def test_figures_start_next_to_the_land_bridge():
    bridge = next(p for p, sides in board._EDGE_SIDES.items()
                  if {board.HEXES[h]["region"] for h, _ in sides} == {"e", "a"})
    beside = {h for h, _ in board._EDGE_SIDES[bridge]}
    assert set(board.FIGURE_START.values()) == beside
    assert board.HEXES[board.FIGURE_START["neanderthal"]]["region"] == "e"
    assert board.HEXES[board.FIGURE_START["predator"]]["region"] == "a"


def test_map_labels_every_crossing_and_hex_within_80_columns():
    text = GAME.render(GAME.view(new(), None))
    assert max(len(line) for line in text.splitlines()) <= 80
    for name in board.HEX_NAMES:
        assert f" {name}" in text
    import re
    numbers = {int(m) for m in re.findall(r"(?<![\d-])(\d{1,3})(?=[RBWOrbwo*:]|\s|$)", text)}
    assert set(board.CROSSINGS) <= numbers


def test_the_map_in_rules_md_is_what_the_engine_prints():
    """Golden picture: RULES.md shows the real rendering of this position."""
    import os
    import shared.stone_age as pkg
    with open(os.path.join(os.path.dirname(pkg.__file__), "RULES.md"), encoding="utf-8") as f:
        doc = f.read()
    start = doc.index("```\n", doc.index("### The map as the engine prints it")) + 4
    shown = doc[start:doc.index("```", start)].rstrip("\n")
    st = GAME.new_game(GAME.seat_names(4), {}, b"doc")
    GAME.play(st, "red", "roll", b"1")
    assert GAME.render(GAME.view(st, "red")) == shown
