"""Bots for Title of Liberty: the purposeful (``greedy``) player, for any army.

Title of Liberty hides nothing but the future dice: every army board, city and battle is in
the view, so the greedy player reads the view of its seat (never the state) and needs no
sampled world.  ``bench/tol_balance.py`` and ``bench/bots.py`` measure a team of them (the
table in shared/title_of_liberty/RULES.md, "Balance"); the random-play tests use it to
reach deep positions.  The ``strong`` level (:func:`strong_move`, at the end) searches
with rollouts of this player over sampled dice.

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


# --- the strong level: rollouts of the greedy team over sampled dice ----------------------

#: moves a ``strong`` bot may spend (moves applied in rollouts) on one decision by default
DEFAULT_NODES = 3000
#: a rollout that has not ended after this many moves is scored where it stands
ROLLOUT_CAP = 1500
#: at most this many candidate moves are searched at one decision
MAX_CANDIDATES = 4
#: a candidate replaces the greedy move only when its average beats the greedy move's by
#: more than this (the rollouts are few: the greedy choice is the default, not a tie)
MARGIN = 0.05


def fast_view(state):
    """The parts of a view the greedy player reads, built straight from a *sampled world*
    (never the real state): the rollouts call it thousands of times.  ``greedy_choice``
    gives the same move on it as on ``GAME.view`` (tests/shared/bots/test_bots_tol.py)."""
    from ..title_of_liberty.combat import advantage
    battle = state["battle"]
    return {
        "turn": state["turn"], "phase": state["phase"], "required": state["required"],
        "boat": state.get("boat"), "armies": state["armies"],
        "cities": {c: {"liberated_by": x["liberated_by"],
                       "stockade": {s: n for s, n in
                                    ((s, sum(k.values())) for s, k in x["stockade"].items())
                                    if n}}
                   for c, x in state["cities"].items()},
        "battle": None if battle is None else {"site": battle["site"], "kind": battle["kind"],
                                               "advantage": advantage(battle)},
    }


def _score(state):
    """A finished (or capped) rollout: 1 for a won war, else a little for the progress (the
    cities retaken toward those required, Amalickiah dead), so that lost rollouts still
    tell a nearer defeat from a farther one."""
    result = state.get("result")
    if result is not None and result.get("winners"):
        return 1.0
    done = sum(1 for c in state["cities"].values() if c["liberated_by"])
    progress = min(done, state["required"]) / max(1, state["required"])
    return 0.1 * progress + 0.05 * bool(state["king_killed"])


def rollout(game, world, budget, entropy):
    """Play the greedy team on ``world`` (mutated) to the end, or ``ROLLOUT_CAP`` moves, or
    the end of the budget; returns the score (``_score``)."""
    from ..title_of_liberty.rules import to_act
    played = 0
    while world.get("result") is None and played < ROLLOUT_CAP and budget.left():
        acting = to_act(world)
        if not acting:
            break
        seat = acting[0]
        legal = game.legal_moves(world, seat)
        if not legal:
            break
        move = greedy_choice(fast_view(world), seat, legal)
        game.play(world, seat, move, b"%s|%d" % (entropy, played))
        budget.spend()
        played += 1
    return _score(world)


def _march_key(view, route, targets):
    end = route[-1]
    best = min((_distances(view, t).get(end, 99) for t in targets), default=99)
    return best, len(route), route


def candidates(view, seat, legal, greedy):
    """The moves worth a search at this decision, the greedy move first (None: nothing to
    search: one move, or a decision left to the greedy player: gifts, arming and training,
    the duel's pairing, fighting on but at the edge of the greedy player's stop)."""
    options = [greedy]

    def add(move):
        if move in legal and move not in options:
            options.append(move)

    if seat != view["turn"]:
        return None                                # gifts: the greedy player's
    if view["phase"] == "start":
        if greedy.split()[0] in ("arm", "buy"):
            return None
        add("rest")
        add("attack")
        targets = _targets(view)
        ends = {}
        for text in _moves_of(legal, "move"):
            route = parse_move(text).args
            if KIND[route[-1]] == "city" and route[-1] not in targets:
                continue
            key = (len(route), route)
            if route[-1] not in ends or key < ends[route[-1]][0]:
                ends[route[-1]] = (key, text)
        marches = sorted(ends.values(), key=lambda kv: _march_key(
            view, parse_move(kv[1]).args, targets))
        for _, text in marches:
            if len(options) >= MAX_CANDIDATES:
                break
            add(text)
    else:                                          # a battle: fight on, or stop
        if greedy != "stop" and _fighters(view["armies"][seat]) != STOP:
            return None                # fight on (greedy), but for the last duel before a stop
        if greedy == "stop":
            fights = [m for m in legal if m != "stop"]
            if fights:
                add(_battle(view, seat, fights))
        else:
            add("stop")
    options = options[:MAX_CANDIDATES]
    return options if len(options) > 1 else None


def strong_move(game, view, seat, legal, rng, budget=None):
    """The ``strong`` level: the greedy move, unless rollouts say another is better.

    At each decision worth a search (``candidates``: where to march, whether to rest or
    attack, whether a weakened army fights on or stops), every candidate is played on
    worlds rebuilt from the view with sampled dice (``determinize.title_of_liberty_world``:
    nothing else is hidden), each followed by the greedy team to the end of the war; the
    candidates share each world's dice (common random numbers).  A candidate replaces the
    greedy move when its average score beats the greedy move's by more than ``MARGIN``.
    The budget counts the moves applied (``{"nodes": n}``, default ``DEFAULT_NODES``;
    ``{"seconds": s, "clock": fn}`` also bounds it by the caller's clock).
    """
    from .determinize import title_of_liberty_world
    from .search import Budget, after
    legal = list(legal)
    greedy = greedy_choice(view, seat, legal)
    options = candidates(view, seat, legal, greedy)
    if options is None:
        return greedy
    budget = Budget(budget, DEFAULT_NODES)
    totals = {m: 0.0 for m in options}
    worlds = 0
    while budget.left() or worlds == 0:
        world = title_of_liberty_world(view, seat, rng)
        entropy = b"w%d" % worlds
        scores = {}
        for move in options:
            nxt = after(game, world, seat, move, entropy)
            budget.spend()
            scores[move] = 0.0 if nxt is None else rollout(game, nxt, budget, entropy)
        if not budget.left() and worlds:
            break          # a world cut short by the budget would compare unlike rollouts
        for move in options:
            totals[move] += scores[move]
        worlds += 1
        if worlds >= 64:
            break
    best = max(options, key=lambda m: (totals[m], m == greedy))
    if totals[best] > totals[greedy] + MARGIN * worlds:
        return best
    return greedy


LEVELS = {"greedy": greedy_move, "strong": strong_move}

__all__ = ["LEVELS", "candidates", "choose_for_state", "fast_view", "greedy_choice",
           "greedy_move", "rollout", "strong_move"]
