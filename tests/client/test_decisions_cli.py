"""End to end: `pbem resign`, `pbem draw`, `pbem abort`, `pbem pause` and `pbem resume` against
the real server process (the session's); the archives of a resigned, a drawn and an aborted game
verify complete offline and say what happened."""

from tests.helpers.cli import start


def _verified(player, game, tmp_path):
    path = tmp_path / f"{game}.json"
    player.run("export", game, "-o", path)
    out = player.run("verify", path).stdout
    assert all(len(line) <= 80 or " " not in line.strip() for line in out.splitlines())
    out = " ".join(out.split())  # the sentences, wrapped to 80 columns
    assert "complete and verified" in out
    return out


def test_resign_asks_then_ends_a_two_seat_game_for_the_other(make_player, tmp_path):
    (game, (ann, bob)) = start(make_player)
    kept = ann.run("resign", game, input="n\n", ok=1)
    assert "nothing was sent" in kept.stderr
    assert ann.json("show", game)["status"] == "playing"
    ann.run("resign", game, input="y\n")
    view = bob.json("show", game)
    assert view["status"] == "over" and view["result"]["winners"] == ["east"]
    assert view["result"]["reason"].startswith("north resigned")
    again = bob.run("resign", game, "--yes", ok=1)
    assert "is over" in again.stderr and "north resigned" in again.stderr
    assert "north resigned: east wins" in _verified(bob, game, tmp_path)


def test_a_resigned_seat_of_three_leaves_the_race(make_player):
    (game, (ann, bob, cyd)) = start(make_player, seats=3)
    bob.run("resign", game, "--yes")
    view = ann.json("show", game)
    assert view["status"] == "playing" and view["table"]["resigned"] == ["east"]
    assert "has resigned" in bob.run("draw", game, ok=1).stderr
    assert "has resigned" in bob.run("resign", game, "--yes", ok=1).stderr
    cyd.run("draw", game)  # the decisions are the two seats' still in the race
    ann.run("draw", game)
    assert ann.json("show", game)["result"]["reason"] == "drawn by agreement"


def test_draw_offered_accepted_refused(make_player, tmp_path):
    (game, (ann, bob)) = start(make_player)
    assert "no draw offer to refuse" in bob.run("draw", game, "--refuse", ok=1).stderr
    ann.run("draw", game)
    assert bob.json("show", game)["table"]["draw"]["owed"] == ["east"]
    shown = bob.run("show", game).stdout
    assert "north offers a draw; waiting for east." in shown and f"pbem draw {game}" in shown
    waiting = [g for g in bob.json("games") if g["id"] == game][0]["waiting"]
    assert {"kind": "draw", "text": "north offers a draw",
            "command": f"pbem draw {game} (or --refuse)"} in waiting
    assert f"north offers a draw: pbem draw {game}" in bob.run("games").stdout
    assert "waits for east" in ann.run("draw", game, ok=1).stderr
    bob.run("draw", game, "--refuse")
    ann.run("draw", game)
    bob.run("draw", game)
    result = ann.json("show", game)["result"]
    assert result == {"winners": [], "reason": "drawn by agreement", "table": "draw"}
    assert "won by nobody (drawn by agreement)" in _verified(ann, game, tmp_path)


def test_abort_alone_at_the_start_is_unrated(make_player, tmp_path):
    (game, (ann, bob)) = start(make_player)
    assert "nothing was sent" in ann.run("abort", game, input="\n", ok=1).stderr
    bob.run("abort", game, "--yes")
    result = ann.json("show", game)["result"]
    assert result["rated"] is False and "unrated" in result["reason"]
    assert "aborted by east" in _verified(ann, game, tmp_path)


def test_pause_agreed_then_resumed(make_player):
    (game, (ann, bob)) = start(make_player)
    assert "--days N" in ann.run("pause", game, ok=1).stderr
    assert "not paused" in ann.run("resume", game, ok=1).stderr
    ann.run("pause", game, "--days", 3)
    assert "for 3 days" in bob.run("pause", game, "--days", 4, ok=1).stderr
    bob.run("pause", game)
    paused = ann.json("show", game)["table"]["paused"]
    assert paused["days"] == 3 and paused["until"] - paused["from"] == 3 * 86400
    assert "The table paused the game for 3 days, until" in ann.run("show", game).stdout
    ann.run("play", game, "hold")  # moves go on while the clocks are stopped
    bob.run("resume", game)
    assert "paused" not in ann.json("show", game).get("table", {})
    assert ann.run("pause", game, "--days", 15, ok=2).exit_code == 2
