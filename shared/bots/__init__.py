"""Bots: players that choose a move from what their seat may see (pure, like the rules).

A bot is given the game, its seat's *view* (``game.view(state, seat)``, never the state), the
seat's legal moves (``game.legal_moves(state, seat)``: the server sends the same list to any
player, so it reveals nothing the seat may not know) and a seeded generator of its own
(``random.Random(seed)``: never the global one).  It returns one move in the game's notation.
Search bots sample the hidden information consistently with the view (determinization) and
search over the samples with the rules library; no bot ever reads the real state.

    >>> import random
    >>> from shared.games import get_game
    >>> game = get_game("zarahemla")
    >>> state = game.new_game(["red", "blue"], {}, b"seed")
    >>> seat = game.to_act(state)[0]
    >>> move = choose_move(game, game.view(state, seat), seat,
    ...                    game.legal_moves(state, seat), random.Random(1), "random")
    >>> move in game.legal_moves(state, seat)
    True

Levels: ``random`` (any legal move), ``greedy`` (one move ahead with a value function of the
view), ``strong`` (search over sampled worlds, bounded by a node or time budget).  Each game's
bots live in ``shared/bots/<game>.py`` and register their levels in ``_LEVELS``; a level a
game lacks falls back to the next weaker one.
"""

import importlib

LEVELS = ("random", "greedy", "strong")

#: {game name: module path} of each game's bots (loaded lazily)
_GAME_BOTS = {
    "zarahemla": "shared.bots.zarahemla",
    "stone_age": "shared.bots.stone_age",
    "title_of_liberty": "shared.bots.title_of_liberty",
}


class BotError(ValueError):
    """A bot cannot move: unknown level, or no legal move to choose from."""


def random_move(game, view, seat, legal, rng, budget=None):
    """The ``random`` level: any legal move, uniformly (the seeded generator chooses)."""
    return rng.choice(sorted(legal))


def may_play(game, move, legal):
    """Whether a bot's ``move`` may be sent: one of ``legal``, or a move of a kind the game
    lists only by examples (``Game.open_ended_kinds``: a discard, an offer) that parses.  The
    rules judge such a move when it is played (a bot builds its own discard, which the list
    shows only one example of)."""
    if not isinstance(move, str):
        return False
    if move in legal:
        return True
    try:
        parsed = game.parse_move(move)
    except Exception:  # noqa: BLE001 - a move that does not parse is not one to send
        return False
    return getattr(parsed, "kind", None) in game.open_ended_kinds


def _levels_for(game):
    """{level: chooser} for ``game``: its own bots over the random one."""
    levels = {"random": random_move}
    path = _GAME_BOTS.get(game.name)
    if path is not None:
        # a game's bot module that fails to import is a bug to see, not a reason to play
        # its seats at random
        levels.update(getattr(importlib.import_module(path), "LEVELS", {}) or {})
    return levels


def levels(game):
    """The levels ``game`` has its own bots for, weakest first."""
    have = _levels_for(game)
    return [level for level in LEVELS if level in have]


def choose_move(game, view, seat, legal, rng, level="random", budget=None):
    """One move for ``seat`` (a notation string from ``legal``).

    ``budget`` bounds a search level (``{"nodes": n}`` or ``{"seconds": s}``; a pure library
    has no clock, so a time budget is measured by the caller's ``budget["clock"]`` function).
    Raises BotError for an unknown level or when ``legal`` is empty.
    """
    if level not in LEVELS:
        raise BotError(f"there is no bot level {level!r}: the levels are {', '.join(LEVELS)}")
    legal = list(legal)
    if not legal:
        raise BotError(f"{seat} has no legal move to choose from")
    have = _levels_for(game)
    for candidate in reversed(LEVELS[:LEVELS.index(level) + 1]):
        chooser = have.get(candidate)
        if chooser is not None:
            move = chooser(game, view, seat, legal, rng, budget)
            return move
    raise BotError(f"no bot for {game.name}")  # pragma: no cover - random always exists
