"""``pbem device claim`` end to end, as a user plays it (docs/CLI.md, "Devices").

A browser signed in as ann makes a one-time link on its settings page; in a second home,
``pbem --home H2 device claim LINK`` makes that home's key and waits; the page shows the
fingerprint and ann answers Yes (the browser's main key signs the delegation) or No.  The
browser is played here by what its page does (server/web/static/keys.js: ``linkStart``,
``linkState``, ``linkDeliver``, ``linkCancel``): requests to the page's JSON endpoints signed
with ann's main key, as the page signs them.  The claim runs as the real ``pbem`` program
against the real server.
"""

import json
import sqlite3
import time
from datetime import datetime, timedelta, timezone

import pytest
import requests

from client.home import Home
from client.signing import request_headers
from shared.delegation import fingerprint, make_delegation
from tests.client.conftest import Player

pytestmark = pytest.mark.e2e


class Browser:
    """A browser signed in as ``player`` (it holds the player's main key)."""

    def __init__(self, server, player):
        self.server, self.name = server, player.name
        self.key = Home(str(player.home)).private_key()

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else b""
        headers = request_headers(self.key, self.name, method, path, data)
        if body is not None:
            headers["Content-Type"] = "application/json"
        return requests.request(method, self.server.url + path, data=data, headers=headers,
                                timeout=10)

    def make_link(self, label="laptop"):
        r = self.call("POST", "/api/devices/links", {"label": label})
        assert r.status_code == 201, r.text
        return r.json()

    def posted_key(self, link, claim, limit=60):
        """Wait (like the page) until the other device posted its key; the link's state."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            seen = self.call("GET", f"/api/devices/links/{link['id']}").json()
            if seen["status"] != "waiting":
                return seen
            assert claim.poll() is None, claim.communicate()
            time.sleep(0.2)
        raise AssertionError("the claim never posted its key")

    def answer_yes(self, link, seen, days=30):
        delegation = make_delegation(self.key, self.name, seen["public_key"], link["label"],
                                     int(time.time()) + days * 86400)
        r = self.call("POST", f"/api/devices/links/{link['id']}/delegation",
                      {"delegation": delegation})
        assert r.status_code == 200, r.text
        return r.json()

    def answer_no(self, link):
        r = self.call("POST", f"/api/devices/links/{link['id']}/cancel", {})
        assert r.status_code == 200, r.text
        return r.json()


def finished(proc, limit=120):
    try:
        out, err = proc.communicate(timeout=limit)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, out, err


def snapshot(path):
    """Every file under a home, with its bytes (None: the home does not exist)."""
    if not path.exists():
        return None
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*"))
            if p.is_file()}


def one_sentence(err):
    """The refusal: the last line of stderr, after the notes, and the only ``pbem:`` one."""
    lines = [line for line in err.strip().splitlines() if line.strip()]
    assert lines and "Traceback" not in err, err
    last = lines[-1]
    assert last.startswith("pbem: ") and ". " not in last, err
    assert [line for line in lines if line.startswith("pbem: ")] == [last], err
    return last


def test_a_claimed_home_signs_as_the_device(server, make_player, tmp_path):
    ann, bob = make_player("ann"), make_player("bob")
    browser = Browser(server, ann)
    link = browser.make_link("laptop")
    assert link["url"].startswith(server.url + "/device/")
    h2 = Player(server.url, tmp_path / "h2", ann.name)
    claim = h2.popen("device", "claim", link["url"], "--timeout", 120)
    seen = browser.posted_key(link, claim)
    assert seen["status"] == "key"
    browser.answer_yes(link, seen)
    code, out, err = finished(claim)
    assert code == 0, err
    # the fingerprint the terminal printed is the one the page showed
    assert f"fingerprint {seen['fingerprint']}" in err
    assert fingerprint(seen["public_key"]) == seen["fingerprint"]
    assert f"now moves for {ann.name} as device 'laptop'" in out
    assert f"--server {server.url}" in out
    assert not (h2.home / "key.ed25519").exists()
    # a signed command from H2 works: it plays ann's seat of a game, as the device
    game = ann.run("new", "pig", "--seats", 2, "--option", "target=50").stdout.strip()
    bob.run("join", game)
    assert "north" in ann.json("show", game)["to_act"]
    played = h2.proc("--server", server.url, "play", game, "roll")
    assert played.returncode == 0, played.stderr
    assert "(device 'laptop')" in ann.run("log", game).stdout
    listed = ann.json("device", "list")
    assert [d["label"] for d in listed] == ["laptop"]
    assert listed[0]["device_key"] == seen["public_key"]
    # the browser sees the link done; the link is spent
    assert browser.call("GET", f"/api/devices/links/{link['id']}").json()["status"] == "done"

    # the same link again, in yet another home: one sentence, nothing kept
    h3 = Player(server.url, tmp_path / "h3", ann.name)
    before = snapshot(h3.home)
    again = h3.proc("device", "claim", link["url"], "--timeout", 30)
    assert again.returncode != 0
    assert "the link was already used" in one_sentence(again.stderr)
    assert snapshot(h3.home) == before


def test_answering_no_on_the_page_stops_the_claim_at_once(server, make_player, tmp_path):
    ann = make_player("ann")
    browser = Browser(server, ann)
    link = browser.make_link("phone")
    h2 = Player(server.url, tmp_path / "h2", ann.name)
    before = snapshot(h2.home)
    claim = h2.popen("device", "claim", link["url"], "--timeout", 600)
    seen = browser.posted_key(link, claim)
    assert browser.answer_no(link)["status"] == "cancelled"
    code, out, err = finished(claim)   # long before its --timeout of 600 s
    assert code == 1, (out, err)
    assert "answered No" in one_sentence(err)
    assert not (h2.home / "device.json").exists() and not (h2.home / "key.ed25519").exists()
    assert snapshot(h2.home) == before
    assert ann.json("device", "list") == []
    assert seen["fingerprint"] in err   # it had shown its fingerprint before it stopped


def _expire(server, link_id):
    """Move the link's end into the past (the server's clock is the machine's)."""
    with sqlite3.connect(server.tmp / "pbem.sqlite") as db:
        past = datetime.now(timezone.utc) - timedelta(minutes=1)
        db.execute("UPDATE device_links SET expires_at = ? WHERE id = ?",
                   (past.strftime("%Y-%m-%d %H:%M:%S.%f"), link_id))


@pytest.mark.parametrize("case", ["unknown", "malformed", "expired", "cancelled"])
def test_a_bad_link_is_one_sentence_and_leaves_the_home_as_it_was(server, make_player, tmp_path,
                                                                  case):
    ann = make_player("ann")
    browser = Browser(server, ann)
    if case == "unknown":
        url, words = f"{server.url}/device/{'A' * 43}", "the link is not valid"
    elif case == "malformed":
        url, words = f"{server.url}/devices/short", "one-time link"
    else:
        link = browser.make_link(f"tablet-{case}")
        url = link["url"]
        if case == "expired":
            _expire(server, link["id"])
            words = "the link has expired: make a new link"
        else:
            browser.answer_no(link)
            words = "answered No"
    h2 = Player(server.url, tmp_path / "h2", ann.name)
    h2.home.mkdir()
    (h2.home / "notes.txt").write_text("mine\n")
    before = snapshot(h2.home)
    r = h2.proc("device", "claim", url, "--timeout", 30)
    assert r.returncode != 0
    assert words in one_sentence(r.stderr), r.stderr
    assert snapshot(h2.home) == before
    assert ann.json("device", "list") == []
