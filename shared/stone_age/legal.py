"""Legal-move generation: every listed move is accepted by ``play``.

Open-ended moves are listed by a finite representative subset: one shortest
path to each crossing a nomad can reach, and one 1-for-1 trade offer to everyone
(also while an offer is open: a new offer replaces it).  Anything else that follows the rules is
accepted too.
"""

from ..trade import terms
from . import board
from .develop import nomad_spots, paid_steps
from .notation import TRACKS, Move, format_move
from .rules import owes_answer, victims
from .state import (desert_options, free_chips, MAX_NOMADS, MAX_TRIBES, NOMAD_COST, TRACK_COSTS, TRIBE_COST, has, occupied,
                    steps_per_meat)


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


def reachable(state, seat, start, budget):
    """{crossing: shortest path} for free crossings within ``budget`` steps."""
    occ = occupied(state)
    tracks = state["tracks"][seat]
    clothing, construction = tracks[3], tracks[2]
    parent = {start: None}
    frontier = [start]
    for _ in range(budget):
        nxt = []
        for x in frontier:
            for y, req in board.PATHS_FROM[x]:
                if y in parent:
                    continue
                if req is not None and (clothing < req[0] or construction < req[1]):
                    continue
                parent[y] = x
                nxt.append(y)
        if not nxt:
            break
        frontier = nxt
    out = {}
    for x in parent:
        if x == start or x in occ:
            continue
        path, y = [], x
        while y is not None:
            path.append(y)
            y = parent[y]
        out[x] = tuple(reversed(path))
    return out


def _figure_moves(state, seat, p):
    out = []
    for fig in p["figures"]:
        for h in board.FIGURE_HEXES[fig]:
            if h == state["figures"][fig]:
                continue
            cands = victims(state, seat, h) if p["steal"] != "none" else []
            if not (p["steal"] == "must" and cands):
                out.append(Move("figure", (fig, h, None)))
            out.extend(Move("figure", (fig, h, v)) for v in cands)
    return out


def legal(state, seat):
    """Every move ``seat`` may play now, as Move values."""
    phase = state["phase"]
    if phase == "over" or seat not in state["seats"]:
        return []
    if phase == "discard":
        if seat not in state["discards"]:
            return []
        return [Move("discard", (b,)) for b in _bundles(state["hands"][seat],
                                                          state["discards"][seat])]
    cur = state["current"]
    if seat != cur:
        if phase == "main" and owes_answer(state, seat):
            out = [Move("decline")]
            offer = state["turn"]["offer"]
            hand = state["hands"][seat]
            if has(hand, offer["get"]):
                out.append(Move("accept"))
            # one representative counter: a card of the kind I hold most for the first other
            # kind offered (for any other kind when the offer gives only that one)
            i = max(range(4), key=lambda k: hand[k])
            others = [k for k in range(4) if k != i]
            j = next((k for k in others if offer["give"][k]), others[0])
            if hand[i]:
                give = tuple(1 if k == i else 0 for k in range(4))
                get = tuple(1 if k == j else 0 for k in range(4))
                out.append(Move("counter", (give, get)))
            return out
        return []
    if phase == "place":
        occ = occupied(state)
        return [Move("place", (x,)) for x in board.BLACK if x not in occ]
    if phase == "roll":
        return [Move("roll")]
    if state["pending"]:
        p = state["pending"][0]
        if p["kind"] == "figure":
            return _figure_moves(state, seat, p)
        if p["kind"] == "desert":
            return [Move("desert", (h,)) for h in desert_options(state, p["terrain"])]
        takes = [Move("take", (x,)) for x in sorted(free_chips(state))]
        return [Move("take", (None,))] + takes if p.get("optional") else takes
    out = [Move("end")]
    hand = state["hands"][seat]
    turn = state["turn"]
    if not turn["developing"]:
        for i in range(4):
            if hand[i] >= 3:
                for j in range(4):
                    if j != i and state["supply"][j]:
                        give = tuple(3 if k == i else 0 for k in range(4))
                        get = tuple(1 if k == j else 0 for k in range(4))
                        out.append(Move("bank", (give, get)))
        # one representative offer: a card of the kind I hold most for one of the kind I hold
        # least, to everyone (also while an offer is open: a new one replaces it)
        i = max(range(4), key=lambda k: hand[k])
        j = min((k for k in range(4) if k != i), key=lambda k: hand[k])
        if hand[i]:
            give = tuple(1 if k == i else 0 for k in range(4))
            get = tuple(1 if k == j else 0 for k in range(4))
            out.append(Move("offer", (give, get, ())))
        offer = turn["offer"]
        if offer is not None:
            out.append(Move("withdraw"))
            for s in state["seats"]:
                deal = terms(offer, s)
                if deal and has(hand, deal[0]) and has(state["hands"][s], deal[1]):
                    out.append(Move("confirm", (s,)))
    if len(state["nomads"][seat]) < MAX_NOMADS and has(hand, NOMAD_COST):
        out.extend(Move("nomad", (x,)) for x in nomad_spots(state, seat))
    bought = hand[0] * steps_per_meat(state, seat)
    for x in state["nomads"][seat]:
        # every path within the budget is affordable: the budget is the crossings already
        # paid that this nomad may use plus what all the Meat in hand buys
        budget = paid_steps(state, x) + bought
        if budget:
            out.extend(Move("move", (path,)) for path in reachable(state, seat, x, budget).values())
    if has(hand, TRIBE_COST):
        tribes = state["tribes"][seat]
        african = [t for t in tribes if t in board.AFRICA_CROSSINGS] or tribes
        for x in state["nomads"][seat]:
            if str(x) in state["chips"]:
                if len(tribes) < MAX_TRIBES:
                    out.append(Move("tribe", (x, None)))
                else:
                    out.extend(Move("tribe", (x, r)) for r in african)
    for i, track in enumerate(TRACKS):
        level = state["tracks"][seat][i]
        if level < 5 and not (level == 4 and state["art"][track]) and \
                has(hand, TRACK_COSTS[track][level]):
            out.append(Move("develop", (track,)))
    return out


def legal_texts(state, seat):
    return [format_move(m) for m in legal(state, seat)]
