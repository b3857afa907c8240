"""A purposeful (greedy) player for Title of Liberty.

``bench/tol_balance.py`` measures it (``python -m bench.tol_balance``; the table in
RULES.md, "Balance"); the random-play tests use it to reach deep positions.

What it does, seat by seat:

* **Gifts**: a captain gives food to a hungry army (2 at most 1 left, while it keeps 4),
  and hands its gold and weapons to the army whose turn it is when that army stands at a
  battle site and it does not (the fighting army trains and arms with them); otherwise it
  passes.
* **Start of turn**: arms every unarmed soldier it can, then trains with all its gold
  (infantry first: the best die; scouts while it has fewer than two).  Then it picks a
  target: the nearest Lamanite city that still counts (only Morianton once the others
  asked for are liberated), renewing a free attack where it stands when it is strong
  enough, else marching there or, when the target is out of reach this turn, as far along
  a shortest road as its food allows (gathering village food).  An army too weak to win
  (fewer than ``WEAK`` soldiers besides the captain) waits a turn for its wounded when it
  has any, or goes to fight a battlefield for supplies when it is still strong enough for
  that; it never rests for nothing when it can march.
* **In battle**: offers the wine where it may, leads scouts up the forest paths, picks the
  duel with the best dice (the captain only fights when he is all that is left and the
  battle is a city whose last defender is at the temple), attacks the Stockade first when
  its own men are held there, and stops below ``STOP`` soldiers besides the captain.
"""

from collections import deque

from shared.title_of_liberty import parse_move
from shared.title_of_liberty.board import CITIES, KIND, ROAD_NEXT, SEA_NEXT
from shared.title_of_liberty.combat import duel_dice

#: stop a battle below this many soldiers (besides the captain)
STOP = 4
#: below this many an army does not open a new battle
WEAK = 8


def _moves_of(legal, verb):
    return [m for m in legal if m.split()[0] == verb]


def _fighters(army):
    return sum(army["live"].values()) - army["live"]["captain"]


def _distances(state, target):
    """Steps from every space to ``target`` (roads, and boat trips while the boat is free)."""
    dist = {target: 0}
    queue = deque([target])
    boat = state.get("boat")
    while queue:
        space = queue.popleft()
        nxt = list(ROAD_NEXT[space])
        if boat is None or space == boat or boat in SEA_NEXT[space]:
            nxt += list(SEA_NEXT[space])
        for n in nxt:
            if n not in dist:
                dist[n] = dist[space] + 1
                queue.append(n)
    return dist


def _targets(state):
    """Cities still worth attacking: Morianton always; others until enough are retaken."""
    held = [c for c in CITIES if not state["cities"][c]["liberated_by"]]
    done_others = sum(1 for c in CITIES if c != "morianton"
                      and state["cities"][c]["liberated_by"])
    if done_others >= state["required"] - 1:
        return [c for c in held if c == "morianton"]
    return held


def _give(state, seat, legal):
    army = state["armies"][seat]
    turn = state["turn"]
    receiver = state["armies"][turn]
    gift = f"give {turn} 2 food"
    if receiver["food"] <= 1 and army["food"] >= 4 and gift in legal:
        return gift
    at_battle = KIND[receiver["at"]] == "city" and receiver["at"] in _targets(state)
    if at_battle and KIND[army["at"]] != "city":
        for item in ("gold", "weapons"):
            if army[item]:
                text = f"give {turn} {army[item]} {item}"
                if text in legal:
                    return text
    return "pass"


def _start(state, seat, legal):
    army = state["armies"][seat]
    for verb in ("arm", "buy"):
        options = _moves_of(legal, verb)
        if options:
            # as many as possible; infantry first (the best die), then scouts
            return max(options, key=lambda m: (int(m.split()[1]), "infantry" in m,
                                               "scout" in m, m))
    fighters = _fighters(army)
    targets = _targets(state)
    marches = [parse_move(m).args for m in _moves_of(legal, "move")]
    if "attack" in legal and army["at"] in targets and fighters >= WEAK:
        return "attack"
    if fighters < WEAK:
        if sum(army["wounded"].values()) and "rest" in legal:
            return "rest"  # they come back at the start of the next turn
        fields = [r for r in marches if KIND[r[-1]] in ("hill", "seashore")]
        if fields and fighters >= WEAK:
            return "move " + "".join(min(fields, key=lambda r: (len(r), r)))
        if "attack" in legal and army["at"] in targets and fighters >= STOP:
            return "attack"
    best = None
    for target in targets:
        dist = _distances(state, target)
        for route in marches:
            end = route[-1]
            if KIND[end] in ("hill", "seashore") and fighters < WEAK:
                continue
            if KIND[end] == "city" and end != target:
                continue
            key = (dist.get(end, 99), len(route), route)
            if best is None or key < best[0]:
                best = (key, route)
    here = min((_distances(state, t).get(army["at"], 99) for t in targets), default=99)
    if best is not None and best[0][0] < here:
        return "move " + "".join(best[1])
    if "rest" in legal:
        return "rest"
    if "attack" in legal:
        return "attack"
    return legal[0]


def _battle(state, seat, legal):
    army = state["armies"][seat]
    fighters = _fighters(army)
    battle = state["battle"]
    if fighters < STOP and not (fighters and battle["kind"] != "city"):
        return "stop"
    if "wine" in legal:
        return "wine"
    leads = _moves_of(legal, "lead")
    if leads:
        return max(leads, key=lambda m: (sum(n for _, n in parse_move(m).args), m))
    duels = []
    for text in _moves_of(legal, "duel"):
        ntype, on_path, ltype, place = parse_move(text).args
        if ntype == "captain":
            continue
        n_die, l_die = duel_dice(state, seat, ntype, on_path, ltype)
        duels.append((n_die - l_die, place == "temple", text))
    if duels:
        return max(duels)[2]
    sectors = _moves_of(legal, "sector")
    if sectors:
        city = state["cities"][battle["site"]]
        if city["stockade"].get(seat) and "sector stockade" in sectors:
            return "sector stockade"
        return sectors[0]
    return "stop"


def greedy_choice(state, seat, legal, rnd=None):
    """The purposeful player's move among ``legal`` (texts); ``rnd`` is unused (it is
    deterministic), kept so that it can stand where a random chooser does."""
    if seat != state["turn"]:
        return _give(state, seat, legal)
    if state["phase"] == "start":
        return _start(state, seat, legal)
    return _battle(state, seat, legal)


__all__ = ["greedy_choice"]
