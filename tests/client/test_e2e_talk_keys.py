"""End to end: `pbem say` and `pbem order` after `pbem key rotate` and from a device
home (their documents verify with the key the table held when they were written, or carry
the device's delegation); a revoked device's are refused; the archive verifies offline."""

import json

from tests.helpers.cli import start
from tests.helpers.devices_cli import _device_home


def test_say_and_order_after_a_rotation_and_from_a_device(make_player, tmp_path):
    game, (ann, bob) = start(make_player, target=6)
    rotated = ann.json("key", "rotate")
    assert [g["game"] for g in rotated["games"]] == [game]
    assert "said before move" in ann.run("say", game, "after", "my", "rotation").stdout
    placed = ann.run("order", game, "accept takeback").stdout
    assert "in force for north: accept takeback" in placed
    # a device home (its delegation signed by the rotated key) speaks and cancels
    laptop, _ = _device_home(ann, tmp_path)
    assert "said before move" in laptop.run("say", game, "--to", "east", "from", "the",
                                        "laptop").stdout
    ident = str(ann.json("orders", game)[0]["id"])
    assert "cancelled" in laptop.run("order", "cancel", game, ident).stdout
    assert "in force for north: roll" in laptop.run("order", game, "roll").stdout
    # revoked: the device may sign nothing more, in one sentence
    assert "device 'laptop' revoked" in ann.run("device", "revoke", "laptop").stdout
    for args in (["say", game, "still", "here?"], ["order", game, "roll"]):
        r = laptop.run(*args, ok=1)
        assert r.stderr.startswith("pbem: ") and "Traceback" not in r.stderr
    log = bob.run("log", game).stdout
    assert "after my rotation" in log and "from the laptop" in log

    for _ in range(300):
        view = ann.json("show", game)
        if view["status"] == "over":
            break
        seat = view["to_act"][0]
        who = {"north": ann, "east": bob}[seat]
        who.run("play", game, "hold" if view["pot"] else "roll", ok=None)
    path = tmp_path / "game.json"
    ann.run("export", game, "-o", str(path))
    archive = json.loads(path.read_text())
    bodies = [m["body"] for m in archive["messages"]]
    assert [("delegation" in b) for b in bodies] == [False, True]
    assert [("delegation" in d["body"]) for d in archive["orders"]] == [False, True, True]
    verified = " ".join(bob.run("verify", str(path)).stdout.split())  # wrapped to 80 columns
    assert "complete and verified" in verified and "2 signed message(s)" in verified


def test_an_accept_takeback_order_through_the_cli(make_player):
    game, (ann, bob) = start(make_player, target=50)
    placed = bob.run("order", game, "accept", "the", "next", "takeback").stdout
    assert "in force for east: accept takeback" in placed and "once" in placed
    ann.run("play", game, "hold")           # north holds at once (pot 0): nothing revealed
    ann.run("takeback", game)
    log = ann.run("log", game).stdout
    assert "@accept takeback (standing order)" in log, log
    assert ann.json("show", game)["to_act"] == ["north"]
    assert "done" in bob.run("orders", game).stdout
