"""Set-up over the real ``pbem`` command (tests/client/conftest.py's ``make_player``)."""


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
