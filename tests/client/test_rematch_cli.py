"""``pbem rematch`` and ``pbem ratings`` against a real server process."""


def finish_pig(players, game):
    by_seat = {p.json("show", game)["you"]: p for p in players}
    for _ in range(200):
        view = players[0].json("show", game)
        if view["status"] == "over":
            return view
        seat = view["to_act"][0]
        mover = by_seat[seat]
        move = "hold" if mover.json("show", game)["pot"] > 0 else "roll"
        mover.run("play", game, move)
    raise AssertionError("the game did not end")


def test_rematch_from_the_cli(make_player):
    ann, bob = make_player("ann"), make_player("bob")
    game = ann.json("new", "pig", "--seats", 2, "--option", "target=1")["id"]
    bob.run("join", game)
    finish_pig([ann, bob], game)
    offered = bob.run("rematch", game)
    new = offered.stdout.strip()
    assert new and new != game and "waiting for 1 player(s) to accept" in offered.stderr
    # the kept seat is named with the player it is kept for, not "(invited)" or "free"
    assert f"north={bob.name}, east={ann.name} (invited)" in offered.stderr, offered.stderr
    seats = bob.json("show", new)["seats"]
    assert seats == [{"seat": "north", "player": bob.name, "invited": None},
                     {"seat": "east", "player": None, "invited": ann.name}]
    row = next(line for line in bob.run("games").stdout.splitlines() if line.startswith(new))
    assert f"1 seat kept for {ann.name}" in row and "free" not in row, row
    shown = bob.run("show", new).stdout
    assert f"has not started: 1 seat kept for {ann.name}." in shown, shown
    accepted = ann.run("rematch", game)
    assert accepted.stdout.strip() == new and "the game has started" in accepted.stderr
    started = ann.json("show", new)
    assert started["status"] == "playing"
    assert ann.json("show", game)["you"] != started["you"]  # the seats moved on


def test_declining_and_bad_input(make_player):
    ann, bob = make_player("ann"), make_player("bob")
    game = ann.json("new", "pig", "--seats", 2, "--option", "target=1", "--unrated")["id"]
    bob.run("join", game)
    r = ann.run("rematch", game, ok=1)
    assert "not over" in r.stderr and "Traceback" not in r.stderr
    finish_pig([ann, bob], game)
    ann.run("rematch", game)
    r = bob.run("rematch", game, "--decline")
    assert "withdrawn" in r.stderr
    r = bob.run("ratings", "no_such_game", ok=1)
    assert "no game called" in r.stderr and "Traceback" not in r.stderr
    out = bob.run("ratings", "title_of_liberty").stdout
    assert "cooperative game, recorded by team size" in out


def test_ratings_after_a_rated_game_of_newcomers_say_why_they_are_empty(make_player):
    """A rated game of two new accounts finishes: it changes no rating (the README's history
    rule), and pbem ratings says so, with the rule, rather than "no rated game has finished
    yet"; --json carries the count and the rule."""
    ann, bob = make_player("ann"), make_player("bob")
    game = ann.json("new", "pig", "--seats", 2, "--option", "target=1")["id"]
    bob.run("join", game)
    assert finish_pig([ann, bob], game)["status"] == "over"
    table = ann.json("ratings", "pig")
    assert table["rated_finished"] >= 1
    assert table["history"] == {"days": 7, "games": 3}
    out = ann.run("ratings", "pig").stdout
    assert "has finished yet" not in out
    if not table["ratings"]:      # no account on this server has the history yet
        said = " ".join(out.split())
        assert said.startswith(f"no rating of pig yet: {table['rated_finished']} rated "
                               "game(s) finished, but a game changes ratings only when")
        assert said.endswith("at least 7 days old and had finished at least 3 other games")
        assert all(len(line) <= 80 for line in out.splitlines())
