"""Battles on the three insets: placement, dice, duels, sectors and their rewards.

Everything here works on a state already validated by ``rules``; functions
that mutate say so.  Dice come from the move's ``Rng``.
"""

from ..events import add_event
from .board import KIND
from .notation import SECTORS, plural
from .state import (
    CITY_ITEMS,
    FIELD_ITEMS,
    FIELD_LAMANITES,
    GATE,
    TEMPLE_LOWER,
    TOWER,
    add,
    check_win,
    field_lamanites,
    from_box,
    gate,
    hold_captives,
    holding_city,
    is_v1,
    lose_army,
    since,
    stock_city,
    temple_lower,
    total,
    tower,
)

#: highest roll that is killed, wounded, captured; anything above is fit for duty
CHART = {20: (2, 4, 7), 12: (2, 4, 6), 10: (2, 4, 6), 8: (2, 4, 5)}
DIE_NAME = {20: "blue d20", 12: "purple d12", 10: "green d10", 8: "white d8"}


def fate(sides, roll):
    """The dice chart: "killed", "wounded", "captured" or "fit" for a loser's roll."""
    killed, wounded, captured = CHART[sides]
    if roll <= killed:
        return "killed"
    if roll <= wounded:
        return "wounded"
    if roll <= captured:
        return "captured"
    return "fit"


def advantage(battle):
    """Which side has the Advantage of inset defense: "nephite", "lamanite" or None.

    Version 3: the beach (seashore zone 1) gives it only to an army that came by the boat
    ("Zone 1 - Nephite Advantage (on boat)"); earlier battles carry no ``boat`` and keep it.
    """
    kind, zone = battle["kind"], battle["zone"]
    if kind == "seashore":
        if zone == 1 and not battle.get("boat", True):
            return None
        return {1: "nephite", 2: None, 3: "lamanite"}[zone]
    if kind == "hill":
        return "nephite" if zone == 1 else "lamanite"
    return None


def nephite_die(seat, kind, has_advantage):
    """Dice Entitlements for a Nephite soldier (Helaman's infantry are stronger)."""
    if kind == "captain":
        return 20
    if kind == "scout":
        return 12
    if kind == "infantry":
        if seat == "helaman":
            return 20 if has_advantage else 12
        return 12 if has_advantage else 10
    return 10 if has_advantage else 8


def lamanite_die(kind, has_advantage):
    """Dice Entitlements for a Lamanite: only their infantry gain from the hill."""
    if kind in ("king", "captain"):
        return 12
    if kind == "archer":
        return 10
    return 10 if has_advantage else 8


def duel_dice(state, seat, ntype, on_path, ltype):
    """(Nephite die, Lamanite die) for a duel in the current battle."""
    adv = advantage(state["battle"])
    n_die = nephite_die(seat, ntype, adv == "nephite")
    # a scout-led party on a forest path negates the Lamanite hill advantage
    l_die = lamanite_die(ltype, adv == "lamanite" and not on_path)
    return n_die, l_die


#: who throws which die without and with the Advantage of inset defense ("DICE
#: ENTITLEMENTS"); "helaman infantry" is Helaman's ("SPECIAL NOTE")
NEPHITE_KINDS = ("captain", "scout", "infantry", "archer", "slinger")
LAMANITE_KINDS = ("king", "captain", "infantry", "archer")


def dice_chart():
    """The Dice Numbers Chart as data: every die's results (the loser reads his own roll)
    and which die each soldier throws, without and with the Advantage."""
    dice = []
    for sides in (20, 12, 10, 8):
        killed, wounded, captured = CHART[sides]
        dice.append({"die": DIE_NAME[sides], "sides": sides, "killed": [1, killed],
                     "wounded": [killed + 1, wounded], "captured": [wounded + 1, captured],
                     "fit": [captured + 1, sides]})
    nephite = {k: {"plain": DIE_NAME[nephite_die("moroni", k, False)],
                   "advantage": DIE_NAME[nephite_die("moroni", k, True)]}
               for k in NEPHITE_KINDS}
    nephite["helaman infantry"] = {"plain": DIE_NAME[nephite_die("helaman", "infantry", False)],
                                   "advantage": DIE_NAME[nephite_die("helaman", "infantry",
                                                                     True)]}
    lamanite = {k: {"plain": DIE_NAME[lamanite_die(k, False)],
                    "advantage": DIE_NAME[lamanite_die(k, True)]} for k in LAMANITE_KINDS}
    return {"dice": dice, "nephite": nephite, "lamanite": lamanite, "ties": "roll again"}


def battle_dice(state):
    """The dice thrown now in the battle being fought, by the army whose battle it is:
    {"nephite": {kind: die}, "lamanite": {kind: die}, "lamanite_vs_path": {kind: die}}."""
    battle = state["battle"]
    seat = state["turn"]
    adv = advantage(battle)
    out = {"nephite": {k: DIE_NAME[nephite_die(seat, k, adv == "nephite")]
                       for k in NEPHITE_KINDS},
           "lamanite": {k: DIE_NAME[lamanite_die(k, adv == "lamanite")]
                        for k in LAMANITE_KINDS}}
    if battle["kind"] == "hill" and battle["zone"] == 2:
        out["lamanite_vs_path"] = {k: DIE_NAME[lamanite_die(k, False)] for k in LAMANITE_KINDS}
    return out


def roll_duel(rng, n_die, l_die):
    """Both roll until the rolls differ: (nephite roll, lamanite roll, ties)."""
    ties = 0
    while True:
        a, b = rng.die(n_die), rng.die(l_die)
        if a != b:
            return a, b, ties
        ties += 1


# --- starting a battle -------------------------------------------------------

def start_battle(state, seat, site, rng, by_boat=False):
    """Open the battle at ``site`` (mutates): place Lamanites on a fresh battlefield.

    ``by_boat``: the army's march ended with a boat trip (version 3 keeps it on a seashore
    battle: the beach's Advantage is "(on boat)")."""
    kind = KIND[site]
    battle = {"site": site, "kind": "city" if kind == "city" else kind, "zone": None,
              "path": {}, "leads": 0, "sector": None, "wine": [], "duels": 0}
    v1 = is_v1(state)
    if since(state, "3"):
        battle["captives"] = {}  # led to a Stockade when the attack ends (hold_captives)
        if kind == "seashore":
            battle["boat"] = bool(by_boat)
    if kind == "city":
        city = state["cities"][site]
        city["attacks"] += 1
        placed = stock_city(state, site)
        taken = [s for s in SECTORS if city["sectors"][s]["taken_by"]]
        note = f" ({', '.join(taken)} already taken)" if taken else ""
        if placed is not None:
            note += (f"; its items are placed from the box: {placed['gold']} gold, "
                     f"{placed['weapons']} weapons, {placed['food']} food")
        add_event(state, f"{seat} attacks the city of {site.capitalize()}{note}.",
                  kind="battle_begins", data={
                      "army": seat, "site": site, "kind": "city", "attack": city["attacks"],
                      "sectors_taken": taken, "items_placed": placed})
    else:
        field = state["fields"].get(site)
        if field is None:
            rolls = [rng.die(4)]
            if kind == "seashore":
                while rolls[-1] == 4:  # RULES.md note 4: a 4 is rolled again
                    rolls.append(rng.die(4))
                zone = rolls[-1]
            else:
                zone = 1 if rolls[-1] <= 2 else 2
            if v1:
                field = {"zone": zone, "lamanites": dict(FIELD_LAMANITES)}
                field.update(FIELD_ITEMS)
            else:  # the battle's supplies come out of the box, while it has them
                field = {"zone": zone, "lamanites": field_lamanites(state)}
                field.update({k: from_box(state, k, n) for k, n in FIELD_ITEMS.items()})
            state["fields"][site] = field
            add_event(state, f"{seat} gives battle at {site}: the yellow d4 shows "
                      f"{', '.join(map(str, rolls))}, the Lamanites stand "
                      f"{zone_name(kind, zone, battle.get('boat'))}.", kind="battle_begins",
                      data={
                          "army": seat, "site": site, "kind": kind, "fresh": True,
                          "die": 4, "rolls": rolls, "zone": zone,
                          "lamanites": dict(field["lamanites"]),
                          "supplies": {k: field[k] for k in FIELD_ITEMS}})
        else:
            on_beach = ""
            if battle.get("boat") is not None and field["zone"] == 1:
                on_beach = (" by the boat: Nephite Advantage on the beach" if battle["boat"]
                            else " on foot: no Advantage on the beach (it is the boat's)")
            add_event(state, f"{seat} takes up the battle left at {site} "
                      f"({total(field['lamanites'])} Lamanites remain){on_beach}.",
                      kind="battle_begins", data={
                          "army": seat, "site": site, "kind": kind, "fresh": False,
                          "zone": field["zone"], "lamanites": dict(field["lamanites"]),
                          "supplies": {k: field[k] for k in FIELD_ITEMS}})
        battle["zone"] = field["zone"]
    state["battle"] = battle
    state["phase"] = "battle"
    state["givers"] = []


def zone_name(kind, zone, boat=None):
    """The words for where the Lamanites stand; ``boat`` (version 3: did the army come by
    the boat?) says whether the beach gives the Nephites their Advantage."""
    if kind == "seashore" and zone == 1 and boat is not None:
        return ("on the beach (zone 1: the army came by the boat, Nephite Advantage)" if boat
                else "on the beach (zone 1: the army came on foot, not by the boat: no "
                     "Advantage)")
    if kind == "seashore":
        return {1: "on the beach (zone 1, Nephite Advantage from the boat)",
                2: "in the grass (zone 2, no Advantage)",
                3: "on the hill (zone 3, Lamanite Advantage)"}[zone]
    return {1: "in the valley (zone 1, Nephite Advantage on their hill)",
            2: "on their hill (zone 2, Lamanite Advantage; scouts may lead up the forest paths)"
            }[zone]


# --- who can be fought ----------------------------------------------------------

def temple_open(city):
    """The road to the temple is open once some sector's tower and gate are empty."""
    return any(not total(sec["tower"]) and not total(sec["gate"])
               for sec in city["sectors"].values())


def temple_level(city):
    return "lower" if total(city["temple"]["lower"]) else "upper"


def lamanite_groups(state):
    """{place: {type: n}} of the Lamanites that may be fought now (place None off a city)."""
    battle = state["battle"]
    site = battle["site"]
    if battle["kind"] != "city":
        return {None: state["fields"][site]["lamanites"]}
    city = state["cities"][site]
    out = {}
    cur = battle["sector"]
    if cur and not city["sectors"][cur]["taken_by"]:
        sec = city["sectors"][cur]
        if total(sec["tower"]):
            out["tower"] = sec["tower"]
        if total(sec["gate"]):
            out["gate"] = sec["gate"]
    if not city["temple"]["cleared"] and temple_open(city):
        out["temple"] = city["temple"][temple_level(city)]
    return out


# --- what a lost duel does -----------------------------------------------------

def nephite_loses(state, seat, ntype, on_path, result, facts=None):
    """Apply a lost duel to a Nephite soldier (mutates); returns a short text.

    ``facts`` (a dict) receives ``held_in``: the city whose Stockade takes a captive.
    """
    facts = {} if facts is None else facts
    army = state["armies"][seat]
    battle = state["battle"]
    if result == "fit":
        return f"the {ntype} is fit for duty"
    army["live"][ntype] -= 1
    if on_path:
        add(battle["path"], ntype, -1)
    if result == "killed":
        army["dead"][ntype] += 1
        text = f"the {ntype} is killed"
    elif result == "wounded":
        army["wounded"][ntype] += 1
        text = f"the {ntype} is wounded"
    elif "captives" in battle:
        # version 3: step 10 ("Put captured Nephite soldiers in the city's Stockade") comes
        # after step 8 ("free prisoners if you take a City Stockade"): held aside until the
        # attack ends, so a Stockade taken in this attack does not free them
        add(battle["captives"].setdefault(seat, {}), ntype)
        facts["held_in"] = None
        facts["led_off"] = True
        text = f"the {ntype} is captured (to a Stockade when the attack ends)"
    else:
        city = holding_city(state, battle["site"])
        facts["held_in"] = city
        if city is None:  # RULES.md note 13: no Stockade left to hold him
            army["dead"][ntype] += 1
            text = f"the {ntype} is captured and, with no Stockade left, put to death"
        else:
            add(state["cities"][city]["stockade"].setdefault(seat, {}), ntype)
            text = f"the {ntype} is captured and held in the Stockade of {city.capitalize()}"
    if ntype == "captain" and result in ("killed", "captured") and not captains_left(
            state, seat):
        facts["army_lost"] = True
        lose_army(state, seat, f"its captain was {result}")
    return text


def captains_left(state, seat):
    """Captains the army still has to lead it: version 3 counts trained ones (live, wounded
    or unarmed); before, the army has only the one it started with, just lost."""
    if not since(state, "3"):
        return 0
    army = state["armies"][seat]
    return army["live"]["captain"] + army["wounded"]["captain"] + army["unarmed"]["captain"]


def lamanite_loses(state, seat, ltype, place, result, facts=None):
    """Apply a lost duel to a Lamanite (mutates); returns a short text.

    ``facts`` (a dict) receives ``applied``: the fate really applied (the king is only
    ever killed).
    """
    facts = {} if facts is None else facts
    battle = state["battle"]
    if ltype == "king" and result != "killed":
        result = "fit"  # RULES.md note 14: Amalickiah is only ever killed
    facts["applied"] = result
    if result == "fit":
        return f"the Lamanite {ltype} is fit for duty"
    if battle["kind"] != "city":
        group = state["fields"][battle["site"]]["lamanites"]
    else:
        city = state["cities"][battle["site"]]
        if place == "temple":
            level = temple_level(city)
            group = city["temple"][level]
            if result == "wounded":
                add(city["temple_wounded"][level], ltype)
        else:
            group = city["sectors"][battle["sector"]][place]
    add(group, ltype, -1)
    if result == "killed":
        add(state["killed"], ltype)
        if ltype == "king":
            state["king_killed"] = True
            return "AMALICKIAH IS KILLED"
        return f"the Lamanite {ltype} is killed"
    if result == "captured":
        add(state["armies"][seat]["captives"], ltype)
        return f"the Lamanite {ltype} is captured"
    return f"the Lamanite {ltype} is wounded and carried off"


# --- taking sectors, cities and battlefields -----------------------------------

def free_captives(state, city_name):
    """The Stockade is taken: every army's captives there return to LIVE (mutates)."""
    city = state["cities"][city_name]
    freed = []
    for seat, counts in sorted(city["stockade"].items()):
        n = total(counts)
        for t, k in counts.items():
            state["armies"][seat]["live"][t] += k
        if n:
            freed.append(f"{n} of {seat}")
    city["stockade"] = {}
    return freed


def take_sector(state, seat, name, s):
    """``seat`` takes sector ``s`` of city ``name`` and its prize (mutates)."""
    city = state["cities"][name]
    army = state["armies"][seat]
    sec = city["sectors"][s]
    sec["taken_by"] = seat
    army["sectors"].append(f"{name}:{s}")
    text = f"{seat} takes the {s} of {name.capitalize()}"
    data = {"army": seat, "city": name, "sector": s}
    if s in CITY_ITEMS:
        item = CITY_ITEMS[s][0]
        n = city[item]
        city[item] = 0
        army[item] += n
        text += f" and collects {n} {item}"
        data["prize"] = {item: n}
    else:
        freed_counts = {k: dict(v) for k, v in sorted(city["stockade"].items()) if total(v)}
        freed = free_captives(state, name)
        text += (": the Stockade is opened, freeing " + ", ".join(freed)
                 if freed else ": the Stockade is empty")
        data["freed"] = freed_counts
    add_event(state, text + ".", kind="sector_taken", data=data)


def update_city(state, seat):
    """Clear the temple and take sectors whose way is open (mutates).

    Returns True when the whole city is liberated.
    """
    battle = state["battle"]
    name = battle["site"]
    city = state["cities"][name]
    army = state["armies"][seat]
    temple = city["temple"]
    if not temple["cleared"] and not total(temple["lower"]) and not total(temple["upper"]):
        temple["cleared"] = True
        city["temple_wounded"] = {"lower": {}, "upper": {}}
        add_event(state, f"{seat} clears the temple of {name.capitalize()}.",
                  kind="temple_cleared", data={"army": seat, "city": name})
    if temple["cleared"]:
        for s in SECTORS:
            sec = city["sectors"][s]
            if sec["taken_by"] or total(sec["tower"]) or total(sec["gate"]):
                continue
            take_sector(state, seat, name, s)
    if battle["sector"] and city["sectors"][battle["sector"]]["taken_by"]:
        battle["sector"] = None
    if temple["cleared"] and all(city["sectors"][s]["taken_by"] for s in SECTORS):
        city["liberated_by"] = seat
        army["flags"].append(name)
        add_event(state, f"{name.capitalize()} is liberated by {seat}: the title of "
                  "liberty flies over it.", kind="city_liberated",
                  data={"army": seat, "city": name})
        check_win(state)
        return True
    return False


def win_field(state, seat):
    """Every Lamanite on the battlefield is gone: collect its supplies (mutates)."""
    site = state["battle"]["site"]
    field = state["fields"].pop(site)
    army = state["armies"][seat]
    got = []
    for item in ("food", "weapons", "gold"):
        army[item] += field[item]
        got.append(f"{field[item]} {item}")
    add_event(state, f"{seat} wins the battle at {site} and collects {', '.join(got)}.",
              kind="field_won", data={"army": seat, "site": site,
                                      "supplies": {k: field[k] for k in FIELD_ITEMS}})


def end_attack(state):
    """The battle is over for this turn: the city re-arms its uncaptured sectors (mutates)."""
    battle = state["battle"]
    if battle is None:
        return
    hold_captives(state)  # version 3: step 10, after the Stockade was (perhaps) taken
    if battle["kind"] == "city":
        city = state["cities"][battle["site"]]
        if not city["liberated_by"]:
            v1 = is_v1(state)
            for sec in city["sectors"].values():
                if not sec["taken_by"]:
                    sec["tower"] = dict(TOWER) if v1 else tower(state)
                    sec["gate"] = dict(GATE) if v1 else gate(state)
            temple = city["temple"]
            back = {}
            if not temple["cleared"]:
                full = {"lower": TEMPLE_LOWER if v1 else temple_lower(state), "upper": (
                    {"king": 1} if battle["site"] == "morianton" else {"captain": 1})}
                for level, wounded in city["temple_wounded"].items():
                    for t, n in wounded.items():
                        room = full[level].get(t, 0) - temple[level].get(t, 0)
                        add(temple[level], t, min(n, room))
                        if min(n, room) > 0:
                            back.setdefault(level, {})[t] = min(n, room)
            city["temple_wounded"] = {"lower": {}, "upper": {}}
            if not v1:
                add_event(state, f"The attack on {battle['site'].capitalize()} ends: its "
                          "uncaptured sectors are manned again"
                          + (" and the temple's wounded return." if back else "."),
                          kind="reinforced", data={
                              "city": battle["site"],
                              "sectors": [s for s in SECTORS
                                          if not city["sectors"][s]["taken_by"]],
                              "temple_returned": back})
    state["battle"] = None


def describe_counts(counts):
    return ", ".join(f"{n} {plural(t, n)}" for t, n in counts.items() if n) or "none"
