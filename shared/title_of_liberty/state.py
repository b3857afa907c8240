"""Game state: set-up, army bookkeeping and the cycle of turns and rounds.

A state is plain JSON data.  Its shape (see RULES.md for the rules behind it)::

    {"seed", "ply", "events", "options", "seats",
     "round": 1.., "turn": seat whose turn it is, "phase": "start"|"battle"|"over",
     "givers": [seats who may still give supplies to the army whose turn it is],
     "armies": {seat: army}, "cities": {city: city}, "fields": {space: battle left},
     "empty_food": {space: seat standing on it who took its food},
     "battle": None or the battle being fought, "king_killed": bool,
     "required": cities to retake, "killed": {Lamanite type: n}, "result": None|dict}

Rules version 2 (see RULES.md, "Rules versions") adds ``"rules_version": "2"``,
``"box"`` ({"food", "weapons", "gold"}: what the box still holds; gold counts a silver
coin as 5), ``"boat"`` (the port where the one Nephite boat lies), ``"bare"`` (food
spaces whose token could not be replaced because the box was empty) and, in every city,
``"stocked"`` (its items were placed from the box at its first attack) and ``"wine"``
(the sectors where the drugged wine was offered).  Version-1 states keep their old shape.
"""

from ..base import FIRST_RULES_VERSION, rules_version_of, set_rules_version
from ..events import add_event
from .board import CITIES, FOOD_SPACES, KIND, NEAR_CITY, START
from .notation import NEPHITE_TYPES, SECTORS, plural

ARMY_TROOPS = {"captain": 1, "scout": 2, "infantry": 14, "archer": 8, "slinger": 5}
START_FOOD = 5
FIELD_LAMANITES = {"captain": 1, "infantry": 11, "archer": 4}
FIELD_ITEMS = {"food": 5, "weapons": 2, "gold": 2}
CITY_ITEMS = {"palace": ("gold", 5), "armory": ("weapons", 5), "market": ("food", 5)}
TOWER = {"archer": 1}
GATE = {"archer": 1, "infantry": 1}
TEMPLE_LOWER = {"infantry": 3}
#: the Lamanite army's tokens (the pool, shown for reference; never exhausted)
LAMANITE_POOL = {"king": 1, "city captain": 5, "battle captain": 10,
                 "infantry": 120, "archer": 50}
SECTIONS = ("live", "wounded", "dead", "unarmed")

#: what the box holds (rules version 2): "50 food tokens, 50 weapon tokens, 30 Gold coins,
#: 15 Silver coins"; money is counted in gold, a silver coin worth 5 (RULES.md choice 6)
BOX = {"food": 50, "weapons": 50, "gold": 30 + 15 * 5}
#: where the one Nephite boat lies at the start (every army starts at Bountiful)
BOAT_START = START

#: difficulty levels (rules version 2, option ``difficulty``): "book" is the rulebook;
#: the others add Lamanite soldiers to every battle and city, shorten the war and shrink
#: the box (RULES.md, "Difficulty").
DIFFICULTY = {
    "book": {"rounds": 12, "field": FIELD_LAMANITES, "gate": GATE, "tower": TOWER,
             "temple_lower": TEMPLE_LOWER, "box": BOX},
    "hard": {"rounds": 8, "field": {"captain": 1, "infantry": 15, "archer": 6},
             "gate": {"archer": 2, "infantry": 4}, "tower": {"archer": 2},
             # against a lone army: one archer a tower and 8 temple infantry
             "alone": {"tower": {"archer": 1}, "temple_lower": {"infantry": 8}},
             "temple_lower": {"infantry": 10},
             "box": {"food": 35, "weapons": 35, "gold": 70}},
}


def is_v1(state):
    """True for states played under rules version 1 (the rules before the book fixes)."""
    return rules_version_of(state) == FIRST_RULES_VERSION


def since(state, version):
    """True for states played under rules ``version`` or a later one ("3": the book's last
    mile, RULES.md "Rules versions")."""
    return int(rules_version_of(state)) >= int(version)


def level(state):
    """The difficulty parameters of a version-2 state (version 1 is always the book's)."""
    return params_for(state["options"].get("difficulty", "book"), len(state["seats"]))


def params_for(difficulty, n_seats):
    """The parameters of ``difficulty`` for a team of ``n_seats`` armies."""
    params = DIFFICULTY[difficulty]
    if n_seats == 1 and "alone" in params:
        params = dict(params, **params["alone"])
    return params


def tower(state):
    return dict(level(state)["tower"])


def gate(state):
    return dict(level(state)["gate"])


def temple_lower(state):
    return dict(level(state)["temple_lower"])


def field_lamanites(state):
    return dict(level(state)["field"])


def from_box(state, item, n):
    """Take up to ``n`` of ``item`` out of the box (version 2; mutates); returns how many.

    Version-1 piles never run out, so there it always returns ``n``.
    """
    if is_v1(state):
        return n
    got = min(n, state["box"][item])
    state["box"][item] -= got
    return got


def to_box(state, item, n):
    """Return ``n`` of ``item`` to the box (paid food, weapons and money; version 2)."""
    if not is_v1(state) and n:
        state["box"][item] += n


def zero():
    """{type: 0} for every Nephite troop type."""
    return {t: 0 for t in NEPHITE_TYPES}


def new_army():
    """An army at Bountiful with its starting troops and food."""
    return {"at": START, "alive": True, "fate": None,
            "live": dict(ARMY_TROOPS), "wounded": zero(), "dead": zero(),
            "unarmed": zero(), "bought": zero(), "captives": {},
            "food": START_FOOD, "weapons": 0, "gold": 0, "flags": [], "sectors": []}


def new_city(name, params=None):
    """A captured city with its full complement of soldiers and items.

    ``params``: the difficulty level (version 2), whose cities start with no items: they
    are placed from the box when the city is first attacked (``stock_city``).
    """
    upper = {"king": 1} if name == "morianton" else {"captain": 1}
    p = params or DIFFICULTY["book"]
    city = {"sectors": {s: {"tower": dict(p["tower"]), "gate": dict(p["gate"]),
                            "taken_by": None} for s in SECTORS},
            "temple": {"lower": dict(p["temple_lower"]), "upper": upper, "cleared": False},
            "temple_wounded": {"lower": {}, "upper": {}},
            "gold": 5, "weapons": 5, "food": 5,
            "stockade": {}, "liberated_by": None, "attacks": 0}
    if params is not None:
        city.update({"gold": 0, "weapons": 0, "food": 0, "stocked": False, "wine": []})
    return city


def stock_city(state, name):
    """Version 2: place the city's items from the box before its first attack (mutates).

    "each city attacked during the game must be given a full complement of items ... before
    Nephite forces begin an attack on it"; "City items are not renewed".
    """
    city = state["cities"][name]
    if is_v1(state) or city["stocked"]:
        return None
    city["stocked"] = True
    placed = {}
    for item, n in CITY_ITEMS.values():
        city[item] = from_box(state, item, n)
        placed[item] = city[item]
    return placed


def required_cities(options, n_seats, version=FIRST_RULES_VERSION):
    """How many cities must be retaken.

    Version 1: 6, or n+1 with ``short_game`` (RULES.md note 11).  Version 2: the book's
    "For each army not used, one City fewer is needed to be retaken" (n+1), or 6 with
    ``cities=all``.
    """
    if version == FIRST_RULES_VERSION:
        short = options.get("short_game")
    else:
        short = options.get("cities", "book") == "book"
    if short:
        return min(len(CITIES), n_seats + 1)
    return len(CITIES)


def new_state(seats, options, seed, version=FIRST_RULES_VERSION):
    """The state at the start of the game: every army at Bountiful, moroni first.

    ``seed``: bytes (``shared.seats.seed_bytes``)."""
    v1 = version == FIRST_RULES_VERSION
    params = None if v1 else params_for(options.get("difficulty", "book"), len(seats))
    state = {
        "game": "title_of_liberty", "seed": seed.hex(), "ply": 0, "events": [],
        "options": dict(options), "seats": list(seats),
        "round": 1, "turn": seats[0], "phase": "start", "givers": [],
        "armies": {s: new_army() for s in seats},
        "cities": {c: new_city(c, params) for c in CITIES},
        "fields": {}, "empty_food": {}, "battle": None, "king_killed": False,
        "required": required_cities(options, len(seats), version),
        "killed": {}, "result": None,
    }
    set_rules_version(state, version)
    if not v1:
        # the armies' food and the village and town tokens come out of the box
        state["box"] = dict(params["box"])
        state["bare"] = []
        for seat in seats:
            state["armies"][seat]["food"] = from_box(state, "food", START_FOOD)
        for space in sorted(FOOD_SPACES):
            if not from_box(state, "food", 1):
                state["bare"].append(space)
        state["boat"] = BOAT_START
    begin_turn(state, seats[0])
    state["events"] = []
    add_event(state, f"The war begins: {len(seats)} "
              f"{'army marches' if len(seats) == 1 else 'armies march'} from "
              f"Bountiful; {state['options']['rounds']} rounds to retake "
              f"{state['required']} cities and kill Amalickiah.",
              kind="setup", data=None if v1 else {
                  "armies": list(seats), "rounds": state["options"]["rounds"],
                  "required": state["required"], "box": dict(state["box"]),
                  "boat": state["boat"], "difficulty": state["options"]["difficulty"]})
    return state


def box_total(state, item):
    """Version 2: every token of ``item`` wherever it is (armies, board, box); constant."""
    n = state["box"][item]
    n += sum(a[item] for a in state["armies"].values())
    n += sum(c[item] for c in state["cities"].values())
    n += sum(f[item] for f in state["fields"].values())
    if item == "food":
        n += sum(1 for s in FOOD_SPACES
                 if s not in state["empty_food"] and s not in state["bare"])
    return n


def add(counts, kind, n=1):
    """Add ``n`` to ``counts[kind]`` (dropping zero entries of sparse dicts)."""
    value = counts.get(kind, 0) + n
    if value:
        counts[kind] = value
    else:
        counts.pop(kind, None)


def total(counts):
    return sum(counts.values())


def army_total(state, seat):
    """{type: n} of every soldier the army has ever had (start troops + bought)."""
    army = state["armies"][seat]
    return {t: ARMY_TROOPS.get(t, 0) + army["bought"][t] for t in NEPHITE_TYPES}


def army_accounted(state, seat):
    """{type: n} counted over live, wounded, dead, unarmed and every Stockade."""
    army = state["armies"][seat]
    out = zero()
    for section in SECTIONS:
        for t, n in army[section].items():
            out[t] += n
    for city in state["cities"].values():
        for t, n in city["stockade"].get(seat, {}).items():
            out[t] += n
    for t, n in led_off(state).get(seat, {}).items():
        out[t] += n
    return out


def led_off(state):
    """Version 3: {army: {type: n}} of Nephites captured in the attack being fought; the
    Lamanites take them to a Stockade when it ends (``hold_captives``)."""
    battle = state.get("battle")
    return (battle or {}).get("captives") or {}


def holding_city(state, site):
    """The city whose Stockade takes Nephite captives from a battle at ``site``: the city
    itself or the battlefield's nearest city, else the next whose Stockade is not taken."""
    first = site if KIND[site] == "city" else NEAR_CITY[site]
    i = CITIES.index(first)
    for city in CITIES[i:] + CITIES[:i]:
        if not state["cities"][city]["sectors"]["stockade"]["taken_by"]:
            return city
    return None


def hold_captives(state):
    """Version 3, step 10 of the book's order (after step 8 frees the Stockade): the Nephites
    captured in this attack go to the Stockade of ``holding_city`` (mutates)."""
    battle = state.get("battle")
    pending = (battle or {}).get("captives")
    if not pending:
        return
    city = holding_city(state, battle["site"])
    battle["captives"] = {}
    for seat, counts in sorted(pending.items()):
        army = state["armies"][seat]
        for t, n in counts.items():
            if city is None:  # RULES.md note 13: no Stockade left to hold them
                army["dead"][t] += n
            else:
                add(state["cities"][city]["stockade"].setdefault(seat, {}), t, n)
    told = "; ".join(f"{seat} {', '.join(f'{n} {plural(t, n)}' for t, n in c.items())}"
                     for seat, c in sorted(pending.items()))
    where = (f"to the Stockade of {city.capitalize()}" if city
             else "to their death: no Stockade is left to hold them")
    add_event(state, f"The Lamanites lead their captives ({told}) {where}.",
              kind="captives_held", data={"site": battle["site"], "held_in": city,
                                          "captives": {s: dict(c) for s, c in
                                                       sorted(pending.items())}})


def captive_counts(state, seat):
    """{type: n} of ``seat``'s soldiers held in Lamanite Stockades (all cities)."""
    out = {}
    for city in state["cities"].values():
        for t, n in city["stockade"].get(seat, {}).items():
            add(out, t, n)
    for t, n in led_off(state).get(seat, {}).items():
        add(out, t, n)
    return out


def captive_count(state, seat):
    """How many of ``seat``'s soldiers sit in Lamanite Stockades."""
    return (sum(total(c["stockade"].get(seat, {})) for c in state["cities"].values())
            + total(led_off(state).get(seat, {})))


def has_supplies(army):
    return army["alive"] and (army["food"] > 0 or army["gold"] > 0 or army["weapons"] > 0)


def begin_turn(state, seat):
    """Start ``seat``'s turn: wounded return to LIVE (step 3), gifts open (step 1)."""
    army = state["armies"][seat]
    state["turn"] = seat
    state["phase"] = "start"
    state["battle"] = None
    back = total(army["wounded"])
    for t, n in army["wounded"].items():
        army["live"][t] += n
    army["wounded"] = zero()
    state["givers"] = [s for s in state["seats"]
                       if s != seat and has_supplies(state["armies"][s])]
    if back:
        add_event(state, f"{seat}: {back} wounded return to the ranks.", kind="wounded_return",
                  data={"army": seat, "returned": back})
    if not is_v1(state):
        add_event(state, f"Round {state['round']}: the turn of {seat}.", kind="turn",
                  data={"army": seat, "round": state["round"],
                        "rounds": state["options"]["rounds"]})


def refill(state, space):
    """The army that took ``space``'s food token leaves: a new token is placed (mutates).

    Version 2 takes it from the box; with the box empty the space stays bare until
    ``refill_bare`` finds food in the box (RULES.md note 30).
    """
    state["empty_food"].pop(space, None)
    if not from_box(state, "food", 1):
        state["bare"].append(space)
        state["bare"].sort()


def refill_bare(state):
    """Version 2, at the end of every turn: bare villages and towns get a token again,
    in map order, while the box has food (mutates)."""
    for space in list(state["bare"]):
        if not from_box(state, "food", 1):
            break
        state["bare"].remove(space)


#: Why an army was lost, as a field: each fate text ``lose_army`` is
#: given, and its code (``lost`` in the view and in the ``army_lost`` facts).
LOST_CODES = {"it starved": "starved", "its captain was killed": "captain_killed",
              "its captain was captured": "captain_captured"}


def lost_code(fate):
    """The code of an army's fate text (None while it lives)."""
    return LOST_CODES.get(fate) if fate else None


def over_code(result):
    """Why the game ended, as a field (``why`` in the view's result and the ``game_over``
    facts): ``won``, ``time`` (the round budget is spent), ``no_army`` or ``conceded``
    (a seat's concession or the wall-clock deadline).  Derived from the reason text
    ``finish`` was given, so stored states (and golden games) are unchanged."""
    reason = result.get("reason") or ""
    if result.get("outcome") == "nephites":
        return "won"
    if reason.endswith(" rounds are spent."):
        return "time"
    if reason == "no Nephite army is left.":
        return "no_army"
    if " conceded" in reason:
        return "conceded"
    raise ValueError(f"unknown end of game: {reason!r}")


def alive_seats(state):
    return [s for s in state["seats"] if state["armies"][s]["alive"]]


def finish(state, outcome, reason):
    """End the game: the Nephites (every seat) win or the Lamanites do."""
    hold_captives(state)  # version 3: captives of an attack ended by the war's end
    state["phase"] = "over"
    state["givers"] = []
    state["battle"] = None
    winners = list(state["seats"]) if outcome == "nephites" else []
    state["result"] = {"winners": winners, "outcome": outcome, "reason": reason,
                       "cities": liberated(state), "king_killed": state["king_killed"],
                       "round": state["round"]}
    add_event(state, ("The Nephites win: " if winners else "The Lamanites win: ") + reason,
              kind="game_over", data={"outcome": outcome, "reason": reason,
                                      "cities": list(state["result"]["cities"]),
                                      "king_killed": state["king_killed"],
                                      "round": state["round"]})


def liberated(state):
    return [c for c in CITIES if state["cities"][c]["liberated_by"]]


def check_win(state):
    """Win when enough cities (Morianton among them) are retaken and Amalickiah is dead."""
    done = liberated(state)
    if (state["king_killed"] and "morianton" in done
            and len(done) >= state["required"]):
        finish(state, "nephites", f"{len(done)} cities retaken and Amalickiah is dead.")
        return True
    return False


def lose_army(state, seat, fate):
    """Take an army from the game (starved, or its captain killed or captured)."""
    army = state["armies"][seat]
    army["alive"] = False
    army["fate"] = fate
    for space, who in list(state["empty_food"].items()):
        if who == seat:
            refill(state, space)
    if seat in state["givers"]:
        state["givers"].remove(seat)
    returned = {}
    if not is_v1(state):
        # RULES.md note 29: a lost army's supplies go back to the box
        for item in ("food", "weapons", "gold"):
            returned[item] = army[item]
            to_box(state, item, army[item])
            army[item] = 0
    add_event(state, f"The army of {seat} is lost: {fate}.", kind="army_lost",
              data={"army": seat, "fate": fate, "to_box": returned})


def end_turn(state):
    """Pass the turn to the next living army; count rounds; detect the end of the war."""
    if state["phase"] == "over":
        return
    if not is_v1(state):
        refill_bare(state)
    seats = state["seats"]
    alive = alive_seats(state)
    if not alive:
        finish(state, "lamanites", "no Nephite army is left.")
        return
    i = seats.index(state["turn"])
    order = seats[i + 1:] + seats[:i + 1]
    nxt = next(s for s in order if state["armies"][s]["alive"])
    if seats.index(nxt) <= i:
        state["round"] += 1
        if state["round"] > state["options"]["rounds"]:
            state["round"] = state["options"]["rounds"]
            finish(state, "lamanites",
                   f"the {state['options']['rounds']} rounds are spent.")
            return
    begin_turn(state, nxt)
