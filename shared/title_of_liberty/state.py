"""Game state: set-up, army bookkeeping and the cycle of turns and rounds.

A state is plain JSON data.  Its shape (see RULES.md for the rules behind it)::

    {"seed", "ply", "events", "options", "seats",
     "round": 1.., "turn": seat whose turn it is, "phase": "start"|"battle"|"over",
     "givers": [seats who may still give supplies to the army whose turn it is],
     "armies": {seat: army}, "cities": {city: city}, "fields": {space: battle left},
     "empty_food": {space: seat standing on it who took its food},
     "battle": None or the battle being fought, "king_killed": bool,
     "required": cities to retake, "killed": {Lamanite type: n}, "result": None|dict}
"""

from .board import CITIES, START
from .notation import NEPHITE_TYPES, SECTORS

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


def zero():
    """{type: 0} for every Nephite troop type."""
    return {t: 0 for t in NEPHITE_TYPES}


def new_army():
    """An army at Bountiful with its starting troops and food."""
    return {"at": START, "alive": True, "fate": None,
            "live": dict(ARMY_TROOPS), "wounded": zero(), "dead": zero(),
            "unarmed": zero(), "bought": zero(), "captives": {},
            "food": START_FOOD, "weapons": 0, "gold": 0, "flags": [], "sectors": []}


def new_city(name):
    """A captured city with its full complement of soldiers and items."""
    upper = {"king": 1} if name == "morianton" else {"captain": 1}
    return {"sectors": {s: {"tower": dict(TOWER), "gate": dict(GATE), "taken_by": None}
                        for s in SECTORS},
            "temple": {"lower": dict(TEMPLE_LOWER), "upper": upper, "cleared": False},
            "temple_wounded": {"lower": {}, "upper": {}},
            "gold": 5, "weapons": 5, "food": 5,
            "stockade": {}, "liberated_by": None, "attacks": 0}


def required_cities(options, n_seats):
    """How many cities must be retaken: 6, or n+1 in the short game (RULES.md note 11)."""
    if options.get("short_game"):
        return min(len(CITIES), n_seats + 1)
    return len(CITIES)


def new_state(seats, options, seed):
    """The state at the start of the game: every army at Bountiful, moroni first."""
    if isinstance(seed, str):
        seed = seed.encode()
    state = {
        "game": "title_of_liberty", "seed": seed.hex(), "ply": 0, "events": [],
        "options": dict(options), "seats": list(seats),
        "round": 1, "turn": seats[0], "phase": "start", "givers": [],
        "armies": {s: new_army() for s in seats},
        "cities": {c: new_city(c) for c in CITIES},
        "fields": {}, "empty_food": {}, "battle": None, "king_killed": False,
        "required": required_cities(options, len(seats)),
        "killed": {}, "result": None,
    }
    begin_turn(state, seats[0])
    state["events"] = [{"public": f"The war begins: {len(seats)} "
                        f"{'army marches' if len(seats) == 1 else 'armies march'} from "
                        f"Bountiful; {state['options']['rounds']} rounds to retake "
                        f"{state['required']} cities and kill Amalickiah."}]
    return state


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
    return out


def captive_count(state, seat):
    """How many of ``seat``'s soldiers sit in Lamanite Stockades."""
    return sum(total(c["stockade"].get(seat, {})) for c in state["cities"].values())


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
        state["events"].append({"public": f"{seat}: {back} wounded return to the ranks."})


def alive_seats(state):
    return [s for s in state["seats"] if state["armies"][s]["alive"]]


def finish(state, outcome, reason):
    """End the game: the Nephites (every seat) win or the Lamanites do."""
    state["phase"] = "over"
    state["givers"] = []
    state["battle"] = None
    winners = list(state["seats"]) if outcome == "nephites" else []
    state["result"] = {"winners": winners, "outcome": outcome, "reason": reason,
                       "cities": liberated(state), "king_killed": state["king_killed"],
                       "round": state["round"]}
    state["events"].append({"public": ("The Nephites win: " if winners else
                                       "The Lamanites win: ") + reason})


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
            del state["empty_food"][space]
    if seat in state["givers"]:
        state["givers"].remove(seat)
    state["events"].append({"public": f"The army of {seat} is lost: {fate}."})


def end_turn(state):
    """Pass the turn to the next living army; count rounds; detect the end of the war."""
    if state["phase"] == "over":
        return
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
