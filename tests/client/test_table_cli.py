"""End to end: `pbem takeback` (ask, accept, refuse) and `pbem key rotate` (with the old key and
with the recovery code) against a real server process; the archive verifies offline."""

import re

import pytest

from client.context import PbemError
from client.recovery import format_recovery_code, read_recovery_code
from tests.helpers.cli import _hold_with_a_pot, start


def test_takeback_asked_shown_accepted_and_archived(make_player, tmp_path):
    (game, (ann, bob)) = start(make_player)
    pot = _hold_with_a_pot(ann, bob, game)
    out = ann.run("takeback", game).stdout
    assert "north asks to take back 1 move" in out
    shown = bob.run("show", game).stdout
    assert "@accept takeback" in bob.json("moves", game)
    assert bob.json("show", game)["takeback"]["seat"] == "north"
    again = ann.run("takeback", game, ok=1)
    assert "waits for answers" in again.stderr
    bob.run("takeback", game, "--accept")
    view = ann.json("show", game)
    assert view["pot"] == pot and view["to_act"] == ["north"] and "takeback" not in view
    log = ann.run("log", game).stdout
    assert "north takes back 1 move" in log
    assert shown  # the board renders while a request waits
    path = tmp_path / "game.json"
    ann.run("export", game, "-o", path)
    assert ann.run("verify", path, ok=5).exit_code == 5  # a verified prefix (running game)


def test_refusal_and_the_answer_through_play(make_player):
    (game, (ann, bob)) = start(make_player)
    _hold_with_a_pot(ann, bob, game)
    ann.run("takeback", game)
    bob.run("play", game, "@refuse takeback")
    refused = ann.run("takeback", game, ok=1)
    assert "may ask again once another seat has moved" in refused.stderr
    assert "no takeback request to answer" in bob.run("takeback", game, "--accept",
                                                      ok=1).stderr


def test_register_prints_a_recovery_code_and_key_rotate_uses_it(make_player, tmp_path):
    ann = make_player("ann", register=False)
    out = ann.run("register", ann.name).stdout
    code = re.search(r"pbemrc-[a-z2-7-]+", out).group(0)
    assert read_recovery_code(code) and format_recovery_code(read_recovery_code(code)) == code
    bob = make_player("bob")
    game = ann.run("new", "pig", "--seats", 2).stdout.strip()
    bob.run("join", game)
    # rotate with the old key: an @rotate entry in the running game
    rotated = ann.json("key", "rotate")
    assert [g["game"] for g in rotated["games"]] == [game]
    ann.run("play", game, "peek")  # (peek keeps the turn, whatever the server's seed rolls)
    # the key is lost: rotate with the recovery code
    (ann.home / "key.ed25519").unlink()
    rotated = ann.json("key", "rotate", "--recovery-code", code)
    assert [g["game"] for g in rotated["games"]] == [game]
    ann.run("play", game, "peek")
    entries = ann.json("log", game)
    moves = [e["move"].split(" ")[0] for e in entries]
    assert moves.count("@rotate") == 2
    # a mistyped or another player's code is refused in a sentence
    # (the last check letter is changed to another one: never to itself, whatever the code)
    mistyped = code[:-1] + ("x" if code[-1] != "x" else "y")
    assert mistyped != code
    bad = ann.run("key", "rotate", "--recovery-code", mistyped, ok=1)
    assert "mistyped" in bad.stderr
    path = tmp_path / "game.json"
    ann.run("export", game, "-o", path)
    ann.run("verify", path, ok=5)


def test_a_mistyped_recovery_code_is_refused():
    with pytest.raises(PbemError):
        read_recovery_code("pbemrc-abcd")
    with pytest.raises(PbemError):
        read_recovery_code("hello")


def test_recovery_codes_read_back_and_a_changed_letter_is_caught():
    for i in range(256):
        raw = bytes([i, 255 - i]) * 16
        code = format_recovery_code(raw)
        assert re.fullmatch(r"pbemrc(-[a-z2-7]{1,4})+", code)
        assert read_recovery_code(code.upper().replace("-", " ")) == raw
        changed = code[:10] + ("a" if code[10] != "a" else "b") + code[11:]
        with pytest.raises(PbemError):
            read_recovery_code(changed)
