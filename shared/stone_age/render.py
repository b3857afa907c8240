"""The ASCII picture of a view: the world map, then the panel under it.

Every line is at most 80 columns.  The map names each crossing by its number
and each landscape by its row letter and column, the names the notation
uses.  ``color=True`` adds ANSI colours to the player pieces only.
"""

import re

from . import board, mapdraw
from .notation import TRACKS
from .state import ART, TRACK_COSTS, WIN_POINTS, cost_text

LETTER = {"red": "R", "blue": "B", "white": "W", "orange": "O"}
ANSI = {"R": "31", "B": "34", "W": "37", "O": "33"}
NOTES = ((1, 6, "EURASIA"), (0, 70, "AMERICA"), (48, 2, "AFRICA"), (49, 60, "AUSTRALIA"))


def _labels(view):
    occ = {}
    for s, xs in view["tribes"].items():
        for x in xs:
            occ[x] = LETTER[s]
    for s, xs in view["nomads"].items():
        for x in xs:
            occ[x] = LETTER[s].lower()
    labels = {}
    for x in board.CROSSINGS:
        text = str(x) + occ.get(x, "*" if x in board.BLACK else "")
        chip = view["chips"].get(str(x))
        if chip:
            text += ":" + chip
        labels[x] = text
    return labels


def _hex_lines(view):
    figs = {h: f[0].upper() for f, h in view["figures"].items()}
    numbers = board.map_of_view(view).numbers
    out = {}
    for name in board.HEX_NAMES:
        h = board.HEXES[name]
        first = name + (" " + figs[name] if name in figs else "")
        second = "~des~" if name in view["deserts"] else f"{h['terrain']}{numbers[name]}"
        out[name] = (first, second)
    return out


def _boxes(view):
    out = {}
    for letter, (a, b, *_rest) in board.map_of_view(view).boxes.items():
        out[frozenset((a, b))] = letter if view["boxes"][letter] is None else letter.lower()
    return out


def _bundle(d):
    parts = [f"{n} {r}" for r, n in d.items() if n]
    return ", ".join(parts) if parts else "nothing"


def _wrap(text, indent="  ", width=80):
    lines, cur = [], ""
    for word in text.split(" "):
        if cur and len(cur) + 1 + len(word) > width:
            lines.append(cur)
            cur = indent + word
        else:
            cur = f"{cur} {word}" if cur else word
    lines.append(cur)
    return lines


def legend():
    return [
        "Crossings: 92R tribe of red, 100r nomad of red, 92* black start crossing,",
        "  :y people chip (y yellow, g green, p purple, c cyan). Landscapes: e3 = row e,",
        "  column 3; H Highlands=meat, S Steppe=bone, M Mountains=flint, F Forest=hide;",
        "  N Neanderthal (Africa/Eurasia), P Predator (America/Australia), ~des~ desert.",
    ]


def _box_lines(view):
    cells = []
    for letter, (a, b, clo, con, num) in board.map_of_view(view).boxes.items():
        holder = view["boxes"][letter]
        cells.append(f"{letter} {f'{a}-{b}':<8}{clo}/{con} {num:<3} {holder or 'chip':<6}")
    lines = ["Condition boxes (path, Clothing/Construction, numeral, chip or who took it):"]
    for i in range(0, len(cells), 3):
        lines.append(" " + "  ".join(cells[i:i + 3]).rstrip())
    return lines


def _players(view):
    lines = ["Player    VP cards tribes nomads  food hunt cons clot  y g p c  events"]
    for s in view["seats"]:
        mark = ">" if s == view["current"] and view["status"] != "over" else " "
        tr = view["tracks"][s]
        pe = view["people"][s]
        lines.append(f"{mark}{s:<8}{view['scores'][s]:>3}{view['hand_counts'][s]:>6}"
                     f"{len(view['tribes'][s]):>7}{len(view['nomads'][s]):>7}  "
                     f"{tr['food']:>4}{tr['hunting']:>5}{tr['construction']:>5}"
                     f"{tr['clothing']:>5}  " + " ".join(str(pe[p]) for p in board.PEOPLES) +
                     f"{len(view['event_chips'][s]):>8}")
    cards = []
    for t in TRACKS:
        if view["art"][t]:
            cards.append(f"Art {ART[t]}: {view['art'][t]}")
    for p, s in view["adaptation"].items():
        if s:
            cards.append(f"Adaptation {board.PEOPLE_NAMES[p]}: {s}")
    if view["exploration"]:
        cards.append(f"Exploration: {view['exploration']}")
    if view["spread"]:
        cards.append(f"Spread: {view['spread']}")
    if view["spread2"]:
        cards.append(f"second to spread: {view['spread2']}")
    lines += _wrap("Cards: " + ("; ".join(cards) if cards else "none yet") + ".")
    lines += _wrap("Supply: " + ", ".join(f"{n} {r}" for r, n in view["supply"].items()) +
                   f"; {view['deserts_left']} deserts; event chips on the board: " +
                   " ".join(f"{k}:{n}" for k, n in view["chips_left"].items()) + ".")
    return lines


def _next_steps(view, seat):
    """What ``seat`` can develop next and what it costs (``*``: the hand pays it now)."""
    hand = view.get("hand") or {}
    cells = []
    for t in TRACKS:
        level = view["tracks"][seat][t]
        if level >= 5:
            cells.append(f"{t} done")
            continue
        holder = view["art"].get(t)
        if level == 4 and holder and holder != seat:
            cells.append(f"{t} 5 is {holder}'s")
            continue
        cost = TRACK_COSTS[t][level]
        payable = all(hand.get(r, 0) >= n for r, n in zip(board.RESOURCES, cost))
        cells.append(f"{t} {level + 1} ({cost_text(cost)}){'*' if payable else ''}")
    return _wrap("Next steps: " + ", ".join(cells) + "; * = your hand pays it now.")


def paths_near(view, seat, depth=1):
    """Lines naming the neighbours of each crossing within ``depth`` steps of ``seat``'s
    nomads (``58[A]``: over condition box A; lower case once its chip was taken), so a
    move can be planned from the text: ``100: 93 99 108`` means 100-93, 100-99, 100-108."""
    world = board.map_of_view(view)
    lines = []
    for x in view["nomads"].get(seat, []):
        near, frontier = [x], [x]
        for _ in range(depth):
            frontier = [y for f in frontier for y in board.ADJ[f] if y not in near]
            near += [y for y in dict.fromkeys(frontier)]
        cells = []
        for c in near:
            out = []
            for y in board.ADJ[c]:
                letter = world.box_on.get((c, y))
                if letter is not None and view["boxes"].get(letter) is not None:
                    letter = letter.lower()
                out.append(f"{y}[{letter}]" if letter else str(y))
            cells.append(f"{c}: {' '.join(out)}")
        lines += _wrap(f"Paths near your nomad on {x}: " + " | ".join(cells) + ".")
    return lines


def render(view, color=False):
    """The map and the panel as one string (lines at most 80 columns)."""
    lines = mapdraw.draw(_labels(view), _hex_lines(view), _boxes(view), NOTES)
    lines.append("")
    lines += legend()
    lines += _box_lines(view)
    lines.append("")
    lines += _players(view)
    lines.append("")
    if view["dice"] and view["status"] != "over":
        lines.append(f"Last roll: {view['dice'][0]}+{view['dice'][1]} = {sum(view['dice'])}."
                     f"  First to {WIN_POINTS} points on their own turn wins.")
    offer = view.get("offer")
    if offer:
        text = (f"Offer by {offer['from']}: {_bundle(offer['give'])} for "
                f"{_bundle(offer['get'])} to {', '.join(offer['to'])}.")
        for s, a in offer["answers"].items():
            text += f" {s}: " + (a if isinstance(a, str) else
                                 f"counter {_bundle(a['give'])} for {_bundle(a['get'])}") + "."
        lines += _wrap(text)
    if view["you"]:
        lines += _wrap(f"Your hand ({view['you']}): {_bundle(view['hand'])}.")
        if view["status"] != "over":
            lines += _next_steps(view, view["you"])
            lines += paths_near(view, view["you"])
        if view["you"] == view["current"] and view["steps_left"]:
            if view.get("paid_steps"):
                lines += _wrap("Paid crossings left this turn: " + ", ".join(
                    f"{n} for the nomad on {x}" for x, n in view["paid_steps"].items()) + ".")
            else:
                lines.append(f"Paid nomad steps left this turn: {view['steps_left']}.")
    if view["status"] == "over":
        res = view["result"]
        # the reason starts with a seat's name, in lower case: not a sentence of its own
        lines += _wrap(f"Game over: {', '.join(res['winners']) or 'nobody'} won "
                       f"({str(res['reason']).rstrip('.')}).")
    else:
        for s, what in view["owes"].items():
            lines += _wrap(f"{s} to act: {what}.")
    out = "\n".join(line.rstrip() for line in lines)
    if color:
        out = re.sub(r"(?<=\d)([RBWOrbwo])(?=[: \n]|$)",
                     lambda m: f"\x1b[{ANSI[m.group(1).upper()]}m{m.group(1)}\x1b[0m", out)
    return out
