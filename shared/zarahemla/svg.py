"""The Zarahemla board drawn as SVG, from a view (never the state).

Geometry is the board module's own: ``CORNER_POS`` gives every corner in "half hex width"
x units and "third of a row" y units, so corner 14 sits where the text board prints 14.
Pointy-top hexes of radius ``R``; the jungle round the land holds the nine Trading Posts.

Classes a page can style: ``hex`` (+ ``terrain-<kind>``), ``number``, ``robber``, ``road``,
``settlement``, ``city`` (+ ``seat-<colour>``), ``post``, ``corner`` and ``path`` (the hover
targets of empty places), ``temple``, ``temple-stones``.  Labels: the groups ``label
corner-labels`` (shown) and ``label path-labels`` (hidden with ``display="none"``; a CSS rule
such as ``.zoomed .path-labels {display: inline}`` shows them).  ``data-place`` holds the
notation's name: ``"F"``, ``"14"``, ``"14-19"``.
"""

from math import sqrt

from ..svg import (
    Drawing,
    as_dict,
    as_list,
    circle,
    css_token,
    element,
    group,
    line,
    polygon,
    polyline,
    rect,
    text,
)
from .board import CORNER_POS, EDGES, HEX_CORNERS, HEX_NAMES, POST_EDGES

R = 40                          # hex radius (centre to corner)
XU = R * sqrt(3) / 2            # one x unit of CORNER_POS
YU = R / 2                      # one y unit of CORNER_POS
OX, OY = 215, 215               # where board (0, 0) is drawn
WIDTH, HEIGHT = 430, 505

TERRAIN = {   # fill, words (the book: green wood, red brick, blue water, yellow wheat ...)
    "wood": ("#4f9a3c", "forest (wood)"),
    "brick": ("#c8693f", "clay (brick)"),
    "water": ("#6cb4e8", "water"),
    "wheat": ("#ecc94b", "fields (wheat)"),
    "stone": ("#a3a3a3", "mountains (stone)"),
    "hideout": ("#9a6b3f", "the Gadianton Robber Hideout"),
}
SEAT_FILL = {"red": "#d62728", "blue": "#1f4fd1", "white": "#ffffff", "orange": "#ff8c1a"}
OUTLINE = "#1a1a1a"
_UNKNOWN = "#cc55cc"


def _xy(p):
    return OX + p[0] * XU, OY + p[1] * YU


def _corner_xy(c):
    """Drawing position of corner ``c`` (0-based index)."""
    return _xy(CORNER_POS[c])


def _seat_fill(seat):
    return SEAT_FILL.get(seat, _UNKNOWN) if isinstance(seat, str) else _UNKNOWN


def _seat_cls(seat):
    return "seat-" + css_token(seat)


def _dots(number):
    """How many pips a number marker shows (its odds out of 36)."""
    return 6 - abs(7 - number) if 2 <= number <= 12 else 0


def _hexes(board):
    out = []
    hexes = as_list(board.get("hexes"))
    for h, ring in enumerate(HEX_CORNERS):
        info = hexes[h] if h < len(hexes) and isinstance(hexes[h], dict) else {}
        name = str(info.get("hex", HEX_NAMES[h]))
        kind = str(info.get("terrain", ""))
        fill, words = TERRAIN.get(kind, (_UNKNOWN, kind))
        number = info.get("number") or 0
        number = number if isinstance(number, int) else 0
        marker = info.get("marker") or ""
        title = f"hex {name}: {words}"
        if number:
            # the marker's letter only orders the laying at set-up ("The small letters on top
            # of the number markers are important during the setup phase"): named in the
            # title, not drawn as a second letter beside the hex's own
            title += f", {number}" + (f" (number marker {marker}, laid in letter order)"
                                      if marker else "")
        pts = [_corner_xy(c) for c in ring]
        cx = sum(p[0] for p in pts) / 6
        cy = sum(p[1] for p in pts) / 6
        parts = [polygon(pts, fill=fill, stroke="#5b4a2f", stroke_width=1.5),
                 text(cx, cy - R * 0.55, name, font_size=11)]
        if number:
            hot = "#b00000" if number in (6, 8) else None
            parts.append(circle(cx, cy + 2, 12, fill="#f6ecd0", stroke="#5b4a2f"))
            parts.append(text(cx, cy + 6, number, font_size=13, fill=hot, cls="number"))
            parts.append(text(cx, cy + 11.5, "\u2022" * _dots(number), font_size=5, fill=hot))
        out.append(group(parts, title=title, cls=f"hex terrain-{css_token(kind)}",
                         data_place=name))
    return group(out, cls="hexes", text_anchor="middle", font_weight="bold", fill="#1a1a1a")


def _paths(roads):
    """Every path: the road on it, or a thin hover target; then the path names as labels
    (hidden until a page shows them)."""
    out, labels = [], []
    for a, b in EDGES:
        name = f"{a + 1}-{b + 1}"
        (x1, y1), (x2, y2) = _corner_xy(a), _corner_xy(b)
        labels.append(text(round((x1 + x2) / 2), round((y1 + y2) / 2 + 2), name))
        if name in roads:
            out.append(_road(a, b, roads[name]))
        else:
            out.append(line(x1, y1, x2, y2, title=f"path {name}", cls="path", data_place=name))
    return [group(out, cls="paths", stroke="transparent", stroke_width=6),
            group(labels, cls="label path-labels", display="none", font_size=5,
                  text_anchor="middle", fill="#1a1a1a")]


def _road(a, b, seat):
    name = f"{a + 1}-{b + 1}"
    (x1, y1), (x2, y2) = _corner_xy(a), _corner_xy(b)
    dx, dy = x2 - x1, y2 - y1
    length = sqrt(dx * dx + dy * dy) or 1
    ux, uy = dx / length, dy / length
    nx, ny = -uy * 3, ux * 3
    s, e = 7, length - 7
    pts = [(x1 + ux * s + nx, y1 + uy * s + ny), (x1 + ux * e + nx, y1 + uy * e + ny),
           (x1 + ux * e - nx, y1 + uy * e - ny), (x1 + ux * s - nx, y1 + uy * s - ny)]
    return polygon(pts, title=f"{seat} road on path {name}", cls=f"road {_seat_cls(seat)}",
                   data_place=name, fill=_seat_fill(seat), stroke=OUTLINE, stroke_width=1)


def _building(c, seat, kind):
    x, y = _corner_xy(c)
    corner = c + 1
    if kind == "city":
        pts = [(x - 10, y + 7), (x - 10, y - 3), (x - 4, y - 3), (x - 4, y - 8), (x + 1, y - 12),
               (x + 6, y - 8), (x + 6, y - 3), (x + 10, y - 3), (x + 10, y + 7)]
    else:
        kind = "settlement"
        pts = [(x - 6, y + 6), (x - 6, y - 2), (x, y - 8), (x + 6, y - 2), (x + 6, y + 6)]
    return polygon(pts, title=f"{seat} {kind} on corner {corner}",
                   cls=f"{kind} {_seat_cls(seat)}", data_place=str(corner),
                   fill=_seat_fill(seat), stroke=OUTLINE, stroke_width=1.2)


def _corners(buildings):
    """Every corner: the building on it, or a hover target; then the corner numbers as
    labels."""
    out, labels = [], []
    for c in range(len(CORNER_POS)):
        x, y = _corner_xy(c)
        name = str(c + 1)
        built = buildings.get(name)
        labels.append(text(round(x + 4), round(y - 3), name))
        if isinstance(built, (list, tuple)) and len(built) >= 2:
            out.append(_building(c, built[0], built[1]))
        else:
            out.append(circle(x, y, 4.5, title=f"corner {name}", cls="corner",
                              data_place=name))
    return [group(out, cls="corners", fill="transparent"),
            group(labels, cls="label corner-labels", font_size=7, fill="#1a1a1a")]


def _posts(posts):
    out = []
    for i, e in enumerate(POST_EDGES):
        info = posts[i] if i < len(posts) and isinstance(posts[i], dict) else {}
        kind = str(info.get("type", "?"))
        a, b = EDGES[e]
        name = f"{a + 1}-{b + 1}"
        (x1, y1), (x2, y2) = _corner_xy(a), _corner_xy(b)
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        # outward from the board centre, off the middle of its coast path
        vx, vy = mx - OX, my - OY
        d = sqrt(vx * vx + vy * vy) or 1
        px, py = mx + vx / d * 24, my + vy / d * 24
        parts = [polyline([(x1, y1), (px, py), (x2, y2)], fill="none", stroke="#f6ecd0",
                          stroke_width=2)]
        if kind == "3:1":
            words = f"3:1 Trading Post on path {name} (3 alike for 1)"
            parts += [circle(px, py, 13, fill="#f6ecd0", stroke=OUTLINE), text(px, py + 3, "3:1")]
        else:
            words = f"2:1 {kind} Trading Post on path {name} (2 {kind} for 1)"
            fill = TERRAIN[kind][0] if kind in TERRAIN else _UNKNOWN
            parts += [circle(px, py, 13, fill=fill, stroke=OUTLINE), text(px, py, "2:1"),
                      text(px, py + 8, kind, font_size=6, font_weight="normal")]
        out.append(group(parts, title=words, cls=f"post post-{css_token(kind) or 'any'}",
                         data_place=name))
    return group(out, cls="posts", font_size=8, font_weight="bold",
                 text_anchor="middle")


def _robber(board):
    name = board.get("robber")
    if name not in tuple(HEX_NAMES):
        return []
    ring = HEX_CORNERS[HEX_NAMES.index(name)]
    pts = [_corner_xy(c) for c in ring]
    cx = sum(p[0] for p in pts) / 6 + 19
    cy = sum(p[1] for p in pts) / 6 + 2
    body = f"M{cx - 6:.1f},{cy + 12:.1f} L{cx - 4:.1f},{cy:.1f} L{cx + 4:.1f},{cy:.1f} " \
           f"L{cx + 6:.1f},{cy + 12:.1f} Z"
    return [group([element("path", {"d": body}), circle(cx, cy - 4, 5)],
                  title=f"the Gadianton Robber, on hex {name}", cls="robber",
                  data_place=name, fill="#222222", stroke="#f6ecd0", stroke_width=1)]


def _temple(view):
    """The Temple of Zarahemla: each player's Temple Stones as a stepped pile."""
    players = as_dict(view.get("players"))
    order = [s for s in as_list(view.get("order")) or list(players)
             if isinstance(s, str) and s in players]
    x0, y0 = 12, HEIGHT - 66
    parts = [rect(x0, y0, 200, 58, fill="#f6ecd0", stroke="#5b4a2f", rx=4),
             text(x0 + 6, y0 + 12, "Temple of Zarahemla", font_size=9, font_weight="bold",
                  fill="#1a1a1a")]
    contributor = view.get("temple_contributor")
    stones = []
    for row, seat in enumerate(order):
        n = as_dict(players[seat]).get("temple_stones")
        n = min(n, 40) if isinstance(n, int) and n > 0 else 0
        y = y0 + 17 + row * 10
        star = seat == contributor
        cells = [text(x0 + 6, y + 7, f"{seat}{' *' if star else ''}", font_size=7,
                      fill="#1a1a1a")]
        if n:
            x = x0 + 48
            w = min(n, 12) * 12 - 2
            cells.append(rect(x, y, w, 8, fill=_seat_fill(seat), stroke=OUTLINE,
                              stroke_width=0.8))
            if n > 1:
                cuts = "".join(f"M{x + 12 * i - 1},{y}v8" for i in range(1, min(n, 12)))
                cells.append(element("path", {"d": cuts, "stroke": OUTLINE,
                                              "stroke_width": 0.8}))
        what = f"{seat}: {n} Temple Stone{'s' if n != 1 else ''}"
        if star:
            what += ", Greatest Temple Contributor"
        stones.append(group(cells, title=what, cls=f"temple-stones {_seat_cls(seat)}"))
    if contributor:
        parts.append(text(x0 + 194, y0 + 12, "* Greatest Contributor", font_size=6,
                          text_anchor="end", fill="#1a1a1a"))
    summary = ", ".join(f"{s} {as_dict(players[s]).get('temple_stones', 0)}" for s in order)
    return group(parts + stones, title=f"the Temple of Zarahemla: Temple Stones {summary}",
                 cls="temple")


def _legend():
    x0, y0 = 222, HEIGHT - 66
    parts = [rect(x0, y0, 196, 58, fill="#f6ecd0", stroke="#5b4a2f", rx=4)]
    items = [("wood", 0), ("brick", 1), ("water", 2), ("wheat", 3), ("stone", 4),
             ("hideout", 5)]
    for kind, i in items:
        x = x0 + 6 + (i % 3) * 64
        y = y0 + 6 + (i // 3) * 13
        parts.append(rect(x, y, 9, 9, fill=TERRAIN[kind][0], stroke="#5b4a2f",
                          stroke_width=0.8))
        parts.append(text(x + 12, y + 8, kind, font_size=8, fill="#1a1a1a"))
    parts.append(text(x0 + 6, y0 + 44, "corners 1-54, paths 14-19, hexes A-S;",
                      font_size=7, fill="#1a1a1a"))
    parts.append(text(x0 + 6, y0 + 53, "red 6/8 roll most often; dots = odds",
                      font_size=7, fill="#1a1a1a"))
    return group(parts, title="legend: terrain colours and the board's names", cls="legend")


def draw(view):
    """The board of ``view`` as an SVG document (a string)."""
    board = as_dict(view.get("board"))
    roads = as_dict(board.get("roads"))
    buildings = as_dict(board.get("buildings"))
    doc = Drawing(WIDTH, HEIGHT, title="The Settlers of Zarahemla: the board",
                  cls="board zarahemla", font_family="sans-serif")
    doc.add(rect(0, 0, WIDTH, HEIGHT, fill="#2f5d2a", cls="jungle"))
    land = [_xy(p) for p in ((0, -9.6), (5.8, -4.8), (5.8, 4.8), (0, 9.6), (-5.8, 4.8),
                             (-5.8, -4.8))]
    doc.add(polygon(land, fill="#3b6e33", stroke="#274d22", stroke_width=2,
                    title="the jungle round the land", cls="jungle-border"))
    posts = board.get("posts")
    doc.add(_posts(posts if isinstance(posts, list) else []))
    doc.add(_hexes(board))
    doc.add(*_robber(board))
    doc.add(*_paths(roads))
    doc.add(*_corners(buildings))
    doc.add(_temple(view), _legend())
    return doc.render()
