"""The designed world map (RULES.md, "The map")."""

from collections import Counter

from shared.stone_age import board

from .helpers import GAME, give, main_phase, new, play, refused


def _region_contacts():
    contacts = Counter()
    for _path, sides in board._EDGE_SIDES.items():
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


# --- map 2: the designed numbers and boxes (RULES.md "Map versions") -------------------------

PIPS = {n: 6 - abs(7 - n) for n in range(2, 13)}
GOOD = (5, 6, 8, 9)


def _neighbours(h):
    """The landscapes sharing a side with ``h``."""
    return {g for g in board.HEX_NAMES
            if g != h and len(set(board.HEX_CROSSINGS[g]) & set(board.HEX_CROSSINGS[h])) == 2}


def test_map_2_number_spread_is_symmetric_around_seven_and_never_favours_a_far_number():
    """The book: "Each landscape bears a number. When one of these numbers is rolled during
    the game with 2 dice, the corresponding landscape produces raw materials" (silent on
    which numbers: its board is a picture we do not have).  Map 2's spread, as a designer's:
    symmetric around seven (n and 14-n equally often, within one), and never a number
    further from seven on more landscapes than a nearer one."""
    numbers = board.MAPS[2].numbers
    counts = Counter(numbers.values())
    assert counts == board.NUMBER_COUNTS_2 and sum(counts.values()) == 43 and 7 not in counts
    for n in range(2, 7):
        assert abs(counts[n] - counts[14 - n]) <= 1, n
    for far in counts:
        for near in counts:
            if abs(far - 7) > abs(near - 7):
                assert counts[far] <= counts[near], (far, near)
    # map 1, the old spread, broke both: nine more common than six or eight
    old = Counter(board.MAPS[1].numbers.values())
    assert old[9] > old[8] and old[9] > old[6] and old[12] == 1 and old[2] == 2


def test_map_2_no_six_or_eight_on_neighbouring_landscapes():
    """Six and eight, the likeliest numbers "rolled during the game with 2 dice", never on
    neighbouring landscapes (Catan's rule for its red numbers); nor does any number stand
    next to itself."""
    numbers = board.MAPS[2].numbers
    for h in board.HEX_NAMES:
        for g in _neighbours(h):
            assert not (numbers[h] in (6, 8) and numbers[g] in (6, 8)), (h, g)
            assert numbers[h] != numbers[g], (h, g)
    # so no crossing touches two landscapes of one number (a tribe gets one card per roll)
    for x in board.CROSSINGS:
        touching = [numbers[h] for h in board.HEXES_AT[x]]
        assert len(touching) == len(set(touching)), x
    assert any(board.MAPS[1].numbers[h] in (6, 8) and board.MAPS[1].numbers[g] in (6, 8)
               for h in board.HEX_NAMES for g in _neighbours(h))      # map 1 did


def test_map_2_every_region_and_resource_gets_its_share_of_the_good_numbers():
    """Each region gets a fair share of the good numbers (the book: "Depending on the roll of
    the dice and the landscape, players receive the raw materials"): 5, 6, 8 and 9 ("good"
    as the Zarahemla tactics count them); each region, and each kind of landscape, holds its
    share of them rounded down or up.  The fixed starting layout stays fair: each colour's three
    tribes touch landscapes worth the same dice chances within one."""
    numbers = board.MAPS[2].numbers
    good = sum(1 for n in numbers.values() if n in GOOD)
    for key in ("region", "terrain"):
        for value in {board.HEXES[h][key] for h in board.HEX_NAMES}:
            hexes = [h for h in board.HEX_NAMES if board.HEXES[h][key] == value]
            share = good * len(hexes) / len(numbers)
            got = sum(1 for h in hexes if numbers[h] in GOOD)
            assert int(share) <= got <= -int(-share // 1), (key, value, got, share)
    pips = [sum(PIPS[numbers[h]] for x in lay["tribes"] for h in board.HEXES_AT[x])
            for lay in board.FIXED_LAYOUT.values()]
    assert max(pips) - min(pips) <= 1, pips


def _reach(world, starts, closed=(), levels=None):
    """Crossings reachable from ``starts``: no path in ``closed``, and with ``levels``
    (clothing, construction) only the boxes those levels meet."""
    closed = set(closed)
    seen, todo = set(starts), list(starts)
    while todo:
        x = todo.pop()
        for y, req in world.paths_from[x]:
            if y in seen or frozenset((x, y)) in closed:
                continue
            if levels is not None and req is not None and (levels[0] < req[0]
                                                           or levels[1] < req[1]):
                continue
            seen.add(y)
            todo.append(y)
    return seen


def _distances(starts):
    dist, frontier = {x: 0 for x in starts}, list(starts)
    while frontier:
        nxt = []
        for x in frontier:
            for y in board.ADJ[x]:
                if y not in dist:
                    dist[y] = dist[x] + 1
                    nxt.append(y)
        frontier = nxt
    return dist


def boxes_walked_around(world):
    """The boxes whose far crossing (the end further from Africa's black crossings) can be
    reached from Africa or from the box's near crossing without crossing the box or one at
    least as demanding (Clothing and Construction both at least the box's)."""
    dist = _distances(board.BLACK)
    out = set()
    for letter, (a, b, clo, con, _) in world.boxes.items():
        far, near = (a, b) if dist[a] > dist[b] else (b, a)
        closed = {frozenset(v[:2]) for v in world.boxes.values()
                  if v[2] >= clo and v[3] >= con}
        if far in _reach(world, set(board.BLACK) | {near}, closed):
            out.add(letter)
    return out


def test_every_box_of_map_2_blocks_the_land_behind_it():
    """The issue: "Box I (path 5-12, 2/1) and box R (120-129, 3/3) can be walked around ...
    'A player may only move a nomad across a condition box once they have developed the
    required progress steps': every way into the land behind a box must cross that box (or
    one at least as demanding)."  The walk, for every box of map 2; map 1 fails it (I and R
    among others: its paired boxes asked different things, so one could go round the harder
    by the easier)."""
    assert boxes_walked_around(board.MAPS[2]) == set()
    assert {"I", "R"} <= boxes_walked_around(board.MAPS[1])


def test_map_2_no_levels_reach_beyond_a_box_they_do_not_meet():
    """For every pair of levels a player can have, the crossings their nomads can reach from
    Africa never include the far end of a box those levels do not meet."""
    world = board.MAPS[2]
    dist = _distances(board.BLACK)
    for clothing in range(6):
        for construction in range(6):
            reach = _reach(world, board.BLACK, levels=(clothing, construction))
            for letter, (a, b, clo, con, _) in world.boxes.items():
                if clothing < clo or construction < con:
                    far = a if dist[a] > dist[b] else b
                    assert far not in reach, (clothing, construction, letter)
    # the issue's nomad: Clothing 1 / Construction 2 reached the chip at 136 on map 1
    assert 136 in _reach(board.MAPS[1], board.BLACK, levels=(1, 2))
    assert 136 not in _reach(world, board.BLACK, levels=(1, 2))
    assert 136 in _reach(world, board.BLACK, levels=(2, 2))


def test_map_2_boxes_stand_in_pairs_and_every_people_chip_can_be_reached():
    world = board.MAPS[2]
    assert set(world.boxes) == set(board.BOXES)
    numerals = Counter(v[4] for v in world.boxes.values())
    assert numerals == {k: sum(p.values()) for k, p in board.CHIP_POOLS.items()}
    assert _reach(world, board.BLACK, levels=(5, 5)) == set(board.CROSSINGS)
    # Africa, America and Australia are still entered and left only through boxes
    everything_closed = _reach(world, board.BLACK, closed=world.box_at)
    assert all(any(board.HEXES[h]["region"] == "f" for h in board.HEXES_AT[x])
               for x in everything_closed)


def test_a_game_on_map_2_refuses_the_issues_walk_and_map_1_allowed_it():
    """The issue's nomad, in a game: Clothing 1 / Construction 2 from India into Australia
    over box L (103-111) went on map 1 (L asked 1/2); map 2's L asks 2/2."""
    for version, allowed in (("3", True), (GAME.rules_version, False)):
        st = main_phase(version=version)
        st["nomads"]["red"] = [103]
        st["tracks"]["red"][2], st["tracks"]["red"][3] = 2, 1
        give(st, "red", meat=1)
        if allowed:
            play(st, "red", "move 103-111")
            assert st["nomads"]["red"][-1] == 111
        else:
            err = refused(st, "red", "move 103-111", "condition_box")
            assert "Clothing 2 and Construction 2" in err.message


def test_the_text_board_lists_the_paths_near_your_nomads_and_what_you_can_develop():
    """The issue "A player's second hour": two moves refused "not neighbours" and develop
    costs in neither the rules help nor the board.  The board names every neighbour of the
    crossings around the viewer's nomads (boxes marked) and the next step of each track with
    its cost; the rules help lists every cost."""
    from shared.stone_age.state import TRACK_COSTS, cost_text
    st = main_phase()
    st["nomads"]["red"] = [64]
    give(st, "red", bone=1)
    text = GAME.render(GAME.view(st, "red"))
    flat = " ".join(text.split())
    assert "Paths near your nomad on 64: 64: 58[A] 70 71 |" in flat
    for y in board.ADJ[64]:
        assert f"{y}: " + " ".join(
            f"{z}[{board.map_of(st).box_on[(y, z)]}]" if (y, z) in board.map_of(st).box_on
            else str(z) for z in board.ADJ[y]) in flat
    assert "food 1 (1bone)*, hunting 1 (1flint), construction 1 (1flint)" in flat
    assert "blue" not in flat.split("Paths near")[1].split(".")[0]   # only the viewer's
    assert "Paths near" not in GAME.render(GAME.view(st, None))
    st["boxes"]["A"] = "red"
    assert "64: 58[a] 70 71" in " ".join(GAME.render(GAME.view(st, "red")).split())
    helptext = GAME.rules_help()
    for track, costs in TRACK_COSTS.items():
        row = [line for line in helptext.splitlines() if line.strip().startswith("5 ")][0]
        assert cost_text(costs[4]) in row, track
    assert "nomad 1meat+1hide" in helptext and "tribe 1bone+1flint+1hide" in helptext
