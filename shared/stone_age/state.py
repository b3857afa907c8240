"""Set-up and the small helpers every rule uses (points, hands, occupancy).

A state is plain JSON data.  Per-seat lists of cards are ordered like
``board.RESOURCES`` (meat, bone, flint, hide); per-seat track levels like
``TRACKS`` (food, hunting, construction, clothing).
"""

from ..base import FIRST_RULES_VERSION, rules_version_of, set_rules_version
from ..bundles import has, transfer  # noqa: F401 - has: for the rules
from ..events import add_event, make_event
from ..rng import Rng
from . import board
from .notation import RES, SEAT_ORDER, TRACKS

CARDS_PER_KIND = 20
WIN_POINTS = 10
MAX_TRIBES = 5
MAX_NOMADS = 2
HAND_LIMIT = 7

#: cost of each step 1..5 of each track, as (meat, bone, flint, hide)
TRACK_COSTS = {
    "food": ((0, 1, 0, 0), (0, 1, 0, 0), (1, 1, 0, 0), (1, 2, 0, 0), (2, 2, 0, 0)),
    "hunting": ((0, 0, 1, 0), (0, 0, 1, 0), (1, 0, 1, 0), (1, 0, 2, 0), (2, 0, 2, 0)),
    "construction": ((0, 0, 1, 0), (0, 0, 1, 0), (0, 1, 1, 0), (0, 1, 2, 0), (0, 2, 2, 0)),
    "clothing": ((0, 0, 0, 1), (0, 0, 0, 1), (0, 1, 0, 1), (0, 1, 0, 2), (0, 2, 0, 2)),
}
TRACK_TITLES = {"food": "Food", "hunting": "Hunting & Combat",
                "construction": "Construction", "clothing": "Clothing"}
ART = {"food": "Venus figurine", "hunting": "Cave painting", "construction": "Megalith",
       "clothing": "Jewellery"}
NOMAD_COST = (1, 0, 0, 1)
TRIBE_COST = (0, 1, 1, 1)


def cost_text(bundle):
    """A cost written as cards are in the notation: ``1meat+2bone``."""
    return "+".join(f"{n}{r}" for r, n in zip(RES, bundle) if n)


def costs_lines():
    """The costs of everything a player pays for, as lines for help texts (the book's
    overview tile: RULES.md "Progress tracks")."""
    lines = ["Costs:",
             f"  nomad {cost_text(NOMAD_COST)}   tribe {cost_text(TRIBE_COST)}   "
             "move 1meat: 2 + Food crossings",
             "  step  " + "".join(f"{t:<14}" for t in TRACKS).rstrip()]
    for i in range(5):
        row = "".join(f"{cost_text(TRACK_COSTS[t][i]):<14}" for t in TRACKS).rstrip()
        lines.append(f"  {i + 1}     {row}" + ("  (first only)" if i == 4 else ""))
    return lines


def is_v1(state):
    """Whether ``state`` is played under rules version 1 (before the book-faithful fixes)."""
    return rules_version_of(state) == FIRST_RULES_VERSION


def before_version(state, version):
    """Whether ``state`` is played under a rules version older than ``version``."""
    return int(rules_version_of(state)) < version


def fresh_turn(state):
    """The per-turn bookkeeping at the start of a turn.

    Version 1 keeps one pool of paid crossings shared by both nomads (``steps``); from
    version 2 on the crossings paid for belong to the nomad they were paid for
    (``paid``: {crossing the nomad stands on, as text: crossings left}; RULES.md note 4).
    Versions 1 and 2 also kept the open trade offer here (``offer``); from version 3 on it
    is ``state["offer"]``, where ``shared.trade`` keeps it in every trading game.
    """
    if is_v1(state):
        return {"developing": False, "steps": 0, "offer": None}
    if rules_version_of(state) == "2":
        return {"developing": False, "paid": {}, "offer": None}
    return {"developing": False, "paid": {}}


def cards(bundle):
    """A bundle as fields: {"meat": 1, ...} with every resource (zeros included).

    ``shared.bundles.fields`` with RES, written out: every production event makes one per
    seat (a new dict every time: facts are part of the state, never shared).
    """
    meat, bone, flint, hide = bundle
    return {"meat": meat, "bone": bone, "flint": flint, "hide": hide}


def new_state(seats, options, seed, version=FIRST_RULES_VERSION):
    """The state before the first move (see :meth:`StoneAgeGame.new_game`)."""
    n = len(seats)
    state = {
        "seed": seed.hex(),
        "ply": 0, "events": [], "seats": list(seats), "options": dict(options),
        "phase": "roll", "current": seats[0], "first": seats[0], "place_order": [],
        "hands": {s: [0, 1, 0, 1] for s in seats},
        "supply": [CARDS_PER_KIND, CARDS_PER_KIND - n, CARDS_PER_KIND, CARDS_PER_KIND - n],
        "tribes": {s: [] for s in seats}, "nomads": {s: [] for s in seats},
        "chips": {str(x): p for x, p in sorted(board.PEOPLE_CHIPS.items())
                  if n == 4 or x in board.MARKED_3P},
        "people": {s: [0, 0, 0, 0] for s in seats},
        "tracks": {s: [0, 0, 0, 0] for s in seats},
        "art": {t: None for t in TRACKS},
        "boxes": {k: None for k in board.BOXES},
        "pools": {k: dict(v) for k, v in board.CHIP_POOLS.items()},
        "taken": {s: [] for s in seats},
        "deserts": [], "figures": dict(board.FIGURE_START),
        "adaptation": {p: None for p in board.PEOPLES},
        "exploration": None, "spread": None, "spread2": None,
        "dice": None, "discards": {}, "pending": [],
        "turn": None,
        "result": None,
    }
    set_rules_version(state, version)
    state["turn"] = fresh_turn(state)
    if str(version) not in ("1", "2"):
        state["offer"] = None               # shared.trade's place for the open offer
    if options.get("setup") == "advanced":
        rng = Rng(seed, b"setup")
        contenders, first = list(seats), None
        while first is None:
            dice = {s: [rng.die(6), rng.die(6)] for s in contenders}
            rolls = {s: sum(d) for s, d in dice.items()}
            add_event(state, "set-up roll: " + ", ".join(
                f"{s} {rolls[s]}" for s in contenders), kind="setup_roll",
                data={"rolls": {s: {"dice": dice[s], "total": rolls[s]} for s in contenders}})
            top = max(rolls.values())
            contenders = [s for s in contenders if rolls[s] == top]
            if len(contenders) == 1:
                first = contenders[0]
        i = seats.index(first)
        order = seats[i:] + seats[:i]
        state["place_order"] = order + order[::-1] + order
        state["phase"] = "place"
        state["first"] = state["current"] = first
        if int(version) < 4:
            add_event(state, f"{first} rolled highest and places first",
                      kind="first_player",
                      data={"seat": first, "place_order": list(state["place_order"])})
        else:
            # "Whoever rolls highest begins and places one of their tribes": the placing;
            # "The youngest player begins" still gives the first turn (RULES.md note 18)
            state["first"] = seats[0]
            add_event(state, f"{first} rolled highest and places first; {seats[0]}, the "
                      "youngest, takes the first turn", kind="first_player",
                      data={"seat": first, "place_order": list(state["place_order"]),
                            "turn": seats[0]})
    else:
        for s in seats:
            lay = board.FIXED_LAYOUT[s]
            state["tribes"][s] = list(lay["tribes"])
            state["nomads"][s] = [lay["nomad"]]
        add_event(state, f"the tribes stand in Africa; {seats[0]} begins",
                  kind="layout", data={"first": seats[0],
                                       "tribes": {s: list(state["tribes"][s])
                                                  for s in seats},
                                       "nomads": {s: list(state["nomads"][s])
                                                  for s in seats}})
    return state


def seats_of(n):
    """The seat ids for ``n`` players."""
    return list(SEAT_ORDER[:n])


def points(state, seat):
    """Public victory points of ``seat``."""
    vp = sum(state["people"][seat])
    vp += [*state["art"].values(), *state["adaptation"].values()].count(seat)
    if state["exploration"] == seat:
        vp += 2
    if state["spread"] == seat:
        vp += 2
    return vp


def occupied(state):
    """The set of crossings with a tribe or a nomad on them."""
    seats, tribes, nomads = state["seats"], state["tribes"], state["nomads"]
    return set().union(*[tribes[s] for s in seats], *[nomads[s] for s in seats])


def pay(state, seat, bundle):
    """Move ``bundle`` from a hand to the supply (the caller checked it is held)."""
    transfer(state["hands"][seat], state["supply"], bundle)


def steps_per_meat(state, seat):
    """Crossings one Meat buys: 2 plus the Food level."""
    return 2 + state["tracks"][seat][0]


def can_cross(state, seat, a, b):
    """Whether ``seat``'s nomads may use the path a-b (its condition box, if any)."""
    world = board.map_of(state)
    letter = world.box_on.get((a, b))
    if letter is None:
        return True
    _, _, clothing, construction, _ = world.boxes[letter]
    tr = state["tracks"][seat]
    return tr[3] >= clothing and tr[2] >= construction


def next_seat(state, seat):
    seats = state["seats"]
    return seats[(seats.index(seat) + 1) % len(seats)]


def desert_options(state, terrain):
    return [h for h in board.DESERT_HEXES
            if board.HEXES[h]["terrain"] == terrain and h not in state["deserts"]]


def free_chips(state):
    nomads = {x for s in state["seats"] for x in state["nomads"][s]}
    return [int(k) for k in state["chips"] if int(k) not in nomads]


assert RES == ("meat", "bone", "flint", "hide"), "cards spells them out"

# the event builder this module offered before shared.events (kept for old callers)
event = make_event
