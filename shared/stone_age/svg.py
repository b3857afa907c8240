"""The Stone Age world map drawn as SVG, from a view (never the state).

Geometry is the board module's own: ``CROSSING_POS`` gives every crossing as (vertex row,
character column) of the text map, so crossing 92 sits where the text map prints 92.
Pointy-top hexes of radius ``R``; a vertex row pair is 1.5 R high, 8 characters one hex width.

Classes a page can style: ``hex`` (+ ``terrain-<H|S|M|F>``, ``region-<e|f|a|u>``,
``desert``), ``black`` (a black start crossing), ``people-chip`` (+ ``people-<y|g|p|c>``),
``tribe``, ``nomad`` (+ ``seat-<colour>``), ``box`` (condition box), ``event-chip``
(face down: only its numeral), ``figure`` (+ ``neanderthal`` / ``predator``),
``event-chips`` (a player's turned-up chips, in the key).  The crossing numbers are the
``text`` children of the ``label crossings`` group (each with its ``data-place``; the number
is its own name, so they carry no ``<title>``: 144 titles would add 4 KB).  ``data-place``
holds the notation's name: ``"e3"`` for a landscape, ``"92"`` for a crossing, the box letter.
"""

from math import sqrt

from ..svg import Drawing, as_dict, as_list, circle, css_token, element, group, polygon, rect, text
from . import board

R = 25
XU = R * sqrt(3) / 8            # one character column of the text map
MX, MY = 16, 18                 # margins
MAP_W = round(MX * 2 + (68 - 4) * XU)
MAP_H = round(MY * 2 + 1.5 * R * 10 + R / 2)
PANEL_H = 104                   # the key with one line per seat's event chips; longer lists wrap
WIDTH, HEIGHT = MAP_W, MAP_H + PANEL_H
CROSSING_FONT = 8
#: characters of 7-unit key text that fit across the key (sans-serif: about 0.56 em a letter)
_KEY_CHARS = int((WIDTH - 28) / (7 * 0.56))

TERRAIN = {   # fill, words
    "H": ("#b5cf6b", "Highlands (meat)"),
    "S": ("#ead58e", "Steppe (bone)"),
    "M": ("#a7a19a", "Mountains (flint)"),
    "F": ("#4e8a43", "Forest (hide)"),
}
DESERT = "#f3e7c4"
SEA = "#a9d3ee"
SEAT_FILL = {"red": "#d62728", "blue": "#1f4fd1", "white": "#ffffff", "orange": "#ff8c1a"}
PEOPLE_FILL = {"y": "#f5d000", "g": "#2ca02c", "p": "#8e44ad", "c": "#17becf"}
OUTLINE = "#1a1a1a"
_UNKNOWN = "#cc55cc"
REGION_LABELS = (("EURASIA", 30, 26), ("AMERICA", 250, 14), ("AFRICA", 8, 398),
                 ("AUSTRALIA", 268, 404))


def _xy(pos):
    """Drawing position (whole units: the drawing stays small) of a text-map position."""
    vrow, col = pos
    return (round(MX + (col - 4) * XU),
            round(MY + 1.5 * R * (vrow // 2) + (R / 2 if vrow % 2 else 0)))


def crossing_xy(x):
    return _xy(board.CROSSING_POS[x])


def _hex_centre(name):
    xs = [crossing_xy(x) for x in board.HEX_CROSSINGS[name]]
    return round(sum(p[0] for p in xs) / 6), round(sum(p[1] for p in xs) / 6)


def _seat_fill(seat):
    return SEAT_FILL.get(seat, _UNKNOWN) if isinstance(seat, str) else _UNKNOWN


def _crossing_no(value):
    """A crossing number from a view value (int or digit string), or None."""
    try:
        x = int(value)
    except (TypeError, ValueError):
        return None
    return x if x in board.CROSSING_POS else None


def _hexes(view):
    deserts = set(str(d) for d in as_list(view.get("deserts")))
    numbers = board.map_of_view(view).numbers
    out = []
    for name in board.HEX_NAMES:
        h = dict(board.HEXES[name], number=numbers[name])
        region = board.REGIONS[h["region"]]
        fill, words = TERRAIN[h["terrain"]]
        cx, cy = _hex_centre(name)
        pts = [crossing_xy(x) for x in board.HEX_CROSSINGS[name]]
        cls = f"hex terrain-{h['terrain']} region-{h['region']}"
        if name in deserts:
            cls += " desert"
            title = f"landscape {name}: {region}, desert (was {words}, {h['number']})"
            parts = [polygon(pts, fill=DESERT),
                     text(cx, cy - 4, name),
                     text(cx, cy + 7, "desert", font_size=7, font_style="italic")]
        else:
            title = f"landscape {name}: {region}, {words}, {h['number']}"
            hot = "#b00000" if h["number"] in (6, 8) else None
            parts = [polygon(pts, fill=fill),
                     text(cx, cy - 5, name),
                     text(cx, cy + 9, h["number"], font_size=12, font_weight="bold",
                          fill=hot, cls="number")]
        out.append(group(parts, title=title, cls=cls, data_place=name))
    return group(out, cls="hexes", text_anchor="middle", fill="#1a1a1a", font_size=8)


def _lines():
    """All paths as one drawing, and the region borders and coasts drawn thick."""
    thin, thick = [], []
    for path, sides in board._EDGE_SIDES.items():
        a, b = sorted(path)
        (x1, y1), (x2, y2) = crossing_xy(a), crossing_xy(b)
        seg = f"M{x1},{y1}L{x2},{y2}"
        regions = {board.HEXES[h]["region"] for h, _ in sides}
        (thick if len(sides) == 1 or len(regions) > 1 else thin).append(seg)
    return [element("path", {"d": "".join(thin), "stroke": "#6b5a3a", "stroke_width": 1.2,
                             "fill": "none", "class": "paths"},
                    title="paths between crossings (nomads move along them)"),
            element("path", {"d": "".join(thick), "stroke": "#3a2a14", "stroke_width": 2.4,
                             "fill": "none", "class": "borders"},
                    title="coasts and the borders between the four regions")]


def _crossings(view):
    """Every crossing's number (a ``text`` with ``data-place``: the number is its own name),
    the black start crossings and the people chips still on the map."""
    chips = as_dict(view.get("chips"))
    marks, labels = [], []
    for x in board.CROSSINGS:
        cx, cy = crossing_xy(x)
        people = chips.get(str(x))
        if people is not None:
            people = str(people)
            pname = board.PEOPLE_NAMES.get(people, str(people))
            marks.append(circle(cx, cy, 4.5, title=f"{pname} people chip on crossing {x}",
                                fill=PEOPLE_FILL.get(people, _UNKNOWN),
                                cls=f"people-chip people-{css_token(people)}",
                                data_place=str(x)))
        elif x in board.BLACK:
            marks.append(circle(cx, cy, 3.5, title=f"crossing {x}: a black starting crossing",
                                fill="#1a1a1a", cls="black", data_place=str(x)))
        labels.append(text(cx + 3, cy - 3, x, data_place=str(x)))
    # 8 units: at phone width (the 378-unit map about 360 pixels wide) a number stays about
    # 7.5 pixels high; the pale outline painted under it keeps it legible over paths and hexes
    return [group(marks, cls="marks", stroke=OUTLINE, stroke_width=0.8),
            group(labels, cls="label crossings", font_size=CROSSING_FONT, fill="#1a1a1a",
                  stroke="#fbf6e6", stroke_width=2, paint_order="stroke",
                  stroke_linejoin="round")]


def _boxes(view):
    """The condition boxes (Clothing/Construction) and the face-down event chips by them:
    a chip still on the map shows only its numeral, as its back does."""
    holders = as_dict(view.get("boxes"))
    shapes, labels, numerals = [], [], []
    world = board.map_of_view(view)
    for letter, (a, b, clothing, construction, numeral) in world.boxes.items():
        (x1, y1), (x2, y2) = crossing_xy(a), crossing_xy(b)
        mx, my = round((x1 + x2) / 2), round((y1 + y2) / 2)
        holder = holders.get(letter)
        title = (f"condition box {letter} on path {a}-{b}: Clothing {clothing}, "
                 f"Construction {construction}; ")
        if holder is None:
            title += f"its event chip ({numeral}) lies face down by it"
        else:
            title += f"its event chip was taken by {holder}"
        shapes.append(rect(mx - 9, my - 6, 18, 12, title=title, rx=2, fill="#fbf6e6",
                           cls="box", data_place=letter))
        labels.append(text(mx, my + 3, f"{clothing}/{construction}"))
        if holder is None:
            shapes.append(circle(mx + 11, my - 7, 6, title=f"face-down event chip {numeral} "
                                 f"by box {letter}", fill="#5a3d1e",
                                 cls="event-chip face-down", data_place=letter))
            numerals.append(text(mx + 11, my - 5, numeral))
    return [group(shapes, cls="boxes", stroke=OUTLINE, stroke_width=0.8),
            group(labels, font_size=7, font_weight="bold", text_anchor="middle",
                  fill="#1a1a1a"),
            group(numerals, font_size=5, font_weight="bold", text_anchor="middle",
                  fill="#fbf6e6")]


def _tribe(x, seat):
    cx, cy = crossing_xy(x)
    pts = [(cx - 6, cy + 5), (cx - 6, cy - 1), (cx, cy - 7), (cx + 6, cy - 1), (cx + 6, cy + 5)]
    return polygon(pts, title=f"{seat} tribe on crossing {x}",
                   cls=f"tribe seat-{css_token(seat)}", data_place=str(x), fill=_seat_fill(seat))


def _nomad(x, seat):
    cx, cy = crossing_xy(x)
    return circle(cx, cy, 5, title=f"{seat} nomad on crossing {x}",
                  cls=f"nomad seat-{css_token(seat)}", data_place=str(x), fill=_seat_fill(seat))


def _pieces(view):
    out = []
    for kind, make in (("tribes", _tribe), ("nomads", _nomad)):
        for seat, xs in sorted(as_dict(view.get(kind)).items(), key=lambda kv: str(kv[0])):
            for value in as_list(xs):
                x = _crossing_no(value)
                if x is not None:
                    out.append(make(x, seat))
    return group(out, cls="pieces", stroke=OUTLINE, stroke_width=1.2)


FIGURE_LOOK = {"neanderthal": ("N", "#6b3e1f", "the Neanderthal"),
               "predator": ("P", "#e8590c", "the Predator")}


def _figures(view):
    out = []
    for fig, where in sorted(as_dict(view.get("figures")).items(), key=lambda kv: str(kv[0])):
        if not isinstance(where, str) or where not in board.HEXES:
            continue
        letter, fill, words = FIGURE_LOOK.get(fig, (str(fig)[:1].upper(), _UNKNOWN, str(fig)))
        cx, cy = _hex_centre(where)
        cx += 11
        cy -= 8
        out.append(group([polygon([(cx, cy - 8), (cx + 7, cy + 5), (cx - 7, cy + 5)],
                                  fill=fill, stroke="#fbf6e6", stroke_width=1),
                          text(cx, cy + 3.5, letter, fill="#fbf6e6")],
                         title=f"{words}, on landscape {where}",
                         cls=f"figure {css_token(fig)}", data_place=where))
    return group(out, cls="figures", font_size=7, font_weight="bold", text_anchor="middle")


def _key_lines(words, width=_KEY_CHARS):
    """``words`` cut into lines of at most ``width`` characters, at spaces."""
    lines, cur = [], ""
    for word in words.split(" "):
        if cur and len(cur) + 1 + len(word) > width:
            lines.append(cur)
            cur = word
        else:
            cur = f"{cur} {word}" if cur else word
    return lines + [cur]


def _panel(view):
    """The key under the map: landscapes, pieces, and each player's event chips (a long list
    wraps inside the drawing's width, the key growing down); (group, its height)."""
    y0 = MAP_H
    chips = as_dict(view.get("event_chips"))
    seats = [s for s in as_list(view.get("seats")) if isinstance(s, str)] or sorted(chips)
    rows = []
    for seat in seats:
        got = [str(c) for c in as_list(chips.get(seat))]
        words = ", ".join(got) if got else "none"
        rows.append((seat, len(got), words, _key_lines(
            f"{seat}: {len(got)} event chip{'s' if len(got) != 1 else ''} ({words})")))
    height = max(PANEL_H, 60 + 11 * sum(len(r[3]) for r in rows))
    parts = [rect(0, y0, WIDTH, height, fill="#fbf6e6")]
    x = 8
    for key in ("H", "S", "M", "F"):
        fill, words = TERRAIN[key]
        parts.append(rect(x, y0 + 6, 9, 9, fill=fill, stroke="#6b5a3a", stroke_width=0.8))
        parts.append(text(x + 12, y0 + 14, words, font_size=8))
        x += 92
    row2 = y0 + 28
    icons = [
        polygon([(12, row2 + 4), (12, row2 - 2), (18, row2 - 8), (24, row2 - 2),
                 (24, row2 + 4)], fill="#ffffff", stroke=OUTLINE),
        text(28, row2 + 2, "tribe", font_size=8),
        circle(62, row2 - 2, 5, fill="#ffffff", stroke=OUTLINE),
        text(70, row2 + 2, "nomad", font_size=8),
        circle(110, row2 - 2, 4.5, fill=PEOPLE_FILL["y"], stroke=OUTLINE),
        text(118, row2 + 2, "people chip", font_size=8),
        circle(172, row2 - 2, 4, fill="#1a1a1a"),
        text(180, row2 + 2, "black start", font_size=8),
        rect(230, row2 - 8, 18, 12, rx=2, fill="#fbf6e6", stroke=OUTLINE, stroke_width=0.8),
        text(239, row2 + 1, "1/2", font_size=7, text_anchor="middle"),
        text(252, row2 + 2, "condition box", font_size=8),
        rect(8, row2 + 8, 18, 12, rx=2, fill="#fbf6e6", stroke=OUTLINE, stroke_width=0.8),
        text(17, row2 + 17, "1/2", font_size=7, text_anchor="middle"),
        text(30, row2 + 18, "needs Clothing 1, Construction 2", font_size=8),
        circle(238, row2 + 14, 6, fill="#5a3d1e"),
        text(238, row2 + 16, "II", font_size=5, text_anchor="middle", fill="#fbf6e6"),
        text(247, row2 + 18, "face-down event chip", font_size=8),
    ]
    parts += icons
    y = y0 + 60
    for seat, _n, words, lines in rows:
        shown = [rect(8, y - 7, 8, 8, fill=_seat_fill(seat), stroke=OUTLINE, stroke_width=0.8)]
        for line in lines:
            shown.append(text(20, y, line, font_size=7))
            y += 11
        parts.append(group(shown, title=f"{seat}'s event chips: {words}",
                           cls=f"event-chips seat-{css_token(seat)}"))
    return group(parts, cls="legend", fill="#1a1a1a"), height


def draw(view):
    """The world map of ``view`` as an SVG document (a string)."""
    panel, panel_h = _panel(view)
    doc = Drawing(WIDTH, MAP_H + panel_h, title="Stone Age: the world map",
                  cls="board stone-age", font_family="sans-serif")
    doc.add(rect(0, 0, WIDTH, MAP_H, fill=SEA, cls="sea"))
    doc.add(group([text(x, y, name) for name, x, y in REGION_LABELS], cls="region-names",
                  font_size=11, font_weight="bold", fill="#2d5873", letter_spacing=2))
    doc.add(_hexes(view))
    doc.add(*_lines())
    doc.add(*_boxes(view))
    doc.add(*_crossings(view))
    doc.add(_pieces(view))
    doc.add(_figures(view))
    doc.add(panel)
    return doc.render()
