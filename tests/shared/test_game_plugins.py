"""Games from other distributions: the entry-point group ``pbem.games`` (shared/games.py)."""

import importlib.machinery
import importlib.metadata
import importlib.util
import sys
import types

import pytest

from shared import games
from shared.base import Game
from tests.fixtures.pig import Pig


class _Dist:
    """Just enough of a distribution's entry points for ``importlib.metadata.entry_points``."""

    def __init__(self, entries):
        self.eps = [importlib.metadata.EntryPoint(name, value, games.ENTRY_POINT_GROUP)
                    for name, value in entries.items()]

    def __call__(self, group=None, **kw):
        assert group == games.ENTRY_POINT_GROUP
        return importlib.metadata.EntryPoints(self.eps)


@pytest.fixture
def distribution(monkeypatch):
    """A fake installed distribution ``pbem-pig2`` shipping one game module."""
    module = types.ModuleType("pbem_pig2")

    class Pig2(Pig):
        name = "pig2"
        title = "Pig again (from another distribution)"

    module.GAME = Pig2()
    module.NOT_A_GAME = object()
    broken = types.ModuleType("pbem_broken")
    monkeypatch.setitem(sys.modules, "pbem_pig2", module)
    monkeypatch.setitem(sys.modules, "pbem_broken", broken)
    monkeypatch.setattr(importlib.metadata, "entry_points", _Dist({
        "pig2": "pbem_pig2:GAME",
        "impostor": "pbem_pig2:NOT_A_GAME",
        "ghost": "pbem_no_such_module:GAME",
        "zarahemla": "pbem_pig2:GAME",       # a plug-in cannot replace a built-in game
    }))
    monkeypatch.setattr(games, "_loaded", dict(games._loaded))
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "pbem_no_such_module" else True)
    return module


def test_a_game_declared_by_another_distribution_is_found_and_plays(distribution):
    assert "pig2" in games.game_types()
    game = games.get_game("pig2")
    assert game is distribution.GAME and isinstance(game, Game)
    state = game.new_game(game.seat_names(2), {"target": 5}, b"plugin")
    state = game.play(state, "north", "roll", b"x")
    assert state["ply"] == 1


def test_broken_or_foreign_entries_are_left_out_and_never_hide_the_built_ins(distribution):
    names = games.game_types()
    assert {"zarahemla", "stone_age", "title_of_liberty", "pig2"} <= set(names)
    assert "impostor" not in names and "ghost" not in names
    with pytest.raises(TypeError):
        games.get_game("impostor")
    with pytest.raises(KeyError):
        games.get_game("ghost")
    assert games.get_game("zarahemla").title == "The Settlers of Zarahemla"


def test_the_built_in_games_are_declared_in_the_entry_point_group():
    """setup.cfg declares them, as a distribution of its own would (after pip install)."""
    import configparser
    from pathlib import Path
    cfg = configparser.ConfigParser()
    cfg.read(Path(__file__).resolve().parents[2] / "setup.cfg")
    declared = cfg["options.entry_points"][games.ENTRY_POINT_GROUP]
    pairs = dict(line.split(" = ") for line in declared.strip().splitlines())
    assert pairs == games._BUILTIN


# --- a declared game that cannot load is named, and the others still load ----------------------

@pytest.fixture
def broken_plugins(monkeypatch):
    """Declared games that fail in each way a stranger's distribution can."""
    raising = types.ModuleType("pbem_raises")
    raising.__spec__ = importlib.machinery.ModuleSpec("pbem_raises", None)
    monkeypatch.setitem(sys.modules, "pbem_raises", raising)
    monkeypatch.setattr(importlib.metadata, "entry_points", _Dist({
        "broken_dice": "tests.fixtures.broken_game:GAME",
        "no_attr": "pbem_raises:GAME",
        "ghost": "pbem_no_such_module:GAME",
        "liars_dice": "tests.fixtures.liars_dice:GAME",
    }))
    monkeypatch.setattr(games, "_loaded", dict(games._loaded))
    monkeypatch.setattr(games, "_errors", {})


def test_a_game_that_cannot_load_is_named_with_its_reason(broken_plugins):
    names = games.game_types()
    assert {"zarahemla", "stone_age", "title_of_liberty", "liars_dice"} <= set(names)
    errors = games.load_errors()
    assert set(errors) == {"broken_dice", "no_attr", "ghost"}
    assert "ModuleNotFoundError" in errors["broken_dice"]
    assert "pbem_dice_helpers" in errors["broken_dice"]
    assert "AttributeError" in errors["no_attr"]
    assert "pbem_no_such_module" in errors["ghost"]
    lines = games.load_error_lines()
    assert lines[0].startswith("warning: the game broken_dice cannot load: ")


def test_no_load_errors_when_every_declared_game_loads(monkeypatch):
    monkeypatch.setattr(games, "_errors", {})
    assert games.load_errors() == {}
    assert games.load_error_lines() == []
