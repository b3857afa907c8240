"""The Title of Liberty board drawn as SVG, from a view (never the state).

The main board uses the board module's own grid (``POS``: five columns west to east, nine
half-rows north to south) and roads, so every space sits where the text map prints it; the
East Sea lies to the east with its five ports.  Under the map: the battle being fought (its
inset: seashore zones, the hill, or the city's four sectors round the temple) and the army
boards with their troops by kind.

Classes a page can style: ``space`` (+ ``city``, ``town``, ``village``, ``wilds``, ``hill``,
``seashore``, ``start``; ``held`` / ``liberated`` on cities), ``flag``, ``food``,
``unfinished`` (a battle left unfinished), ``army`` (+ ``seat-<army>``) on the map,
``army-board``, ``dice-chart``, ``battle``, ``lamanites``, ``sector``, ``temple``, ``tower``
and ``gate`` (of the sector under attack).  ``data-place`` holds the notation's name of a
space (``"mulek"``, ``"h1"``), a city sector (``"palace"``), or a place a duel names
(``"tower"``, ``"gate"``, ``"temple"``, ``"path"``, ``"field"``).
"""

from ..svg import (
    Drawing,
    as_dict,
    as_int,
    as_list,
    circle,
    css_token,
    group,
    line,
    path,
    polygon,
    rect,
    text,
)
from .board import BATTLEFIELDS, CITIES, FOOD_SPACES, KIND, LABEL, PORTS, POS, ROADS, SPACES

WIDTH = 540
SEA_X = 482
MAP_H = 470
OUTLINE = "#1a1a1a"
_UNKNOWN = "#cc55cc"
#: army colours from the rulebook ("ARMY COLORS"); the Lamanites are red
ARMY_FILL = {"moroni": "#1f4fd1", "helaman": "#f2c200", "lehi": "#2e9a3a",
             "teancum": "#ffffff", "antipus": "#8e44ad"}
#: the army colours readable as text on a light background
ARMY_TEXT = {"moroni": "#1f4fd1", "lehi": "#1f7a2a", "antipus": "#8e44ad"}
LAMANITE = "#c0392b"
#: troop category colours from the rulebook ("TROOP CATEGORY COLORS")
TROOP_FILL = {"king": "#f2c200", "captain": "#7fc4f0", "scout": "#9be08a",
              "infantry": "#1a1a1a", "archer": "#ff8c1a", "slinger": "#9a9a9a"}
TROOPS = ("king", "captain", "scout", "infantry", "archer", "slinger")
#: city sector colours from the rulebook ("CITY BUILDINGS")
SECTOR_FILL = {"palace": "#9fb8ef", "stockade": "#f2dc7a", "armory": "#ef9f9f",
               "market": "#a6d9a0"}
PLURAL = {"captain": "captains", "scout": "scouts", "infantry": "infantry",
          "archer": "archers", "slinger": "slingers", "king": "king (Amalickiah)"}


def _xy(space):
    c, r = POS[space]
    return 48 + c * 98, 30 + r * 48


def _army_fill(seat):
    return ARMY_FILL.get(seat, _UNKNOWN) if isinstance(seat, str) else _UNKNOWN


def _words(counts):
    """{"infantry": 2, "archer": 1} -> "2 infantry, 1 archer" (kinds in TROOPS order)."""
    counts = as_dict(counts)
    kinds = [k for k in TROOPS if k in counts] + sorted(str(k) for k in counts
                                                        if k not in TROOPS)
    parts = []
    for k in kinds:
        n = as_int(counts.get(k))
        if n:
            parts.append(f"{n} {PLURAL.get(k, k) if n != 1 else k}")
    return ", ".join(parts) or "none"


def _troop_chips(x, y, counts, size=9):
    """Coloured squares by troop kind with their counts, left to right from (x, y); a dash
    for nobody."""
    counts = as_dict(counts)
    if not any(as_int(counts.get(k)) for k in TROOPS):
        return [text(x, y, "-")], x + 10
    out = []
    for k in TROOPS:
        n = as_int(counts.get(k))
        if not n:
            continue
        out.append(rect(x, y - size + 1, size, size, fill=TROOP_FILL[k], stroke=OUTLINE,
                        stroke_width=0.6))
        out.append(text(x + size + 2, y, n))
        x += size + 8 + 5 * len(str(n))
    return out, x


# --- the main board -----------------------------------------------------------------------

def _space(view, space):
    x, y = _xy(space)
    kind = KIND[space]
    label = LABEL[space]
    cities = as_dict(view.get("cities"))
    parts = []
    cls = f"space {kind}"
    if kind in ("city", "start"):
        city = as_dict(cities.get(space))
        holder = city.get("liberated_by")
        if kind == "start":
            fill, title = "#fff3c4", f"{label}: where every army starts (no food)"
        elif holder:
            fill, title = "#d6e6f8", f"city {label}: liberated by {holder}"
            cls += " liberated"
        else:
            fill, title = "#f3d2cb", f"city {label}: held by the Lamanites"
            cls += " held"
            if space == "morianton":
                title += (", King Amalickiah's city" if not view.get("king_killed")
                          else ", King Amalickiah is dead")
        if kind == "city":
            attacks = as_int(city.get("attacks"))
            if attacks:
                title += f"; attacked {attacks} time{'s' if attacks != 1 else ''}"
        parts.append(rect(x - 38, y - 12, 76, 24, rx=3, fill=fill, stroke=OUTLINE))
        parts.append(text(x, y + 4, label, font_weight="bold"))
        if kind == "city":
            flag = _army_fill(holder) if holder else LAMANITE
            parts.append(group([line(x + 30, y - 12, x + 30, y - 26, stroke=OUTLINE),
                                polygon([(x + 30, y - 26), (x + 44, y - 22), (x + 30, y - 18)],
                                        fill=flag, stroke=OUTLINE, stroke_width=0.8)],
                               title=(f"Nephite flag of {holder} on {label}" if holder
                                      else f"Lamanite flag on {label}"),
                               cls="flag", data_place=space))
    elif kind == "town":
        title = f"town {label}: one food when passed, never attacked"
        parts.append(rect(x - 30, y - 10, 60, 20, rx=9, fill="#efe6d2", stroke=OUTLINE))
        parts.append(text(x, y + 4, label))
    else:
        shape = {
            "village": (circle(x, y, 12, fill="#efe6d2", stroke=OUTLINE),
                        f"village {label}: one food when passed"),
            "wilds": (circle(x, y, 12, fill="#86b06a", stroke=OUTLINE),
                      f"wilds {label}: no food"),
            "hill": (polygon([(x - 16, y + 10), (x, y - 14), (x + 16, y + 10)], fill="#c9a26b",
                             stroke=OUTLINE), f"hill {label}: a battlefield"),
            "seashore": (rect(x - 16, y - 10, 32, 20, rx=10, fill="#f1dca0", stroke=OUTLINE),
                         f"{'river bank' if space == 's3' else 'seashore'} {label}: "
                         "a battlefield"),
        }
        piece, title = shape.get(kind, (circle(x, y, 12, fill=_UNKNOWN), f"{kind} {label}"))
        parts.append(piece)
        parts.append(text(x, y + 4, label))
    if space in PORTS:
        title += "; a port on the East Sea"
    if space in FOOD_SPACES and space not in as_list(view.get("empty_food")):
        parts.append(circle(x + (32 if kind == "town" else 13), y - 9, 4.5, fill="#e0b84a",
                            stroke=OUTLINE, stroke_width=0.8, cls="food",
                            title=f"a food token at {label}"))
    battle = as_dict(view.get("battle"))
    fields = as_dict(view.get("fields"))
    if space in BATTLEFIELDS:
        if battle.get("site") == space:
            parts.insert(0, circle(x, y, 21, fill="none", stroke=LAMANITE, stroke_width=3,
                                   cls="fighting", title=f"the battle at {label} is fought "
                                                         "now"))
            title += "; the battle here is being fought"
        elif space in fields:
            lam = _words(as_dict(fields[space]).get("lamanites"))
            parts.append(group([circle(x - 14, y - 11, 6, fill=LAMANITE),
                                text(x - 14, y - 8, "*", fill="#ffffff")],
                               title=f"unfinished battle at {label}: Lamanites {lam}",
                               cls="unfinished", data_place=space))
            title += f"; a battle left unfinished (Lamanites: {lam})"
    return group(parts, title=title, cls=cls, data_place=space)


def _sea():
    parts = [rect(SEA_X, 0, WIDTH - SEA_X, MAP_H, fill="#9cc9e8"),
             text(WIDTH - 29, 18, "EAST", font_weight="bold", fill="#2d5873",
                  text_anchor="middle", font_size=12),
             text(WIDTH - 29, 32, "SEA", font_weight="bold", fill="#2d5873",
                  text_anchor="middle", font_size=12)]
    for port in PORTS:
        x, y = _xy(port)
        parts.append(line(x + 38, y, SEA_X + 14, y, stroke="#2d7fb8", stroke_width=2,
                          stroke_dasharray="4 3"))
        parts.append(circle(SEA_X + 16, y, 3, fill="#2d7fb8"))
    return group(parts, title="the East Sea: a boat goes from any port (Bountiful, Mulek, s2, "
                              "Lehi, Moroni) to any other for one food", cls="sea")


def _roads():
    d = "".join(f"M{_xy(a)[0]},{_xy(a)[1]}L{_xy(b)[0]},{_xy(b)[1]}" for a, b in ROADS)
    return path(d, title="roads: one food a step", cls="roads", stroke="#8a6d45",
                stroke_width=3, fill="none")


def _armies_on_map(view):
    armies = as_dict(view.get("armies"))
    seats = [s for s in as_list(view.get("seats")) if isinstance(s, str) and s in armies] or \
        sorted(armies, key=str)
    at = {}
    for seat in seats:
        army = as_dict(armies.get(seat))
        if army.get("alive") and isinstance(army.get("at"), str) and army["at"] in POS:
            at.setdefault(army["at"], []).append(seat)
    out = []
    for space, here in at.items():
        x, y = _xy(space)
        for i, seat in enumerate(here):
            army = as_dict(armies[seat])
            ax = x - (len(here) - 1) * 8 + i * 16
            ay = y + 22
            total = as_int(army.get("total"))
            title = (f"{seat}'s army at {space}: {_words(army.get('live'))}"
                     f"; food {as_int(army.get('food'))}")
            out.append(group([circle(ax, ay, 7.5, fill=_army_fill(seat), stroke=OUTLINE),
                              text(ax, ay + 3, str(seat)[:1].upper(),
                                   fill="#ffffff" if seat in ("moroni", "antipus", "lehi")
                                   else OUTLINE)],
                             title=title + (f" ({total} troops in all)" if total else ""),
                             cls=f"army seat-{css_token(seat)}", data_place=space))
    return group(out, cls="armies", font_size=8, font_weight="bold", text_anchor="middle")


# --- the battle inset ---------------------------------------------------------------------

def _lamanite_box(x, y, counts, place, title, data_place=None):
    chips, _ = _troop_chips(x, y, counts)
    return group(chips, title=title,
                 cls="lamanites", data_place=data_place or place)


def _battle(view, y0):
    battle = as_dict(view.get("battle"))
    site = battle.get("site")
    if not battle or site not in SPACES:
        return None, 0
    kind = battle.get("kind")
    adv = {"nephite": "Nephite Advantage", "lamanite": "Lamanite Advantage"}.get(
        str(battle.get("advantage")), "no Advantage")
    zone = as_int(battle.get("zone"))
    turn = view.get("turn")
    head = f"Battle at {LABEL[site]}"
    if kind == "city":
        head += ": the city (no Advantage anywhere)"
    else:
        head += f": {'seashore' if kind == 'seashore' else 'hill'}, zone {zone}, {adv}"
    parts = [rect(0, y0, WIDTH, 162, fill="#fbf6e6"),
             text(8, y0 + 14, head, font_size=11, font_weight="bold")]
    if turn:
        parts.append(text(WIDTH - 8, y0 + 14, f"{turn}'s army attacks", text_anchor="end",
                          fill=ARMY_TEXT.get(str(turn), OUTLINE), font_weight="bold"))
    y = y0 + 24
    if kind == "city":
        parts += _city_inset(view, battle, site, y)
    elif kind == "seashore":
        parts += _shore_inset(battle, zone, y, turn)
    else:
        parts += _hill_inset(battle, zone, y, turn)
    sup = as_dict(battle.get("supplies"))
    if sup and kind != "city":
        parts.append(text(8, y0 + 154, f"Won, it yields {as_int(sup.get('food'))} food, "
                                       f"{as_int(sup.get('weapons'))} weapons, "
                                       f"{as_int(sup.get('gold'))} gold.", fill="#4a4a4a"))
    return group(parts, title=head, cls="battle", data_place=site, font_size=9), 162


def _you(x, y, turn):
    return group([circle(x, y, 7, fill=_army_fill(turn), stroke=OUTLINE),
                  text(x + 11, y + 3, f"{turn or 'the Nephites'}")],
                 title=f"{turn}'s army", cls="nephites")


def _shore_inset(battle, zone, y, turn):
    out = []
    by_boat = battle.get("boat", True) is not False  # version 3: False when it came on foot
    cols = ("BOAT" if by_boat else "NO BOAT", "1 BEACH", "2 GRASS", "3 HILL")
    fills = ("#9cc9e8", "#f1dca0", "#b9d98c", "#c9a26b")
    w = (WIDTH - 16) / 4
    for i, (name, fill) in enumerate(zip(cols, fills, strict=True)):
        x = 8 + i * w
        out.append(rect(x, y, w - 4, 100, fill=fill, stroke=OUTLINE, stroke_width=0.8,
                        title=f"zone {i}: {name}" + (" (no forest paths)" if i == 3 else "")
                        if i else "the boat" if by_boat else
                        "no boat: the army came on foot, so the beach gives no Advantage"))
        out.append(text(x + 6, y + 13, name, font_weight="bold"))
        if i == zone - 1:
            out.append(_you(x + 14, y + 40, turn))
        if i == zone:
            out.append(text(x + 6, y + 60, "LAMANITES", fill=LAMANITE, font_weight="bold"))
            out.append(_lamanite_box(x + 6, y + 78, battle.get("lamanites"), "field",
                                     f"the Lamanites in zone {zone}: "
                                     f"{_words(battle.get('lamanites'))}", "field"))
    return out


def _hill_inset(battle, zone, y, turn):
    lam = battle.get("lamanites")
    out = [rect(120, y, 300, 42, rx=10, fill="#c9a26b", stroke=OUTLINE, stroke_width=0.8,
                title="zone 2: the Lamanite hill"),
           text(128, y + 13, "2  LAMANITE HILL", font_weight="bold"),
           rect(120, y + 50, 300, 42, rx=10, fill="#b9d98c", stroke=OUTLINE, stroke_width=0.8,
                title="zone 1: the valley"),
           text(128, y + 63, "1  VALLEY", font_weight="bold"),
           rect(20, y, 90, 92, fill="#4e8a43", title="forest path 1 (scout-led, no "
                                                      "Lamanite Advantage)"),
           rect(430, y, 90, 92, fill="#4e8a43", title="forest path 2 (scout-led, no "
                                                       "Lamanite Advantage)"),
           text(26, y + 13, "forest path", fill="#ffffff"),
           text(436, y + 13, "forest path", fill="#ffffff")]
    zy = y + 32 if zone == 2 else y + 82
    out.append(text(128, zy, "LAMANITES", fill=LAMANITE, font_weight="bold"))
    out.append(_lamanite_box(190, zy, lam, "field",
                             f"the Lamanites in zone {zone}: {_words(lam)}", "field"))
    path_troops = as_dict(battle.get("path"))
    chips, _ = _troop_chips(26, y + 40, path_troops)
    out.append(group(chips,
                     title=f"up the forest paths: {_words(path_troops)}", cls="path-party",
                     data_place="path"))
    out.append(_you(128, y + 108, turn))
    out.append(text(220, y + 111, "NEPHITE HILL: the army attacks from here"))
    return out


def _city_inset(view, battle, site, y):
    city = as_dict(as_dict(view.get("cities")).get(site))
    sectors = as_dict(city.get("sectors"))
    current = battle.get("sector")
    prize = {"palace": f"gold {as_int(city.get('gold'))}",
             "armory": f"weapons {as_int(city.get('weapons'))}",
             "market": f"food {as_int(city.get('food'))}",
             "stockade": "captives " + (", ".join(
                 f"{s} {as_int(n)}" for s, n in as_dict(city.get("stockade")).items()) or "0")}
    held = as_dict(city.get("stockade_by_kind"))
    held_words = "; ".join(f"{s} {_words(c)}" for s, c in held.items())
    waiting = {lv: c for lv, c in as_dict(city.get("temple_wounded")).items()
               if any(as_int(n) for n in as_dict(c).values())}
    out = []
    boxes = (("palace", 8, y), ("stockade", WIDTH / 2 + 4, y), ("armory", 8, y + 78),
             ("market", WIDTH / 2 + 4, y + 78))
    w = WIDTH / 2 - 12
    for name, x, sy in boxes:
        sec = as_dict(sectors.get(name))
        taken = sec.get("taken_by")
        title = f"the {name} of {LABEL[site]}: {prize[name]}"
        if name == "stockade" and held_words:
            title += f" (held there: {held_words})"
        if taken:
            title += f"; taken by {taken}"
        else:
            title += (f"; tower {_words(sec.get('tower'))}; gate {_words(sec.get('gate'))}")
        if name == current:
            title += "; being attacked now"
        if name in as_list(battle.get("wine")):
            title += "; wine offered here"
        parts = [rect(x, sy, w, 36, fill=SECTOR_FILL[name],
                      stroke=LAMANITE if name == current else OUTLINE,
                      stroke_width=2.5 if name == current else 0.8),
                 text(x + 6, sy + 12, f"{name.upper()}: {prize[name]}", font_weight="bold")]
        if taken:
            parts.append(text(x + 6, sy + 28, f"taken by {taken}"))
        else:
            tower = [text(x + 6, sy + 28, "tower")]
            chips, nx = _troop_chips(x + 40, sy + 28, sec.get("tower"))
            tower += chips
            gate = [text(max(nx, x + 80) + 6, sy + 28, "gate")]
            chips, _ = _troop_chips(max(nx, x + 80) + 30, sy + 28, sec.get("gate"))
            gate += chips
            if name == current:
                # the sector under attack: its tower and gate are the places a duel names
                # (``duel archer@tower``); grouped with their names, drawn the same
                tower = [group(tower, title=f"the tower of the {name}: "
                               f"{_words(sec.get('tower'))}", cls="tower", data_place="tower")]
                gate = [group(gate, title=f"the gate of the {name}: {_words(sec.get('gate'))}",
                              cls="gate", data_place="gate")]
            parts += tower + gate
        out.append(group(parts, title=title, cls="sector", data_place=name))
    temple = as_dict(city.get("temple"))
    ty = y + 40
    if temple.get("cleared"):
        ttitle, tparts = "the temple: cleared", [text(20, ty + 23, "TEMPLE: cleared",
                                                      font_weight="bold")]
    else:
        ttitle = (f"the temple: upper level {_words(temple.get('upper'))}; lower level "
                  f"{_words(temple.get('lower'))}")
        if waiting:
            ttitle += ("; wounded, back on their level when the attack ends: "
                       + "; ".join(f"{lv} {_words(c)}" for lv, c in waiting.items()))
        up, nx = _troop_chips(150, ty + 23, temple.get("upper"))
        low, _ = _troop_chips(max(nx, 200) + 80, ty + 23, temple.get("lower"))
        tparts = [text(20, ty + 23, "TEMPLE", font_weight="bold"),
                  text(110, ty + 23, "upper")] + up + [
                  text(max(nx, 200) + 40, ty + 23, "lower")] + low
    out.append(group([rect(8, ty, WIDTH - 16, 34, fill="#ffffff", stroke=OUTLINE,
                           stroke_width=0.8)] + tparts, title=ttitle, cls="temple",
                     data_place="temple"))
    return out


# --- the army boards ----------------------------------------------------------------------

ROW_H = 38
#: the army table's text size: the drawing is 540 wide, so a 360-pixel phone shows it at
#: two thirds; 12 stays readable there (9, its size before, did not)
BOARD_FONT = 12


def _army_boards(view, y0):
    """The army boards: two lines an army (where it stands and its flags; its troops by kind,
    its wounded, dead and captured, its supplies), in a size a phone can read."""
    armies = as_dict(view.get("armies"))
    seats = [s for s in as_list(view.get("seats")) if isinstance(s, str) and s in armies] or \
        sorted(armies, key=str)
    rows = []
    y = y0 + 18
    height = 30 + ROW_H * len(seats) + 8
    head = [rect(0, y0, WIDTH, height, fill="#f4efe2"),
            text(8, y + 2, "ARMIES", font_weight="bold")]
    x = 74
    for k in TROOPS[1:]:
        head.append(rect(x, y - 8, 10, 10, fill=TROOP_FILL[k], stroke=OUTLINE,
                         stroke_width=0.6))
        head.append(text(x + 13, y + 1, k, font_size=10))
        x += 22 + 6 * len(k)
    head.append(text(WIDTH - 8, y + 1, "W wounded, D dead, C captured", font_size=10,
                     fill="#4a4a4a", text_anchor="end"))
    y += 8
    for seat in seats:
        y += ROW_H
        top = y - 20
        army = as_dict(armies.get(seat))
        live = army.get("live")
        flags = [str(f).upper() for f in as_list(army.get("flags"))]
        mark = " (to play)" if seat == view.get("turn") and view.get("status") == "playing" \
            else ""
        parts = [circle(14, top - 4, 7, fill=_army_fill(seat), stroke=OUTLINE),
                 text(26, top, f"{seat}{'*' if mark else ''}", font_weight="bold")]
        if not army.get("alive", True):
            fate = army.get("fate") or "lost"
            title = f"{seat}'s army is lost: {fate}"
            parts.append(text(26, y, f"LOST: {fate}", fill=LAMANITE))
        else:
            wounded = sum(as_int(v) for v in as_dict(army.get("wounded")).values())
            dead = sum(as_int(v) for v in as_dict(army.get("dead")).values())
            captured = as_int(army.get("captured"))
            title = (f"{seat}'s army{mark} at {army.get('at')}: {_words(live)}; "
                     f"wounded {wounded}, dead {dead}, captured {captured}; food "
                     f"{as_int(army.get('food'))}, weapons {as_int(army.get('weapons'))}, gold "
                     f"{as_int(army.get('gold'))}; flags: {', '.join(flags) or 'none'}")
            parts.append(text(120, top, f"at {army.get('at')}"))
            parts.append(text(250, top, f"food {as_int(army.get('food'))}  wpn "
                                        f"{as_int(army.get('weapons'))}  gold "
                                        f"{as_int(army.get('gold'))}"))
            chips, nx = _troop_chips(26, y, live, size=11)
            parts += chips
            parts.append(text(max(nx, 300), y, f"W{wounded} D{dead} C{captured}"))
            for i, _ in enumerate(flags[:6]):
                fx = WIDTH - 70 + i * 11
                parts.append(polygon([(fx, top - 11), (fx + 9, top - 7), (fx, top - 3)],
                                     fill=_army_fill(seat), stroke=OUTLINE, stroke_width=0.6))
        rows.append(group(parts, title=title, cls=f"army-board seat-{css_token(seat)}",
                          data_place=seat))
    return group(head + rows, cls="army-boards", font_size=BOARD_FONT), height


_CHART_NAMES = {"captain": "captains", "scout": "scouts", "infantry": "infantry",
                "archer": "archers", "slinger": "slingers", "king": "king",
                "helaman infantry": "Helaman's infantry"}


def _span(pair):
    pair = [as_int(v) for v in as_list(pair)][:2] or [0]
    return str(pair[0]) if len(pair) < 2 or pair[0] == pair[1] else f"{pair[0]}-{pair[1]}"


def _dice_panel(view, y0):
    """The Dice Numbers Chart: each die's results, and who throws it (in a battle: the dice
    thrown now, the Advantage counted; else the book's entitlements without it)."""
    chart = as_dict(view.get("dice_chart"))
    dice = [as_dict(d) for d in as_list(chart.get("dice"))]
    if not dice:
        return None, 0
    battle = as_dict(view.get("battle"))
    now = as_dict(battle.get("dice"))
    turn = view.get("turn")
    who = {}
    if now:
        sides = (("nephite", f"{turn}'s"), ("lamanite", "Lamanite"))
        source = {side: as_dict(now.get(side)) for side, _ in sides}
    else:
        sides = (("nephite", "Nephite"), ("lamanite", "Lamanite"))
        source = {side: {k: as_dict(v).get("plain") for k, v in
                         as_dict(chart.get(side)).items()} for side, _ in sides}
    for side, name in sides:
        by_die = {}
        for kind, die in source[side].items():
            by_die.setdefault(str(die), []).append(_CHART_NAMES.get(str(kind), str(kind)))
        for die, kinds in by_die.items():
            who.setdefault(die, []).append(f"{name} {', '.join(kinds)}")
    head = ("Dice Numbers Chart: the loser reads his own roll; ties roll again"
            + ("" if now else " (with the Advantage infantry, archers and slingers throw one "
                              "die better)"))
    parts = [rect(0, y0, WIDTH, 22 + 16 * (len(dice) + 1), fill="#ffffff"),
             text(8, y0 + 14, head, font_weight="bold", font_size=10 if now else 9)]
    cols = (8, 66, 112, 164, 214, 244)
    y = y0 + 30
    for x, name in zip(cols, ("DIE", "KILLED", "WOUNDED", "CAPTURED", "FIT",
                              "THROWN NOW BY" if now else "THROWN BY"), strict=True):
        parts.append(text(x, y, name, font_weight="bold", font_size=9))
    for row in dice:
        y += 16
        die = str(row.get("die"))
        cells = (die, _span(row.get("killed")), _span(row.get("wounded")),
                 _span(row.get("captured")), _span(row.get("fit")),
                 "; ".join(who.get(die, [])) or "-")
        parts += [text(x, y, cell, font_size=9 if x == cols[-1] else 10)
                  for x, cell in zip(cols, cells, strict=True)]
    height = 22 + 16 * (len(dice) + 1)
    return group(parts, title=head, cls="dice-chart", font_size=10), height


def _status(view):
    cities = as_dict(view.get("cities"))
    done = [c for c in CITIES if as_dict(cities.get(c)).get("liberated_by")]
    required = as_int(view.get("required")) or len(CITIES)
    line1 = (f"Round {as_int(view.get('round'))} of {as_int(view.get('rounds'))} - cities "
             f"retaken {len(done)} of {required} - Amalickiah "
             f"{'is dead' if view.get('king_killed') else 'lives'}")
    parts = [text(8, MAP_H - 10, line1, font_size=10, font_weight="bold")]
    if as_dict(view.get("fields")):
        # the key to the red markers on battlefields, which nothing else on the board explains
        parts.append(group([circle(336, MAP_H - 13, 6, fill=LAMANITE),
                            text(336, MAP_H - 10, "*", fill="#ffffff", text_anchor="middle"),
                            text(346, MAP_H - 10, "a battle left unfinished", font_size=9)],
                           title="a red * on a battlefield: a battle left unfinished, its "
                                 "Lamanites still there", cls="key-unfinished"))
    return group(parts, title=line1, cls="status")


def draw(view):
    """The board of ``view`` as an SVG document (a string)."""
    battle, bh = _battle(view, MAP_H)
    boards, ah = _army_boards(view, MAP_H + bh)
    chart, ch = _dice_panel(view, MAP_H + bh + ah)
    doc = Drawing(WIDTH, MAP_H + bh + ah + ch, title="Title of Liberty: the land southward",
                  cls="board title-of-liberty", font_family="sans-serif")
    doc.add(rect(0, 0, SEA_X, MAP_H, fill="#e9f0d8", cls="land"))
    doc.add(_sea(), _roads())
    doc.add(group([_space(view, s) for s in sorted(POS, key=lambda s: (POS[s][1], POS[s][0]))],
                  cls="spaces", text_anchor="middle", font_size=9, fill=OUTLINE))
    doc.add(_armies_on_map(view), _status(view))
    if battle:
        doc.add(battle)
    doc.add(boards)
    if chart:
        doc.add(chart)
    return doc.render()
