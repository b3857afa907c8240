"""End to end against a real server: what waits for a player (pbem games, pbem next), their
settings and vacation (pbem settings, pbem vacation), and a refused registration."""

import json

from tests.helpers.cli import _hold_with_a_pot, finish


def _game(ann, bob, *extra):
    game = ann.run("new", "pig", "--seats", 2, "--option", "target=100", *extra).stdout.strip()
    bob.run("join", game)
    return game


def test_next_and_games_put_the_first_deadline_first(make_player):
    ann, bob = make_player("ann"), make_player("bob")
    assert ann.run("next", ok=3).stdout == ""           # nothing owed: exit 3, no id
    untimed = _game(ann, bob)
    late = _game(ann, bob, "--move-hours", 48)
    soon = _game(ann, bob, "--move-hours", 2)
    assert ann.run("next").stdout.strip() == soon
    assert ann.json("next")["owed"] == [soon, late, untimed]
    listed = ann.json("games")
    assert [g["id"] for g in listed] == [soon, late, untimed]
    assert listed[0]["waiting"][0]["kind"] == "move"
    text = ann.run("games").stdout
    assert text.startswith("Waiting for you:") and text.index(soon) < text.index(late)
    # a row with its deadline (Fri 04 Dec 06:52 CET) fits 80 columns
    assert all(len(line) <= 80 for line in text.splitlines()), text
    ann.run("play", soon, "hold")
    assert ann.run("next").stdout.strip() == late
    # a filter tells the truth: three games, none open
    none_open = ann.run("games", "--status", "open")
    assert "you have no open games (you have 3 games" in none_open.stderr
    assert "no games yet" not in none_open.stderr


def test_takeback_and_rematch_wait_in_the_inbox(make_player):
    ann, bob = make_player("ann"), make_player("bob")
    game = _game(ann, bob)
    _hold_with_a_pot(ann, bob, game)
    ann.run("takeback", game)
    waiting = [w for g in bob.json("games") for w in g["waiting"]]
    assert [w["kind"] for w in waiting] == ["takeback"]
    assert f"pbem takeback {game} --accept" in bob.run("games").stdout
    bob.run("takeback", game, "--refuse")
    short = ann.run("new", "pig", "--seats", 2, "--option", "target=3").stdout.strip()
    bob.run("join", short)
    finish(short, {"north": ann, "east": bob}, ann)
    bob.run("rematch", short)                           # bob offers; ann is invited
    offered = [w for g in ann.json("games") for w in g["waiting"] if w["kind"] == "rematch"]
    assert [w["command"] for w in offered] == [f"pbem rematch {short} (or --decline)"]
    text = ann.run("games").stdout
    assert f"pbem rematch {short} (or --decline)" in text
    assert all(len(line) <= 80 for line in text.splitlines()), text
    assert not [w for g in bob.json("games") for w in g["waiting"] if w["kind"] == "rematch"]


def test_settings_are_shown_and_changed(make_player):
    ann = make_player("ann")
    shown = ann.run("settings").stdout
    assert "time zone    UTC" in shown and "quiet hours  off" in shown
    changed = ann.json("settings", "--tz", "Europe/Paris", "--email", "ann@example.org",
                       "--quiet-hours", "22-7", "--digest", "daily")
    assert (changed["tz"], changed["email"], changed["notify"]) == \
        ("Europe/Paris", "ann@example.org", "digest")
    assert (changed["quiet_start"], changed["quiet_end"]) == (22, 7)
    assert json.loads((ann.home / "config.json").read_text())["tz"] == "Europe/Paris"
    assert "22:00 to 07:00" in ann.run("settings").stdout
    assert ann.json("settings", "--quiet-hours", "off", "--email", "none")["email"] is None
    # bad input: a sentence and a non-zero exit, nothing changed
    assert "22-7" in ann.run("settings", "--quiet-hours", "25-3", ok=2).stderr
    assert "same hour" in ann.run("settings", "--quiet-hours", "7-7", ok=2).stderr
    bad = ann.run("settings", "--tz", "Mars/Olympus", ok=1)
    assert bad.stderr.startswith("pbem: ") and "Traceback" not in bad.stderr
    assert ann.json("settings")["tz"] == "Europe/Paris"


def test_vacation_is_taken_and_shown(make_player):
    ann, bob = make_player("ann"), make_player("bob")
    game = _game(ann, bob, "--move-hours", 2)
    before = ann.json("games")[0]["deadline"]
    taken = ann.json("vacation", "--days", 3)
    assert taken["vacation_until"] and taken["vacation_days_left"] >= 0
    listed = ann.json("games")
    assert listed[0]["id"] == game and listed[0]["vacation_until"]
    assert listed[0]["deadline"] > before                 # the deadline moved on
    assert ann.run("games").stdout.startswith("You are on vacation until ")
    assert "60" in ann.run("vacation", "--days", 61, ok=2).stderr
    assert ann.run("vacation", "--days", 60, ok=1).stderr.startswith("pbem: you have ")


def test_games_asks_the_tables_in_the_listing_not_one_request_a_game(make_player,
                                                                      monkeypatch):
    """``pbem games`` reads what each table asks (a takeback, a draw offered) from the one
    listing (``asked=true``), and prints what it printed when it asked every game's table."""
    from client.api import Api
    ann, bob = make_player("ann"), make_player("bob")
    taken = _game(ann, bob)
    _hold_with_a_pot(ann, bob, taken)
    ann.run("takeback", taken)
    offered = _game(ann, bob)
    ann.run("draw", offered)
    _game(ann, bob)  # a third, where nothing is asked
    paths, send = [], Api.request

    def counted(self, method, path, *args, **kwargs):
        paths.append(path)
        return send(self, method, path, *args, **kwargs)
    monkeypatch.setattr(Api, "request", counted)
    text, listed = bob.run("games").stdout, bob.json("games")
    assert not [p for p in paths if p.endswith("/table")], paths
    assert f"pbem takeback {taken} --accept" in text and f"pbem draw {offered}" in text
    assert all("asked" not in g for g in listed)  # the JSON rows as before

    def older_server(self, method, path, *args, **kwargs):  # a listing without "asked"
        answer = counted(self, method, path, *args, **kwargs)
        for g in answer.get("games") or [] if path == "/api/games" else []:
            g.pop("asked", None)
        return answer
    monkeypatch.setattr(Api, "request", older_server)
    paths.clear()
    assert bob.run("games").stdout == text and bob.json("games") == listed
    assert len([p for p in paths if p.endswith("/table")]) == 2 * 3  # each game, twice
