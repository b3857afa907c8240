"""Set-up of a Zarahemla state and the small helpers every rule module shares.

A state is plain JSON data.  Per seat (``state["players"][seat]``):

* ``hand``: 5 counts in RESOURCES order (secret: others see the total);
* ``dev``: 7 counts of unplayed development cards in DEV order (secret);
* ``new``: how many of ``dev`` were bought this turn (secret);
* ``warriors`` played, ``stones`` (Temple Stones placed), ``settlements``,
  ``cities`` and ``roads`` on the board, ``road_len`` (longest road, cached).

The board is ``terrain``/``numbers``/``markers`` per hex, ``posts`` (type per
post site), ``robber`` (hex index), ``owner``/``level`` per corner (level 1 =
Settlement, 2 = City) and ``roads`` per path (owning seat or None).
"""

from operator import itemgetter

from ..base import set_rules_version
from ..bundles import has, notation, transfer  # noqa: F401 - has: for the rules
from ..events import make_event
from ..rng import Rng
from .board import EDGES, N_CORNERS, N_EDGES, POST_EDGES, RESOURCES, make_board

SEATS = ("red", "blue", "white", "orange")
LETTER = {"red": "R", "blue": "B", "white": "W", "orange": "O"}

#: development cards, in the order of ``dev`` counts
DEV = ("warrior", "vp", "liahona", "harvest", "roads", "temples", "prosperity")
DEV_TITLES = {
    "warrior": "Stripling Warrior", "vp": "Victory Point", "liahona": "Liahona",
    "harvest": "Bountiful Harvest", "roads": "Road Building", "temples": "Temple Building",
    "prosperity": "Prosperity",
}
DECK = (14, 5, 2, 2, 2, 2, 2)
W_WARRIOR, W_VP, W_LIAHONA, W_HARVEST, W_ROADS, W_TEMPLES, W_PROSPERITY = range(7)

WOOD, BRICK, WATER, WHEAT, STONE = range(5)
COST = {
    "road": (1, 1, 0, 0, 0),
    "settle": (1, 1, 1, 1, 0),
    "city": (0, 0, 0, 2, 3),
    "temple": (0, 1, 0, 0, 1),
    "buy": (0, 0, 1, 1, 1),
}
PIECES = {"settlements": 5, "cities": 4, "roads": 15, "stones": 10}
BANK_PER_RESOURCE = 18
TOTAL_RESOURCES = BANK_PER_RESOURCE * len(RESOURCES)   # 90


def setup_order(order):
    """The placement order: 1..n, n..1 (3-4 seats) or 1, 2, 2, 1, 1, 2 (2 seats)."""
    if len(order) == 2:
        a, b = order
        return [a, b, b, a, a, b]
    return list(order) + list(reversed(order))


def starting_order(seats, rng, rounds=None):
    """(order, log): everyone rolls two dice, highest starts, ties re-roll among the tied.

    Play then proceeds in seat order (clockwise) from the starter.  When ``rounds`` is a
    list, each round's rolls are appended to it as ``{seat: total}``.
    """
    contenders = list(seats)
    log = []
    while True:
        rolls = {s: rng.die(6) + rng.die(6) for s in contenders}
        if rounds is not None:
            rounds.append(rolls)
        log.append(", ".join(f"{s.capitalize()} {rolls[s]}" for s in contenders))
        best = max(rolls.values())
        contenders = [s for s in contenders if rolls[s] == best]
        if len(contenders) == 1:
            break
    first = seats.index(contenders[0])
    return list(seats[first:]) + list(seats[:first]), log


def new_state(seats, options, seed, rules_version="1"):
    """A fresh state (see the module docstring) played under ``rules_version``."""
    seed_hex = seed.hex()
    rng = Rng(seed_hex, b"setup")
    terrain, numbers, markers, posts, robber = make_board(
        options["board"], rng, fixed_posts=int(rules_version) >= 3)
    rounds = []
    order, log = starting_order(list(seats), rng, rounds)
    players = {
        s: {"hand": [0] * 5, "dev": [0] * 7, "new": [0] * 7, "warriors": 0, "stones": 0,
            "settlements": 0, "cities": 0, "roads": 0, "road_len": 0}
        for s in seats
    }
    state = {
        "seed": seed_hex,
        "ply": 0,
        "events": [],
        "seats": list(seats),
        "order": order,
        "options": dict(options),
        "terrain": terrain,
        "numbers": numbers,
        "markers": markers,
        "posts": posts,
        "robber": robber,
        "owner": [None] * N_CORNERS,
        "level": [0] * N_CORNERS,
        "roads": [None] * N_EDGES,
        "bank": [BANK_PER_RESOURCE] * 5,
        "deck": list(DECK),
        "players": players,
        "longest": None,
        "army": None,
        "temple": None,
        "phase": "setup",
        "setup": setup_order(order),
        "placed": None,
        "start_owed": [],
        "turn": order[0],
        "rolled": False,
        "dev_played": False,
        "dice": None,
        "last_roll": None,
        "discard": {},
        "robber_due": False,
        "free_roads": 0,
        "offer": None,
        "result": None,
    }
    set_rules_version(state, rules_version)
    state["events"].append(make_event(
        state, "Starting rolls: " + "; re-roll: ".join(log) + f". {order[0].capitalize()} starts.",
        kind="start_order", data={"rolls": rounds, "order": list(order), "first": order[0]}))
    return state


def public_vp(state, seat):
    """Points everyone can see: buildings and the three special cards."""
    p = state["players"][seat]
    vp = p["settlements"] + 2 * p["cities"]
    for key in ("longest", "army", "temple"):
        if state[key] == seat:
            vp += 2
    return vp


def total_vp(state, seat):
    """Public points plus the seat's hidden Victory Point cards."""
    return public_vp(state, seat) + state["players"][seat]["dev"][W_VP]


def bundle_text(bundle):
    """``(2, 1, 0, 0, 0)`` -> ``"2wood+1brick"``; empty -> ``"nothing"``.

    Every trade, production and discard event writes two or three of these, from a few
    hundred distinct bundles: the texts are remembered (at most 4096 of them).
    """
    key = tuple(bundle)
    text = _BUNDLE_TEXTS.get(key)
    if text is None:
        text = notation(bundle, RESOURCES) or "nothing"
        if len(_BUNDLE_TEXTS) < 4096:
            _BUNDLE_TEXTS[key] = text
    return text


_BUNDLE_TEXTS = {}


def res_dict(bundle):
    """``(2, 1, 0, 0, 0)`` -> ``{"wood": 2, "brick": 1, "water": 0, ...}`` (a fact's bundle).

    ``shared.bundles.fields`` with RESOURCES, written out (a new dict every time: facts are
    part of the state, never shared between events).
    """
    wood, brick, water, wheat, stone = bundle
    return {"wood": wood, "brick": brick, "water": water, "wheat": wheat, "stone": stone}


def pay(state, seat, bundle):
    """Move ``bundle`` from a hand to the bank (the caller checked it is held)."""
    transfer(state["players"][seat]["hand"], state["bank"], bundle)


def take(state, seat, bundle):
    """Move ``bundle`` from the bank to a hand (the caller checked the bank has it)."""
    transfer(state["bank"], state["players"][seat]["hand"], bundle)


def post_rates(state, seat):
    """Best bank rate per resource for ``seat``: 4, 3 with a 3:1 post, 2 with its 2:1 post."""
    owners = _POST_OWNERS(state["owner"])
    if seat not in owners:      # no building at a post
        return _NO_POST
    rates = [4] * 5
    posts = state["posts"]
    j = owners.index(seat)
    while True:                 # each of the seat's buildings at a post (2 corners a post)
        kind = posts[j >> 1]
        if kind == "3:1":
            for r in range(5):
                if rates[r] == 4:
                    rates[r] = 3
        else:
            rates[_RES_INDEX[kind]] = 2
        if seat not in owners[j + 1:]:
            return rates
        j = owners.index(seat, j + 1)


_POST_CORNERS = tuple((i, EDGES[e][0], EDGES[e][1]) for i, e in enumerate(POST_EDGES))
#: owner list -> the owners of the 18 corners at posts: those of post i at 2i and 2i + 1
_POST_OWNERS = itemgetter(*(c for _, a, b in _POST_CORNERS for c in (a, b)))
_RES_INDEX = {r: i for i, r in enumerate(RESOURCES)}
_NO_POST = (4, 4, 4, 4, 4)


#: a seat as the log writes it ("Red"); ``cap`` is a dict lookup (it runs for every event)
cap = {s: s.capitalize() for s in SEATS}.__getitem__
