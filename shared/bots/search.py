"""Search helpers shared by the games' bots: cloning sampled worlds, one-move lookahead,
and a bounded search over sampled worlds.

Everything here plays on *sampled worlds* (``determinize.sample_world``), never on the real
state; the budget is counted in nodes (moves applied), since a pure library has no clock.
"""

import marshal

from .. import IllegalMove, InvalidMove

#: nodes (moves applied to sampled worlds) a ``strong`` bot may spend on one move unless the
#: budget says otherwise
DEFAULT_NODES = 1500
#: sampled worlds a ``strong`` bot averages over
WORLDS = 3


def clone(state):
    """A deep copy of a plain-data state (lists, dicts, tuples, strings, numbers)."""
    return marshal.loads(marshal.dumps(state))


def after(game, world, seat, move, entropy=b"bot"):
    """The world after ``seat`` plays ``move`` (a copy), or None when the world refuses it.

    A sampled world may refuse a listed move that depends on a hidden card (a trade
    confirmed with a seat whose sampled hand lacks the cards).
    """
    state = clone(world)
    try:
        return game.play(state, seat, move, entropy)
    except (IllegalMove, InvalidMove):
        return None


def node_budget(budget, default=DEFAULT_NODES):
    """The number of nodes ``budget`` allows (``{"nodes": n}``; anything else: the default)."""
    if isinstance(budget, dict) and isinstance(budget.get("nodes"), int) and budget["nodes"] > 0:
        return budget["nodes"]
    return default


class Budget:
    """Counts nodes; ``budget["clock"]`` (a function giving seconds) with
    ``budget["seconds"]`` also bounds the search by time, measured by the caller's clock."""

    def __init__(self, budget, default=DEFAULT_NODES):
        self.nodes = node_budget(budget, default)
        self.used = 0
        self.clock = budget.get("clock") if isinstance(budget, dict) else None
        seconds = budget.get("seconds") if isinstance(budget, dict) else None
        self.deadline = None
        if self.clock is not None and isinstance(seconds, (int, float)):
            self.deadline = self.clock() + seconds

    def spend(self, n=1):
        self.used += n

    def left(self):
        if self.used >= self.nodes:
            return False
        if self.deadline is not None and self.clock() >= self.deadline:
            return False
        return True


def best(scored, rng):
    """The move with the highest score; ties broken by the seeded generator."""
    top = max(score for score, _ in scored)
    moves = sorted(move for score, move in scored if score >= top - 1e-9)
    return moves[0] if len(moves) == 1 else rng.choice(moves)


def zero_sum(value):
    """``value`` made relative: the seat's value less the best opponent's (a leaf of a
    search counts what the move does to the others too: blocking, robbing, racing)."""
    def relative(state, seat):
        mine = value(state, seat)
        if state.get("result") is not None:
            return mine
        others = [s for s in _seats(state) if s != seat]
        return mine - max((value(state, s) for s in others), default=0.0)
    return relative


def _seats(state):
    return state.get("order") or state.get("seats") or []


def sampled_search(game, worlds, seat, moves, value, rng, budget, follow=None):
    """The move of ``moves`` with the best value averaged over the sampled ``worlds``.

    ``follow(move)`` says whether the move is worth a second one of the same turn (a trade
    is worth what it lets the seat build): its score is then the best of its value and the
    value after each of ``follow``'s second moves (``follow.seconds(state, seat)``).  The
    first world is always searched whole; further worlds while the node budget lasts.
    Returns (move, scored) where scored is [(average, move)].
    """
    totals = {}
    for k, world in enumerate(worlds):
        if k and not budget.left():
            break
        for m in moves:
            nxt = after(game, world, seat, m)
            budget.spend()
            if nxt is None:
                continue
            score = value(nxt, seat)
            if follow is not None and follow(m) and budget.left():
                for f in follow.seconds(game, nxt, seat):
                    nn = after(game, nxt, seat, f)
                    budget.spend()
                    if nn is not None:
                        score = max(score, value(nn, seat))
            totals.setdefault(m, []).append(score)
    # a move every world was searched with; the averages compare like with like
    full = max((len(v) for v in totals.values()), default=0)
    scored = [(sum(v) / len(v), m) for m, v in totals.items() if len(v) == full]
    if not scored:
        return None, []
    return best(scored, rng), scored


__all__ = ["Budget", "after", "best", "clone", "node_budget", "sampled_search", "zero_sum",
           "DEFAULT_NODES", "WORLDS"]
