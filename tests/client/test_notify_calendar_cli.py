"""pbem notify, pbem calendar and pbem settings --weekends-off against a real server: a
Discord channel set from the shell gets the player's turn notice, --test says whether a
channel works, a json channel's secret is shown once, a game's channel is set by a seated
player only, and the calendar feed's address opens a text/calendar of the deadlines."""

import json

import pytest
import requests

from tests.client.conftest import Player, Server
from tests.helpers.receiver import Receiver

# end-to-end: starts real server processes (left out of the default run)
pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def open_server(tmp_path_factory):
    # the receivers are on loopback: the operator's setting lets notices reach them
    srv = Server(tmp_path_factory.mktemp("server"), PBEM_WEBHOOK_ALLOW_PRIVATE="1",
                 PBEM_NOTIFY_INTERVAL="1")
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def hook():
    r = Receiver(status=204)
    yield r
    r.close()


def _player(server, tmp_path, name):
    p = Player(server.url, tmp_path / name, name)
    p.run("register", name)
    return p


def test_channels_from_the_shell(open_server, tmp_path, hook):
    ann = _player(open_server, tmp_path, "annnotify")
    bob = _player(open_server, tmp_path, "bobnotify")
    out = ann.json("notify", "--add", "discord", hook.url + "/d", "--mention",
                   "123456789012345678")
    assert out["kind"] == "discord" and out["secret"] is None
    made = ann.run("notify", "--add", "json", hook.url + "/j").stdout
    assert "(shown only this once): whsec_" in made
    secret = made.split("(shown only this once): ")[1].split()[0]
    listed = ann.run("notify").stdout
    assert "discord" in listed and secret not in listed and secret[:10] in listed
    # a sample notice: it went
    assert "went to channel" in ann.run("notify", "--test", str(out["id"])).stdout
    assert any(r["path"] == "/d" for r in hook.requests)
    # bad input: one sentence, exit 2 or 1, nothing added
    r = ann.run("notify", "--add", "irc", "x", ok=2)
    assert "one of discord" in r.stderr
    r = ann.run("notify", "--add", "matrix", "https://m.example", ok=2)
    assert "--room" in r.stderr
    r = ann.run("notify", "--add", "discord", "not a url", ok=1)
    assert "URL" in r.stderr and "Traceback" not in r.stderr
    assert len(ann.json("notify")["channels"]) == 2
    # a game's channel: a seated player sets it, mentions the owing player by chat id
    game = ann.run("new", "pig", "--seats", "2").stdout.strip()
    bob.run("join", game)
    bob.run("notify", "--link", "discord", "222222222222222222")
    ann.run("notify", game, "--channel", "slack", hook.url + "/group")
    eve = _player(open_server, tmp_path, "evenotify")
    r = eve.run("notify", game, "--channel", "slack", hook.url + "/x", ok=1)
    assert "only the players" in r.stderr
    assert "slack" in ann.run("notify", game).stdout
    # the turn notice reaches ann's Discord channel through the worker
    import time
    for _ in range(100):
        if any(r["path"] == "/d" and b"Your move" in r["body"] for r in hook.requests):
            break
        time.sleep(0.2)
    body = next(json.loads(r["body"]) for r in hook.requests
                if r["path"] == "/d" and b"Your move" in r["body"])
    assert body["allowed_mentions"] == {"parse": [], "users": ["123456789012345678"]}


def test_calendar_and_weekends_from_the_shell(open_server, tmp_path):
    ann = _player(open_server, tmp_path, "anncal")
    bob = _player(open_server, tmp_path, "bobcal")
    game = ann.run("new", "pig", "--seats", "2", "--move-hours", "48").stdout.strip()
    bob.run("join", game)
    url = ann.run("calendar").stdout.strip()
    r = requests.get(url, timeout=10)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/calendar")
    assert game in r.text and "BEGIN:VEVENT" in r.text
    new = ann.run("calendar", "--new").stdout.strip()
    assert new != url and requests.get(url, timeout=10).status_code == 404
    assert "weekends" in ann.run("settings", "--weekends-off", "on").stdout
    assert ann.json("settings")["weekends_off"] is True
    r = ann.run("settings", "--weekends-off", "maybe", ok=2)
    assert "Traceback" not in r.stderr
