"""The registry of games: ``get_game(name)`` and ``game_types()``.

The three games of this library are built in.  Any other distribution can ship a game by
declaring it in the entry-point group ``pbem.games`` (``name = module:GAME``, the object a
:class:`shared.base.Game`), e.g. in its ``setup.cfg``::

    [options.entry_points]
    pbem.games =
        pig = pbem_pig:GAME

Game packages are imported lazily so that the command-line client starts
fast and a broken game never stops the others from loading.  A declared game that cannot load
is never silent: :func:`load_errors` names it with its reason (``pbem rules``, ``pbem games``,
the server's start log and ``python -m shared.contract`` print them).
"""

import importlib
import importlib.metadata
import importlib.util

#: the entry-point group a distribution declares its games in
ENTRY_POINT_GROUP = "pbem.games"

#: the built-in games (also declared in this distribution's entry points; listed here so that
#: a source checkout that was never installed still has them)
_BUILTIN = {
    "zarahemla": "shared.zarahemla:GAME",
    "stone_age": "shared.stone_age:GAME",
    "title_of_liberty": "shared.title_of_liberty:GAME",
}
_extra = {}
_loaded = {}
#: {name: why it cannot load}, of the declared games that failed (see :func:`load_errors`)
_errors = {}


def register(game):
    """Register a game object under ``game.name`` (used by test fixtures)."""
    _extra[game.name] = game
    _loaded[game.name] = game
    return game


def register_path(path):
    """Register a game given as ``"module:attribute"``."""
    module, _, attr = path.partition(":")
    return register(getattr(importlib.import_module(module), attr or "GAME"))


def _plugins():
    """{name: "module:attribute"} of the games other distributions declare."""
    try:
        eps = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    except Exception:  # broken metadata of some other distribution must not stop the built-ins
        return {}
    return {ep.name: ep.value for ep in eps if ep.name not in _BUILTIN}


def _target(name):
    target = _BUILTIN.get(name) or _plugins().get(name)
    if target is None:
        return None
    module = target.partition(":")[0]
    try:
        if importlib.util.find_spec(module) is None:
            return None
    except (ImportError, ValueError):
        return None
    return target


def _reason(exc):
    """One line for why a game did not load: the exception's type and message."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def game_types():
    """The names of every game that loads here, sorted (a broken one is left out and named
    by :func:`load_errors`)."""
    names = set(_extra)
    for name in sorted(set(_BUILTIN) | set(_plugins())):
        try:
            get_game(name)
        except Exception:  # a game that fails to import must not take the others down
            continue
        names.add(name)
    return sorted(names)


def load_errors():
    """{name: reason} of every declared game that cannot load here (after trying them all).

    A declared entry whose module is missing, raises on import, lacks the attribute or is
    not a :class:`shared.base.Game` named like its entry: each is named with its reason, so
    that a broken plug-in is never silently absent.
    """
    for name in sorted(set(_BUILTIN) | set(_plugins())):
        if name not in _loaded:
            try:
                get_game(name)
            except Exception:  # noqa: BLE001 - recorded in _errors by get_game
                continue
    return {name: why for name, why in sorted(_errors.items()) if name not in _loaded}


def load_error_lines():
    """The lines a command prints on stderr for :func:`load_errors` (none when all load)."""
    return [f"warning: the game {name} cannot load: {why}"
            for name, why in load_errors().items()]


def get_game(name):
    """The game object for ``name``; raises KeyError for an unknown game.

    A declared game that is not a ``shared.base.Game`` named ``name`` raises TypeError.
    """
    game = _loaded.get(name)
    if game is not None:
        return game
    declared = _BUILTIN.get(name) or _plugins().get(name)
    target = _target(name)
    if target is None:
        if declared is not None:
            _errors[name] = f"{declared}: no module {declared.partition(':')[0]!r} is installed"
        raise KeyError(name)
    from .base import Game
    module, _, attr = target.partition(":")
    try:
        game = getattr(importlib.import_module(module), attr or "GAME")
    except Exception as exc:
        _errors[name] = f"{target}: {_reason(exc)}"
        raise
    if not isinstance(game, Game) or game.name != name:
        _errors[name] = f"{target} is not a shared.base.Game named {name!r}"
        raise TypeError(f"{target} is not a game named {name!r}")
    _loaded[name] = game
    _errors.pop(name, None)
    return game
