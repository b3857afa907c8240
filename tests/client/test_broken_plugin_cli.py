"""A declared game that cannot load where the client runs is named by ``pbem games``, with its
reason, and the player's games are still listed (shared.games.load_errors)."""

import importlib.metadata

from shared import games


def test_pbem_games_names_a_game_that_cannot_load_here_and_still_lists_it(make_player,
                                                                         monkeypatch):
    ann, bob = make_player("ann"), make_player("bob")
    game = ann.json("new", "pig", "--seats", 2)["id"]
    bob.run("join", game)
    # this client's pig comes from a distribution that forgot a dependency
    monkeypatch.setattr(games, "_loaded", {k: v for k, v in games._loaded.items() if k != "pig"})
    monkeypatch.setattr(games, "_extra", {k: v for k, v in games._extra.items() if k != "pig"})
    monkeypatch.setattr(games, "_errors", {})
    entry_points = importlib.metadata.entry_points

    def declared(**kw):
        if kw.get("group") != games.ENTRY_POINT_GROUP:
            return entry_points(**kw)
        return importlib.metadata.EntryPoints([importlib.metadata.EntryPoint(
            "pig", "tests.fixtures.broken_game:GAME", games.ENTRY_POINT_GROUP)])

    monkeypatch.setattr(importlib.metadata, "entry_points", declared)
    listed = ann.run("games")
    assert any(line.startswith(game + " ") for line in listed.stdout.splitlines())
    assert "warning: the game pig cannot load here: tests.fixtures.broken_game:GAME: " \
           "ModuleNotFoundError: No module named 'pbem_dice_helpers'" in listed.stderr
    assert "Traceback" not in listed.stderr
    # a player without games of it is not told of it here (pbem rules names every one)
    assert "cannot load" not in make_player("cyd").run("games").stderr
