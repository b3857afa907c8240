"""ASCII rendering of a view: the main map, the inset being fought, the army boards.

Every line is at most 80 columns; plain text first (it is read in email),
ANSI colours only with ``color=True``.
"""

import textwrap

from .board import BATTLEFIELDS, CITIES, INITIAL, draw_map
from .notation import plural

WIDTH = 79
_SHORT = {"captain": "capt", "infantry": "inf", "archer": "arch", "king": "KING",
          "scout": "scout", "slinger": "sling"}


def _wrap(text, indent=""):
    return textwrap.wrap(text, WIDTH, subsequent_indent=indent) or [""]


# the kinds in the order of the army table (and of the drawing, svg.TROOPS): the same state
# reads the same whether its counts came from the server's JSON or from a local replay
_ORDER = ("king", "captain", "scout", "infantry", "archer", "slinger")


def _in_order(mapping, order):
    """The items of ``mapping``, its keys in ``order`` first (then the others sorted): a
    mapping read from JSON and the engine's own give the same text."""
    keys = [k for k in order if k in mapping] + sorted(k for k in mapping if k not in order)
    return [(k, mapping[k]) for k in keys]


def _counts(counts, short=False):
    kinds = [t for t in _ORDER if t in counts] + sorted(t for t in counts if t not in _ORDER)
    parts = []
    for t in kinds:
        n = counts[t]
        if n:
            parts.append(f"{n} {_SHORT[t] if short else plural(t, n)}")
    return ", ".join(parts) or "none"


def _map_lines(view):
    tags = {}
    for name, city in view["cities"].items():
        tags[name] = "[N]" if city["liberated_by"] else "[L]"
    for space in view["fields"]:
        tags[space] = "*"
    battle = view["battle"]
    if battle and battle["kind"] != "city":
        tags[battle["site"]] = "!"
    armies = {}
    for seat in view["seats"]:
        army = view["armies"][seat]
        if army["alive"]:
            armies[army["at"]] = armies.get(army["at"], "") + INITIAL[seat]
    lines = ["THE LAND SOUTHWARD" + " " * 52 + "EAST SEA"]
    lines += draw_map(tags, armies)
    lines += _wrap("Key: CITY[L] held by the Lamanites (Amalickiah in MORIANTON), CITY[N] "
                   "liberated; Town and v villages give 1 food when passed; w wilds; h hill "
                   "and s seashore/river battlefields (* battle left unfinished, ! now "
                   "fought); letters under a space are armies (M H L T A); every port with "
                   "~ reaches every other by boat (1 food"
                   + ("; the one boat sails from where it lies" if view.get("boat") else "")
                   + ").", "     ")
    return lines


def _seashore(view, battle):
    zone = battle["zone"]
    lam = _counts(battle["lamanites"], True)
    by_boat = battle.get("boat", True)  # version 3: False when the army came on foot
    cols = ["~~ BOAT ~~" if by_boat else "~~ (no boat)", "1 BEACH", "2 GRASS", "3 HILL"]
    body = [[""] * 4 for _ in range(3)]
    body[0][zone - 1] = "NEPHITES"
    body[1][zone - 1] = "(your army)" if by_boat or zone > 1 else "(landed on foot)"
    body[0][zone] = "LAMANITES"
    wrapped = textwrap.wrap(lam, 14)
    for i, part in enumerate(wrapped[:2]):
        body[1 + i][zone] = part
    line = "+" + "+".join(["-" * 16] * 4) + "+"
    out = [line, "|" + "|".join(f" {c:<15}" for c in cols) + "|"]
    out += ["|" + "|".join(f" {c:<15}" for c in row) + "|" for row in body]
    out.append(line)
    if zone == 1 and not by_boat:
        out += _wrap(f"{view['turn']} came on foot, not by the boat: the beach gives no "
                     "Advantage (\"Zone 1 - Nephite Advantage (on boat)\").")
    out += _wrap("The SEASHORE / RIVER BANK inset has no forest paths: its 3 HILL is not the "
                 "Hill inset's 2 LAMANITE HILL, and scouts do not negate a Lamanite "
                 "Advantage here.")
    return out


def _hill(view, battle):
    zone = battle["zone"]
    lam = "LAMANITES: " + _counts(battle["lamanites"], True)
    top = lam if zone == 2 else "(empty)"
    bottom = lam if zone == 1 else "(empty)"
    path = battle["path"]
    on_path = _counts(path, True) if path else "nobody yet"
    return [
        "               .--------- 2  LAMANITE HILL ---------.",
        f"               |  {top:<34}|",
        "   forest     #'           open route              '#     forest",
        "   path 1     #      (scouts cannot lead here)      #     path 2",
        "               `------------ 1  VALLEY -------------'",
        f"               |  {bottom:<34}|",
        "               NEPHITE HILL: your army",
    ] + _wrap(f"Up the forest paths (scout-led, no Lamanite Advantage): {on_path}", "  ")


def _sector_cell(city, name):
    sec = city["sectors"][name]
    if sec["taken_by"]:
        state = f"taken by {sec['taken_by']}"
    elif not any(sec["tower"].values()) and not any(sec["gate"].values()):
        state = "gate open (prize past the temple)"
    else:
        state = f"tower {_counts(sec['tower'], True)}; gate {_counts(sec['gate'], True)}"
    unstocked = not city.get("stocked", True)  # version 2: items placed at the first attack
    prize = {"palace": "gold: at 1st attack" if unstocked else f"gold {city['gold']}",
             "armory": "weapons: at 1st attack" if unstocked else f"weapons {city['weapons']}",
             "market": "food: at 1st attack" if unstocked else f"food {city['food']}",
             "stockade": "captives " + (" ".join(f"{INITIAL[s]}{n}" for s, n in
                                                 city["stockade"].items()) or "0")}[name]
    return [f"{name.upper()}: {prize}"[:35], state[:35]]


def _city(view, battle, name):
    city = view["cities"][name]
    temple = city["temple"]
    if temple["cleared"]:
        tline = "cleared"
    else:
        tline = (f"upper {_counts(temple['upper'], True)}; "
                 f"lower {_counts(temple['lower'], True)}")
    line = "+" + "-" * 37 + "+" + "-" * 37 + "+"
    out = [line]
    for left, right in (("palace", "stockade"), ("armory", "market")):
        a, b = _sector_cell(city, left), _sector_cell(city, right)
        for x, y in zip(a, b, strict=True):
            out.append(f"| {x:<36}| {y:<36}|")
        if left == "palace":
            out.append("+" + "-" * 28 + " TEMPLE " + "-" * 39 + "+")
            out.append(f"| {tline:<74}|")
            out.append(line)
    out.append(line)
    held = city.get("stockade_by_kind") or {}
    if held:
        out += _wrap(f"Held in the Stockade of {name.capitalize()}: " + "; ".join(
            f"{seat} {_counts(c, True)}"
            for seat, c in _in_order(held, view["seats"])) + ".", "  ")
    waiting = {lv: c for lv, c in (city.get("temple_wounded") or {}).items() if any(
        c.values())}
    if waiting:
        out += _wrap("Temple wounded, back on their level when the attack ends: " + "; ".join(
            f"{lv} {_counts(c, True)}" for lv, c in waiting.items()) + ".", "  ")
    cur = battle["sector"] if battle else None
    if cur:
        out.append(f"Attacking the {cur}; wine offered in: "
                   f"{', '.join(battle['wine']) or 'no sector yet'}.")
    return out


def _inset(view):
    battle = view["battle"]
    if not battle:
        return _dice_reference(view)
    site = battle["site"]
    adv = {"nephite": "Nephite Advantage", "lamanite": "Lamanite Advantage",
           None: "no Advantage"}[battle["advantage"]]
    if battle["kind"] == "city":
        head = f"BATTLE: THE CITY OF {site.upper()} (no Advantage anywhere)"
        body = _city(view, battle, site)
    elif battle["kind"] == "seashore":
        head = f"BATTLE: SEASHORE / RIVER BANK at {site} (zone {battle['zone']}, {adv})"
        body = _seashore(view, battle)
    else:
        head = f"BATTLE: HILL at {site} (zone {battle['zone']}, {adv})"
        body = _hill(view, battle)
    out = ["", head] + body
    if battle["kind"] != "city":
        sup = battle["supplies"]
        out.append(f"Won, it yields {sup['food']} food, {sup['weapons']} weapons, "
                   f"{sup['gold']} gold.")
    targets = []
    for place, group in battle["targets"].items():
        for t, n in group.items():
            if n:
                targets.append(f"{t}@{place}" if place != "field" else t)
    out += _wrap("You may duel: " + (", ".join(targets) or "nobody (choose a sector)")
                 + ".", "  ")
    pending = battle.get("captives") or {}
    if pending:
        out += _wrap("Captured in this attack, led to a Stockade when it ends: " + "; ".join(
            f"{seat} {_counts(c, True)}"
            for seat, c in _in_order(pending, view["seats"])) + ".", "  ")
    return out + _dice_lines(view, battle)


def _chart_rows(chart, throwers, column):
    """The chart's four dice, each with ``throwers[die]`` (texts) in the column ``column``."""
    out = ["", "DICE NUMBERS CHART (the loser reads his own roll; ties roll again)",
           f"{'DIE':<11}{'KILLED':<7}{'WOUNDED':<8}{'CAPTURED':<9}{'FIT':<6}{column}"]
    for row in chart["dice"]:
        def span(pair):
            return str(pair[0]) if pair[0] == pair[1] else f"{pair[0]}-{pair[1]}"
        head = (f"{row['die']:<11}{span(row['killed']):<7}{span(row['wounded']):<8}"
                f"{span(row['captured']):<9}{span(row['fit']):<6}")
        who = "; ".join(throwers.get(row["die"], [])) or "-"
        lines = textwrap.wrap(who, WIDTH - len(head)) or ["-"]
        out.append(head + lines[0])
        out += [" " * len(head) + rest for rest in lines[1:]]
    return out


#: the chart's soldier kinds in the army table's order, then Helaman's own infantry
_CHART_ORDER = ("king", "captain", "scout", "infantry", "archer", "slinger", "helaman infantry")


def _thrower(kind):
    return "Helaman's infantry" if kind == "helaman infantry" else (
        "king" if kind == "king" else plural(kind, 2))


def _dice_reference(view):
    """Outside a battle: the chart each army holds ("Give each Nephite army 5 food tokens and
    a Dice Numbers Chart"), who throws each die, and what the Advantage changes."""
    chart = view.get("dice_chart")
    if not chart:
        return []
    throwers, ups = {}, []
    for side, who in (("nephite", "Nephite"), ("lamanite", "Lamanite")):
        by_die, up = {}, []
        for kind, dice in _in_order(chart[side], _CHART_ORDER):
            by_die.setdefault(dice["plain"], []).append(_thrower(kind))
            if dice["advantage"] != dice["plain"]:
                up.append(f"{_thrower(kind)} {dice['advantage']}")
        for die, kinds in by_die.items():
            throwers.setdefault(die, []).append(f"{who} {', '.join(kinds)}")
        if up:
            ups.append(f"{who} {', '.join(up)}")
    return (_chart_rows(chart, throwers, "THROWN BY")
            + _wrap("With the Advantage: " + "; ".join(ups) + ".", "  "))


def _dice_lines(view, battle):
    """The Dice Numbers Chart with the dice each side throws now (the Advantage counted)."""
    chart = view.get("dice_chart")
    if not chart:
        return []
    now = battle.get("dice") or {}
    throwers = {}
    for side, who in (("nephite", f"{view['turn']}'s"), ("lamanite", "Lamanite")):
        by_die = {}
        for kind, die in _in_order(now.get(side) or {}, _CHART_ORDER):
            by_die.setdefault(die, []).append(plural(kind, 2) if kind != "king" else kind)
        for die, kinds in by_die.items():
            throwers.setdefault(die, []).append(f"{who} {', '.join(kinds)}")
    path = now.get("lamanite_vs_path") or {}
    out = _chart_rows(chart, throwers, "THROWN NOW BY")
    if path:
        out += _wrap("Against soldiers led up a forest path the Lamanites have no Advantage: "
                     + ", ".join(f"{plural(k, 2) if k != 'king' else k} {d}"
                                 for k, d in _in_order(path, _CHART_ORDER)) + ".", "  ")
    return out


def _boards(view):
    out = ["", "ARMY      AT           CPT SCT INF ARC SLI | WND DEAD HELD UNARM |"
           " FOOD WPN GOLD"]
    for seat in view["seats"]:
        a = view["armies"][seat]
        live = a["live"]
        mark = "*" if seat == view["turn"] and view["status"] == "playing" else " "
        if not a["alive"]:
            out.append(f"{seat + mark:<10}LOST: {a['fate']}")
            continue
        wnd = sum(a["wounded"].values())
        dead = sum(a["dead"].values())
        unarmed = sum(a["unarmed"].values())
        out.append(f"{seat + mark:<10}{a['at']:<12}{live['captain']:>4}{live['scout']:>4}"
                   f"{live['infantry']:>4}{live['archer']:>4}{live['slinger']:>4} |"
                   f"{wnd:>4}{dead:>5}{a['captured']:>5}{unarmed:>6} |"
                   f"{a['food']:>5}{a['weapons']:>4}{a['gold']:>5}")
        extra = []
        if a["flags"]:
            extra.append("flags: " + ", ".join(c.upper() for c in a["flags"]))
        held = [x for x in a["sectors"]
                if not view["cities"][x.split(":")[0]]["liberated_by"]]
        if held:
            extra.append("sectors taken: " + ", ".join(held))
        held_in = [f"{name.upper()} {_counts(c['stockade_by_kind'][seat], True)}"
                   for name, c in _in_order(view["cities"], CITIES)
                   if (c.get("stockade_by_kind") or {}).get(seat)]
        led = ((view["battle"] or {}).get("captives") or {}).get(seat)
        if led:
            held_in.append(f"on the way to a Stockade {_counts(led, True)}")
        if held_in:
            extra.append("held: " + ", ".join(held_in))
        if a["lamanite_captives"]:
            extra.append("Lamanite captives: " + _counts(a["lamanite_captives"], True))
        if unarmed:
            extra.append("unarmed: " + _counts(a["unarmed"], True))
        if extra:
            out += _wrap("          " + "; ".join(extra), "          ")
    out += _wrap("(live captains, scouts, infantry, archers, slingers | wounded, dead, held "
                 "in Lamanite Stockades, unarmed | food, weapons, money in gold: 1 silver = 5 "
                 "gold)")
    return out


def _status(view):
    out = [""]
    done = [c for c in CITIES if view["cities"][c]["liberated_by"]]
    goal = (f"Goal: retake {view['required']} cities (MORIANTON among them) and kill "
            f"Amalickiah. Retaken: {', '.join(c.upper() for c in done) or 'none'}; "
            f"Amalickiah {'is dead' if view['king_killed'] else 'lives'}.")
    out += _wrap(goal, "  ")
    out += _wrap("Flags (cities liberated): " + ", ".join(
        f"{seat} {view['scores'][seat]}" for seat in view["seats"]) + ".", "  ")
    deadline = view["deadline_hours"]
    out.append(f"Round {view['round']} of {view['rounds']} ({view['rounds_left']} left)"
               + (f"; wall-clock limit {deadline} hours" if deadline else "")
               + (". Short game." if view["short_game"] and view.get("box") is None
                  else "."))
    box = view.get("box")
    if box is not None:
        diff = "" if view["difficulty"] == "book" else f" Difficulty: {view['difficulty']}."
        out += _wrap(f"The box holds {box['food']} food, {box['weapons']} weapons, "
                     f"{box['gold']} gold; the boat lies at {view['boat']}.{diff}", "  ")
    lam = view["lamanites"]
    out += _wrap(f"Lamanites on the boards: {_counts(lam['on_board'], True)}; killed: "
                 f"{_counts(lam['killed'], True)}; held captive: "
                 f"{_counts(lam['captured'], True)}.", "  ")
    if view["fields"]:
        now = view["battle"]["site"] if view["battle"] else None
        parts = [f"{s} ({_counts(f['lamanites'], True)})"
                 for s, f in _in_order(view["fields"], ())
                 if s in BATTLEFIELDS and s != now]
        if parts:
            out += _wrap("Battles left unfinished: " + "; ".join(parts) + ".", "  ")
    if view["status"] == "over":
        res = view["result"]
        # the table's decisions (a draw, an abort) end a game with no outcome of the rules
        who = {"nephites": "the Nephites won", "lamanites": "the Lamanites won"}.get(
            res.get("outcome"), f"{', '.join(res.get('winners') or []) or 'nobody'} won")
        out += _wrap(f"Game over: {who} ({str(res['reason']).rstrip('.')}).", "  ")
    else:
        out.append(f"Turn of {view['turn']}. To act:")
        for seat in view["to_act"]:
            you = " (you)" if seat == view["you"] else ""
            out += _wrap(f"  {seat}{you}: {view['owes'][seat]}", "      ")
    return out


def render(view, color=False):
    """The whole picture for a view: map, inset, army boards, status."""
    lines = _map_lines(view) + _inset(view) + _boards(view) + _status(view)
    lines = [ln.rstrip() for ln in lines]
    text = "\n".join(lines)
    if color:
        text = (text.replace("[L]", "\x1b[31m[L]\x1b[0m")
                .replace("[N]", "\x1b[34m[N]\x1b[0m"))
    return text
