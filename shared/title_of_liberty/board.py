"""The main board of Title of Liberty: a graph of named spaces, drawn as ASCII.

The rulebook refers to a printed board we do not have; this module is the
board we designed (see RULES.md, "The main board").  Everything here is
static topology: module constants, never part of a game state.

Spaces sit on a grid of five columns (west to east) and nine half-rows
(north to south).  Roads join neighbours on the grid; the East Sea joins every
port to every other port (a boat trip).
"""

SEATS = ("moroni", "helaman", "lehi", "teancum", "antipus")
INITIAL = {"moroni": "M", "helaman": "H", "lehi": "L", "teancum": "T", "antipus": "A"}

#: the six captured cities (RULES.md note 1: the set-up list)
CITIES = ("antiparah", "gid", "manti", "morianton", "mulek", "nephihah")
#: the towns: one food each, never attacked
TOWNS = ("cumeni", "judea", "lehi", "zeezrom", "moroni")
VILLAGES = ("v1", "v2", "v3", "v4", "v5", "v6", "v7")
WILDS = ("w1", "w2", "w3", "w4")
HILLS = ("h1", "h2", "h3")
SHORES = ("s1", "s2", "s3")
START = "bountiful"

#: kind of every space
KIND = {START: "start"}
KIND.update({c: "city" for c in CITIES})
KIND.update({t: "town" for t in TOWNS})
KIND.update({v: "village" for v in VILLAGES})
KIND.update({w: "wilds" for w in WILDS})
KIND.update({h: "hill" for h in HILLS})
KIND.update({s: "seashore" for s in SHORES})

#: spaces whose food token is taken by an army passing or stopping there
FOOD_SPACES = frozenset(TOWNS + VILLAGES)
BATTLEFIELDS = frozenset(HILLS + SHORES)

#: (grid column, grid half-row) of every space
POS = {
    "judea": (0, 0), "v1": (1, 0), "h1": (2, 0), "v2": (3, 0), "bountiful": (4, 0),
    "w1": (3, 1), "s1": (4, 1),
    "antiparah": (0, 2), "v3": (1, 2), "w2": (2, 2), "v4": (3, 2), "mulek": (4, 2),
    "cumeni": (0, 4), "h2": (1, 4), "v5": (2, 4), "w3": (3, 4), "gid": (4, 4),
    "s2": (4, 5),
    "zeezrom": (0, 6), "v6": (1, 6), "s3": (2, 6), "v7": (3, 6), "morianton": (4, 6),
    "lehi": (4, 7),
    "manti": (0, 8), "w4": (1, 8), "h3": (2, 8), "nephihah": (3, 8), "moroni": (4, 8),
}

ROADS = (
    # west to east, row by row
    ("judea", "v1"), ("v1", "h1"), ("h1", "v2"), ("v2", "bountiful"),
    ("antiparah", "v3"), ("v3", "w2"), ("w2", "v4"), ("v4", "mulek"),
    ("cumeni", "h2"), ("h2", "v5"), ("v5", "w3"), ("w3", "gid"),
    ("zeezrom", "v6"), ("v6", "s3"), ("s3", "v7"), ("v7", "morianton"),
    ("manti", "w4"), ("w4", "h3"), ("h3", "nephihah"), ("nephihah", "moroni"),
    # north to south, column by column
    ("judea", "antiparah"), ("antiparah", "cumeni"), ("cumeni", "zeezrom"),
    ("zeezrom", "manti"),
    ("v1", "v3"), ("v3", "h2"), ("h2", "v6"), ("v6", "w4"),
    ("w2", "v5"), ("v5", "s3"), ("s3", "h3"),
    ("v2", "w1"), ("w1", "v4"), ("v4", "w3"), ("w3", "v7"), ("v7", "nephihah"),
    ("bountiful", "s1"), ("s1", "mulek"), ("mulek", "gid"), ("gid", "s2"),
    ("s2", "morianton"), ("morianton", "lehi"), ("lehi", "moroni"),
)

#: ports on the East Sea: a boat goes from any port to any other for one food
PORTS = ("bountiful", "mulek", "s2", "lehi", "moroni")

SPACES = tuple(sorted(KIND))

ROAD_NEXT = {s: [] for s in SPACES}
for _a, _b in ROADS:
    ROAD_NEXT[_a].append(_b)
    ROAD_NEXT[_b].append(_a)
ROAD_NEXT = {s: tuple(sorted(n)) for s, n in ROAD_NEXT.items()}
ROAD_SET = frozenset(ROADS) | frozenset((b, a) for a, b in ROADS)
SEA_NEXT = {s: tuple(p for p in PORTS if p != s) if s in PORTS else () for s in SPACES}

#: where captured Nephites from a battlefield are held first (then CITIES order)
NEAR_CITY = {"h1": "antiparah", "h2": "antiparah", "h3": "manti",
             "s1": "mulek", "s2": "gid", "s3": "nephihah"}

LABEL = {}
for _s in SPACES:
    if KIND[_s] == "city" or _s == START:
        LABEL[_s] = _s.upper()
    elif KIND[_s] == "town":
        LABEL[_s] = _s.capitalize()
    else:
        LABEL[_s] = _s

_X = (0, 16, 32, 48, 64)
MAP_WIDTH = 80
MAP_HEIGHT = 18


def draw_map(tags=None, armies=None):
    """The main board as a list of text lines, each at most 80 columns.

    ``tags``: {space: short suffix after its label, e.g. "[L]"};
    ``armies``: {space: initials of the armies standing there, e.g. "MH"}.
    """
    tags = tags or {}
    armies = armies or {}
    canvas = [[" "] * MAP_WIDTH for _ in range(MAP_HEIGHT)]

    def put(y, x, text):
        for i, ch in enumerate(text):
            if 0 <= x + i < MAP_WIDTH:
                canvas[y][x + i] = ch

    cells = {}
    for s, (c, r) in POS.items():
        text = LABEL[s] + tags.get(s, "")
        cells[s] = (2 * r, _X[c], text)
    for a, b in ROADS:
        ya, xa, ta = cells[a]
        yb, xb, tb = cells[b]
        if ya == yb:
            left, right = (cells[a], cells[b]) if xa < xb else (cells[b], cells[a])
            start = left[1] + len(left[2]) + 1
            put(ya, start, "-" * (right[1] - 1 - start))
        else:
            top, bottom = (cells[a], cells[b]) if ya < yb else (cells[b], cells[a])
            for y in range(top[0] + 1, bottom[0]):
                put(y, top[1], "|")
    for y in range(MAP_HEIGHT - 1):
        put(y, MAP_WIDTH - 1, "~")
    for p in PORTS:
        y, x, text = cells[p]
        start = x + len(text) + 1
        put(y, start, "~" * (MAP_WIDTH - 1 - start))
    for s, (y, x, text) in cells.items():
        put(y, x, text)
        if armies.get(s):
            put(y + 1, x + 2, armies[s])
    return ["".join(row).rstrip() for row in canvas]
