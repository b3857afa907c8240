"""Bots for The Settlers of the Stone Age: ``greedy`` and ``strong``.

The greedy bot plays from its seat's view only: it samples a world consistent with it
(``determinize.stone_age_world``), applies each listed move to a copy of that world with the
rules library and plays the one whose position :func:`value` scores best (``end`` is the
move that changes nothing).  Trade talk is decided on the hand: it accepts an offer that
raises its hand's value (never from a seat about to win), offers the listed 1-for-1 trade
when it completes a purchase, confirms a beneficial answer and withdraws an answered offer.
A discard drops the listed bundle that costs the least.

The value reads the position: points first; then production (tribes next to numbered
landscapes, weighted by the dice, none under a desert or a figure); nomads and how near
they stand to a free people chip they may reach (the tracks open the condition boxes);
progress tracks (Food makes moving cheaper, Clothing and Construction open boxes); the hand
(what it buys now, and the risk of a 7); and the leading opponent's points and production,
so the Neanderthal and the Predator go where they hurt the leader.

The strong bot searches like Zarahemla's (``shared/bots/zarahemla.py``): the average over
several sampled worlds, the purchase a bank trade pays for, and a relative leaf value (its
own less the best opponent's), in a node budget.
"""

from ..stone_age import board
from ..stone_age.state import (
    HAND_LIMIT,
    MAX_NOMADS,
    MAX_TRIBES,
    NOMAD_COST,
    TRACK_COSTS,
    TRIBE_COST,
    points,
)
from . import talk
from .determinize import stone_age_world
from .search import WORLDS, Budget, after, best, sampled_search, zero_sum

PIPS = {2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 0, 8: 5, 9: 4, 10: 3, 11: 2, 12: 1}
TRACKS = ("food", "hunting", "construction", "clothing")
TALK = ("offer", "counter", "accept", "decline", "withdraw", "confirm")

#: map version -> crossing -> ((hex, number, resource), ...) of the landscapes around it
_AROUND = {v: {} for v in board.MAPS}
for _v, _world in board.MAPS.items():
    for _h in board.HEX_NAMES:
        _num = _world.numbers[_h]
        _ter = board.HEXES[_h].get("terrain")
        if not _num or _ter not in board.PRODUCES:
            continue
        for _x in board.HEX_CROSSINGS[_h]:
            _AROUND[_v].setdefault(_x, []).append((_h, _num, board.PRODUCES[_ter]))


def production(st, seat):
    """Pips per resource produced by ``seat``'s tribes (blocked landscapes give none)."""
    blocked = set(st["deserts"]) | set(st["figures"].values())
    out = [0.0] * 4
    around = _AROUND[board.map_of(st).version]
    for x in st["tribes"][seat]:
        for h, num, res in around.get(x, ()):
            if h not in blocked:
                out[res] += PIPS.get(num, 0)
    return out


#: how far a nomad looks for a free people chip (crossings)
HORIZON = 25


def _chip_distance(st, seat, x):
    """Crossings from ``x`` to the nearest free people chip ``seat``'s nomad may reach
    (``HORIZON`` when none is that near)."""
    chips = st["chips"]
    occ = set()
    for s in st["seats"]:
        occ.update(st["tribes"][s])
        occ.update(n for n in st["nomads"][s] if n != x)
    clothing, construction = st["tracks"][seat][3], st["tracks"][seat][2]
    seen = {x}
    frontier = [x]
    paths_from = board.map_of(st).paths_from
    for dist in range(HORIZON):
        for y in frontier:
            if str(y) in chips and y not in occ:
                return dist
        nxt = []
        for y in frontier:
            for z, req in paths_from[y]:
                if z in seen:
                    continue
                if req is not None and (clothing < req[0] or construction < req[1]):
                    continue
                seen.add(z)
                nxt.append(z)
        frontier = nxt
        if not frontier:
            break
    return HORIZON


def hand_value(hand, st, seat):
    """What a hand is worth to ``seat``: the cards (less past the limit) and what they buy."""
    v = 0.0
    for r in range(4):
        v += min(hand[r], 3) * 3.0 + max(0, hand[r] - 3) * 0.8
    total = sum(hand)
    if total > HAND_LIMIT:
        v -= (total - HAND_LIMIT) * 2.5

    def can(cost):
        return all(hand[i] >= cost[i] for i in range(4))
    nomads = st["nomads"][seat]
    if can(TRIBE_COST) and any(str(x) in st["chips"] for x in nomads):
        v += 25
    elif can(TRIBE_COST):
        v += 6
    if len(nomads) < MAX_NOMADS and can(NOMAD_COST):
        v += 6
    tracks = st["tracks"][seat]
    for i, track in enumerate(TRACKS):
        if tracks[i] < 5 and can(TRACK_COSTS[track][tracks[i]]):
            v += 3
    v += min(hand[0], 3) * 1.5      # meat moves the nomads
    return v


def value(st, seat):
    """The worth of position ``st`` to ``seat`` (see the module docstring)."""
    result = st["result"]
    if result is not None:
        return 1e6 if seat in result.get("winners", ()) else -1e6
    v = 100.0 * points(st, seat)
    prod = production(st, seat)
    v += 6.0 * sum(prod) + 6.0 * sum(1 for p in prod if p)
    tracks = st["tracks"][seat]
    v += 9.0 * sum(tracks) + 4.0 * tracks[0]
    tribes = st["tribes"][seat]
    v += 20.0 * min(len(tribes), MAX_TRIBES)
    for x in st["nomads"][seat]:
        # a nomad is worth having even far from a chip; each crossing nearer counts
        v += 20.0 + 3.0 * (HORIZON - _chip_distance(st, seat, x))
    v += hand_value(st["hands"][seat], st, seat)
    worst = 0.0
    for s in st["seats"]:
        if s == seat:
            continue
        theirs = 100.0 * points(st, s) + 6.0 * sum(production(st, s)) + \
            1.5 * sum(st["hands"][s])
        worst = max(worst, theirs)
    v -= 0.35 * worst
    return v


def _bundle(d):
    return [d[r] for r in board.RESOURCES]


def _answer(view, seat, world, legal):
    offer = view["offer"]
    give, get = _bundle(offer["give"]), _bundle(offer["get"])   # the offerer's side
    return talk.answer(legal, _bundle(view["hand"]), give, get,
                       lambda h: hand_value(h, world, seat), view["scores"][offer["from"]] < 8)


def _terms_of(view):
    """``terms_of(seat)``: the (give, get) of the offerer's deal with ``seat`` (from the
    view's open offer), or None when that seat agreed to nothing."""
    offer = view["offer"]

    def terms_of(s):
        ans = offer["answers"].get(s)
        if ans == "accept":
            return _bundle(offer["give"]), _bundle(offer["get"])
        if isinstance(ans, dict):           # a counter, written from the answerer's side
            return _bundle(ans["get"]), _bundle(ans["give"])
        return None
    return terms_of


def confirms(view, seat):
    """The ``confirm SEAT`` moves ``seat`` may consider, from its view alone (as
    ``shared.bots.zarahemla.confirms``)."""
    offer = view.get("offer")
    if offer is None or offer["from"] != seat or view.get("phase") != "main":
        return []
    return talk.confirmable(offer["answers"], _terms_of(view), _bundle(view["hand"]))


def _as_offerer(view, seat, world, legal):
    offer = view["offer"]
    return talk.confirm_or_withdraw(legal, _bundle(view["hand"]), _terms_of(view),
                                    lambda h: hand_value(h, world, seat), not offer["waiting"])


def _my_offer(view, seat, world, legal, rng):
    from ..stone_age.notation import parse_move
    hand = _bundle(view["hand"])
    base = hand_value(hand, world, seat)
    for m in legal:
        if not m.startswith("offer "):
            continue
        give, get, _ = parse_move(m).args
        new = [hand[r] - give[r] + get[r] for r in range(4)]
        if hand_value(new, world, seat) - base >= 6 and rng.random() < 0.5:
            return m
    return None


def greedy_move(game, view, seat, legal, rng, budget=None):
    """One move ahead with :func:`value` on a world sampled from the view."""
    return _choose(game, view, seat, legal, rng, None)


class _AfterTrade:
    """The strong level's second move: after a bank trade, what the trade pays for."""

    def __call__(self, move):
        return move.startswith("bank ")

    @staticmethod
    def seconds(game, state, seat):
        if state["result"] is not None or state["current"] != seat or \
                state["phase"] != "main" or state["pending"]:
            return []
        return [m for m in game.legal_moves(state, seat)
                if m.split()[0] in ("develop", "tribe", "nomad")]


#: the strong level's leaf value: the seat's value less the best opponent's
RELATIVE = zero_sum(value)


def strong_move(game, view, seat, legal, rng, budget=None):
    """Search over sampled worlds with a relative value, in a node budget (as Zarahemla's
    strong level: ``shared/bots/zarahemla.py``)."""
    return _choose(game, view, seat, legal, rng, Budget(budget))


def _choose(game, view, seat, legal, rng, budget):
    strong = budget is not None
    worlds = [stone_age_world(view, seat, rng) for _ in range(WORLDS if strong else 1)]
    world = worlds[0]
    offer = view["offer"]
    if offer is not None and seat != view["current"] and \
            ("accept" in legal or "decline" in legal):
        return _answer(view, seat, world, legal)
    if offer is not None and seat == view["current"] and view["phase"] == "main":
        move = _as_offerer(view, seat, world, legal)
        if move is not None:
            return move
    moves = [m for m in legal if m.split()[0] not in TALK]
    if not moves:
        return "decline" if "decline" in legal else sorted(legal)[0]
    if len(moves) == 1:
        return moves[0]
    if moves[0].startswith("discard"):
        hand = _bundle(view["hand"])
        from ..stone_age.notation import parse_move
        scored = []
        for m in moves:
            out = parse_move(m).args[0]
            scored.append((hand_value([hand[r] - out[r] for r in range(4)], world, seat), m))
        return best(scored, rng)
    if strong:
        choice, _ = sampled_search(game, worlds, seat, moves, RELATIVE, rng, budget,
                                   follow=_AfterTrade())
        if choice is None:
            return sorted(moves)[0]
    else:
        scored = []
        for m in moves:
            nxt = after(game, world, seat, m)
            if nxt is not None:
                scored.append((value(nxt, seat), m))
        if not scored:
            return sorted(moves)[0]
        choice = best(scored, rng)
    if choice == "end" and offer is None:
        mine = _my_offer(view, seat, world, legal, rng)
        if mine is not None:
            return mine
    return choice


LEVELS = {"greedy": greedy_move, "strong": strong_move}

__all__ = ["LEVELS", "greedy_move", "strong_move", "value", "production", "hand_value"]
