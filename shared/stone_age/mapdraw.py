"""Drawing the world map as ASCII text (at most 80 columns).

The picture is built from the static geometry in :mod:`board`: every
crossing is printed at its own position with its number (the name the
notation uses), every path as ``/``, ``\\`` or ``|``, every hex with its name,
landscape letter and number.  Callers pass what stands where.
"""

from . import board

WIDTH = 80


def _line_of(vrow):
    """The text line on which vertex row ``vrow`` is printed."""
    return 5 * (vrow // 2) + (0 if vrow % 2 == 0 else 2)


_N_LINES = _line_of(max(p[0] for p in board.CROSSING_POS.values())) + 1


def _edge_spots():
    """path -> (line, column, kind) where its glyph goes."""
    spots = {}
    for path in board._EDGE_SIDES:
        a, b = sorted(path, key=lambda x: board.CROSSING_POS[x])
        (la, xa), (_, xb) = board.CROSSING_POS[a], board.CROSSING_POS[b]
        if xa == xb:
            spots[path] = (_line_of(la) + 1, xa, "|")
        else:
            spots[path] = (_line_of(la) + 1, (xa + xb) // 2, "/" if xb < xa else "\\")
    return spots


EDGE_SPOTS = _edge_spots()


def _put(grid, line, col, text):
    row = grid[line]
    for i, ch in enumerate(text):
        if 0 <= col + i < WIDTH:
            row[col + i] = ch


def draw(labels, hex_lines, boxes, notes=()):
    """The map as a list of strings.

    ``labels``: crossing -> text printed at the crossing (its number first);
    ``hex_lines``: hex name -> (first line, second line), each at most 5
    characters; ``boxes``: path -> one-character box letter; ``notes``:
    (line, column, text) written only where the sea is blank.
    """
    grid = [[" "] * WIDTH for _ in range(_N_LINES)]
    for line, col, glyph in EDGE_SPOTS.values():
        if glyph == "|":
            _put(grid, line, col, "|")
            _put(grid, line + 1, col, "|")
        else:
            _put(grid, line, col, glyph)
    for path, letter in boxes.items():
        line, col, glyph = EDGE_SPOTS[path]
        _put(grid, line, col - 1, "[" + letter + "]")
    for name, (first, second) in hex_lines.items():
        h = board.HEXES[name]
        cx = board.hex_centre(h["row"], h["col"])
        base = 5 * h["row"] + 3
        _put(grid, base, cx - 2, first.center(5)[:5])
        _put(grid, base + 1, cx - 2, second.center(5)[:5])
    for x, (vrow, col) in board.CROSSING_POS.items():
        _put(grid, _line_of(vrow), col - 1, labels.get(x, str(x)))
    for line, col, text in notes:
        span = range(col, min(WIDTH, col + len(text)))
        if line < _N_LINES and all(grid[line][c] == " " for c in span):
            _put(grid, line, col, text)
    return ["".join(row).rstrip() for row in grid]
