"""End to end: a real server process, the real ``pbem`` command, two and three players of Pig."""

import json
import time

from client.api import Api
from tests.helpers.cli import finish, start, to_act


def test_two_players_whole_flow(make_player, tmp_path):
    ann, bob = make_player("ann", tz="Europe/Paris"), make_player("bob", tz="America/Denver")
    new = ann.json("new", "pig", "--seats", 2, "--option", "target=100")
    game = new["id"]
    assert new["status"] == "open" and new["you"] == ["north"]
    waiting = ann.run("show", game).stdout
    assert "has not started" in waiting and f"pbem join {game}" in waiting
    assert "the game has started" in bob.run("join", game).stdout

    # show: the board and the panel; --json gives the view
    board = ann.run("show", game).stdout
    assert "Pig to 100" in board and "It is your move" in board
    assert "\x1b[" not in board  # plain when piped
    assert "Waiting for north" in bob.run("show", game).stdout
    view = bob.json("show", game)
    assert view["status"] == "playing" and view["to_act"] == ["north"]
    assert view["you"] == "east" and view["scores"] == {"north": 0, "east": 0}

    # games: whose move it is
    mine = ann.json("games")
    assert [g["id"] for g in mine] == [game] and mine[0]["my_move"] is True
    games_text = ann.run("games").stdout.splitlines()
    assert games_text[0] == "Waiting for you:" and game in games_text[1]  # ann's move waits
    assert next(line for line in games_text if line.startswith(game + " ")).split()[3:] == \
        ["north", "YOU"]
    assert bob.json("games")[0]["my_move"] is False
    assert bob.run("games").stdout.splitlines()[1].split()[3:] == ["east", "north"]

    # moves: a list of strings; nothing for the seat that does not owe a move
    assert ann.json("moves", game) == ["roll", "hold", "peek"]
    assert ann.run("moves", game).stdout.split() == ["roll", "hold", "peek"]
    # nothing owed: exit 3, and under --json the reason in the API's error shape
    refused = bob.json("moves", game, ok=3)["error"]
    assert refused["code"] == "not_your_move" and refused["details"]["to_act"] == ["north"]
    assert "east owes no move now" in refused["message"]

    # play several moves in order
    out = ann.run("play", game, "peek", "peek", "hold").stdout.splitlines()
    assert out[0].startswith("move 1: north peek") and "peeked at" in out[0]
    assert out[2].startswith("move 3: north hold")

    # a refused move: the rules' reason, exit 1, one line, no traceback
    refused = ann.run("play", game, "hold", ok=1)
    assert refused.stdout == ""
    assert refused.stderr.strip() == "pbem: 'hold' refused: north owes no move now"
    bad = bob.run("play", game, "jump", ok=1)
    assert "is not a move: say roll, hold or peek" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr

    # wait: bob blocks (a real process) until ann has moved
    assert bob.run("wait", game, "--timeout", 5).stdout.startswith("your move")
    slow = ann.popen("wait", game, "--interval", 0.1, "--timeout", 30)
    time.sleep(0.5)
    assert slow.poll() is None  # still waiting
    bob.run("play", game, "hold")
    out, err = slow.communicate(timeout=30)
    assert slow.returncode == 0, err
    assert out.startswith(f"your move in game {game}")
    timed_out = bob.run("wait", game, "--timeout", 0.3, "--interval", 0.1, ok=3)
    assert "timed out" in timed_out.stderr

    # offline: sign against the last fetched state, queue, then sync
    ann.run("show", game)
    queued = ann.run("play", "--offline", game, "peek", "hold")
    assert "pbem sync" in queued.stderr and queued.stdout.count("queued move") == 2
    assert len(json.loads((ann.home / "outbox.json").read_text())) == 2
    assert to_act(bob, game) == ["north"]  # nothing was sent
    synced = ann.json("sync")
    assert [a["move"] for a in synced["accepted"]] == ["peek", "hold"]
    assert synced["refused"] == [] and synced["skipped"] == []
    assert json.loads((ann.home / "outbox.json").read_text()) == []
    assert "outbox is empty" in ann.run("sync").stderr

    # a queued move that the server refuses is reported and exits 1
    bob.run("show", game)
    bob.run("play", "--offline", game, "hold", "hold")  # the second one is not bob's turn
    report = bob.run("sync", ok=1)
    assert "accepted" in report.stdout and "refused" in report.stdout
    assert "north owes no move now" not in report.stderr  # the reason is on stdout's report
    assert "1 queued move(s) refused" in report.stderr

    # log: the moves in notation, redacted for the viewer
    log = ann.json("log", game)
    assert [e["move"] for e in log][:3] == ["peek", "peek", "hold"]
    assert log[0]["events"][0].startswith("north peeked at ")
    assert bob.json("log", game)[0]["events"] == ["north peeked"]
    text = bob.run("log", game).stdout.splitlines()
    assert text[0].split() == ["1", "north", "peek", "--", "north", "peeked"]  # from 1

    # export and verify a running game: links and signatures hold, replay waits
    archive = tmp_path / "running.json"
    ann.run("export", game, "-o", archive)
    verdict = ann.run("verify", archive, ok=5)  # needs no server; 5: a verified prefix
    said = " ".join(verdict.stdout.split())  # the sentences, wrapped to 80 columns
    assert "still running" in said and "replay waits for the end" in said
    data = json.loads(archive.read_text())
    sig = data["entries"][1]["signature"]
    data["entries"][1]["signature"] = sig[:-1] + ("1" if sig[-1] == "0" else "0")
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(data))
    bad = ann.run("verify", tampered, ok=1)
    assert "entry 1 has a bad signature" in bad.stderr

    # finish the game, then the full replay
    finish(game, {"north": ann, "east": bob}, ann)
    over = ann.run("wait", game, "--timeout", 1, ok=1)
    assert "is over" in over.stderr
    final = tmp_path / "final.json"
    ann.run("export", game, "-o", final)
    verdict = bob.run("verify", final)
    assert "Winner:" in verdict.stdout and "the replay agrees" in " ".join(verdict.stdout.split())
    assert bob.json("verify", final)["replayed"] is True
    data = json.loads(final.read_text())
    env = json.loads(data["entries"][2]["envelope"])
    env["move"] = "roll"
    data["entries"][2]["envelope"] = json.dumps(env, sort_keys=True, separators=(",", ":"))
    tampered.write_text(json.dumps(data))
    bad = bob.run("verify", tampered, ok=1)
    assert bad.stderr.startswith(f"pbem: {tampered}: entry 2 ")
    # --json: the refusal in the error shape, the verdict in its details
    assert bob.json("verify", tampered, ok=1)["error"]["details"]["ok"] is False
    moved = dict(json.loads(final.read_text()))
    moved["seed"] = "00" * 32
    tampered.write_text(json.dumps(moved))
    assert "does not match its commitment" in bob.run("verify", tampered, ok=1).stderr


def test_three_players(make_player, tmp_path):
    game, (ann, bob, cyd) = start(make_player, seats=3, target=3)
    assert [p.json("show", game)["you"] for p in (ann, bob, cyd)] == ["north", "east", "south"]
    ann.run("play", game, "hold")
    assert to_act(cyd, game) == ["east"]
    assert cyd.json("moves", game, ok=3)["error"]["code"] == "not_your_move"
    assert cyd.run("play", game, "hold", ok=1).stderr.strip() == \
        "pbem: 'hold' refused: south owes no move now"
    bob.run("play", game, "hold")
    assert cyd.run("wait", game, "--timeout", 2).exit_code == 0
    cyd.run("play", game, "peek", "hold")
    # bob holds a seat and sees cyd's peek redacted
    assert bob.json("log", game)[2]["events"] == ["south peeked"]
    view = finish(game, {"north": ann, "east": bob, "south": cyd}, cyd)
    assert view["result"]["winners"]
    path = tmp_path / "three.json"
    cyd.run("export", game, "-o", path)
    assert "the replay agrees" in " ".join(ann.run("verify", path).stdout.split())


def test_stale_seq_is_refetched_and_retried_once(make_player, monkeypatch):
    game, (ann, bob) = start(make_player)
    real_post = Api.post_move
    calls = []

    def racing_post(self, game_id, envelope, signature, **kw):
        calls.append(json.loads(envelope)["seq"])
        if len(calls) == 1:  # another of ann's terminals appends first
            ann.run("play", game, "peek")
        return real_post(self, game_id, envelope, signature, **kw)

    monkeypatch.setattr(Api, "post_move", racing_post)
    out = ann.run("play", game, "hold").stdout
    # hold signed for seq 0; the racing peek takes seq 0; hold is refetched and retried at 1
    assert calls == [0, 0, 1]
    assert out.startswith("move 2: north hold")


def test_stale_move_not_retried_when_no_longer_owed(make_player, monkeypatch):
    game, (ann, bob) = start(make_player)
    real_post = Api.post_move

    def racing_post(self, game_id, envelope, signature, **kw):
        monkeypatch.setattr(Api, "post_move", real_post)
        ann.run("play", game, "hold")  # the turn passes to bob meanwhile
        return real_post(self, game_id, envelope, signature, **kw)

    monkeypatch.setattr(Api, "post_move", racing_post)
    err = ann.run("play", game, "peek", ok=1).stderr
    assert "the game moved on and north owes no move now" in err


def test_sync_resigns_a_stale_queued_move(make_player):
    game, (ann, bob) = start(make_player)
    ann.run("show", game)
    ann.run("play", "--offline", game, "peek", "hold")
    ann.run("play", game, "peek")  # online meanwhile: the queued seq 0 is now stale
    synced = ann.json("sync")
    assert [(a["move"], a["seq"]) for a in synced["accepted"]] == [("peek", 1), ("hold", 2)]
    assert to_act(ann, game) == ["east"]


def test_armor_prints_a_block_and_submits_nothing(make_player):
    from client.armor import extract_blocks
    game, (ann, bob) = start(make_player)
    out = ann.run("play", "--armor", game, "peek").stdout
    lines = out.splitlines()
    assert lines[0] == "-----BEGIN PBEM MOVE-----" and lines[-1] == "-----END PBEM MOVE-----"
    assert all(len(line) <= 64 for line in lines[1:-1])
    assert ann.json("log", game) == []
    (block,) = extract_blocks("> " + out.replace("\n", "\n> "))
    assert block["game"] == game and json.loads(block["envelope"])["move"] == "peek"
    # the block is a valid signed move: the server takes it as is
    entry = Api(ann.server).post_move(game, block["envelope"], block["signature"])
    assert entry["seq"] == 0 and entry["move"] == "peek"


def test_offline_needs_a_fetched_state(make_player):
    game, (ann, bob) = start(make_player)
    fresh = make_player("eve")
    err = fresh.run("play", "--offline", game, "hold", ok=1).stderr
    assert "run pbem show" in err


def test_real_console_script(make_player, server, tmp_path):
    ann = make_player("ann")
    t0 = time.monotonic()
    helped = ann.proc("--help")
    assert helped.returncode == 0 and "pbem register" in helped.stdout
    assert time.monotonic() - t0 < 5
    for command in ("register", "new", "join", "games", "show", "moves", "play", "sync", "wait",
                    "log", "export", "verify", "rules"):
        text = ann.proc(command, "--help").stdout
        assert "Example" in text, command
    usage = ann.proc("new", "pig")
    assert usage.returncode == 2 and "--seats" in usage.stderr
    usage = ann.proc("new", "pig", "--seats", "2", "--option", "nonsense")
    assert usage.returncode == 2
    unknown = ann.proc("show", "nosuchgame")
    assert unknown.returncode == 1
    assert unknown.stderr == "pbem: there is no game 'nosuchgame'\n"
    game = ann.proc("new", "pig", "--seats", "2").stdout.strip()
    unreachable = ann.proc("--server", "http://127.0.0.1:9", "show", game)
    assert unreachable.returncode == 4
    assert unreachable.stderr.count("\n") == 1 and "cannot reach the server" in \
        unreachable.stderr
    bad_type = ann.proc("new", "chess", "--seats", "2")
    assert bad_type.returncode == 1 and "there is no game called 'chess'" in bad_type.stderr
    rules = ann.proc("rules", "pig")
    assert rules.returncode == 0 and "pbem play GAME roll" in rules.stdout
    assert ann.proc("rules", "nosuch").returncode == 1
    key = ann.home / "key.ed25519"
    assert key.stat().st_mode & 0o777 == 0o600
    assert key.read_text().strip() not in (helped.stdout + rules.stdout)


def test_register_needs_nothing_but_a_name_and_refuses_a_taken_one(make_player, server):
    ann = make_player("ann")
    again = ann.run("register", ann.name)
    assert "already registered" in again.stdout
    thief = make_player("eve", register=False)
    taken = thief.run("register", ann.name, ok=1)
    assert taken.stderr.strip().splitlines()[-1] == \
        "pbem: that name is already registered; no key was written: the home is as it was"
    # nothing was left behind: no key, no "created a new key" note
    assert not (thief.home / "key.ed25519").exists() and "created" not in taken.stderr
    unregistered = make_player("zed", register=False)
    assert "pbem register NAME" in unregistered.run("games", ok=1).stderr
    bad_tz = make_player("tim", register=False).run("register", "tim99", "--tz", "Mars/Olympus",
                                                    ok=1)
    assert "time zone" in bad_tz.stderr


def test_colour_only_on_a_terminal(make_player, monkeypatch):
    from tests.fixtures.pig import GAME as PIG
    game, (ann, bob) = start(make_player)
    seen = []
    real_render = PIG.render

    def render(view, color=False):
        seen.append(color)
        return ("\x1b[31m" if color else "") + real_render(view, color)

    monkeypatch.setattr(PIG, "render", render)
    monkeypatch.setattr("client.context._stdout_is_tty", lambda: True)
    monkeypatch.delenv("NO_COLOR", raising=False)
    runner_env = {"PBEM_SERVER": ann.server, "PBEM_HOME": str(ann.home)}
    from click.testing import CliRunner

    from client.cli import cli
    coloured = CliRunner().invoke(cli, ["show", game], env=runner_env, color=True)
    plain = CliRunner().invoke(cli, ["show", game, "--no-color"], env=runner_env)
    no_color_env = CliRunner().invoke(cli, ["show", game], env=dict(runner_env, NO_COLOR="1"))
    assert seen == [True, False, False]
    assert "\x1b[31m" in coloured.stdout and "\x1b[" not in plain.stdout + no_color_env.stdout
    monkeypatch.setattr("client.context._stdout_is_tty", lambda: False)
    ann.run("show", game)
    assert seen[-1] is False  # piped


def test_offline_and_armor_refuse_what_the_rules_refuse_unless_forced(make_player):
    """a move that cannot be played now is not signed (the rules' reason, exit 1)."""
    game, (ann, bob) = start(make_player)
    bob.run("show", game)
    for mode in ("--offline", "--armor"):
        refused = bob.run("play", mode, game, "hold", ok=1)
        assert refused.stderr == "pbem: 'hold' refused: east owes no move now (nothing was " \
                                 "signed; --force signs it anyway)\n"
        assert refused.stdout == ""
    assert not (bob.home / "outbox.json").exists()
    bad = ann.run("play", "--armor", game, "jump", ok=1)
    assert "'jump' is not a move: say roll, hold or peek" in bad.stderr
    # --force signs it anyway and says the server will judge
    queued = bob.run("play", "--offline", "--force", game, "hold")
    assert "east owed no move" in queued.stderr
    report = bob.json("sync", ok=1)["error"]["details"]   # --json: the report, in the error
    assert report["refused"][0]["reason"] == "east owes no move now"


def test_games_shows_deadlines_in_my_time_zone(make_player):
    from datetime import datetime, timedelta, timezone
    ann, bob = make_player("ann", tz="Asia/Tokyo"), make_player("bob", tz="America/Denver")
    game = ann.run("new", "pig", "--seats", 2, "--move-hours", 48).stdout.strip()
    bob.run("join", game)
    (mine,) = ann.json("games")
    due = datetime.fromisoformat(mine["deadline"])
    assert abs(due - datetime.now(timezone.utc) - timedelta(hours=48)) < timedelta(minutes=5)
    assert mine["deadline_local"].endswith("JST")
    assert bob.json("games")[0]["deadline_local"] is None      # bob owes nothing yet
    assert "JST" in ann.run("games").stdout
    ann.run("play", game, "hold")                             # now bob owes the next move
    assert bob.json("games")[0]["deadline_local"].endswith(("MST", "MDT"))
    assert ann.json("games")[0]["deadline_local"] is None
    assert ann.json("games", "--status", "over") == []


def test_a_spectator_can_look_and_export_but_not_play(make_player, tmp_path):
    game, (ann, bob) = start(make_player)
    ann.run("play", game, "peek")
    eve = make_player("eve", register=False)
    view = eve.json("show", game)
    assert view["you"] is None and "secret" not in view
    assert "You are watching" in eve.run("show", game).stdout
    assert eve.json("log", game)[0]["events"] == ["north peeked"]
    eve.run("export", game, "-o", tmp_path / "seen.json")
    assert "register" in eve.run("play", game, "hold", ok=1).stderr


def test_offline_outbox_survives_an_unreachable_server(make_player):
    import requests as real_requests

    from client.armor import extract_blocks

    class Down:
        def request(self, *a, **kw):
            raise real_requests.ConnectionError("down")

    game, (ann, bob) = start(make_player)
    ann.run("show", game)
    ann.run("play", "--offline", game, "peek")
    # on the train: armour works from the fetched state too, and sending fails cleanly
    block = ann.run("play", "--offline", "--armor", game, "hold").stdout
    assert json.loads(extract_blocks(block)[0]["envelope"])["seq"] == 1
    down = ann.run("sync", ok=4, obj={"session": Down()})
    assert "cannot reach the server" in down.stderr
    assert len(json.loads((ann.home / "outbox.json").read_text())) == 1
    assert [a["move"] for a in ann.json("sync")["accepted"]] == ["peek"]
