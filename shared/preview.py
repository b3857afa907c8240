"""What a move will do, told to its mover before it is signed (pure).

:func:`check_move` answers the question a player asks before signing: is this move legal
now, and if not, why (the rules' own reason: it is the mover's, it may name their hand);
and if it is, what will it do?

The effect is never worked out on the real state: that would tell the mover the dice of
their roll, the card they will draw or another seat's hidden hand before they commit.  It is
played on *sampled worlds* instead: states rebuilt from the mover's own view, their hidden
parts (other seats' cards, the seed) drawn by ``shared.bots.determinize`` with the caller's
generator (a game whose only secret is its seed gets the real state with a fresh random
seed).  So the answer is a function of what the mover may see, nothing more.  Then:

* the move drew randomness (dice, a draw, a steal) in a world: ``outcome`` is ``"chance"``
  and no result is shown, only that it is left to chance;
* the worlds disagree (the result depends on cards the mover cannot see): ``"hidden"``;
* otherwise ``"certain"``: the events as the mover will read them, the change to their hand
  and points, and who owes what next.

A game with hidden parts and no world sampler gets ``"unknown"`` (legality only).
"""

import random

from . import IllegalMove, InvalidMove
from .rng import Rng

#: sampled worlds a preview plays the move in (for a game with hidden cards)
WORLDS = 4


class _CountingRng(Rng):
    """An Rng that remembers whether anything was drawn from it."""

    __slots__ = ("drew",)

    def __init__(self, seed, label=b""):
        super().__init__(seed, label)
        self.drew = False

    def _refill(self):
        self.drew = True
        super()._refill()


def _clone(state):
    from .bots.search import clone
    return clone(state)


def _worlds(game, state, view, seat, rng):
    """States consistent with ``seat``'s view (None: this game cannot sample one)."""
    from .bots.determinize import WORLDS as SAMPLERS
    from .bots.determinize import sample_world
    if game.name in SAMPLERS:
        return [sample_world(game, view, seat, rng) for _ in range(WORLDS)]
    if not game.hidden_fields(state):
        world = _clone(state)
        world["seed"] = "%064x" % rng.getrandbits(256)
        return [world]
    return None


def _play_counting(game, world, seat, text, entropy):
    """``game.play`` written out (its template's steps), with an Rng that tells whether the
    move drew; returns (state after, drew)."""
    move = game.parse_move(text)
    plan = game.check_move(world, seat, move)
    rng = _CountingRng.for_move(world, entropy)  # what Game.move_rng gives, counting
    world["events"] = []
    game.applies[move.kind](world, seat, move, plan, rng)
    world["ply"] += 1
    game.after_move(world, seat, move)
    return world, rng.drew


def _ints(value):
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if isinstance(v, int) and not isinstance(v, bool)}


def _changes(before, after, seat):
    """The mover's own hand and points, before and after: [text]."""
    out = []
    hb, ha = _ints(before.get("hand")), _ints(after.get("hand"))
    delta = []
    for key in list(hb) + [k for k in ha if k not in hb]:
        d = ha.get(key, 0) - hb.get(key, 0)
        if d:
            delta.append(f"{'+' if d > 0 else '-'}{abs(d)} {key}")
    if delta:
        out.append("your hand: " + ", ".join(delta))
    sb = _ints(before.get("scores")).get(seat)
    sa = _ints(after.get("scores")).get(seat)
    if sb is not None and sa is not None and sa != sb:
        out.append(f"your points: {sb} -> {sa}")
    return out


def _outcome(game, world, seat, text, entropy):
    before = game.view(world, seat)
    after, drew = _play_counting(game, _clone(world), seat, text, entropy)
    seen = tuple(game.events_for(after.get("events") or [], seat))
    view = game.view(after, seat)
    owes = game.owes(after) if game.result(after) is None else {}
    return drew, (seen, tuple(_changes(before, view, seat)),
                  tuple(sorted((str(k), str(v)) for k, v in owes.items())))


def check_move(game, state, seat, text, rng=None):
    """Whether ``seat`` may play ``text`` now, and what it would do, for the mover's eyes.

    ``state`` is the real state (only its legality check reads it directly); ``rng`` is a
    ``random.Random`` for the sampled worlds (a seeded one gives the same answer each time).
    Returns a dict: ``legal``, ``move`` (the canonical text when it parses), ``code`` and
    ``reason`` when refused, else ``outcome`` ("certain", "chance", "hidden", "unknown"),
    ``events``, ``changes`` and ``next`` ({seat: what they owe}) when certain, and
    ``summary``, one sentence.
    """
    rng = rng or random.Random(0)
    answer = {"legal": False, "move": text}
    try:
        move = game.parse_move(text)
        answer["move"] = game.format_move(move)
        game.check(state, seat, answer["move"])
    except (IllegalMove, InvalidMove) as exc:
        answer.update(code=getattr(exc, "code", "illegal_move"), reason=str(exc.args[0]
                      if exc.args else exc))
        answer["summary"] = f"Not possible: {answer['reason']}"
        return answer
    answer["legal"] = True
    view = game.view(state, seat)
    worlds = _worlds(game, state, view, seat, rng)
    results, drew = set(), False
    if worlds:
        for i, world in enumerate(worlds):
            entropy = b"preview|%d|%d" % (i, rng.getrandbits(64))
            try:
                d, result = _outcome(game, world, seat, answer["move"], entropy)
            except (IllegalMove, InvalidMove):
                result, d = ("refused in a sampled world",), False
            drew = drew or d
            results.add(result)
    if not worlds:
        outcome = "unknown"
    elif drew:
        outcome = "chance"
    elif len(results) > 1:
        outcome = "hidden"
    else:
        outcome = "certain"
    answer["outcome"] = outcome
    if outcome == "certain":
        seen, changes, owes = results.pop()
        answer.update(events=list(seen), changes=list(changes), next=dict(owes))
        words = " ".join(seen) or "Nothing anyone can see changes."
        answer["summary"] = words + (f" ({'; '.join(changes)})" if changes else "")
    else:
        answer["summary"] = {
            "chance": "Legal. Its result is left to chance (dice or a draw): it is decided "
                      "when the move is played, not before.",
            "hidden": "Legal. Its result depends on cards you cannot see.",
            "unknown": "Legal."}[outcome]
    return answer
