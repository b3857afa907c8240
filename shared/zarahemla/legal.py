"""Legal-move generation and the timeout policy.

``legal_texts`` lists every move a seat may play now, as canonical text.
Open-ended moves are listed by a finite representative subset (RULES.md,
"Listed moves"): 1-for-1 offers to everyone and 1-for-1 counters, bank
trades for one card, a few discards; any other well-formed trade or discard
is still accepted by ``play``.
"""

from ..rng import Rng
from ..trade import terms
from .board import (
    CORNER_EDGES,
    CORNER_HEXES,
    CORNER_NEIGHBOURS,
    EDGE_NAMES,
    EDGES,
    HEX_NAMES,
    HIDEOUT,
    N_CORNERS,
    N_HEXES,
    RESOURCES,
)
from .build import placeable_roads
from .notation import bundle_notation
from .state import (
    PIECES,
    W_HARVEST,
    W_LIAHONA,
    W_PROSPERITY,
    W_ROADS,
    W_TEMPLES,
    W_WARRIOR,
    has,
    post_rates,
)
from .turn import before_version, robber_victims, start_bundle

ROAD_TEXT = tuple("road " + n for n in EDGE_NAMES)
SETTLE_TEXT = tuple(f"settle {c + 1}" for c in range(N_CORNERS))
CITY_TEXT = tuple(f"city {c + 1}" for c in range(N_CORNERS))
START_TEXT = tuple(f"start {c + 1}" for c in range(N_CORNERS))
ROBBER_TEXT = tuple(f"robber {h}" for h in HEX_NAMES)
OFFER_TEXT = {(x, y): f"offer 1{RESOURCES[x]} for 1{RESOURCES[y]}"
              for x in range(5) for y in range(5) if x != y}
OFFERS_FROM = tuple(tuple(OFFER_TEXT[(x, y)] for y in range(5) if y != x) for x in range(5))
COUNTER_TEXT = {(x, y): f"counter 1{RESOURCES[x]} for 1{RESOURCES[y]}"
                for x in range(5) for y in range(5) if x != y}
BANK_TEXT = {(rate, x, y): f"bank {rate}{RESOURCES[x]} for 1{RESOURCES[y]}"
             for rate in (2, 3, 4) for x in range(5) for y in range(5) if x != y}
#: the bank trades of (rate, x) when the bank holds every resource (the usual case)
BANK_ROW = {(rate, x): tuple(BANK_TEXT[(rate, x, y)] for y in range(5) if y != x)
            for rate in (2, 3, 4) for x in range(5)}
#: COUNTER_ROW[x][mask]: the 1-for-1 counters giving x for each resource in bitmask ``mask``
COUNTER_ROW = tuple(tuple(tuple(COUNTER_TEXT[(x, y)] for y in range(5)
                                if y != x and mask >> y & 1)
                          for mask in range(32)) for x in range(5))


def _mask(bundle):
    """The resources ``bundle`` holds, as a bitmask (bit r set when it has some of r)."""
    return (bundle[0] > 0) | (bundle[1] > 0) << 1 | (bundle[2] > 0) << 2 | \
        (bundle[3] > 0) << 3 | (bundle[4] > 0) << 4


#: OFFERS[held][...]: the 1-for-1 offers of a hand holding the resources in bitmask ``held``
OFFERS = tuple(tuple(t for x in range(5) if held >> x & 1 for t in OFFERS_FROM[x])
               for held in range(32))
#: COUNTERS[held][mask]: the 1-for-1 counters of a hand holding ``held``, asking for the
#: resources in ``mask`` (both bitmasks), x then y ascending as COUNTER_ROW lists them
COUNTERS = tuple(tuple(tuple(t for x in range(5) if held >> x & 1 for t in COUNTER_ROW[x][mask])
                       for mask in range(32)) for held in range(32))
LIAHONA_TEXT = tuple(f"play liahona {n}" for n in range(2, 13))
PROSPERITY_TEXT = tuple("play prosperity " + r for r in RESOURCES)


def _harvest_texts(bank):
    want = min(2, sum(bank))
    if want == 0:
        return ["play harvest"]
    out = []
    for a in range(5):
        if not bank[a]:
            continue
        if want == 1:
            out.append("play harvest 1" + RESOURCES[a])
            continue
        if bank[a] >= 2:
            out.append("play harvest 2" + RESOURCES[a])
        for b in range(a + 1, 5):
            if bank[b]:
                out.append(f"play harvest 1{RESOURCES[a]}+1{RESOURCES[b]}")
    return out


def setup_settle_spots(st):
    owner, numbers = st["owner"], st["numbers"]
    out = []
    for c in range(N_CORNERS):
        if owner[c] is None and all(owner[n] is None for n in CORNER_NEIGHBOURS[c]) and \
                any(numbers[h] for h in CORNER_HEXES[c]):
            out.append(c)
    return out


def settle_spots(st, seat):
    owner, roads = st["owner"], st["roads"]
    out = []
    seen = set()
    for e, s in enumerate(roads):
        if s != seat:
            continue
        for c in EDGES[e]:
            if c in seen:
                continue
            seen.add(c)
            if owner[c] is None and all(owner[n] is None for n in CORNER_NEIGHBOURS[c]):
                out.append(c)
    return out


def discard_options(hand, n):
    """A few representative ways to discard ``n`` cards from ``hand``."""
    opts = []
    for first in range(5):
        if not hand[first]:
            continue
        b = [0] * 5
        rem = list(hand)
        take = min(rem[first], n)
        b[first] = take
        rem[first] -= take
        left = n - take
        while left:
            r = max(range(5), key=rem.__getitem__)
            b[r] += 1
            rem[r] -= 1
            left -= 1
        t = tuple(b)
        if t not in opts:
            opts.append(t)
    return ["discard " + bundle_notation(b) for b in opts]


def _card_moves(st, seat, p, out):
    if st["dev_played"]:
        return
    dev, new = p["dev"], p["new"]
    if dev[W_WARRIOR] - new[W_WARRIOR] > 0:
        out.append("play warrior")
    if not st["rolled"] and dev[W_LIAHONA] - new[W_LIAHONA] > 0:
        out.extend(LIAHONA_TEXT)
    if dev[W_HARVEST] - new[W_HARVEST] > 0:
        out.extend(_harvest_texts(st["bank"]))
    if dev[W_ROADS] - new[W_ROADS] > 0 and p["roads"] < PIECES["roads"] and \
            placeable_roads(st, seat):
        out.append("play roads")
    if dev[W_TEMPLES] - new[W_TEMPLES] > 0 and p["stones"] < PIECES["stones"]:
        out.append("play temples")
    if dev[W_PROSPERITY] - new[W_PROSPERITY] > 0:
        out.extend(PROSPERITY_TEXT)


def legal_texts(st, seat):
    """Every move ``seat`` may play now (see the module docstring for trades)."""
    phase = st["phase"]
    if phase == "play":
        return _play_moves(st, seat)
    if phase == "setup":
        if st["setup"][0] != seat:
            return []
        placed = st["placed"]
        if placed is None:
            return [SETTLE_TEXT[c] for c in setup_settle_spots(st)]
        return [ROAD_TEXT[e] for e in CORNER_EDGES[placed] if st["roads"][e] is None]
    if phase == "start":
        if seat not in st["start_owed"]:
            return []
        return [START_TEXT[c] for c in range(N_CORNERS) if st["owner"][c] == seat]
    return []


def _play_moves(st, seat):
    p = st["players"].get(seat)
    if p is None:
        return []
    out = []
    if seat in st["discard"]:
        return discard_options(p["hand"], st["discard"][seat])
    # Zarahemla keeps the open offer where shared.trade's open_offer and owed read it:
    # state["offer"], with its "owed" list (read directly: this is the hottest function)
    offer = st["offer"]
    hand = p["hand"]
    if offer is not None and seat in offer["owed"]:
        if has(hand, offer["get"]):
            out.append("accept")
        out.append("decline")
        row = COUNTERS[_mask(hand)]
        # ask for what the offerer gives; a hand holding only that asks for anything else
        out.extend(row[_mask(offer["give"]) or 31] or row[31])
    if seat != st["turn"] or st["discard"]:
        return out
    if st["robber_due"]:
        for h in range(N_HEXES):
            if h == st["robber"] or st["terrain"][h] == HIDEOUT:
                continue
            out.append(ROBBER_TEXT[h])
            for v in robber_victims(st, seat, h):
                out.append(f"{ROBBER_TEXT[h]} {v}")
        return out
    if st["free_roads"]:
        return [ROAD_TEXT[e] for e in placeable_roads(st, seat)]
    _card_moves(st, seat, p, out)
    if not st["rolled"]:
        out.append("roll")
        if (hand[1] and hand[4] and p["stones"] < PIECES["stones"]
                and not before_version(st, 3)):
            out.append("temple")           # "at anytime during their turn" (version 3 on)
        return out
    out.append("end")
    # the costs of COST, spelled out: this is the hottest loop of random play
    wood, brick, water, wheat, stone = hand
    if wood and brick and p["roads"] < PIECES["roads"]:
        out.extend(ROAD_TEXT[e] for e in placeable_roads(st, seat))
    if wood and brick and water and wheat and p["settlements"] < PIECES["settlements"]:
        out.extend(SETTLE_TEXT[c] for c in settle_spots(st, seat))
    if wheat >= 2 and stone >= 3 and p["cities"] < PIECES["cities"] and p["settlements"]:
        level = st["level"]
        out += [CITY_TEXT[c] for c, o in enumerate(st["owner"]) if o == seat and level[c] == 1]
    if brick and stone and p["stones"] < PIECES["stones"]:
        out.append("temple")
    if water and wheat and stone and sum(st["deck"]):
        out.append("buy")
    if max(hand) >= 2:
        rates = post_rates(st, seat)
        bank = st["bank"]
        full = all(bank)
        for x in range(5):
            rate = rates[x]
            if hand[x] >= rate:
                if full:
                    out.extend(BANK_ROW[(rate, x)])
                    continue
                for y in range(5):
                    if y != x and bank[y]:
                        out.append(BANK_TEXT[(rate, x, y)])
    offers = OFFERS[_mask(hand)]
    if offer is None:
        out.extend(offers)
    else:
        # a new offer replaces the open one (trade.apply_offer): one example is listed
        if offers:
            out.append(offers[0])
        out.append("withdraw")
        for s, answer in offer["answers"].items():
            if answer == "decline":
                continue
            deal = terms(offer, s)
            if deal and has(hand, deal[0]) and has(st["players"][s]["hand"], deal[1]):
                out.append("confirm " + s)
    return out


def timeout_move(st, seat):
    """The move played for a seat that missed its deadline (RULES.md, "Timeouts").

    Only asked for a seat that has a legal move (``shared.base.Game.timeout_move``)."""
    moves = legal_texts(st, seat)
    rng = Rng(st["seed"], b"timeout|%d" % st["ply"])
    phase = st["phase"]
    if phase == "setup":
        return rng.choice(moves)
    if phase == "start":
        owned = [int(m.split()[1]) - 1 for m in moves]
        best = max(owned, key=lambda c: sum(start_bundle(st, c)))
        return START_TEXT[best]
    if seat in st["discard"]:
        b = rng.draw_many(st["players"][seat]["hand"], st["discard"][seat])
        return "discard " + bundle_notation(b)
    if seat != st["turn"]:
        return "decline"
    if st["robber_due"]:
        robbing = [m for m in moves if len(m.split()) == 3]
        return rng.choice(robbing or moves)
    if st["free_roads"]:
        return rng.choice(moves)
    if not st["rolled"]:
        return "roll"
    return "end"


__all__ = ["legal_texts", "timeout_move"]
