"""Legal-move generation: every listed move is accepted by ``play``.

Open-ended moves are listed by a finite representative subset: one shortest
path to each crossing a nomad can reach, and one 1-for-1 trade offer to everyone
(also while an offer is open: a new offer replaces it).  Anything else that follows the rules is
accepted too.

The moves are written as their canonical texts straight away (from the tables below): listing
is the hot loop of random play and of the bots, and making each :class:`Move` only to format
it cost more than the rules.  :func:`legal` gives the same list as Move values.
"""

from operator import ge

from ..bundles import notation
from ..trade import open_offer, owes_answer, terms
from . import board
from .develop import nomad_spots, paid_steps
from .notation import RES, TRACKS, parse_move
from .state import (
    MAX_NOMADS,
    MAX_TRIBES,
    NOMAD_COST,
    TRACK_COSTS,
    TRIBE_COST,
    desert_options,
    free_chips,
    has,
    occupied,
    steps_per_meat,
)

_ONE = tuple(tuple(1 if k == i else 0 for k in range(4)) for i in range(4))
_THREE = tuple(tuple(3 if k == i else 0 for k in range(4)) for i in range(4))
#: (i, j) -> "bank 3meat for 1bone" and the 1-for-1 offer and counter giving i for j
BANK_TEXT = {(i, j): f"bank 3{RES[i]} for 1{RES[j]}" for i in range(4) for j in range(4)}
OFFER_TEXT = {(i, j): f"offer 1{RES[i]} for 1{RES[j]}" for i in range(4) for j in range(4)}
COUNTER_TEXT = {(i, j): f"counter 1{RES[i]} for 1{RES[j]}" for i in range(4) for j in range(4)}
#: i -> the other kinds, in order; BANK_ROW[i]: the bank trades of i when the supply holds all
_OTHERS = tuple(tuple(k for k in range(4) if k != i) for i in range(4))
BANK_ROW = tuple(tuple(BANK_TEXT[(i, j)] for j in _OTHERS[i]) for i in range(4))
PLACE_TEXT = {x: f"place {x}" for x in board.BLACK}
NOMAD_TEXT = {x: f"nomad {x}" for x in board.CROSSINGS}
TAKE_TEXT = {x: f"take {x}" for x in board.CROSSINGS}
TRIBE_TEXT = {x: f"tribe {x}" for x in board.CROSSINGS}
DESERT_TEXT = {h: f"desert {h}" for h in board.HEX_NAMES}
DEVELOP_TEXT = tuple(f"develop {t}" for t in TRACKS)
FIGURE_TEXT = {(f, h): f"{f} {h}" for f, hexes in board.FIGURE_HEXES.items() for h in hexes}
#: figure -> ((hex, "figure hex"), ...) for every hex it may stand on
FIGURE_ROWS = {f: tuple((h, FIGURE_TEXT[(f, h)]) for h in hexes)
               for f, hexes in board.FIGURE_HEXES.items()}
CONFIRM_TEXT = {s: f"confirm {s}" for s in ("red", "blue", "white", "orange")}

#: the highest Clothing and Construction levels a condition box asks for: above them a
#: nomad's paths are the same
_CLOTHING_TOP = max(b[2] for m in board.MAPS.values() for b in m.boxes.values())
_CONSTRUCTION_TOP = max(b[3] for m in board.MAPS.values() for b in m.boxes.values())
_TREES = {}


def _bundles(hand, n):
    """Every way to pick ``n`` cards from ``hand`` (counts per kind)."""
    out = []
    for a in range(min(hand[0], n) + 1):
        for b in range(min(hand[1], n - a) + 1):
            for c in range(min(hand[2], n - a - b) + 1):
                d = n - a - b - c
                if d <= hand[3]:
                    out.append((a, b, c, d))
    return out


def path_tree(start, clothing, construction, map_version=1):
    """Breadth-first from ``start`` over the paths these track levels may cross.

    ``(entries, ends)``: ``entries`` is ``((crossing, "move start-...-crossing"), ...)`` in
    the order the search finds them (so by steps), one shortest path to every crossing but
    ``start``, occupied or not (a nomad passes other pieces); the first ``ends[k]`` entries
    are those of at most ``k`` steps.  It depends on the board only, so it is kept (a few
    thousand trees at the most: 144 crossings times the 16 levels the boxes tell apart, per
    map version).
    """
    key = (start, min(clothing, _CLOTHING_TOP), min(construction, _CONSTRUCTION_TOP),
           map_version)
    tree = _TREES.get(key)
    if tree is None:
        tree = _TREES[key] = _search(start, key[1], key[2], board.MAPS[map_version].paths_from)
    return tree


def _search(start, clothing, construction, paths_from):
    text = {start: "move " + str(start)}
    entries, ends = [], [0]
    frontier = [start]
    while frontier:
        nxt = []
        for x in frontier:
            for y, req in paths_from[x]:
                if y in text:
                    continue
                if req is not None and (clothing < req[0] or construction < req[1]):
                    continue
                text[y] = t = f"{text[x]}-{y}"
                entries.append((y, t))
                nxt.append(y)
        ends.append(len(entries))
        frontier = nxt
    return tuple(entries), tuple(ends)


def _path_moves(state, seat, start, budget, occ, out):
    """The listed ``move`` of the nomad on ``start``: one shortest path to every free crossing
    within ``budget`` steps."""
    tracks = state["tracks"][seat]
    entries, ends = path_tree(start, tracks[3], tracks[2], board.map_of(state).version)
    within = entries[:ends[budget]] if budget < len(ends) else entries
    out += [text for x, text in within if x not in occ]


def _figure_moves(state, seat, p):
    # the seats with a card to steal, and the hexes their tribes touch (victims, for each hex)
    touching = [(s, {h for x in state["tribes"][s] for h in board.HEXES_AT[x]})
                for s in state["seats"] if s != seat and sum(state["hands"][s])] \
        if p["steal"] != "none" else ()
    must = p["steal"] == "must"
    hit = set().union(*[hexes for _, hexes in touching])     # hexes with a victim
    out = []
    for fig in p["figures"]:
        here = state["figures"][fig]
        for h, base in FIGURE_ROWS[fig]:
            if h == here:
                continue
            if h not in hit:
                out.append(base)
                continue
            cands = [s for s, hexes in touching if h in hexes]
            if not must:
                out.append(base)
            out.extend([f"{base} steal {v}" for v in cands])
    return out


def _answers(state, seat):
    out = ["decline"]
    offer = open_offer(state)
    hand = state["hands"][seat]
    if has(hand, offer["get"]):
        out.append("accept")
    # one representative counter: a card of the kind I hold most for the first other
    # kind offered (for any other kind when the offer gives only that one)
    i = hand.index(max(hand))               # the first kind held most
    if hand[i]:
        give = offer["give"]
        j = next((k for k in range(4) if k != i and give[k]), 1 if i == 0 else 0)
        out.append(COUNTER_TEXT[(i, j)])
    return out


def legal_texts(state, seat):
    """Every move ``seat`` may play now, as canonical notation."""
    phase = state["phase"]
    if phase == "over" or seat not in state["seats"]:
        return []
    if phase == "discard":
        if seat not in state["discards"]:
            return []
        return ["discard " + notation(b, RES) for b in _bundles(state["hands"][seat],
                                                                 state["discards"][seat])]
    if seat != state["current"]:
        if phase == "main" and owes_answer(state, seat):
            return _answers(state, seat)
        return []
    if phase == "roll":
        return ["roll"]
    if phase == "place":
        occ = occupied(state)
        return [PLACE_TEXT[x] for x in board.BLACK if x not in occ]
    if state["pending"]:
        p = state["pending"][0]
        if p["kind"] == "figure":
            return _figure_moves(state, seat, p)
        if p["kind"] == "desert":
            return [DESERT_TEXT[h] for h in desert_options(state, p["terrain"])]
        takes = [TAKE_TEXT[x] for x in sorted(free_chips(state))]
        return ["take none"] + takes if p.get("optional") else takes
    out = ["end"]
    hand = state["hands"][seat]
    turn = state["turn"]
    if not turn["developing"]:
        supply = state["supply"]
        full = all(supply)
        for i in range(4):
            if hand[i] >= 3:
                if full:
                    out.extend(BANK_ROW[i])
                else:
                    out.extend(BANK_TEXT[(i, j)] for j in _OTHERS[i] if supply[j])
        # one representative offer: a card of the kind I hold most for one of the kind I hold
        # least, to everyone (also while an offer is open: a new one replaces it)
        i = hand.index(max(hand))           # the first kind held most
        if hand[i]:
            a, b, c = _OTHERS[i]                # the first of the others held least
            j = b if hand[b] < hand[a] else a
            if hand[c] < hand[j]:
                j = c
            out.append(OFFER_TEXT[(i, j)])
        offer = open_offer(state)
        if offer is not None:
            out.append("withdraw")
            for s in state["seats"]:
                deal = terms(offer, s)
                if deal and has(hand, deal[0]) and has(state["hands"][s], deal[1]):
                    out.append(CONFIRM_TEXT[s])
    nomads = state["nomads"][seat]
    if len(nomads) < MAX_NOMADS and hand[0] and hand[3]:      # NOMAD_COST: meat and hide
        out.extend(NOMAD_TEXT[x] for x in nomad_spots(state, seat))
    if nomads:
        bought = hand[0] * steps_per_meat(state, seat)
        occ = None
        for x in nomads:
            # every path within the budget is affordable: the budget is the crossings already
            # paid that this nomad may use plus what all the Meat in hand buys
            budget = paid_steps(state, x) + bought
            if budget:
                if occ is None:
                    occ = occupied(state)
                _path_moves(state, seat, x, budget, occ, out)
        if hand[1] and hand[2] and hand[3]:                   # TRIBE_COST: bone, flint, hide
            tribes = state["tribes"][seat]
            chips = state["chips"]
            for x in nomads:
                if str(x) in chips:
                    if len(tribes) < MAX_TRIBES:
                        out.append(TRIBE_TEXT[x])
                    else:
                        african = [t for t in tribes if t in board.AFRICA_CROSSINGS] or tribes
                        out.extend(f"tribe {x} remove {r}" for r in african)
    levels, art = state["tracks"][seat], state["art"]
    for i, track in enumerate(TRACKS):
        level = levels[i]
        # has(hand, cost), written out
        if level < 5 and all(map(ge, hand, TRACK_COSTS[track][level])) and \
                not (level == 4 and art[track]):
            out.append(DEVELOP_TEXT[i])
    return out


def legal(state, seat):
    """Every move ``seat`` may play now, as Move values (the order of :func:`legal_texts`)."""
    return [parse_move(t) for t in legal_texts(state, seat)]


assert NOMAD_COST == (1, 0, 0, 1) and TRIBE_COST == (0, 1, 1, 1), "legal_texts spells them out"
