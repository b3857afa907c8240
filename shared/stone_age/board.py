"""The world map: hexes, crossings, paths and what is printed on them.

Everything here is static topology, computed once at import from the
literal tables below; nothing in this module changes during a game.

Geometry: pointy-top hexes in an offset grid whose odd rows are shifted half
a hex to the right.  A hex is named by its row letter and column number
(``"e3"``); a crossing (a hex corner) by a number 1..N counted in reading
order, top to bottom and left to right, exactly as the ASCII map prints it.
"""

from ..base import rules_version_of

REGIONS = {"e": "Eurasia", "f": "Africa", "a": "America", "u": "Australia"}
TERRAINS = {"H": "Highlands", "S": "Steppe", "M": "Mountains", "F": "Forest"}
RESOURCES = ("meat", "bone", "flint", "hide")
#: what each landscape produces, as an index into RESOURCES
PRODUCES = {"H": 0, "S": 1, "M": 2, "F": 3}

# region + terrain + number; "...." is sea.  Even rows have 9 cells, odd
# rows 8 (drawn half a hex to the right).
_GRID = [
    ".... .... .... .... eF06 .... .... aH03 ....",
    "  .... eH09 eM12 eF08 eF04 aS10 aS05 ....",
    ".... eH09 eS05 eS10 .... .... aH04 aM10 ....",
    "  eH11 eS08 eH02 .... .... aM02 aF09 ....",
    ".... .... eM05 eM06 .... .... aM09 .... ....",
    "  fS03 fH09 .... eM03 .... aH08 .... ....",
    "fM08 fS08 fS06 .... eS04 .... aF11 .... ....",
    "  fM04 fF10 fM06 .... uH06 .... aF11 ....",
    "fH05 fF05 fF10 .... uM09 uF04 .... aS06 ....",
    "  .... fH09 .... .... uS04 .... .... ....",
]

ROWS = "abcdefghij"
#: horizontal distance between hex centres, in characters
HEX_W = 8

# corner offsets (dx, dline) of a pointy-top hex around its centre column;
# lines count vertex rows: the top corner of row r is on vertex row 2r.
CORNERS = ("n", "ne", "se", "s", "sw", "nw")
_CORNER_POS = {"n": (0, 0), "ne": (4, 1), "se": (4, 2), "s": (0, 3), "sw": (-4, 2), "nw": (-4, 1)}
#: sides, named by direction, as pairs of corners
SIDES = {"ne": ("n", "ne"), "e": ("ne", "se"), "se": ("se", "s"),
         "sw": ("s", "sw"), "w": ("sw", "nw"), "nw": ("nw", "n")}


def hex_centre(r, c):
    """The character column of the centre of hex (r, c)."""
    return 8 + HEX_W * c + (HEX_W // 2 if r % 2 else 0)


def _build():
    hexes = {}
    for r, line in enumerate(_GRID):
        for c, cell in enumerate(line.split()):
            if cell != "....":
                name = ROWS[r] + str(c + 1)
                hexes[name] = {"row": r, "col": c, "region": cell[0], "terrain": cell[1],
                               "number": int(cell[2:])}
    points = set()
    for h in hexes.values():
        cx = hex_centre(h["row"], h["col"])
        h["corner_pos"] = {}
        for corner, (dx, dl) in _CORNER_POS.items():
            pos = (2 * h["row"] + dl, cx + dx)
            h["corner_pos"][corner] = pos
            points.add(pos)
    ordered = sorted(points)
    number_of = {pos: i + 1 for i, pos in enumerate(ordered)}
    for h in hexes.values():
        h["corners"] = {k: number_of[p] for k, p in h.pop("corner_pos").items()}
    return hexes, ordered


HEXES, _POINTS = _build()
#: hex names in reading order
HEX_NAMES = sorted(HEXES, key=lambda n: (HEXES[n]["row"], HEXES[n]["col"]))
NUM_CROSSINGS = len(_POINTS)
#: crossing number -> (vertex row, character column)
CROSSING_POS = {i + 1: p for i, p in enumerate(_POINTS)}
CROSSINGS = tuple(range(1, NUM_CROSSINGS + 1))


def _topology():
    adj = {x: set() for x in CROSSINGS}
    touching = {x: [] for x in CROSSINGS}
    edges = {}
    for name in HEX_NAMES:
        corners = HEXES[name]["corners"]
        for corner in CORNERS:
            touching[corners[corner]].append(name)
        for side, (c1, c2) in SIDES.items():
            a, b = corners[c1], corners[c2]
            adj[a].add(b)
            adj[b].add(a)
            edges.setdefault(frozenset((a, b)), []).append((name, side))
    return ({x: tuple(sorted(v)) for x, v in adj.items()},
            {x: tuple(v) for x, v in touching.items()}, edges)


#: crossing -> neighbouring crossings (sorted)
ADJ, HEXES_AT, _EDGE_SIDES = _topology()


def hex_side(name, side):
    """The path (a frozenset of two crossings) along ``side`` of hex ``name``."""
    c1, c2 = SIDES[side]
    corners = HEXES[name]["corners"]
    return frozenset((corners[c1], corners[c2]))


def crossing(name, corner):
    """The number of the crossing at ``corner`` of hex ``name``."""
    return HEXES[name]["corners"][corner]


# --- what is printed on the board -------------------------------------------

#: the 12 black starting crossings of Africa
BLACK = (76, 77, 78, 91, 92, 93, 94, 107, 108, 109, 125, 126)

#: the fixed starting layout: three tribes on black crossings and one nomad
FIXED_LAYOUT = {
    "red": {"tribes": (92, 107, 125), "nomad": 100},
    "blue": {"tribes": (78, 94, 108), "nomad": 86},
    "white": {"tribes": (76, 109, 126), "nomad": 69},
    "orange": {"tribes": (77, 91, 93), "nomad": 70},
}

#: the four peoples, by the letter the map prints
PEOPLES = ("y", "g", "p", "c")
PEOPLE_NAMES = {"y": "yellow", "g": "green", "p": "purple", "c": "cyan"}

#: crossing -> people chip printed there (8 of each people)
PEOPLE_CHIPS = {
    1: "y", 8: "g", 17: "p", 23: "c", 28: "y", 29: "g", 32: "p", 43: "c",
    44: "y", 45: "g", 46: "p", 57: "c", 59: "y", 60: "g", 87: "p", 88: "c",
    13: "y", 26: "g", 27: "p", 40: "c", 41: "y", 42: "g", 55: "p", 75: "c",
    89: "y", 114: "g", 131: "p", 132: "c", 112: "y", 136: "g", 137: "p", 144: "c",
}
#: the triangle-marked crossings used with three players (5 per people)
MARKED_3P = (1, 8, 13, 17, 23, 26, 27, 28, 29, 32, 40, 43, 44, 45, 46, 57, 112, 136, 137, 144)

#: condition boxes: letter -> (crossing, crossing, clothing, construction, numeral)
BOXES = {
    "A": (58, 64, 1, 0, "I"),      # Africa -> Near East
    "B": (65, 71, 0, 1, "I"),      # Africa -> Near East
    "C": (14, 21, 1, 0, "I"),      # into northern Europe
    "D": (7, 15, 1, 1, "I"),       # into northern Europe
    "E": (66, 73, 0, 1, "I"),      # into India
    "F": (72, 79, 1, 1, "I"),      # into India
    "G": (3, 9, 2, 0, "II"),       # into Siberia
    "H": (4, 10, 2, 1, "II"),      # into Siberia
    "I": (5, 12, 2, 1, "II"),      # into Alaska
    "J": (61, 67, 2, 2, "II"),     # central America
    "K": (62, 68, 1, 2, "II"),     # central America
    "L": (103, 111, 1, 2, "II"),   # South-East Asia -> Australia
    "M": (11, 18, 3, 1, "III"),    # the Eurasia-America land bridge
    "N": (25, 33, 3, 2, "III"),    # the Eurasia-America land bridge
    "O": (96, 104, 2, 3, "III"),   # South-East Asia -> Australia
    "P": (98, 106, 3, 2, "III"),   # into South America
    "Q": (105, 113, 2, 3, "III"),  # into South America
    "R": (120, 129, 3, 3, "III"),  # into the Australian outback
}
#: path (frozenset of two crossings) -> box letter
BOX_AT = {frozenset(v[:2]): k for k, v in BOXES.items()}
#: the same for a path walked from a to b, as the pair (a, b) (either way round): no set to make
BOX_ON = {**{v[:2]: k for k, v in BOXES.items()}, **{v[1::-1]: k for k, v in BOXES.items()}}

#: event chips by roman numeral: chip id -> how many (18 in all).
#: "desert-X" = Desertification of a landscape of kind X, "disruption" =
#: Disruption Figure, "adapt-<people>" = Adaptation card of that colour.
CHIP_POOLS = {
    "I": {"desert-H": 1, "desert-S": 1, "desert-M": 1, "desert-F": 1,
          "disruption": 1, "adapt-y": 1},
    "II": {"desert-H": 1, "desert-S": 1, "desert-F": 1, "disruption": 2, "adapt-g": 1},
    "III": {"desert-M": 1, "desert-H": 1, "desert-S": 1, "disruption": 1,
            "adapt-p": 1, "adapt-c": 1},
}
DESERTS = 10

#: which regions each disruption figure may stand in, and where it starts
FIGURE_REGIONS = {"neanderthal": ("f", "e"), "predator": ("a", "u")}
FIGURE_START = {"neanderthal": "b5", "predator": "b6"}
FIGURE_HEXES = {f: tuple(h for h in HEX_NAMES if HEXES[h]["region"] in regs)
                for f, regs in FIGURE_REGIONS.items()}

#: African landscapes next to a black crossing: the only ones deserts may cover
DESERT_HEXES = tuple(h for h in HEX_NAMES if HEXES[h]["region"] == "f"
                     and any(HEXES[h]["corners"][k] in BLACK for k in CORNERS))
AFRICA_CROSSINGS = frozenset(x for x in CROSSINGS
                             if any(HEXES[h]["region"] == "f" for h in HEXES_AT[x]))
#: hex -> crossings at its corners
HEX_CROSSINGS = {h: tuple(HEXES[h]["corners"][k] for k in CORNERS) for h in HEX_NAMES}
#: number -> hexes bearing it
HEXES_BY_NUMBER = {n: tuple(h for h in HEX_NAMES if HEXES[h]["number"] == n)
                   for n in range(2, 13)}


def _check():
    assert len(BLACK) == 12 and all(AFRICA_CROSSINGS.issuperset(BLACK) for _ in [0])
    assert len(PEOPLE_CHIPS) == 32
    for p in PEOPLES:
        assert sum(1 for v in PEOPLE_CHIPS.values() if v == p) == 8
        assert sum(1 for x in MARKED_3P if PEOPLE_CHIPS[x] == p) == 5
    for a, b, *_ in BOXES.values():
        assert b in ADJ[a]
    assert sum(sum(p.values()) for p in CHIP_POOLS.values()) == 18
    assert sum(n for p in CHIP_POOLS.values() for k, n in p.items()
               if k.startswith("desert")) == DESERTS
    assert len(DESERT_HEXES) == 12


_check()



def _paths_from(boxes, box_at):
    """crossing -> ((neighbour, (clothing, construction) or None), ...)."""
    return {x: tuple((y, (boxes[box_at[frozenset((x, y))]][2:4]
                          if frozenset((x, y)) in box_at else None)) for y in ADJ[x])
            for x in CROSSINGS}


#: crossing -> ((neighbour, (clothing, construction) or None), ...): the
#: paths out of a crossing with the condition box on each, for fast searches (map 1)
PATHS_FROM = _paths_from(BOXES, BOX_AT)


# --- map versions ------------------------------------------------------------
#
# The crossings, paths, landscapes, peoples and black crossings never change; the numbers on
# the landscapes and the condition boxes do.  Map 1 is the tables above (games of rules
# versions 1-3 keep it); map 2 (rules version 4 on) is the designed map of RULES.md "Map
# versions": a spread of numbers symmetric around seven, no 6 or 8 on neighbouring
# landscapes, each region its share of the good numbers, and condition boxes that stand in
# pairs across the only ways into the land behind them.

#: map 2: landscape -> number
NUMBERS_2 = {
    "a5": 9, "a8": 3,
    "b2": 10, "b3": 8, "b4": 5, "b5": 6, "b6": 4, "b7": 6,
    "c2": 5, "c3": 12, "c4": 4, "c7": 2, "c8": 9,
    "d1": 4, "d2": 9, "d3": 8, "d6": 11, "d7": 4,
    "e3": 3, "e4": 10, "e7": 5,
    "f1": 11, "f2": 8, "f4": 2, "f6": 6,
    "g1": 8, "g2": 5, "g3": 9, "g5": 12, "g7": 9,
    "h1": 11, "h2": 10, "h3": 8, "h5": 3, "h7": 10,
    "i1": 6, "i2": 4, "i3": 3, "i5": 10, "i6": 5, "i8": 6,
    "j2": 8, "j5": 6,
}
#: map 2: how many landscapes bear each number (RULES.md "Map versions")
NUMBER_COUNTS_2 = {2: 2, 3: 4, 4: 5, 5: 5, 6: 6, 8: 6, 9: 5, 10: 5, 11: 3, 12: 2}

#: map 2: the condition boxes, two across each way into a land, both asking the same
BOXES_2 = {
    "A": (58, 64, 1, 0, "I"),      # Africa -> Near East
    "B": (65, 71, 1, 0, "I"),      # Africa -> Near East
    "C": (14, 21, 1, 1, "I"),      # into northern Europe
    "D": (7, 15, 1, 1, "I"),       # into northern Europe
    "E": (66, 73, 0, 1, "I"),      # into India
    "F": (72, 79, 0, 1, "I"),      # into India
    "G": (3, 9, 2, 1, "II"),       # into Siberia
    "H": (4, 10, 2, 1, "II"),      # into Siberia
    "I": (5, 12, 3, 3, "III"),     # into Alaska
    "J": (61, 67, 1, 2, "II"),     # into Central America
    "K": (62, 68, 1, 2, "II"),     # into Central America
    "L": (103, 111, 2, 2, "II"),   # South-East Asia -> Australia
    "M": (11, 18, 3, 1, "III"),    # the Eurasia-America land bridge
    "N": (25, 33, 3, 1, "III"),    # the Eurasia-America land bridge
    "O": (96, 104, 2, 2, "II"),    # South-East Asia -> Australia
    "P": (98, 106, 2, 3, "III"),   # into South America
    "Q": (105, 113, 2, 3, "III"),  # into South America
    "R": (13, 20, 3, 3, "III"),    # into Alaska
}


class WorldMap:
    """One map version: the numbers on the landscapes and the condition boxes, with the
    tables the rules search (built once at import)."""

    def __init__(self, version, numbers, boxes):
        self.version = version
        #: landscape -> number
        self.numbers = dict(numbers)
        #: number -> landscapes bearing it (reading order)
        self.hexes_by_number = {n: tuple(h for h in HEX_NAMES if numbers[h] == n)
                                for n in range(2, 13)}
        #: letter -> (crossing, crossing, clothing, construction, numeral)
        self.boxes = dict(boxes)
        #: path (a frozenset) -> box letter
        self.box_at = {frozenset(v[:2]): k for k, v in boxes.items()}
        #: (a, b), either way round -> box letter
        self.box_on = {**{v[:2]: k for k, v in boxes.items()},
                       **{v[1::-1]: k for k, v in boxes.items()}}
        self.paths_from = _paths_from(self.boxes, self.box_at)
        #: crossing -> its neighbours over paths without a condition box
        self.open_adj = {t: tuple(y for y in ys if frozenset((t, y)) not in self.box_at)
                         for t, ys in ADJ.items()}
        for a, b, *_ in boxes.values():
            assert b in ADJ[a]
        assert sorted(numbers) == sorted(HEX_NAMES) and 7 not in numbers.values()
        for numeral, pool in CHIP_POOLS.items():     # one event chip per box of a numeral
            assert sum(1 for v in boxes.values() if v[4] == numeral) == sum(pool.values())


MAPS = {1: WorldMap(1, {h: HEXES[h]["number"] for h in HEX_NAMES}, BOXES),
        2: WorldMap(2, NUMBERS_2, BOXES_2)}
assert all(sum(1 for n in NUMBERS_2.values() if n == k) == c for k, c in NUMBER_COUNTS_2.items())
#: the map of new games
CURRENT_MAP = 2


def map_version(rules_version):
    """The map a game of ``rules_version`` is played on: 1 up to rules version 3, then 2."""
    return 1 if int(rules_version) <= 3 else 2


def map_of_view(view):
    """The :class:`WorldMap` a view (or any mapping with ``rules_version``) is drawn on; a
    missing or unreadable version reads as map 1 (drawings take hostile views too)."""
    try:
        return MAPS[map_version(view.get("rules_version", "1"))]
    except (AttributeError, TypeError, ValueError, OverflowError):
        return MAPS[1]


def map_of(state):
    """The :class:`WorldMap` of ``state`` (chosen by its rules version)."""
    return MAPS[map_version(rules_version_of(state))]
