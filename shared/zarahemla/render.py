"""ASCII rendering of a view: the board (corners 1-54, hexes A-S, posts) and a panel.

Every line is at most 80 columns.  Buildings show the owner's letter before
the corner number (lower case = Settlement, upper case = City); roads show
the owner's letter on the path.
"""

import re

from .board import CORNER_POS, EDGES, HEX_COORDS, HEX_NAMES, N_CORNERS, POST_EDGES
from .notation import EXAMPLE_PATH
from .state import DEV_TITLES

WIDTH = 80
X0 = 8          # text column of x = -5
XSTEP = 6
# text line of each corner height y
_Y_LEVELS = (-8, -7, -5, -4, -2, -1, 1, 2, 4, 5, 7, 8)
LINE = {}
_line = 1
for _i, _y in enumerate(_Y_LEVELS):
    LINE[_y] = _line
    _line += 2 if _y % 3 == 1 else 3     # a diagonal line, or two hex-content lines
HEIGHT = LINE[8] + 2

LETTER = {"red": "r", "blue": "b", "white": "w", "orange": "o"}
ANSI = {"red": "\033[31m", "blue": "\033[34m", "white": "\033[1;37m", "orange": "\033[33m"}
RESET = "\033[0m"
_ANSI_RE = re.compile(r"\033\[[0-9;]*m")


def col(x):
    return X0 + XSTEP * (x + 5)


def visible_len(line):
    return len(_ANSI_RE.sub("", line))


class _Grid:
    def __init__(self, height):
        self.rows = [[" "] * WIDTH for _ in range(height)]
        self.color = {}

    def put(self, line, c, text, seat=None):
        row = self.rows[line]
        for i, ch in enumerate(text):
            if 0 <= c + i < WIDTH:
                row[c + i] = ch
                if seat:
                    self.color[(line, c + i)] = seat

    def lines(self, color):
        out = []
        for li, row in enumerate(self.rows):
            if color:
                parts = []
                for ci, ch in enumerate(row):
                    seat = self.color.get((li, ci))
                    parts.append(ANSI[seat] + ch + RESET if seat else ch)
                out.append("".join(parts).rstrip())
            else:
                out.append("".join(row).rstrip())
        return out


def _far(p):
    """Squared distance from the board's centre in true proportions."""
    return 3 * p[0] * p[0] + p[1] * p[1]


def _post_tag(kind):
    return "3:1" if kind == "3:1" else kind


def draw_board(view):
    """The board as a list of lines (no colour codes)."""
    return _board_grid(view).lines(False)


def _board_grid(view):
    board = view["board"]
    g = _Grid(HEIGHT)
    roads = board["roads"]
    # paths
    for a, b in EDGES:
        (x1, y1), (x2, y2) = CORNER_POS[a], CORNER_POS[b]
        owner = roads.get(f"{a + 1}-{b + 1}")
        mark = LETTER[owner] if owner else None
        if x1 == x2:
            for ln in (LINE[y1] + 1, LINE[y1] + 2):
                g.put(ln, col(x1), mark or "|", owner)
        else:
            # y1 < y2 (reading order): "\" when x grows downwards, "/" otherwise
            ch = "\\" if x2 > x1 else "/"
            left = min(col(x1), col(x2))
            text = mark * 2 if mark else ch * 2
            g.put(LINE[y1] + 1, left + 2, text, owner)
    # hexes
    robber = board["robber"]
    for h, (q, r) in enumerate(HEX_COORDS):
        info = board["hexes"][h]
        cx, cy = 2 * q + r, 3 * r
        top = LINE[cy - 1] + 1
        left = col(cx) - 4
        name = HEX_NAMES[h]
        g.put(top, left, f"{name} {info['terrain']}".center(10))
        num = str(info["number"]) if info["number"] else ""
        rob = "ROBBER" if robber == name else ""
        g.put(top + 1, left, " ".join(t for t in (num, rob) if t).center(10))
    # corners
    buildings = board["buildings"]
    for c in range(N_CORNERS):
        x, y = CORNER_POS[c]
        b = buildings.get(str(c + 1))
        g.put(LINE[y], col(x), f"{c + 1:>2}")
        if b:
            letter = LETTER[b[0]]
            at = col(x) - (1 if c >= 9 else 0)
            g.put(LINE[y], at, letter.upper() if b[1] == "city" else letter, b[0])
    # trading posts, outside their path
    for i, e in enumerate(POST_EDGES):
        a, b = EDGES[e]
        (x1, y1), (x2, y2) = CORNER_POS[a], CORNER_POS[b]
        tag = _post_tag(board["posts"][i]["type"])
        if x1 == x2:
            ln = LINE[y1] + 1
            if x1 < 0:
                g.put(ln, col(x1) - 1 - len(tag), tag)
            else:
                g.put(ln, col(x1) + 2, tag)
            continue
        # on the corner line outside the path, as near its middle as the
        # corner labels on that line allow
        p1, p2 = (x1, y2), (x2, y1)
        px, py = p1 if _far(p1) > _far(p2) else p2
        start = (col(x1) + col(x2)) // 2 + 1 - len(tag) // 2
        start = max(col(px - 1) + 3, min(start, col(px + 1) - 1 - len(tag)))
        g.put(LINE[py], start, tag)
    return g


def _bundle(d):
    parts = [f"{n}{r}" for r, n in d.items() if n]
    return "+".join(parts) if parts else "nothing"


def _wrap(prefix, items, width=WIDTH):
    lines, cur = [], prefix
    for it in items:
        add = it if cur == prefix else ", " + it
        if len(cur) + len(add) > width:
            lines.append(cur.rstrip() + ("," if cur != prefix else ""))
            cur = " " * len(prefix) + it
        else:
            cur += add
    lines.append(cur)
    return lines


def _text_lines(text, width=WIDTH, indent="  "):
    words = text.split()
    lines, cur = [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = indent + w
        else:
            cur = f"{cur} {w}" if cur else w
    if cur:
        lines.append(cur)
    return lines


def draw_panel(view):
    lines = []
    posts = [f"{p['type']} {p['corners'][0]}-{p['corners'][1]}" for p in view["board"]["posts"]]
    lines += _wrap("Posts: ", posts)
    lines.append("  (3:1 = any 3 alike for 1; a resource = 2 of it for 1; else 4 for 1)")
    lines.append("Legend: r12 = red settlement on 12, R12 = red city, rr or r on a path = "
                 "red road")
    lines.append(f"        Paths are named by two corners (road {EXAMPLE_PATH}); hexes A-S; "
                 f"robber on {view['board']['robber']}.")
    bank = " ".join(f"{n}{r}" for r, n in view["bank"].items())
    lines.append(f"Bank: {bank}   Development deck: {view['deck']}")
    over = view["status"] == "over"
    status = f"Goal {view['vp_to_win']} VP."
    if view.get("turn") and not over:
        status += f"  Turn: {view['turn']}."
        if view.get("last_roll") and view.get("rolled"):
            dice = view.get("dice")
            how = f"{dice[0]}+{dice[1]}" if dice else "Liahona"
            status += f"  Rolled {view['last_roll']} ({how})."
    lines.append(status)
    lines.append("player  VP cards dev warriors stones road  special"
                 + ("" if over else "   (* = to play)"))
    specials = {"longest_road": "Longest Road", "largest_army": "Largest Army",
                "temple_contributor": "Temple"}
    for s in view["order"]:
        p = view["players"][s]
        mine = [name for key, name in specials.items() if view.get(key) == s]
        mark = "*" if view.get("turn") == s and not over else " "
        row = (f"{s + mark:<8}{p['vp']:>2}{p['cards']:>6}{p['dev_cards']:>4}"
               f"{p['warriors']:>9}{p['temple_stones']:>7}{p['road_length']:>5}  "
               + ", ".join(mine))
        lines.append(row.rstrip())
    if view.get("you"):
        lines.append(f"Your hand ({view['you']}): " + _bundle(view.get("hand", {})))
        devs = []
        new = view.get("dev_new", {})
        for k, n in view.get("dev", {}).items():
            t = f"{n} {DEV_TITLES[k]}"
            if new.get(k):
                t += f" ({new[k]} new)"
            devs.append(t)
        if devs:
            lines += _wrap("Your development cards: ", devs)
        lines.append(f"Your victory points with hidden cards: {view.get('your_vp')}")
    offer = view.get("offer")
    if offer:
        to = ", ".join(offer["to"])
        lines += _text_lines(f"Offer: {offer['from']} gives {_bundle(offer['give'])} for "
                             f"{_bundle(offer['get'])} to {to}.")
        for s, a in offer["answers"].items():
            if isinstance(a, dict):
                c = a["counter"]
                lines.append(f"  {s} counters: gives {_bundle(c['give'])} for "
                             f"{_bundle(c['get'])}")
            else:
                lines.append(f"  {s} {a}s")
    for s in view["to_act"]:
        lines += _text_lines(f"{s} must {view['owes'].get(s, 'move')}.")
    log = list(view.get("log", []))
    if over:
        # the game's last event says who won and the final score: it becomes the one
        # "Game over" sentence, after the log, instead of a second way of saying it there
        res = view.get("result") or {}
        winners = res.get("winners") or []
        said = [t for t in log if any(t.startswith(f"{w.capitalize()} wins ") for w in winners)]
        for t in said:
            log.remove(t)
        for t in log:
            lines += _text_lines("> " + t)
        if said:
            text = said[-1]  # "Red wins with 12 victory points ... Final: Red 12, ..."
            lines += _text_lines("Game over: " + text[0].lower() + text[1:])
        else:
            lines += _text_lines(f"Game over: {', '.join(winners) or 'nobody'} won "
                                 f"({str(res.get('reason', '')).rstrip('.')}).")
        return lines
    for t in log:
        lines += _text_lines("> " + t)
    return lines


def render(view, color=False):
    """The board and the panel for ``view`` as one string of lines <= 80 columns."""
    grid = _board_grid(view)
    out = grid.lines(color)
    while out and not out[-1]:
        out.pop()
    while out and not out[0]:
        out.pop(0)
    out.append("")
    out.extend(draw_panel(view))
    return "\n".join(line[:WIDTH] if not color else line for line in out) + "\n"
