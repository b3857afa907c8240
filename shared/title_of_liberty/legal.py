"""Legal-move generation, as Move values (the game formats them as text).

Every listed move passes ``GAME.check``.  Routes are open-ended (any simple
path), so they are listed by a representative subset: one shortest route to
every space the army can reach this turn.
"""

from collections import deque

from .board import ROAD_NEXT, SEA_NEXT
from .combat import lamanite_groups
from .notation import BUYABLE, ITEMS, LEAD_TYPES, SECTORS, Move, format_move
from .rules import (
    MAX_LEADS,
    MAX_LED,
    MAX_SCOUTS,
    attack_cost,
    food_givers,
    is_battle_site,
    must_starve,
    scouts_held,
)
from .state import is_v1, since


def routes(state, seat):
    """One shortest route (as move tokens) to every space reachable with the army's food."""
    army = state["armies"][seat]
    start, food = army["at"], army["food"]
    if food < 1:
        return []
    seen = {start}
    out = []
    boat = state.get("boat")  # version 2: one boat; it sails only from where it lies
    queue = deque([(start, (start,), False)])
    while queue:
        space, tokens, by_sea = queue.popleft()
        if (len(tokens) - 1) // 2 >= food:
            continue
        steps = [("-", n) for n in ROAD_NEXT[space]]
        if not by_sea and (boat is None or (space == boat and "~" not in tokens)):
            steps += [("~", n) for n in SEA_NEXT[space]]
        for sep, nxt in steps:
            if nxt in seen:
                continue
            seen.add(nxt)
            route = tokens + (sep, nxt)
            out.append(route)
            if not is_battle_site(state, nxt):
                queue.append((nxt, route, sep == "~"))
    return out


def _giver_moves(state, seat):
    army = state["armies"][seat]
    to = state["turn"]
    out = [Move("pass")]
    for item in ITEMS:
        for n in range(1, army[item] + 1):
            out.append(Move("give", (to, n, item)))
    return out


def _start_moves(state, seat):
    army = state["armies"][seat]
    out = []
    v1 = is_v1(state)
    for kind in BUYABLE:
        most = army["gold"]
        if kind == "scout":
            most = 0 if v1 else min(most, MAX_SCOUTS - scouts_held(state, seat))
        elif kind == "captain" and not since(state, "3"):
            most = 0  # captains are trained from rules version 3 (RULES.md note 6)
        for n in range(1, most + 1):
            out.append(Move("buy", (n, kind)))
        for n in range(1, min(army["weapons"], army["unarmed"][kind]) + 1):
            out.append(Move("arm", (n, kind)))
    out.extend(Move("move", r) for r in routes(state, seat))
    if army["food"] >= 1:
        out.append(Move("rest"))
    cost = attack_cost(state, seat)
    if cost is not None and cost <= army["food"]:
        out.append(Move("attack"))
    if must_starve(state, seat) and not food_givers(state, seat):
        out.append(Move("starve"))
    return out


def _lead_moves(free):
    """Every party of at most MAX_LED soldiers from ``free`` ({type: n})."""
    parties = [()]
    for kind in LEAD_TYPES:
        grown = []
        for party in parties:
            used = sum(n for _, n in party)
            for n in range(0, min(free.get(kind, 0), MAX_LED - used) + 1):
                grown.append(party + ((kind, n),) if n else party)
        parties = grown
    return [Move("lead", p) for p in parties]


def _battle_moves(state, seat):
    battle = state["battle"]
    army = state["armies"][seat]
    path = battle["path"]
    groups = lamanite_groups(state)
    out = []
    fighters = []
    for kind, n in army["live"].items():
        if n - path.get(kind, 0) > 0:
            fighters.append((kind, False))
        if path.get(kind, 0) > 0:
            fighters.append((kind, True))
    for place, group in groups.items():
        for ltype, k in group.items():
            if k > 0:
                for kind, on_path in fighters:
                    out.append(Move("duel", (kind, on_path, ltype, place)))
    if battle["kind"] == "hill" and battle["zone"] == 2 and battle["leads"] < MAX_LEADS:
        free = {k: n - path.get(k, 0) for k, n in army["live"].items()}
        if free["scout"] > 0:
            free["scout"] = 0
            out.extend(_lead_moves(free))
    if battle["kind"] == "city":
        city = state["cities"][battle["site"]]
        for name in SECTORS:
            if not city["sectors"][name]["taken_by"] and battle["sector"] != name:
                out.append(Move("sector", (name,)))
        cur = battle["sector"]
        offered = battle["wine"] if is_v1(state) else city["wine"]
        if cur and cur not in offered and ("tower" in groups or "gate" in groups):
            out.append(Move("wine"))
    out.append(Move("stop"))
    return out


def legal_moves(state, seat):
    """Every move ``seat`` may play now, as Move values."""
    if state["phase"] == "over" or seat not in state["armies"]:
        return []
    out = []
    if seat in state["givers"]:
        out.extend(_giver_moves(state, seat))
    if seat == state["turn"]:
        if state["phase"] == "start":
            out.extend(_start_moves(state, seat))
        else:
            out.extend(_battle_moves(state, seat))
    return out


def legal_texts(state, seat):
    """:func:`legal_moves` in the notation (``Game.legal_moves``)."""
    return [format_move(m) for m in legal_moves(state, seat)]
