"""Cooperative games' team records, end to end: ``pbem play ... concede`` ends a Title of
Liberty game, the server's notice worker counts it, ``pbem ratings`` shows it."""

import time

import pytest
import requests

from shared.games import game_types


def _finish_by_concession(players, game):
    by_seat = {p.json("show", game)["you"]: p for p in players}
    view = players[0].json("show", game)
    assert view["status"] == "playing", view
    mover = by_seat[view["to_act"][0]]
    mover.run("play", game, "concede")
    assert players[0].json("show", game)["status"] == "over"


def test_two_finished_title_of_liberty_games_show_in_the_team_records(make_player):
    """The attack: after two finished all-human games, pbem ratings said "no finished game
    yet" and team_records stayed empty: only rated games were counted, and a cooperative
    game is never rated."""
    if "title_of_liberty" not in game_types():
        pytest.skip("title_of_liberty is not available")
    ann, bob = make_player("ann"), make_player("bob")
    for _ in range(2):
        game = ann.json("new", "title_of_liberty", "--seats", 2)["id"]
        bob.run("join", game)
        _finish_by_concession([ann, bob], game)
    # the server is shared by the run's CLI tests: other games may count in the table, but
    # bob's own record is these two games alone
    profile = {}
    deadline = time.monotonic() + 60  # the server's notice worker counts finished games
    while time.monotonic() < deadline:
        profile = requests.get(f"{ann.server}/api/players/{bob.name}", timeout=30).json()
        records = profile.get("team_records", {}).get("title_of_liberty") or []
        if sum(r["games"] for r in records) >= 2:
            break
        time.sleep(0.5)
    assert profile["team_records"]["title_of_liberty"] == [
        {"team_size": 2, "games": 2, "wins": 0}]
    out = ann.run("ratings", "title_of_liberty").stdout
    assert "no finished game yet" not in out, out
    assert "2 players:" in out, out
    table = ann.json("ratings", "title_of_liberty")
    two = [t for t in table["teams"] if t["team_size"] == 2]
    assert len(two) == 1 and two[0]["games"] >= 2 and table["ratings"] == []
