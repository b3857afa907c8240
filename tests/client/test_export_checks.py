"""``pbem export`` checks the archive before writing it: signatures and links, the server key
pinned in the home, and a head that extends the last one seen.  A fake server (a requests-like
session) sends whatever archive it is told to, as a compromised server would."""

import json
from urllib.parse import urlsplit

import pytest
from click.testing import CliRunner
from flask import Flask

from client.cli import cli
from client.home import Home
from shared.envelope import public_key_hex
from tests.helpers.archives import FORGER, ArchiveBuilder, V, prefix, vector_builder

GAME = "vectorarchive"


class FakeServer:
    def __init__(self, key_hex):
        self.key_hex = key_hex
        self.archive = None
        app = Flask("fake-pbem")
        self.client = app.test_client()

        @app.get("/api/server")
        def server_info():
            return {"public_key": self.key_hex, "time": 0, "version": "1"}

        @app.get(f"/api/games/{GAME}/archive")
        def archive():
            return self.archive

    def request(self, method, url, data=None, headers=None, timeout=None):
        parts = urlsplit(url)
        return _Response(self.client.open(parts.path, method=method, data=data,
                                          headers=headers))


class _Response:
    def __init__(self, resp):
        self.status_code = resp.status_code
        self.reason = resp.status
        self.headers = resp.headers
        self._resp = resp

    def json(self):
        return json.loads(self._resp.get_data(as_text=True))


@pytest.fixture
def fake():
    return FakeServer(V["public_keys"]["server"])


@pytest.fixture
def home(tmp_path):
    return Home(tmp_path / "home")


def export(home, fake, tmp_path):
    out = tmp_path / "game.json"
    result = CliRunner().invoke(cli, ["--server", "http://fake", "--home", home.path, "export",
                                      GAME, "-o", str(out)], obj={"session": fake},
                                catch_exceptions=False)
    return result, out


def test_a_running_then_a_finished_archive_are_written_and_remembered(home, fake, tmp_path):
    fake.archive = prefix(V["archive"], 4, vector_builder().running_heads)
    result, out = export(home, fake, tmp_path)
    assert result.exit_code == 0, result.stderr
    assert "wrote 4 move(s) of running game" in result.stderr
    assert home.last_head("http://fake", GAME)["length"] == 4
    fake.archive = V["archive"]
    result, out = export(home, fake, tmp_path)
    assert result.exit_code == 0 and "finished game" in result.stderr
    assert json.loads(out.read_text()) == V["archive"]
    assert home.last_head("http://fake", GAME) == {"length": 9,
                                                   "hash": V["final_head"]["hash"]}


def test_an_archive_that_does_not_verify_is_not_written(home, fake, tmp_path):
    fake.archive = json.loads(json.dumps(V["archive"]))
    fake.archive["seed"] = None
    result, out = export(home, fake, tmp_path)
    assert result.exit_code == 1 and not out.exists()
    assert "the server's archive of game vectorarchive does not verify: the head says the " \
        "game is over, but the archive reveals no seed" in result.stderr


def test_an_archive_signed_by_another_key_than_the_pinned_one_is_refused(home, fake, tmp_path):
    b = ArchiveBuilder("pig", GAME, {"north": FORGER, "east": FORGER}, FORGER, bytes([1]) * 32,
                       {"target": 12})
    b.move("north", "roll")
    fake.archive = b.archive()
    result, out = export(home, fake, tmp_path)
    assert result.exit_code == 1 and not out.exists()
    assert f"signed by server key {public_key_hex(FORGER)[:16]}..., not by the key pinned" \
        in result.stderr


def test_a_shorter_or_forked_archive_than_seen_before_is_refused(home, fake, tmp_path):
    heads = vector_builder().running_heads
    fake.archive = prefix(V["archive"], 5, heads)
    assert export(home, fake, tmp_path)[0].exit_code == 0
    fake.archive = prefix(V["archive"], 4, heads)
    result, _ = export(home, fake, tmp_path)
    assert result.exit_code == 1 and "the archive has 4 moves where the server showed 5" \
        in result.stderr
    # a fork: the same first three moves, then another fourth
    b = ArchiveBuilder("pig", GAME, {
        "north": bytes(range(32)), "east": bytes(range(32, 64))}, bytes(range(64, 96)),
        bytes([1]) * 32, {"target": 12}, players={"north": "ann", "east": "bob"})
    b.move("north", "peek")
    b.move("north", "roll", forced=True)
    b.move("north", "hold")
    for _ in range(3):  # each holds an empty pot: entry 3 already differs
        b.move(b.game.to_act(b.state)[0], "hold")
    fake.archive = b.archive()
    assert fake.archive["entries"][:3] == V["archive"]["entries"][:3]
    result, _ = export(home, fake, tmp_path)
    assert result.exit_code == 1 and "move 5 now has another hash" in result.stderr
