"""Checking and applying moves: one ``check_<kind>`` and one ``apply_<kind>`` per move.

``check_duty(state, seat, move)`` says whether the seat owes a move now; the tables
``CHECKS`` and ``APPLIES`` (at the end) give each kind of move its check
(``(state, seat, move)``, raises IllegalMove, never mutates) and its apply
(``(state, seat, move, plan, rng)``, mutates the state in place).  ``shared.base.Game.play``
runs them; untrusted input only reaches an apply through its check.
"""

from .. import IllegalMove
from ..events import add_event, make_event
from .board import BATTLEFIELDS, FOOD_SPACES, KIND, ROAD_SET, SEA_NEXT
from .combat import (
    DIE_NAME,
    duel_dice,
    end_attack,
    fate,
    lamanite_groups,
    lamanite_loses,
    nephite_loses,
    roll_duel,
    start_battle,
    take_sector,
    update_city,
    win_field,
)
from .notation import plural, split_route
from .state import captive_counts, end_turn, finish, is_v1, lose_army, refill, since, to_box, total

MAX_LEADS = 2
MAX_LED = 5
#: "Maximum of two scouts available per Nephite army" (rules version 2 lets them be bought)
MAX_SCOUTS = 2


def _illegal(message, code="illegal_move"):
    raise IllegalMove(message, code=code)


# --- shared facts ----------------------------------------------------------------

def is_battle_site(state, space):
    """A space that must be attacked when entered: a battlefield or a held city."""
    if space in BATTLEFIELDS:
        return True
    return KIND[space] == "city" and not state["cities"][space]["liberated_by"]


def attack_cost(state, seat):
    """Food to (re)open a battle where the army stands, or None if nothing is there."""
    at = state["armies"][seat]["at"]
    if KIND[at] == "city":
        return 0 if not state["cities"][at]["liberated_by"] else None
    return 1 if at in BATTLEFIELDS else None


def must_starve(state, seat):
    """No food and no free attack: the army cannot march (RULES.md note 12)."""
    return state["armies"][seat]["food"] == 0 and attack_cost(state, seat) != 0


def food_givers(state, seat):
    """Version 2: the captains who may still give food to ``seat``, a starving army.

    Step 1 ("Collect any food/weapons/money that other Nephite captains may want to give
    you") comes before step 4 ("Pay number of food tokens needed to move"), so an army with
    no food does not starve while a captain holding food may still give it some.
    """
    if is_v1(state) or seat != state["turn"] or state["phase"] != "start" \
            or not must_starve(state, seat):
        return []
    return [g for g in state["givers"] if state["armies"][g]["food"] > 0]


def route_error(state, seat, tokens):
    """Why a route cannot be marched, as (code, sentence), or None.

    ``tokens``: space, sep, space, ... with sep "-" (road) or "~" (boat).
    """
    found = _route_problem(state, seat, tokens)
    if found is None:
        return None
    return ("cannot_afford" if found.startswith("this route needs") else "bad_route"), found


def _route_problem(state, seat, tokens):
    army = state["armies"][seat]
    if tokens[0] != army["at"]:
        return (f"a route starts where your army stands, {army['at']}, "
                f"not at {tokens[0]}")
    spaces = tokens[0::2]
    if len(set(spaces)) != len(spaces) and not since(state, "3"):
        # version 3 follows "They may change direction at any time" (RULES.md note 17)
        return "a route may not pass the same space twice"
    prev_sea = False
    boat = state.get("boat")  # version 2: the one boat, where it lies
    for i in range(1, len(tokens), 2):
        a, sep, b = tokens[i - 1], tokens[i], tokens[i + 1]
        if sep == "-":
            if (a, b) not in ROAD_SET:
                extra = f" (by boat write {a}~{b})" if b in SEA_NEXT[a] else ""
                return f"no road goes from {a} to {b}: they are not neighbours{extra}"
            prev_sea = False
        else:
            if b not in SEA_NEXT[a]:
                return f"no boat goes from {a} to {b}: both must be ports on the East Sea"
            if prev_sea:
                return ("a boat goes straight from port to port: write one boat trip, "
                        f"not a call at {a}")
            if boat is not None and a != boat:
                return (f"the Nephites have one boat and it lies at {boat}: "
                        f"you cannot sail from {a}")
            boat = b
            prev_sea = True
        if i + 1 < len(tokens) - 1 and is_battle_site(state, b):
            return (f"the route meets a battle at {b}: you must attack it there "
                    "(end the route at it) or go another way")
    cost = len(spaces) - 1
    if cost > army["food"]:
        return (f"this route needs {cost} food and your army has {army['food']}")
    return None


# --- start of turn: gifts, buying, arming ------------------------------------

def check_give(state, seat, move):
    to, n, item = move.args
    if seat not in state["givers"]:
        _illegal("gifts are given at the start of another army's turn, before it marches",
                 "not_your_turn")
    if to != state["turn"]:
        _illegal(f"gifts go to the army whose turn it is, {state['turn']}, not to {to}",
                 "wrong_receiver")
    have = state["armies"][seat][item]
    if n > have:
        _illegal(f"you cannot give {n} {item}: your army has {have}", "cannot_afford")


def apply_give(state, seat, move, plan, rng):
    to, n, item = move.args
    state["armies"][seat][item] -= n
    state["armies"][to][item] += n
    add_event(state, f"{seat} gives {n} {item} to {to}.", kind="give",
              data={"from": seat, "to": to, "n": n, "item": item})
    if not state["armies"][seat]["food"] + state["armies"][seat]["gold"] + \
            state["armies"][seat]["weapons"]:
        state["givers"].remove(seat)


def check_pass(state, seat, move):
    if seat not in state["givers"]:
        _illegal("you owe no gift now", "not_your_turn")


def apply_pass(state, seat, move, plan, rng):
    state["givers"].remove(seat)
    if not is_v1(state):
        add_event(state, f"{seat} gives nothing (more).", kind="pass", data={"army": seat})


def _require_turn(state, seat, phase="start"):
    if seat != state["turn"]:
        _illegal(f"it is {state['turn']}'s turn, not yours", "not_your_turn")
    if state["phase"] != phase:
        if phase == "start":
            _illegal("your army is in battle: duel, lead, choose a sector, use the wine "
                     "or stop", "in_battle")
        _illegal("there is no battle now: march, rest or attack first", "no_battle")


def check_buy(state, seat, move):
    _require_turn(state, seat)
    n, kind = move.args
    army = state["armies"][seat]
    gold = army["gold"]
    if kind == "captain" and not since(state, "3"):
        _illegal("you cannot buy captains; use "
                 + ("infantry, archer, slinger" if is_v1(state) else
                    "scout, infantry, archer, slinger"), "bad_kind")
    if kind == "scout":
        if is_v1(state):
            _illegal("you cannot buy scouts; use infantry, archer, slinger", "bad_kind")
        have = scouts_held(state, seat)
        if have + n > MAX_SCOUTS:
            _illegal(f"an army has at most {MAX_SCOUTS} scouts and yours has {have} "
                     "(live, wounded, unarmed or held in a Stockade)", "too_many")
    if n > gold:
        _illegal(f"{n} new {plural(kind, n)} cost {n} gold and your army has {gold}",
                 "cannot_afford")


def apply_buy(state, seat, move, plan, rng):
    n, kind = move.args
    army = state["armies"][seat]
    army["gold"] -= n
    to_box(state, "gold", n)
    army["unarmed"][kind] += n
    army["bought"][kind] += n
    add_event(state, f"{seat} trains {n} {plural(kind, n)} for {n} gold (unarmed).",
              kind="buy", data={"army": seat, "n": n, "soldier": kind, "gold": n})


def check_arm(state, seat, move):
    _require_turn(state, seat)
    n, kind = move.args
    army = state["armies"][seat]
    if army["unarmed"][kind] < n:
        _illegal(f"you have {army['unarmed'][kind]} unarmed {plural(kind, 2)}, not {n}",
                 "no_soldiers")
    if army["weapons"] < n:
        _illegal(f"arming {n} {plural(kind, n)} takes {n} "
                 f"{'weapon' if n == 1 else 'weapons'} and your army has "
                 f"{army['weapons']}", "cannot_afford")


def apply_arm(state, seat, move, plan, rng):
    n, kind = move.args
    army = state["armies"][seat]
    army["weapons"] -= n
    to_box(state, "weapons", n)
    army["unarmed"][kind] -= n
    army["live"][kind] += n
    add_event(state, f"{seat} arms {n} {plural(kind, n)}: ready for battle.", kind="arm",
              data={"army": seat, "n": n, "soldier": kind, "weapons": n})


# --- marching ------------------------------------------------------------------

def scouts_held(state, seat):
    """Scouts an army has available: live, wounded, unarmed or held in a Stockade."""
    army = state["armies"][seat]
    return (army["live"]["scout"] + army["wounded"]["scout"] + army["unarmed"]["scout"]
            + captive_counts(state, seat).get("scout", 0))


def _leave(state, seat):
    at = state["armies"][seat]["at"]
    if state["empty_food"].get(at) == seat:
        refill(state, at)  # a new token is placed once you leave


def _has_token(state, space):
    return space in FOOD_SPACES and space not in state["empty_food"] \
        and space not in state.get("bare", ())


def check_move(state, seat, move):
    _require_turn(state, seat)
    route, left = split_route(move.args)
    error = route_error(state, seat, route)
    if error:
        _illegal(error[1], error[0])
    if left is None:
        return
    if not since(state, "3"):
        _illegal("under this game's rules version the food on the way is always taken; "
                 "leaving it is rules version 3", "bad_route")
    passed = route[2::2]
    for space in left:
        if space not in passed:
            _illegal(f"{space} is not on your route after {route[0]}: you can leave food "
                     "only where you stop or pass", "bad_route")
        if space not in FOOD_SPACES:
            _illegal(f"{space} has no food token to leave (only villages and towns have "
                     "one)", "bad_route")


def apply_move(state, seat, move, plan, rng):
    army = state["armies"][seat]
    tokens, left = split_route(move.args)
    # version 3: "You may collect the food token from each village and town you stop on or
    # pass through": ``leave`` (all) or ``leave <spaces>`` keeps tokens where they lie
    keep = set(FOOD_SPACES) if left == () else set(left or ())
    spaces = tokens[0::2]
    _leave(state, seat)
    cost = len(spaces) - 1
    army["food"] -= cost
    to_box(state, "food", cost)
    v1 = is_v1(state)
    gained = 0
    gathered = []
    for space in spaces[1:-1]:
        if space not in keep and _has_token(state, space):
            gained += 1
            gathered.append(space)
            if not v1:  # passed: a new token at once, from the box
                refill(state, space)
    dest = spaces[-1]
    army["at"] = dest
    if dest not in keep and _has_token(state, dest):
        state["empty_food"][dest] = seat
        gained += 1
        gathered.append(dest)
    army["food"] += gained
    boat = " by boat" if "~" in tokens else ""
    if boat and not v1:
        # the boat lies where the last boat trip lands (version 2 routes have only one)
        state["boat"] = tokens[len(tokens) - tokens[::-1].index("~")]
    text = f"{seat} marches{boat} to {dest} for {cost} food"
    if gained:
        text += f" and gathers {gained} food on the way"
    data = {"army": seat, "route": list(tokens), "to": dest, "food_paid": cost,
            "food_gathered": gained, "gathered_at": gathered,
            "boat": state.get("boat") if boat else None}
    if since(state, "3"):
        untaken = sorted({s for s in spaces[1:] if s in keep and _has_token(state, s)})
        data["food_left"] = untaken
        if untaken:
            text += f"; it leaves the food at {', '.join(untaken)}"
    add_event(state, text + ".", kind="march", data=data)
    if is_battle_site(state, dest):
        start_battle(state, seat, dest, rng, by_boat=len(tokens) > 1 and tokens[-2] == "~")
    else:
        end_turn(state)


def check_rest(state, seat, move):
    _require_turn(state, seat)
    if state["armies"][seat]["food"] < 1:
        if is_v1(state):
            _illegal("resting still eats one food and your army has none", "cannot_afford")
        _illegal("your army has no food: it cannot stay in the field, it starves "
                 "(or renews a free city attack)", "cannot_afford")


def apply_rest(state, seat, move, plan, rng):
    army = state["armies"][seat]
    if is_v1(state):
        army["food"] -= 1
        state["events"].append({"public": f"{seat} rests at {army['at']} (1 food)."})
    else:  # RULES.md note 12: food is paid "for each space moved", none for staying
        add_event(state, f"{seat} stays at {army['at']} (no food: it does not move).",
                  kind="rest", data={"army": seat, "at": army["at"], "food_paid": 0})
    end_turn(state)


def check_attack(state, seat, move):
    _require_turn(state, seat)
    cost = attack_cost(state, seat)
    at = state["armies"][seat]["at"]
    if cost is None:
        _illegal(f"there is nothing to attack at {at}", "nothing_to_attack")
    if cost > state["armies"][seat]["food"]:
        _illegal(f"returning to the battlefield at {at} costs 1 food and your army has none",
                 "cannot_afford")


def apply_attack(state, seat, move, plan, rng):
    army = state["armies"][seat]
    cost = attack_cost(state, seat)
    army["food"] -= cost
    to_box(state, "food", cost)
    start_battle(state, seat, army["at"], rng)


def check_starve(state, seat, move):
    _require_turn(state, seat)
    if not must_starve(state, seat):
        _illegal("your army still has food (or a city to attack for free): it need not "
                 "starve", "not_starving")
    waiting = food_givers(state, seat)
    if waiting:
        _illegal(f"wait: {', '.join(waiting)} may still give you food (gifts come before "
                 "marching)", "awaiting_gifts")


def apply_starve(state, seat, move, plan, rng):
    lose_army(state, seat, "it starved")
    end_turn(state)


# --- battle ------------------------------------------------------------------

def _available(state, seat, kind, on_path):
    """Live soldiers of ``kind`` free to fight from the open route or from a path."""
    on = state["battle"]["path"].get(kind, 0)
    return on if on_path else state["armies"][seat]["live"][kind] - on


def check_duel(state, seat, move):
    _require_turn(state, seat, "battle")
    ntype, on_path, ltype, place = move.args
    battle = state["battle"]
    if on_path and not battle["path"]:
        _illegal("none of your soldiers went up a forest path; use lead first", "no_path")
    if _available(state, seat, ntype, on_path) < 1:
        where = " on the forest paths" if on_path else ""
        _illegal(f"you have no {ntype} free to fight{where}", "no_soldiers")
    groups = lamanite_groups(state)
    if battle["kind"] == "city":
        if place is None:
            _illegal("in a city, say where the Lamanite stands: @tower, @gate or @temple",
                     "no_place")
        if place not in groups:
            if place == "temple":
                _illegal("the temple is reached only through an open gate: empty a "
                         "sector's tower and gate first", "temple_closed")
            if battle["sector"] is None:
                _illegal("choose a sector to attack first (sector palace, stockade, armory "
                         "or market)", "no_sector")
            _illegal(f"no Lamanite is left on the {place} of the {battle['sector']}",
                     "no_target")
    elif place is not None:
        _illegal("only a city has towers, gates and a temple", "no_place")
    if not groups.get(place, {}).get(ltype):
        where = f" at the {place}" if place else ""
        _illegal(f"there is no Lamanite {ltype}{where} to fight", "no_target")


def apply_duel(state, seat, move, plan, rng):
    ntype, on_path, ltype, place = move.args
    battle = state["battle"]
    battle["duels"] += 1
    n_die, l_die = duel_dice(state, seat, ntype, on_path, ltype)
    n_roll, l_roll, ties = roll_duel(rng, n_die, l_die)
    who = f"{ntype}{'@path' if on_path else ''}"
    target = f"{ltype}{'@' + place if place else ''}"
    head = (f"{seat}'s {who} ({DIE_NAME[n_die]}: {n_roll}) vs {target} "
            f"({DIE_NAME[l_die]}: {l_roll})")
    if ties:
        head += f" after {ties} tie{'s' if ties > 1 else ''}"
    at = len(state["events"])  # the duel is told before what it causes
    facts = {"army": seat, "nephite": ntype, "on_path": on_path, "lamanite": ltype,
             "place": place, "nephite_die": n_die, "lamanite_die": l_die,
             "nephite_roll": n_roll, "lamanite_roll": l_roll, "ties": ties,
             "winner": "nephite" if n_roll > l_roll else "lamanite"}
    if n_roll > l_roll:
        facts["loser_fate"] = fate(l_die, l_roll)
        text = lamanite_loses(state, seat, ltype, place, facts["loser_fate"], facts)
        won = f"{seat}'s {ntype} wins"
    else:
        facts["loser_fate"] = fate(n_die, n_roll)
        text = nephite_loses(state, seat, ntype, on_path, facts["loser_fate"], facts)
        won = f"the Lamanite {ltype} wins"
    if since(state, "3"):  # the line names the winner (version 2 texts stay as recorded)
        if won.startswith("the ") and text.startswith("the "):
            text = f"{seat}'s {text[4:]}"
        text = f"{won}; {text}"
    state["events"].insert(at, make_event(state, f"{head}: {text}.", kind="duel",
                                          data=facts))
    _after_fight(state, seat)


def _after_fight(state, seat):
    """Settle the battle after a duel or the wine: victory, defeat or carry on."""
    army = state["armies"][seat]
    battle = state["battle"]
    if not army["alive"]:
        end_attack(state)
        end_turn(state)
        return
    if battle["kind"] == "city":
        if update_city(state, seat):
            end_attack(state)
            end_turn(state)
            return
    elif not total(state["fields"][battle["site"]]["lamanites"]):
        win_field(state, seat)
        end_attack(state)
        end_turn(state)
        return
    if not total(army["live"]):
        add_event(state, f"{seat} has no soldier left to fight: the battle stops.",
                  kind="battle_stops", data={"army": seat, "site": battle["site"],
                                             "why": "no soldier left"})
        end_attack(state)
        end_turn(state)


def check_lead(state, seat, move):
    _require_turn(state, seat, "battle")
    battle = state["battle"]
    if battle["kind"] != "hill":
        # the same words as the board: its inset is headed SEASHORE / RIVER BANK or CITY,
        # and only a HILL battlefield (h1-h3) has forest paths
        where = ("the SEASHORE / RIVER BANK inset (its 3 HILL has no forest paths, and "
                 "there Nephite scouts do not negate a Lamanite advantage)"
                 if battle["kind"] == "seashore" else "a CITY inset")
        _illegal(f"there are no forest paths in {where}: scouts lead men only on a HILL "
                 "battlefield (h1, h2, h3) whose Lamanites stand on the 2 LAMANITE HILL",
                 "no_path")
    if battle["zone"] != 2:
        _illegal("the Lamanites stand in the 1 VALLEY, not on the 2 LAMANITE HILL: the "
                 "forest paths lead up to the hill only, and here the Lamanites must attack "
                 "you", "no_path")
    if battle["leads"] >= MAX_LEADS:
        _illegal("both forest paths already have a scout on them", "paths_full")
    if _available(state, seat, "scout", False) < 1:
        _illegal("you have no scout free to lead men up a path", "no_soldiers")
    led = sum(n for _, n in move.args)
    if led > MAX_LED:
        _illegal(f"one scout leads at most {MAX_LED} soldiers, not {led}", "too_many")
    for kind, n in move.args:
        if _available(state, seat, kind, False) < n:
            _illegal(f"you have {_available(state, seat, kind, False)} {plural(kind, 2)} "
                     f"free to follow a scout, not {n}", "no_soldiers")


def apply_lead(state, seat, move, plan, rng):
    battle = state["battle"]
    battle["leads"] += 1
    path = battle["path"]
    path["scout"] = path.get("scout", 0) + 1
    for kind, n in move.args:
        path[kind] = path.get(kind, 0) + n
    led = ", ".join(f"{n} {plural(k, n)}" for k, n in move.args) or "no one"
    add_event(state, f"{seat}'s scout leads {led} up forest path {battle['leads']}.",
              kind="lead", data={"army": seat, "path": battle["leads"],
                                 "led": dict(move.args), "on_paths": dict(path)})


def check_sector(state, seat, move):
    _require_turn(state, seat, "battle")
    battle = state["battle"]
    if battle["kind"] != "city":
        _illegal("only a city has sectors", "no_sector")
    name = move.args[0]
    if state["cities"][battle["site"]]["sectors"][name]["taken_by"]:
        _illegal(f"the {name} is already in Nephite hands", "sector_taken")
    if battle["sector"] == name:
        _illegal(f"you are already attacking the {name}", "sector_chosen")


def apply_sector(state, seat, move, plan, rng):
    state["battle"]["sector"] = move.args[0]
    add_event(state, f"{seat} attacks the {move.args[0]} sector.", kind="sector",
              data={"army": seat, "city": state["battle"]["site"], "sector": move.args[0]})


def check_wine(state, seat, move):
    _require_turn(state, seat, "battle")
    battle = state["battle"]
    if battle["kind"] != "city":
        _illegal("the drugged wine is used only in a city", "no_wine")
    cur = battle["sector"]
    if cur is None:
        _illegal("choose a sector first: the wine is offered to its tower and gate",
                 "no_sector")
    if is_v1(state):
        if cur in battle["wine"]:
            _illegal(f"the wine was already offered in the {cur} during this attack",
                     "no_wine")
    elif cur in state["cities"][battle["site"]]["wine"]:
        _illegal(f"the drugged wine was already offered in the {cur} of "
                 f"{battle['site'].capitalize()}: it is used one time for each sector",
                 "no_wine")
    sec = state["cities"][battle["site"]]["sectors"][cur]
    if not total(sec["tower"]) and not total(sec["gate"]):
        _illegal(f"no one is left on the tower or gate of the {cur} to drink the wine "
                 "(it cannot be used at the temple)", "no_wine")


def apply_wine(state, seat, move, plan, rng):
    battle = state["battle"]
    cur = battle["sector"]
    battle["wine"].append(cur)
    v1 = is_v1(state)
    city = state["cities"][battle["site"]]
    if not v1:
        city["wine"].append(cur)
    roll = rng.die(4)
    facts = {"army": seat, "city": battle["site"], "sector": cur, "die": 4, "roll": roll,
             "drunk": roll == 1}
    if roll != 1:
        add_event(state, f"{seat} offers the drugged wine in the {cur}: "
                  f"the yellow d4 shows {roll}, they do not drink.", kind="wine", data=facts)
        return
    sec = city["sectors"][cur]
    army = state["armies"][seat]
    n = 0
    captured = {}
    for place in ("tower", "gate"):
        for kind, k in sec[place].items():
            army["captives"][kind] = army["captives"].get(kind, 0) + k
            captured[kind] = captured.get(kind, 0) + k
            n += k
        sec[place] = {}
    facts["captured"] = captured
    add_event(state, f"{seat} offers the drugged wine in the {cur}: the "
              f"yellow d4 shows 1, the Lamanites drink and {n} are captured.",
              kind="wine", data=facts)
    if not v1:  # "Gate and tower soldiers are captured ..., and you take that sector."
        take_sector(state, seat, battle["site"], cur)
    _after_fight(state, seat)


def check_stop(state, seat, move):
    _require_turn(state, seat, "battle")


def apply_stop(state, seat, move, plan, rng):
    add_event(state, f"{seat} stops the battle at {state['battle']['site']}.",
              kind="battle_stops", data={"army": seat, "site": state["battle"]["site"],
                                         "why": "stopped"})
    end_attack(state)
    end_turn(state)


def check_concede(state, seat, move):
    owing = [state["turn"]] + [s for s in state["givers"] if s != state["turn"]]
    if state["phase"] == "over" or seat not in owing:
        raise IllegalMove(f"{seat} owes no move now, so cannot concede", code="not_your_turn")


def apply_concede(state, seat, move, plan, rng):
    add_event(state, f"{seat} concedes for the Nephites: the Lamanites win.", kind="concede",
              data={"army": seat})
    finish(state, "lamanites", f"{seat} conceded (or the wall-clock deadline passed)")


#: move kind -> its check (raises IllegalMove, never mutates)
CHECKS = {
    "give": check_give,
    "pass": check_pass,
    "buy": check_buy,
    "arm": check_arm,
    "move": check_move,
    "rest": check_rest,
    "attack": check_attack,
    "starve": check_starve,
    "duel": check_duel,
    "lead": check_lead,
    "sector": check_sector,
    "wine": check_wine,
    "stop": check_stop,
    "concede": check_concede,
}

#: move kind -> its apply (mutates; only after its check passed)
APPLIES = {
    "give": apply_give,
    "pass": apply_pass,
    "buy": apply_buy,
    "arm": apply_arm,
    "move": apply_move,
    "rest": apply_rest,
    "attack": apply_attack,
    "starve": apply_starve,
    "duel": apply_duel,
    "lead": apply_lead,
    "sector": apply_sector,
    "wine": apply_wine,
    "stop": apply_stop,
    "concede": apply_concede,
}


def check_duty(state, seat, move):
    """Raise IllegalMove unless ``seat`` owes a move now (the kind's check follows)."""
    if state["phase"] == "over":
        _illegal("the war is over", "game_over")
    if seat not in state["armies"]:
        _illegal(f"{seat!r} is not an army in this game", "not_your_turn")
    if seat != state["turn"] and seat not in state["givers"]:
        _illegal(f"it is {state['turn']}'s turn and you owe nothing now", "not_your_turn")


# --- who owes what ------------------------------------------------------------------

def owes(state):
    """{seat: short text of what it owes now}."""
    if state["phase"] == "over":
        return {}
    turn = state["turn"]
    out = {}
    for seat in state["givers"]:
        out[seat] = f"give food, gold or weapons to {turn}, or pass"
    if state["phase"] == "battle":
        kind = state["battle"]["kind"]
        extra = "sector, wine, " if kind == "city" else ""
        if kind == "hill" and state["battle"]["zone"] == 2:
            extra = "lead, "
        out[turn] = f"fight at {state['battle']['site']}: duel, {extra}or stop"
    elif food_givers(state, turn) and not legal.legal_moves(state, turn):
        pass  # it waits for the food gifts before it may starve (RULES.md note 12)
    elif must_starve(state, turn):
        out[turn] = "no food to march: wait for gifts, or starve"
    else:
        out[turn] = "buy and arm soldiers, then move, rest or attack"
    return out


def to_act(state):
    if state["phase"] == "over":
        return []
    turn = state["turn"]
    givers = [s for s in state["seats"] if s in state["givers"] and s != turn]
    if food_givers(state, turn) and not legal.legal_moves(state, turn):
        return givers  # a starving army waits for the food gifts (RULES.md note 12)
    return [turn] + givers


# legal.py reads this module's rules; it is imported last, so either may be imported first
from . import legal  # noqa: E402
