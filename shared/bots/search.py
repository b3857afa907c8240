"""Search helpers shared by the games' bots: cloning sampled worlds, one-move lookahead,
and a bounded search over sampled worlds.

Everything here plays on *sampled worlds* (``determinize.sample_world``), never on the real
state; the budget is counted in nodes (moves applied), since a pure library has no clock.
"""

import marshal

from .. import IllegalMove, InvalidMove

#: nodes a ``strong`` bot may spend on one move unless the budget says otherwise
DEFAULT_NODES = 400


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


__all__ = ["Budget", "after", "best", "clone", "node_budget", "DEFAULT_NODES"]
