"""History only grows: the CLI refuses a signed head that does not extend the last one it saw.

A fake server (a tiny Flask app behind a requests-like session) signs whatever
log it is told to show, as a compromised or buggy server would.
"""

import json
import secrets
from urllib.parse import urlsplit

import pytest
from click.testing import CliRunner
from flask import Flask, request

from client.cli import cli
from client.home import Home
from shared.envelope import canonical_json, entry_hash, head_message, public_key_hex, sign

GAME = "fakegame01"
GENESIS = "ab" * 32


def chain(moves, prev=GENESIS, start=0):
    """Log entries for ``moves`` (texts), hash-linked from ``prev``."""
    out = []
    for i, move in enumerate(moves, start):
        env = canonical_json({"game": GAME, "seq": i, "prev": prev, "seat": "north",
                              "move": move, "nonce": f"n{i:08d}", "ts": 1}).decode()
        sig = secrets.token_hex(64)
        h = entry_hash(env.encode(), sig)
        out.append({"seq": i, "seat": "north", "move": move, "forced": False, "events": [],
                    "hash": h, "prev": prev, "envelope": env, "signature": sig,
                    "received_at": None})
        prev = h
    return out


class FakeServer:
    """Serves /api/server, a game's view and log, signing heads with ``self.key``."""

    def __init__(self):
        self.key = secrets.token_bytes(32)
        self.entries = []
        self.app = Flask("fake-pbem")
        self.client = self.app.test_client()
        app = self.app

        @app.get("/api/server")
        def server_info():
            return {"public_key": public_key_hex(self.key), "time": 0, "version": "1"}

        @app.get(f"/api/games/{GAME}/view")
        def view():
            return {"game": {"id": GAME, "type": "pig", "status": "playing", "you": ["north"],
                             "to_act": ["north"], "seats": []},
                    "seat": "north", "next_seq": len(self.entries),
                    "prev": self.head()["hash"], "board": "a board",
                    "view": {"status": "playing", "to_act": ["north"], "you": "north",
                             "scores": {}, "owes": {}},
                    "head": self.head()}

        @app.get(f"/api/games/{GAME}/log")
        def log():
            since = int(request.args.get("since", 0))
            limit = int(request.args.get("limit", 0)) or None
            picked = self.entries[since:][:limit] if limit else self.entries[since:]
            return {"entries": picked, "head": self.head()}

    def head(self, key=None):
        length = len(self.entries)
        h = self.entries[-1]["hash"] if self.entries else GENESIS
        return {"game": GAME, "length": length, "hash": h,
                "signature": sign(key or self.key, head_message(GAME, length, h))}

    # the requests.Session interface the API client uses
    def request(self, method, url, data=None, headers=None, timeout=None):
        parts = urlsplit(url)
        resp = self.client.open(parts.path + ("?" + parts.query if parts.query else ""),
                                method=method, data=data, headers=headers)
        return _Response(resp)


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
    return FakeServer()


@pytest.fixture
def home(tmp_path):
    h = Home(tmp_path / "home")
    h.create_key()
    h.save_config({"name": "ann"})
    return h


def pbem(home, fake, *args):
    return CliRunner().invoke(cli, ["--server", "http://fake", "--home", home.path, *args],
                              obj={"session": fake}, catch_exceptions=False)


def test_history_that_grows_is_accepted_and_remembered(home, fake):
    assert pbem(home, fake, "show", GAME).exit_code == 0
    assert home.pinned_key("http://fake") == public_key_hex(fake.key)
    assert home.last_head("http://fake", GAME) == {"length": 0, "hash": GENESIS}
    fake.entries = chain(["roll", "roll", "hold"])
    assert pbem(home, fake, "show", GAME).exit_code == 0
    fake.entries += chain(["peek"], prev=fake.entries[-1]["hash"], start=3)
    result = pbem(home, fake, "log", GAME)
    assert result.exit_code == 0, result.stderr
    assert home.last_head("http://fake", GAME)["length"] == 4


def refused(home, fake, *args):
    result = pbem(home, fake, *(args or ("show", GAME)))
    assert result.exit_code == 1
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pbem: ")
    return lines[0]


def test_a_shorter_log_is_refused(home, fake):
    fake.entries = chain(["roll", "roll", "hold"])
    pbem(home, fake, "show", GAME)
    fake.entries = fake.entries[:2]
    assert "history was rewritten" in refused(home, fake)
    assert "shows 2 moves where it showed 3" in refused(home, fake, "log", GAME)
    # the refusal does not overwrite what was remembered
    assert home.last_head("http://fake", GAME)["length"] == 3


def test_same_length_other_hash_is_refused(home, fake):
    fake.entries = chain(["roll", "roll", "hold"])
    pbem(home, fake, "show", GAME)
    fake.entries = chain(["roll", "roll", "roll"])
    assert "move 3 now has another hash" in refused(home, fake)


def test_longer_log_that_forks_is_refused(home, fake):
    fake.entries = chain(["roll", "roll", "hold"])
    pbem(home, fake, "show", GAME)
    fake.entries = chain(["roll", "peek", "hold", "roll", "hold"])  # rewritten from move 1 on
    assert "move 3 now has another hash" in refused(home, fake)


def test_longer_log_that_lies_about_the_old_entry_is_refused(home, fake):
    fake.entries = chain(["roll", "roll", "hold"])
    old_hash = fake.entries[-1]["hash"]
    pbem(home, fake, "show", GAME)
    fake.entries = chain(["roll", "peek", "hold", "roll"])
    fake.entries[2]["hash"] = old_hash  # claims the old hash, but its contents differ
    assert "history was rewritten" in refused(home, fake)


def test_rewriting_from_the_start_is_refused(home, fake):
    pbem(home, fake, "show", GAME)  # length 0: the genesis hash is remembered
    fake.entries = chain(["roll"], prev="cd" * 32)
    assert "no longer links to the game's original header" in refused(home, fake)


def test_a_head_signed_by_another_key_is_refused(home, fake):
    fake.entries = chain(["roll"])
    pbem(home, fake, "show", GAME)
    fake.key = secrets.token_bytes(32)  # the server's key changed (or it is another server)
    assert "not signed by the server key pinned in this home" in refused(home, fake)


def test_a_log_inconsistent_with_its_head_is_refused(home, fake):
    fake.entries = chain(["roll", "hold"])
    entries = fake.entries
    fake.entries = entries[:1] + chain(["peek"], prev="ef" * 32, start=1)
    assert "hash chain is broken" in refused(home, fake, "log", GAME)
