"""``pbem leave GAME --to-bot``: a player hands their seat to the server's bot, against
a real ``pbem-server run`` (its bot thread plays the seat); the archive verifies and says so;
the refusals are one sentence each."""

import json
import subprocess

import requests

from shared.archive import verify_archive


def _done(proc, timeout=180):
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def seats(player, game):
    got = requests.get(f"{player.server}/api/games/{game}", timeout=10).json()
    return [s["player"] for s in got["seats"]]


def test_leave_to_a_bot_then_the_bot_plays_to_the_end(make_player, tmp_path):
    ann, bob = make_player("ann"), make_player("bob")
    game = ann.run("new", "pig", "--seats", 2, "--option", "target=20").stdout.strip()
    not_started = ann.run("leave", game, "--to-bot", "--yes", ok=1)
    assert "has not started" in not_started.stderr
    bob.run("join", game)
    bare = ann.run("leave", game, ok=None)
    assert bare.exit_code == 2 and "--to-bot" in bare.stderr and "Traceback" not in bare.stderr
    unsure = ann.run("leave", game, "--to-bot", "--level", "genius", ok=None)
    assert unsure.exit_code == 2 and "genius" in unsure.stderr
    # without --yes, a "no" at the prompt hands nothing over
    asked = ann.run("leave", game, "--to-bot", ok=1)  # the runner's stdin is empty: no
    assert "not handed over" in asked.stderr
    assert seats(ann, game) == [ann.name, bob.name]
    left = ann.run("leave", game, "--to-bot", "--yes")
    assert left.stdout.startswith("move 1: north @handover bot-random ")
    assert "pig has no greedy bot; bot-random takes the seat" in left.stderr
    assert f"north in game {game} is now played by bot-random" in left.stderr
    assert seats(bob, game) == ["bot-random", bob.name]
    # ann holds no seat now: leaving again, or playing, is refused in one sentence
    again = ann.run("leave", game, "--to-bot", "--yes", ok=1)
    assert again.stderr.strip() == f"pbem: you hold no seat in game {game}"
    # bob plays his seat with a local bot; the server's bot plays north by itself
    mine = bob.popen("bot", game, "--until-end", "--level", "random", "--seed", "1",
                     "--interval", 0.1)
    try:
        code, out, err = _done(mine)
    finally:
        if mine.poll() is None:
            mine.kill()
    assert code == 0, err
    assert out.strip().splitlines()[-1].startswith(f"game {game} is over")
    log = ann.json("log", game)
    assert [e["seat"] for e in log if e["seq"] > 0 and e["seat"] == "north"]  # the bot moved
    path = tmp_path / "left.json"
    ann.run("export", game, "-o", path)
    verified = ann.proc("verify", str(path))
    assert verified.returncode == 0, verified.stderr
    assert "complete and verified" in verified.stdout
    assert "Handed over: north to bot-random at move 1 (by its player)." in \
        " ".join(verified.stdout.split())  # wrapped to 80 columns
    report = verify_archive(json.loads(path.read_text()))
    assert report["complete"] and report["handovers"] == [
        {"seq": 0, "seat": "north", "player": "bot-random", "forced": False}]
    over = bob.run("leave", game, "--to-bot", "--yes", ok=1)
    assert over.stderr.strip() == f"pbem: game {game} is over: there is no seat to hand over"


def test_new_on_timeout_usage(make_player):
    ann = make_player("ann")
    bad = ann.run("new", "pig", "--seats", 2, "--on-timeout", "nap", "--move-hours", 2,
                  ok=None)
    assert bad.exit_code == 2 and "--on-timeout" in bad.stderr and "Traceback" not in bad.stderr
    lonely = ann.run("new", "pig", "--seats", 2, "--on-timeout", "bot", ok=None)
    assert lonely.exit_code == 2 and "--move-hours" in lonely.stderr
    # Pig has random bots only: a level it lacks is refused, naming the levels it has
    lacking = ann.run("new", "pig", "--seats", 2, "--on-timeout", "bot:strong",
                      "--move-hours", 2, ok=None)
    assert lacking.exit_code == 1 and "Traceback" not in lacking.stderr
    assert "pig has no strong bot: its levels are random" in lacking.stderr
    made = ann.json("new", "pig", "--seats", 2, "--on-timeout", "bot:random",
                    "--move-hours", 2)
    assert made["options"]["on_timeout"] == "bot:random"


def test_leave_is_in_the_lazy_command_list():
    result = subprocess.run(["pbem", "--help"], capture_output=True, text=True, timeout=60)
    assert "leave" in result.stdout
