"""The static map of Zarahemla: 19 hexes, 54 corners, 72 paths, 9 post sites.

Everything here is computed once at import and never stored in a state.

Names the notation uses:

* hexes are the letters ``A``..``S`` in reading order (rows of 3, 4, 5, 4, 3);
* corners are the numbers ``1``..``54`` in reading order (top to bottom,
  left to right);
* a path is named by its two corners, smaller first: ``14-19``.

Internally corners are indexes 0..53 (name - 1), hexes 0..18 and paths
0..71 (sorted by their corner pair).
"""

RESOURCES = ("wood", "brick", "water", "wheat", "stone")
HIDEOUT = "hideout"

HEX_NAMES = "ABCDEFGHIJKLMNOPQRS"

# Axial coordinates (q, r) of the hexes in reading order; pointy-top hexes,
# row r holds q from max(-2, -r-2) to min(2, -r+2).
HEX_COORDS = [(q, r) for r in range(-2, 3) for q in range(max(-2, -r - 2), min(2, -r + 2) + 1)]

# Corner offsets around a pointy-top hex centre, clockwise from the top,
# in "half hex width" x units and "third of a row" y units.
_CORNER_OFFSETS = ((0, -2), (1, -1), (1, 1), (0, 2), (-1, 1), (-1, -1))


def _hex_centre(q, r):
    return (2 * q + r, 3 * r)


def _build():
    ring_points = []
    for q, r in HEX_COORDS:
        cx, cy = _hex_centre(q, r)
        ring_points.append([(cx + dx, cy + dy) for dx, dy in _CORNER_OFFSETS])
    points = sorted({p for ring in ring_points for p in ring}, key=lambda p: (p[1], p[0]))
    index = {p: i for i, p in enumerate(points)}
    hex_corners = [[index[p] for p in ring] for ring in ring_points]
    edge_set = set()
    for ring in hex_corners:
        for i in range(6):
            a, b = ring[i], ring[(i + 1) % 6]
            edge_set.add((min(a, b), max(a, b)))
    edges = sorted(edge_set)
    return points, hex_corners, edges


CORNER_POS, HEX_CORNERS, EDGES = _build()
N_CORNERS = len(CORNER_POS)   # 54
N_EDGES = len(EDGES)          # 72
N_HEXES = len(HEX_COORDS)     # 19

EDGE_INDEX = {pair: i for i, pair in enumerate(EDGES)}

#: corner -> hexes it touches
CORNER_HEXES = [[] for _ in range(N_CORNERS)]
for _h, _ring in enumerate(HEX_CORNERS):
    for _c in _ring:
        CORNER_HEXES[_c].append(_h)
CORNER_HEXES = tuple(tuple(x) for x in CORNER_HEXES)

#: corner -> neighbouring corners, corner -> paths touching it
CORNER_NEIGHBOURS = [[] for _ in range(N_CORNERS)]
CORNER_EDGES = [[] for _ in range(N_CORNERS)]
for _e, (_a, _b) in enumerate(EDGES):
    CORNER_NEIGHBOURS[_a].append(_b)
    CORNER_NEIGHBOURS[_b].append(_a)
    CORNER_EDGES[_a].append(_e)
    CORNER_EDGES[_b].append(_e)
CORNER_NEIGHBOURS = tuple(tuple(x) for x in CORNER_NEIGHBOURS)
CORNER_EDGES = tuple(tuple(x) for x in CORNER_EDGES)

#: edge -> the other corner, given one: EDGE_OTHER[e][corner] is cheap via dict
EDGE_NAMES = tuple(f"{a + 1}-{b + 1}" for a, b in EDGES)
EDGE_BY_NAME = {name: i for i, name in enumerate(EDGE_NAMES)}


def hex_neighbours():
    """hex -> hexes sharing a path with it."""
    out = [set() for _ in range(N_HEXES)]
    for a, b in EDGES:
        common = set(CORNER_HEXES[a]) & set(CORNER_HEXES[b])
        for h in common:
            out[h].update(common - {h})
    return tuple(tuple(sorted(s)) for s in out)


HEX_NEIGHBOURS = hex_neighbours()


def _coast_cycle():
    """The 30 jungle-border paths in order around the coast, clockwise from corner 1."""
    coastal = [e for e, (a, b) in enumerate(EDGES)
               if len(set(CORNER_HEXES[a]) & set(CORNER_HEXES[b])) == 1]
    by_corner = {}
    for e in coastal:
        for c in EDGES[e]:
            by_corner.setdefault(c, []).append(e)
    start = 0
    # clockwise on screen from the top-left corner 1: go to the right first
    first = min(by_corner[start], key=lambda e: -CORNER_POS[sum(EDGES[e]) - start][0])
    cycle, corner, edge = [], start, first
    while True:
        cycle.append(edge)
        a, b = EDGES[edge]
        corner = b if a == corner else a
        nxt = [e for e in by_corner[corner] if e != edge][0]
        if nxt == first:
            break
        edge = nxt
    return tuple(cycle)


COAST = _coast_cycle()
#: the nine Trading Post sites: coast paths spaced 3, 3, 4 around the coast
POST_EDGES = tuple(COAST[i] for i in (0, 3, 6, 10, 13, 16, 20, 23, 26))
POST_TYPES = ("3:1", "3:1", "3:1", "3:1") + RESOURCES

# The spiral for number markers: the outer ring counter-clockwise from A,
# the inner ring counter-clockwise from E, then the centre.
_OUTER_CCW = tuple(HEX_NAMES.index(c) for c in "ADHMQRSPLGCB")
_INNER_CCW = tuple(HEX_NAMES.index(c) for c in "EINOKF")
_CENTRE = HEX_NAMES.index("J")
OUTER_RING = _OUTER_CCW

#: marker letters A..R and their values (the standard Catan order)
MARKER_VALUES = (5, 2, 6, 3, 8, 10, 9, 12, 11, 4, 8, 10, 9, 4, 5, 6, 3, 11)
MARKER_LETTERS = "ABCDEFGHIJKLMNOPQR"

TERRAIN_MIX = ("wood",) * 4 + ("brick",) * 3 + ("water",) * 4 + ("wheat",) * 4 + \
    ("stone",) * 3 + (HIDEOUT,)

#: the fixed beginner board (reading order), hideout in the centre
BEGINNER_TERRAIN = (
    "stone", "water", "wood",
    "wheat", "brick", "water", "brick",
    "wheat", "wood", HIDEOUT, "wood", "stone",
    "wood", "stone", "wheat", "water",
    "brick", "wheat", "water",
)
BEGINNER_POSTS = ("3:1", "wheat", "stone", "3:1", "water", "3:1", "3:1", "brick", "wood")


def spiral(start_outer):
    """Hex order of the marker spiral starting at outer-ring position ``start_outer`` (0..11).

    Counter-clockwise round the outer ring, then the inner ring from the
    hex next to the last outer one, then the centre.
    """
    outer = _OUTER_CCW[start_outer:] + _OUTER_CCW[:start_outer]
    k = start_outer // 2
    inner = _INNER_CCW[k:] + _INNER_CCW[:k]
    return outer + inner + (_CENTRE,)


def lay_numbers(terrain, start_outer):
    """(numbers, markers): number and marker letter per hex, laid by the book's spiral rule.

    The Hideout gets no marker (number 0, letter "").
    """
    numbers = [0] * N_HEXES
    letters = [""] * N_HEXES
    i = 0
    for h in spiral(start_outer):
        if terrain[h] == HIDEOUT:
            continue
        numbers[h] = MARKER_VALUES[i]
        letters[h] = MARKER_LETTERS[i]
        i += 1
    return numbers, letters


#: the Trading Posts as the board's frame prints them (rules version 3 on, every board):
#: "depending on the way you lay the strips ... you can have a different setup" varies only
#: the hex strips; the posts are on the fixed board around them (RULES.md item 16)
FIXED_POSTS = BEGINNER_POSTS


def make_board(kind, rng, fixed_posts=False):
    """A board for option ``board``: (terrain, numbers, markers, posts, robber hex).

    ``beginner`` is fixed; ``variable`` shuffles the 19 terrain hexes with ``rng`` and
    starts the spiral on a random outer hex; the nine post types are shuffled too unless
    ``fixed_posts`` (rules version 3 on), when they stand where the frame prints them.
    """
    if kind == "beginner":
        terrain = list(BEGINNER_TERRAIN)
        posts = list(BEGINNER_POSTS)
        start = 0
    else:
        terrain = rng.shuffle(list(TERRAIN_MIX))
        posts = list(FIXED_POSTS) if fixed_posts else rng.shuffle(list(POST_TYPES))
        start = rng.randbelow(len(_OUTER_CCW))
    numbers, letters = lay_numbers(terrain, start)
    return terrain, numbers, letters, posts, terrain.index(HIDEOUT)


def corner_name(c):
    return str(c + 1)


def edge_name(e):
    return EDGE_NAMES[e]


#: corner -> post index (or -1)
CORNER_POST = [-1] * N_CORNERS
for _i, _e in enumerate(POST_EDGES):
    for _c in EDGES[_e]:
        CORNER_POST[_c] = _i
CORNER_POST = tuple(CORNER_POST)
