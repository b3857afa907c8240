"""The registry of games: ``get_game(name)`` and ``game_types()``.

Game packages are imported lazily so that the command-line client starts
fast and a broken game never stops the others from loading.
"""

import importlib
import importlib.util

_BUILTIN = {
    "zarahemla": "shared.zarahemla:GAME",
    "stone_age": "shared.stone_age:GAME",
    "title_of_liberty": "shared.title_of_liberty:GAME",
}
_extra = {}
_loaded = {}


def register(game):
    """Register a game object under ``game.name`` (used by test fixtures)."""
    _extra[game.name] = game
    _loaded[game.name] = game
    return game


def register_path(path):
    """Register a game given as ``"module:attribute"``."""
    module, _, attr = path.partition(":")
    return register(getattr(importlib.import_module(module), attr or "GAME"))


def _available(name):
    target = _BUILTIN.get(name)
    if target is None:
        return False
    module = target.partition(":")[0]
    return importlib.util.find_spec(module) is not None


def game_types():
    """The names of every game that loads here, sorted (a broken one is left out)."""
    names = set(_extra)
    for name in _BUILTIN:
        try:
            get_game(name)
        except Exception:  # a game that fails to import must not take the others down
            continue
        names.add(name)
    return sorted(names)


def get_game(name):
    """The game object for ``name``; raises KeyError for an unknown game."""
    game = _loaded.get(name)
    if game is not None:
        return game
    if name not in _BUILTIN or not _available(name):
        raise KeyError(name)
    module, _, attr = _BUILTIN[name].partition(":")
    game = getattr(importlib.import_module(module), attr)
    _loaded[name] = game
    return game
