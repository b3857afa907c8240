"""Bots for The Settlers of Zarahemla: ``greedy`` and ``strong``.

Both play from the seat's view only: they sample a world consistent with it
(``determinize.zarahemla_world``) and try moves on copies of that world with the rules
library.

* ``greedy`` looks one move ahead: every listed move (except the trade talk) is applied to
  a sampled world and the resulting position scored by :func:`value`; the best one is
  played (``end`` is the move that changes nothing).  Trade talk is decided on the hand:
  it answers an offer by accepting when the trade raises the value of its hand (and the
  offerer is not about to win), offers a 1-for-1 trade of its own when that card is the
  one missing for a building, confirms a beneficial answer and withdraws an answered one.
  Discards drop, card by card, the card whose loss costs the least.
* ``strong`` searches: it samples several worlds (``search.WORLDS``) and scores every
  move by its average over them (a development card bought, a card stolen, the dice of a
  Liahona are then weighed by how likely they are in what the seat may know), after a bank
  trade it also tries the building the trade pays for, and its leaf value is relative:
  its own value less the best opponent's (so it blocks, robs and races where the greedy
  only builds).  The search stops at the node budget (``budget={"nodes": n}``, default
  ``search.DEFAULT_NODES``; ``{"seconds": s, "clock": fn}`` bounds it by the caller's
  clock); the first world is always searched whole.

The value function (:func:`value`) reads the position the way Catanatron's value-function
player does (docs/BOTS.md): points first, then production weighted by the dice
probabilities and the resource's scarcity, the variety of resources produced, trading
posts, reachable building spots, the hand (what it affords, and the risk of a 7), the
longest road, the army and the temple, and the threat of the leading opponent.
"""

from ..zarahemla.board import (
    CORNER_EDGES,
    CORNER_HEXES,
    CORNER_NEIGHBOURS,
    EDGES,
    N_CORNERS,
    RESOURCES,
)
from ..zarahemla.legal import settle_spots
from ..zarahemla.state import COST, PIECES, W_VP, post_rates, total_vp
from . import talk
from .determinize import zarahemla_world
from .search import WORLDS, Budget, after, best, sampled_search, zero_sum

#: chance, in 36ths, that a number is rolled
PIPS = {0: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 0, 8: 5, 9: 4, 10: 3, 11: 2, 12: 1}
#: how much a pip of each resource is worth (wood brick water wheat stone): wheat and stone
#: make cities and cards, brick is the scarcest
RES_WEIGHT = (1.0, 1.1, 0.9, 1.15, 1.1)
#: moves the lookahead leaves to the trade logic
TALK = ("offer", "counter", "accept", "decline", "withdraw", "confirm")
BUILDS = ("city", "settle", "buy", "road", "temple")
#: the strong level looks at a second move after these (a trade is worth what it builds)
FOLLOW_AFTER = ("bank ", "play ", "road ", "buy")


def production(st, seat):
    """Pips per resource produced by ``seat``'s buildings (the robber's hex gives none)."""
    out = [0.0] * 5
    owner, level, numbers, terrain = st["owner"], st["level"], st["numbers"], st["terrain"]
    robber = st["robber"]
    for c in range(N_CORNERS):
        if owner[c] != seat:
            continue
        for h in CORNER_HEXES[c]:
            t = terrain[h]
            if t in _RES_INDEX and h != robber:
                out[_RES_INDEX[t]] += PIPS[numbers[h]] * level[c]
    return out


_RES_INDEX = {r: i for i, r in enumerate(RESOURCES)}


def _spot_distance(st, seat):
    """Roads needed to reach the nearest free building spot from ``seat``'s network (0-3)."""
    owner, roads = st["owner"], st["roads"]
    start = set()
    for e, s in enumerate(roads):
        if s == seat:
            start.update(EDGES[e])
    for c in range(N_CORNERS):
        if owner[c] == seat:
            start.add(c)
    frontier = [c for c in start if owner[c] in (None, seat)]
    seen = set(frontier)
    for dist in range(0, 4):
        for c in frontier:
            if owner[c] is None and all(owner[n] is None for n in CORNER_NEIGHBOURS[c]):
                return dist
        nxt = []
        for c in frontier:
            if owner[c] not in (None, seat):
                continue
            for e in CORNER_EDGES[c]:
                if roads[e] not in (None, seat):
                    continue
                a, b = EDGES[e]
                n = b if a == c else a
                if n not in seen:
                    seen.add(n)
                    nxt.append(n)
        frontier = nxt
    return 4


def hand_value(hand, st, seat, spots=None):
    """What a hand is worth to ``seat``: the cards (less past 7), and what they afford."""
    p = st["players"][seat]
    v = 0.0
    for r in range(5):
        v += min(hand[r], 3) * 3.0 * RES_WEIGHT[r] + max(0, hand[r] - 3) * 0.8
    total = sum(hand)
    if total > 7:
        v -= (total - 7) * 2.5
    def can(cost):
        return all(hand[i] >= cost[i] for i in range(5))
    if p["settlements"] and p["cities"] < PIECES["cities"] and can(COST["city"]):
        v += 22
    if p["settlements"] < PIECES["settlements"] and can(COST["settle"]):
        if spots is None:
            spots = settle_spots(st, seat)
        v += 22 if spots else 6
    if can(COST["buy"]) and sum(st["deck"]):
        v += 6
    if can(COST["road"]):
        v += 3
    # the nearer to a city or a settlement, the better (one card short counts)
    need_city = sum(max(0, COST["city"][i] - hand[i]) for i in range(5))
    need_settle = sum(max(0, COST["settle"][i] - hand[i]) for i in range(5))
    v += max(0, 3 - need_city) * 2 + max(0, 3 - need_settle) * 2
    return v


def value(st, seat):
    """The worth of position ``st`` to ``seat`` (see the module docstring)."""
    result = st["result"]
    if result is not None:
        return 1e6 if seat in result.get("winners", ()) else -1e6
    p = st["players"][seat]
    vp = total_vp(st, seat)
    v = 100.0 * vp
    prod = production(st, seat)
    v += 7.0 * sum(prod[r] * RES_WEIGHT[r] for r in range(5))
    v += 9.0 * sum(1 for x in prod if x)
    rates = post_rates(st, seat)
    for r in range(5):
        if rates[r] < 4:
            v += (4 - rates[r]) * (2.0 + 0.6 * prod[r])
    spots = settle_spots(st, seat) if st["phase"] == "play" else []
    if p["settlements"] < PIECES["settlements"] and st["phase"] == "play":
        v += 12.0 * min(2, len(spots))
        if not spots:
            v -= 8.0 * _spot_distance(st, seat)
    v += hand_value(p["hand"], st, seat, spots)
    v += 2.5 * p["road_len"]
    v += 9.0 * p["warriors"] + 8.0 * p["stones"]
    v += 5.0 * (sum(p["dev"]) - p["dev"][W_VP])
    # the leading opponent: points and production
    worst = 0.0
    for s in st["order"]:
        if s == seat:
            continue
        q = st["players"][s]
        theirs = 100.0 * total_vp(st, s) + 7.0 * sum(production(st, s)) + 1.5 * sum(q["hand"])
        worst = max(worst, theirs)
    v -= 0.35 * worst
    return v


# --- the parts both levels share -------------------------------------------------------------

def _discard(view, seat, world, n):
    """Drop ``n`` cards, each time the one whose loss costs the least."""
    hand = [view["hand"][r] for r in RESOURCES]
    out = [0] * 5
    for _ in range(n):
        options = []
        for r in range(5):
            if hand[r]:
                trial = list(hand)
                trial[r] -= 1
                options.append((hand_value(trial, world, seat), -r, r))
        _, _, r = max(options)
        hand[r] -= 1
        out[r] += 1
    return "discard " + "+".join(f"{k}{RESOURCES[i]}" for i, k in enumerate(out) if k)


def _offer_terms(view):
    o = view["offer"]
    return [o["give"][r] for r in RESOURCES], [o["get"][r] for r in RESOURCES]


def _answer(view, seat, world, legal, margin=1.0):
    """Accept an offer that raises the hand's value by more than ``margin`` (never to a
    seat about to win)."""
    give, get = _offer_terms(view)      # the offerer gives ``give`` and gets ``get``
    offerer = view["offer"]["from"]
    return talk.answer(legal, [view["hand"][r] for r in RESOURCES], give, get,
                       lambda h: hand_value(h, world, seat),
                       view["players"][offerer]["vp"] < view["vp_to_win"] - 2, margin)


def _terms_of(view):
    """``terms_of(seat)``: the (give, get) of the offerer's deal with ``seat`` (from the
    view's open offer), or None when that seat agreed to nothing."""
    offer = view["offer"]

    def terms_of(s):
        ans = offer["answers"].get(s)
        if ans == "accept":
            return _offer_terms(view)
        if isinstance(ans, dict):           # a counter, written from the answerer's side
            return ([ans["counter"]["get"][r] for r in RESOURCES],
                    [ans["counter"]["give"][r] for r in RESOURCES])
        return None
    return terms_of


def confirms(view, seat):
    """The ``confirm SEAT`` moves ``seat`` may consider, from its view alone: every seat
    that accepted or countered its open offer, when its own hand pays its side (whether
    the partner still holds its cards is hidden; the rules judge it)."""
    offer = view.get("offer")
    if offer is None or offer["from"] != seat:
        return []
    return talk.confirmable(offer["answers"], _terms_of(view),
                            [view["hand"][r] for r in RESOURCES])


def _as_offerer(view, seat, world, legal):
    """With an open offer: confirm a beneficial answer, or withdraw once all answered."""
    offer = view["offer"]
    return talk.confirm_or_withdraw(legal, [view["hand"][r] for r in RESOURCES],
                                    _terms_of(view), lambda h: hand_value(h, world, seat),
                                    not offer["owed"])


def _my_offer(view, seat, world, legal, rng):
    """A 1-for-1 offer that completes a building, made about every other time."""
    hand = [view["hand"][r] for r in RESOURCES]
    base = hand_value(hand, world, seat)
    scored = []
    for m in legal:
        if not m.startswith("offer "):
            continue
        words = m.split()
        give = _RES_INDEX[words[1][1:]]
        get = _RES_INDEX[words[3][1:]]
        new = list(hand)
        new[give] -= 1
        new[get] += 1
        gain = hand_value(new, world, seat) - base
        if gain >= 8:
            scored.append((gain, m))
    if scored and rng.random() < 0.5:
        return max(scored)[1]
    return None


def _special(view, seat, world, legal, rng, margin=1.0):
    """The moves decided without lookahead: discards and trade talk (None: none of them).
    ``margin``: how much an accepted trade must raise the hand's value."""
    if seat in view["discard"]:
        text = _discard(view, seat, world, view["discard"][seat])
        return text if _accepted(world, seat, text) else None
    offer = view["offer"]
    if offer is not None and seat in offer["owed"]:
        return _answer(view, seat, world, legal, margin)
    if offer is not None and offer["from"] == seat and seat == view["turn"]:
        return _as_offerer(view, seat, world, legal)
    return None


def _accepted(world, seat, text):
    from ..zarahemla import GAME
    try:
        GAME.check(world, seat, text)
    except Exception:   # noqa: BLE001 - a refused text simply is not played
        return False
    return True


def _playable(legal):
    return [m for m in legal if m.split()[0] not in TALK]


def _scores(game, world, seat, moves):
    out = []
    for m in moves:
        nxt = after(game, world, seat, m)
        if nxt is not None:
            out.append((value(nxt, seat), m))
    return out


# --- the levels ---------------------------------------------------------------------------

def greedy_move(game, view, seat, legal, rng, budget=None):
    """One move ahead with :func:`value` on a world sampled from the view."""
    world = zarahemla_world(view, seat, rng)
    move = _special(view, seat, world, legal, rng)
    if move is not None:
        return move
    moves = _playable(legal)
    if not moves:
        return "decline" if "decline" in legal else sorted(legal)[0]
    scored = _scores(game, world, seat, moves)
    if not scored:
        return sorted(moves)[0]
    choice = best(scored, rng)
    if choice == "end" and view["offer"] is None:
        offer = _my_offer(view, seat, world, legal, rng)
        if offer is not None:
            return offer
    return choice


class _AfterTrade:
    """The strong level's second move: after a bank trade, a development card played, a
    road or a card bought, the building (or card) it lets the seat pay for this turn."""

    def __call__(self, move):
        return move.startswith(FOLLOW_AFTER)

    @staticmethod
    def seconds(game, state, seat):
        if state["result"] is not None or state["turn"] != seat or \
                game.to_act(state)[:1] != [seat]:
            return []
        return [m for m in game.legal_moves(state, seat) if m.split()[0] in BUILDS]


def strong_move(game, view, seat, legal, rng, budget=None):
    """Search over sampled worlds with a relative value (see the module docstring)."""
    budget = Budget(budget)
    worlds = [zarahemla_world(view, seat, rng) for _ in range(WORLDS)]
    move = _special(view, seat, worlds[0], legal, rng, STRONG_MARGIN)
    if move is not None:
        return move
    moves = _playable(legal)
    if not moves:
        return "decline" if "decline" in legal else sorted(legal)[0]
    if len(moves) == 1:
        return moves[0]
    choice, _ = sampled_search(game, worlds, seat, moves, RELATIVE, rng, budget,
                               follow=_AfterTrade())
    if choice is None:
        return sorted(moves)[0]
    if choice == "end" and view["offer"] is None:
        offer = _my_offer(view, seat, worlds[0], legal, rng)
        if offer is not None:
            return offer
    return choice


#: the strong level accepts a trade only when it raises its hand's value by more than this
#: (an offer helps the offerer: the strong level wants the trade to pay for a building)
STRONG_MARGIN = 1.0

#: the strong level's leaf value: the seat's value less the best opponent's
RELATIVE = zero_sum(value)


LEVELS = {"greedy": greedy_move, "strong": strong_move}

__all__ = ["LEVELS", "confirms", "greedy_move", "strong_move", "value", "production", "hand_value"]
