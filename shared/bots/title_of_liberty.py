"""Bots for Title of Liberty: the purposeful (``greedy``) player, for any army.

Title of Liberty hides nothing but the future dice: every army board, city and battle is in
the view, so the greedy player reads the view of its seat (never the state) and needs no
sampled world.  ``bench/tol_balance.py`` and ``bench/bots.py`` measure a team of them (the
table in shared/title_of_liberty/RULES.md, "Balance"); the random-play tests use it to
reach deep positions.  There is no ``strong`` level of its own: ``choose_move`` falls
back to this one.

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

from ..title_of_liberty.board import CITIES, KIND, ROAD_NEXT, SEA_NEXT
from ..title_of_liberty.combat import lamanite_die, nephite_die
from ..title_of_liberty.notation import parse_move

#: stop a battle below this many soldiers (besides the captain)
STOP = 4
#: below this many an army does not open a new battle
WEAK = 8


def _moves_of(legal, verb):
    return [m for m in legal if m.split()[0] == verb]


def _fighters(army):
    return sum(army["live"].values()) - army["live"]["captain"]


def duel_dice(view, seat, ntype, on_path, ltype):
    """(Nephite die, Lamanite die) for a duel in the view's battle (as combat.duel_dice)."""
    adv = view["battle"]["advantage"]
    n_die = nephite_die(seat, ntype, adv == "nephite")
    # a scout-led party on a forest path negates the Lamanite hill advantage
    l_die = lamanite_die(ltype, adv == "lamanite" and not on_path)
    return n_die, l_die


def _distances(view, target):
    """Steps from every space to ``target`` (roads, and boat trips while the boat is free)."""
    dist = {target: 0}
    queue = deque([target])
    boat = view.get("boat")
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


def _targets(view):
    """Cities still worth attacking: Morianton always; others until enough are retaken."""
    held = [c for c in CITIES if not view["cities"][c]["liberated_by"]]
    done_others = sum(1 for c in CITIES if c != "morianton"
                      and view["cities"][c]["liberated_by"])
    if done_others >= view["required"] - 1:
        return [c for c in held if c == "morianton"]
    return held


def _give(view, seat, legal):
    army = view["armies"][seat]
    turn = view["turn"]
    receiver = view["armies"][turn]
    gift = f"give {turn} 2 food"
    if receiver["food"] <= 1 and army["food"] >= 4 and gift in legal:
        return gift
    at_battle = KIND[receiver["at"]] == "city" and receiver["at"] in _targets(view)
    if at_battle and KIND[army["at"]] != "city":
        for item in ("gold", "weapons"):
            if army[item]:
                text = f"give {turn} {army[item]} {item}"
                if text in legal:
                    return text
    return "pass"


def _start(view, seat, legal):
    army = view["armies"][seat]
    for verb in ("arm", "buy"):
        options = _moves_of(legal, verb)
        if options:
            # as many as possible; infantry first (the best die), then scouts
            return max(options, key=lambda m: (int(m.split()[1]), "infantry" in m,
                                               "scout" in m, m))
    fighters = _fighters(army)
    targets = _targets(view)
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
        dist = _distances(view, target)
        for route in marches:
            end = route[-1]
            if KIND[end] in ("hill", "seashore") and fighters < WEAK:
                continue
            if KIND[end] == "city" and end != target:
                continue
            key = (dist.get(end, 99), len(route), route)
            if best is None or key < best[0]:
                best = (key, route)
    here = min((_distances(view, t).get(army["at"], 99) for t in targets), default=99)
    if best is not None and best[0][0] < here:
        return "move " + "".join(best[1])
    if "rest" in legal:
        return "rest"
    if "attack" in legal:
        return "attack"
    return legal[0]


def _battle(view, seat, legal):
    army = view["armies"][seat]
    fighters = _fighters(army)
    battle = view["battle"]
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
        n_die, l_die = duel_dice(view, seat, ntype, on_path, ltype)
        duels.append((n_die - l_die, place == "temple", text))
    if duels:
        return max(duels)[2]
    sectors = _moves_of(legal, "sector")
    if sectors:
        city = view["cities"][battle["site"]]
        if city["stockade"].get(seat) and "sector stockade" in sectors:
            return "sector stockade"
        return sectors[0]
    return "stop"


def greedy_choice(view, seat, legal, rnd=None):
    """The purposeful player's move among ``legal`` (texts), from ``view`` (the view of
    ``seat``: ``GAME.view(state, seat)``); ``rnd`` is unused (it is deterministic), kept so
    that it can stand where a random chooser does."""
    if seat != view["turn"]:
        return _give(view, seat, legal)
    if view["phase"] == "start":
        return _start(view, seat, legal)
    return _battle(view, seat, legal)


def greedy_move(game, view, seat, legal, rng, budget=None):
    """The ``greedy`` level (the signature of ``shared.bots.random_move``)."""
    return greedy_choice(view, seat, list(legal), rng)


def choose_for_state(state, seat, legal, rnd=None):
    """The greedy choice for a caller that holds the state (the tests and the balance
    bench): it hands the bot only ``seat``'s view of it."""
    from ..title_of_liberty import GAME
    return greedy_choice(GAME.view(state, seat), seat, legal, rnd)


LEVELS = {"greedy": greedy_move}

__all__ = ["LEVELS", "choose_for_state", "greedy_choice", "greedy_move"]
