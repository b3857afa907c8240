"""`pbem mail on/off` end to end: the mail key is delegated and revoked, the revocation is in
each running game's log (and the archive still verifies), and misuse is one plain sentence."""

import json

from tests.helpers.cli import start


def test_mail_on_then_off_records_the_revocation(make_player, tmp_path):
    game, (ann, bob) = start(make_player, target=6)
    assert "moves by mail are off" in ann.run("mail").stdout
    on = ann.run("mail", "on", "--days", "30").stdout
    assert "moves by mail are on until" in on and "mail key" in on
    now = ann.json("mail")
    assert now["on"] is True and len(now["device_key"]) == 64
    r = ann.run("mail", "on", ok=1)                      # on already: one sentence
    assert r.stderr.startswith("pbem: ") and "already on" in r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    off = ann.run("mail", "off").stdout
    assert "moves by mail are off" in off and f"recorded in game {game}" in off
    out = tmp_path / "game.json"
    ann.run("export", game, "-o", out)
    moves = [json.loads(e["envelope"])["move"] for e in json.loads(out.read_text())["entries"]]
    assert f"@revoke {now['device_key']}" in moves, moves
    ann.run("verify", out, ok=5)                         # a verified prefix (still running)
    assert ann.json("mail")["on"] is False
    r = ann.run("mail", "off", ok=1)
    assert "not on" in r.stderr and r.stderr.startswith("pbem: ")


def test_mail_misuse_is_one_sentence(make_player):
    ann = make_player("ann")
    for bad in ("0", "-3", "100000"):
        r = ann.run("mail", "on", "--days", bad, ok=2)
        assert r.stderr.startswith("pbem: ") and "--days" in r.stderr, bad
    assert ann.json("mail")["on"] is False             # nothing delegated by a refusal
