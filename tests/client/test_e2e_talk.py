"""End to end: a real server process and the real ``pbem`` for table talk and orders."""

import json

from tests.helpers.cli import start


def test_say_log_orders_and_verify(make_player, tmp_path):
    game, (ann, bob, cyd) = start(make_player, seats=3, target=3)
    refused = ann.run("say", game, "Good", "luck\x1b[2J", ok=1)
    assert "control character" in refused.stderr and "\x1b" not in refused.stderr
    assert "said before move 1" in ann.run("say", game, "Good", "luck <b>&").stdout
    assert "only" in ann.run("say", game, "--to", "east", "psst,", "east").stdout
    # the private line reaches bob, never cyd; a stranger's say is refused in one sentence
    cyd.run("say", game, "--to", "north", "cyd here")
    bad = cyd.run("say", game, "--to", "west", "hi", ok=1)
    assert bad.stderr.startswith("pbem: ") and "Traceback" not in bad.stderr

    # bob leaves an order; only bob lists it
    placed = bob.run("order", game, "roll").stdout
    assert "in force for east: roll" in placed
    assert "roll" in bob.run("orders", game).stdout
    assert "no standing orders" in ann.run("orders", game).stderr
    ann.run("play", game, "hold")
    log = bob.run("log", game).stdout
    assert "east       roll (standing order)" in log, log
    lines = log.splitlines()
    assert lines[0].strip() == f"> north ({ann.name}): Good luck <b>&"
    assert any("psst, east" in line for line in lines)
    assert not any("psst, east" in line for line in cyd.run("log", game).stdout.splitlines())
    assert not any("cyd here" in line for line in bob.run("log", game).stdout.splitlines())

    # cancel it by its id
    ident = str(bob.json("orders", game)[0]["id"])
    assert "cancelled" in bob.run("order", "cancel", game, ident).stdout
    bob.run("order", "cancel", game, ident, ok=1)
    bob.run("order", game, "sing", ok=1)
    bob.run("order", "cancel", game, ok=2)

    # mute
    assert f"muted: {ann.name}" in cyd.run("mute", ann.name).stdout
    assert not any("Good luck" in line for line in cyd.run("log", game).stdout.splitlines())
    assert "muted: nobody" in cyd.run("unmute", ann.name).stdout

    # play to the end; the archive verifies with its messages and orders
    for _ in range(300):
        view = ann.json("show", game)
        if view["status"] == "over":
            break
        seat = view["to_act"][0]
        who = {"north": ann, "east": bob, "south": cyd}[seat]
        who.run("play", game, "hold" if view["pot"] else "roll", ok=None)
    path = tmp_path / "game.json"
    bob.run("export", game, "-o", str(path))
    archive = json.loads(path.read_text())
    assert archive["format"] == "pbem-archive-v4"
    assert len(archive["orders"]) == 2 and len(archive["messages"]) == 2  # bob's readable two
    verified = bob.run("verify", str(path)).stdout
    assert all(len(line) <= 80 or " " not in line.strip() for line in verified.splitlines())
    verified = " ".join(verified.split())  # the sentences, wrapped to 80 columns
    assert "complete and verified" in verified and "2 signed message(s)" in verified
    assert "Standing orders: 1 signed order(s), and every one of the 1 move(s) played for " \
        "them follows from its order." in verified, verified
