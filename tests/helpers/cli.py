"""Set-up over the real ``pbem`` command (tests/client/conftest.py's ``make_player``)."""

import pytest


def start(make_player, seats=2, target=100):
    players = [make_player(n) for n in ("ann", "bob", "cyd", "dee")[:seats]]
    new = players[0].run("new", "pig", "--seats", seats, "--option", f"target={target}")
    game = new.stdout.strip()
    assert game and "\n" not in game
    assert "pbem join" in new.stderr
    for p in players[1:]:
        out = p.run("join", game).stdout
        assert "joined game" in out
    assert "the game has started" in out
    return game, players


def to_act(player, game):
    return player.json("show", game)["to_act"]


def finish(game, by_seat, watcher, limit=500):
    """Play until the game is over: roll once, then hold (a tiny target ends it quickly)."""
    for _ in range(limit):
        view = watcher.json("show", game)
        if view["status"] == "over":
            return view
        seat = view["to_act"][0]
        by_seat[seat].run("play", game, "roll" if view["pot"] == 0 else "hold")
    pytest.fail("the game did not end")


def _hold_with_a_pot(ann, bob, game):
    while True:
        ann.run("play", game, "roll")
        view = ann.json("show", game)
        if view["pot"]:
            break
        bob.run("play", game, "hold")
    ann.run("play", game, "hold")
    return view["pot"]
