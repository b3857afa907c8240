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
view), ``strong`` (search over sampled worlds, bounded by a node or time budget).  A game
names the module of its bots in ``Game.bots_module`` (the built-in games' bots live in
``shared/bots/<game>.py``; a plug-in names a module of its own): its ``LEVELS`` maps each
level it plays to its chooser, ``chooser(game, view, seat, legal, rng, budget) -> move``.
Every game has the random level.  A level a game lacks is refused (:class:`BotError`, naming
the levels it has: :func:`levels`), never played by a weaker bot under its name.
"""

import importlib

LEVELS = ("random", "greedy", "strong")


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


def _module(game):
    path = getattr(game, "bots_module", None)
    # a game's bot module that fails to import is a bug to see, not a reason to play its
    # seats at random
    return importlib.import_module(path) if path is not None else None


def public_moves(game, view, seat, legal, refused=()):
    """The moves a bot chooses among: ``legal`` made independent of hidden information.

    A game's legal list may depend on another seat's hidden cards: Zarahemla and Stone Age
    list ``confirm SEAT`` only while the answering seat still holds its side of the deal.
    So the ``confirm`` moves of ``legal`` are dropped and made again from the view (the
    game's bot module's ``confirms(view, seat)``: every seat that accepted or countered,
    when the seat's own hand pays its side).  ``refused``: moves the rules refused to this
    seat at this position (it learnt that by trying them, as a player would): left out.
    The result is sorted, so it does not depend on the order of ``legal`` either.
    """
    module = _module(game)
    confirms = getattr(module, "confirms", None) if module is not None else None
    out = set(legal)
    if confirms is not None:
        out = {m for m in out if not m.startswith("confirm ")}
        out.update(confirms(view, seat))
    out.difference_update(refused)
    return sorted(out)


def _levels_for(game):
    """{level: chooser} for ``game``: its own bots over the random one."""
    levels = {"random": random_move}
    module = _module(game)
    if module is not None:
        levels.update(getattr(module, "LEVELS", {}) or {})
    return levels


def levels(game):
    """The levels ``game`` has its own bots for, weakest first."""
    have = _levels_for(game)
    return [level for level in LEVELS if level in have]


def choose_move(game, view, seat, legal, rng, level="random", budget=None, refused=()):
    """One move for ``seat`` (a notation string), chosen from its view alone.

    The bot chooses among ``public_moves(game, view, seat, legal, refused)``: ``legal``
    with the moves that depend on hidden cards made again from the view.  So two states
    that differ only in another seat's hidden cards give the same move, even where their
    legal lists differ (``tests/shared/bots/test_bots_fair.py``).  The price: the move may
    be a ``confirm SEAT`` that the rules refuse (the partner no longer holds its side);
    ``legal_or_again`` asks again with that move in ``refused``, as a player who tried it
    would.  ``budget`` bounds a search level (``{"nodes": n}`` or ``{"seconds": s}``; a
    pure library has no clock, so a time budget is measured by the caller's
    ``budget["clock"]`` function).  Raises BotError for an unknown level or when there is no
    move to choose from.
    """
    check_level(game, level)
    moves = public_moves(game, view, seat, legal, refused)
    if not moves:
        raise BotError(f"{seat} has no legal move to choose from")
    return _levels_for(game)[level](game, view, seat, moves, rng, budget)


def check_level(game, level):
    """Raise BotError unless ``game`` has bots of ``level``; the message names its levels."""
    if level not in LEVELS:
        raise BotError(f"there is no bot level {level!r}: the levels are {', '.join(LEVELS)}")
    have = levels(game)
    if level not in have:
        raise BotError(f"{game.name} has no {level} bot: its levels are {', '.join(have)}")


def legal_or_again(game, view, seat, legal, rng, level="random", budget=None, tries=3,
                   choose=None):
    """``choose_move`` (or ``choose``, with its signature), asked again while its move is a
    ``confirm`` that ``legal`` lacks (the rules would refuse it: the partner no longer holds
    its side; the seat learns that by trying, and so may the bot).  Returns the move; any
    other move goes back as chosen (``may_play`` judges it)."""
    choose = choose or choose_move
    refused = []
    while True:
        move = (choose(game, view, seat, legal, rng, level, budget, refused=refused)
                if refused else choose(game, view, seat, legal, rng, level, budget))
        if not (isinstance(move, str) and move.startswith("confirm ")) or move in legal \
                or len(refused) >= tries:
            return move
        refused.append(move)
