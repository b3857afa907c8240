"""``pbem tournament`` against a real server: new, join, list, close, start, next, leave,
show, export, and ``pbem verify`` of the file (bots playing each player's seat with the
player's own key: ``pbem bot``)."""

import json


def _play_to_end(players, game):
    by_seat = {p.json("show", game)["you"]: p for p in players}
    for _ in range(400):
        view = players[0].json("show", game)
        if view["status"] == "over":
            return view
        by_seat[view["to_act"][0]].run("bot", game, "--level", "random", "--seed", "t")
    raise AssertionError(f"game {game} did not end")


def _round(org, players, tid):
    info = org.json("tournament", "show", tid)
    rnd = info["rounds"][-1]
    for k, table in enumerate(rnd["tables"], start=1):
        seated = [p for p in players if p.name in table["players"]]
        for p in seated:
            assert p.run("tournament", "next", tid).stdout.strip() == table["game"]
        _play_to_end(seated, table["game"])
        if k < len(rnd["tables"]):  # the round goes on: the ended game is not owed
            r = seated[0].run("tournament", "next", tid, ok=3)
            assert f"your game of round {rnd['round']} has ended: " in r.stderr, r.stderr
            assert f"({len(rnd['tables']) - k} still playing)" in r.stderr, r.stderr
    return rnd


def test_a_tournament_from_the_shell_to_pbem_verify(make_player, tmp_path):
    org = make_player("org")
    players = [make_player(n) for n in ("ann", "bob", "cyd", "dee", "eve")]
    out = org.run("tournament", "new", "pig", "--format", "swiss", "--rounds", "2",
                  "--option", "target=6", "--title", "Shell cup")
    tid = out.stdout.strip()
    assert len(tid) == 64 and "open for entry" in out.stderr
    listed = json.loads(org.run("tournament", "list", "--json").stdout)  # --json after it too
    assert tid in [t["id"] for t in listed]
    for p in players:
        p.run("tournament", "join", tid)
    r = players[0].run("tournament", "join", tid, ok=1)
    assert "entered already" in r.stderr and "Traceback" not in r.stderr
    r = players[0].run("tournament", "close", tid, ok=1)
    assert "organiser" in r.stderr
    org.run("tournament", "close", tid)
    started = org.run("tournament", "start", tid).stdout
    assert "round 1 of 2" in started and "bye:" in started  # five players: one bye
    bye = org.json("tournament", "show", tid)["rounds"][0]["byes"][0]
    r = next(p for p in players if p.name == bye).run("tournament", "next", tid, ok=3)
    assert "you have a bye in round 1: round 2 is paired when the last game of round 1 " \
        "ends" in r.stderr
    assert _round(org, players, tid)["round"] == 1
    assert _round(org, players, tid)["round"] == 2  # paired when round one's last game ended
    shown = org.run("tournament", "show", tid).stdout
    assert "over" in shown and "buchholz" in shown
    r = players[0].run("tournament", "leave", tid, ok=1)
    assert "over" in r.stderr and "Traceback" not in r.stderr
    path = tmp_path / "cup.json"
    org.run("tournament", "export", tid, "-o", path)
    verdict = org.json("verify", path)
    assert verdict["ok"] and verdict["outcome"] == "complete" and verdict["rounds"] == 2
    assert verdict["standings"] == org.json("tournament", "show", tid)["standings"]
    text = " ".join(org.run("verify", path).stdout.split())  # wrapped to 80 columns
    assert "pairings of 2 round(s) and the standings recomputed" in text
    data = json.loads(path.read_text())
    data["standings"][0]["score"] += 2
    path.write_text(json.dumps(data))
    r = org.run("verify", path, ok=1)
    assert "standings the export states are not the ones" in r.stderr
    assert "tournament refused" in r.stderr and "Traceback" not in r.stderr


def test_leaving_between_rounds_and_bad_input(make_player, tmp_path):
    org = make_player("org")
    players = [make_player(n) for n in ("ann", "bob", "cyd", "dee")]
    tid = org.run("tournament", "new", "pig", "--rounds", "2", "--option",
                  "target=6").stdout.strip()
    for p in players:
        p.run("tournament", "join", tid)
    outsider = make_player("fox")
    r = outsider.run("tournament", "next", tid, ok=3)
    assert "no game" in r.stderr and "you have not entered" in r.stderr
    org.run("tournament", "close", tid)
    org.run("tournament", "start", tid)
    quitter = players[0]
    left = quitter.run("tournament", "leave", tid)
    assert "from round 2 on" in left.stderr
    _round(org, players, tid)
    info = org.json("tournament", "show", tid)
    assert info["round"] == 2
    assert all(quitter.name not in t["players"] for t in info["rounds"][1]["tables"])
    assert quitter.name in info["rounds"][1]["byes"] or len(info["rounds"][1]["byes"]) == 1
    r = org.run("tournament", "show", "nothex", ok=2)
    assert "not a tournament id" in r.stderr
    r = org.run("tournament", "show", "0" * 64, ok=1)
    assert "no tournament" in r.stderr and "Traceback" not in r.stderr
    r = org.run("tournament", "new", "pig", "--rounds", "2", "--option", "target=x", ok=2)
    assert "target" in r.stderr and "Traceback" not in r.stderr
    r = org.run("tournament", "new", "pig", "--format", "tables", "--table-size", "2",
                "--rounds", "1", ok=2)
    assert "seats 3-4 a game" in r.stderr
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "pbem-tournament-v1", "document": {}}))
    r = org.run("verify", bad, ok=1)
    assert "tournament refused" in r.stderr and "Traceback" not in r.stderr
    org.run("tournament", "export", tid, "-o", tmp_path / "running.json")
    r = org.run("verify", tmp_path / "running.json", ok=5)  # not over: a verified prefix
    assert "pairings of 2 round(s) and the standings recomputed from the round keys " \
        "revealed so far agree" in " ".join(r.stdout.split()), r.stdout + r.stderr
    assert "verified prefix of a running tournament" in " ".join(r.stdout.split())
    running = json.loads((tmp_path / "running.json").read_text())
    assert running["seed"] is None and len(running["round_keys"]) == 3
    running["round_keys"].append("ab" * 32)  # a key for a round not paired
    (tmp_path / "forged.json").write_text(json.dumps(running))
    r = org.run("verify", tmp_path / "forged.json", ok=1)
    assert "reveals one key (64 hex digits) for each round paired so far" in r.stderr
