"""Shared fixtures: an app on a temporary database, players with keys, a fake clock."""

import json
import os
import secrets

import pytest

from client.signing import request_headers, signed_move
from shared.envelope import public_key_hex
from shared.games import register
from tests.fixtures.pig import GAME as PIG

register(PIG)

PG_URL = os.environ.get("PBEM_TEST_DATABASE_URL")


class FakeClock:
    def __init__(self, start=1_800_000_000):
        self.t = start

    def __call__(self):
        return self.t

    def advance(self, seconds):
        self.t += seconds


def database_url(tmp_path, backend=None):
    """A fresh empty database: PostgreSQL when PBEM_TEST_DATABASE_URL is set, else SQLite.

    Returns (url, cleanup).
    """
    backend = backend or ("postgres" if PG_URL else "sqlite")
    if backend == "postgres":
        if not PG_URL:
            pytest.skip("PostgreSQL tests need PBEM_TEST_DATABASE_URL")
        return _fresh_pg_database(PG_URL)
    return f"sqlite:///{tmp_path}/pbem.sqlite", lambda: None


def _fresh_pg_database(url, template=None):
    """Create a throw-away database on the PostgreSQL server named by ``url`` (a copy of the
    database ``template`` on that server when given)."""
    import psycopg

    from server.config import normalize_database_url
    base = normalize_database_url(url).replace("postgresql+psycopg://", "postgresql://")
    name = "pbem_test_" + secrets.token_hex(6)
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"'
                     + (f' TEMPLATE "{template}"' if template else ""))

    def drop():
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    return base.rsplit("/", 1)[0] + "/" + name, drop


@pytest.fixture
def clock():
    return FakeClock()


def _migrate(url):
    """Run every Alembic migration on the empty database at ``url``."""
    from flask_migrate import upgrade

    from server import create_app
    from server.db import db
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": url,
                      "RATELIMIT_ENABLED": False})
    with app.app_context():
        upgrade()
        db.engine.dispose()


@pytest.fixture(scope="session")
def migrated_template(tmp_path_factory):
    """One database migrated to the newest schema per run, copied for each test's ``app``.

    Running the migrations costs seconds per test on a busy machine; a copy of the migrated
    database is the same schema (the migrations write no rows but Alembic's version). The
    migrations themselves are tested in tests/server/test_migrations.py.
    """
    if PG_URL:
        url, drop = _fresh_pg_database(PG_URL)
    else:
        url, drop = database_url(tmp_path_factory.mktemp("template"), "sqlite")
    _migrate(url)
    yield url
    drop()


def _copy_of(template, tmp_path):
    """A fresh database holding the migrated template's schema: (url, cleanup)."""
    if template.startswith("sqlite:///"):
        import sqlite3
        target = tmp_path / "pbem.sqlite"
        src, dst = sqlite3.connect(template[len("sqlite:///"):]), sqlite3.connect(target)
        try:
            src.backup(dst)
        finally:
            src.close()
            dst.close()
        return f"sqlite:///{target}", lambda: None
    return _fresh_pg_database(template, template=template.rsplit("/", 1)[1])


@pytest.fixture
def app(tmp_path, clock, migrated_template):
    from server import create_app
    from server.db import db
    url, cleanup = _copy_of(migrated_template, tmp_path)
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": url, "PBEM_CLOCK": clock,
                      "RATELIMIT_ENABLED": False,
                      "PBEM_PUSH_HOLD": 0.5})  # a long poll or stream never holds a test up
    yield app
    the_hub = app.extensions.get("pbem_push")  # its threads would outlive the database
    if the_hub is not None:
        the_hub.close()
    with app.app_context():
        db.engine.dispose()
    cleanup()


@pytest.fixture
def client(app):
    return app.test_client()


class Player:
    """A registered player driving the Flask test client with signed requests."""

    def __init__(self, client, clock, name, key=None):
        self.client = client
        self.clock = clock
        self.name = name
        self.key = key or secrets.token_bytes(32)
        self.public_key = public_key_hex(self.key)

    def headers(self, method, path, body=b""):
        return request_headers(self.key, self.name, method, path, body, ts=self.clock())

    def request(self, method, path, body=None, signed=True):
        data = json.dumps(body).encode() if body is not None else b""
        headers = self.headers(method, path, data) if signed else {}
        return self.client.open(path, method=method, data=data, headers=headers,
                                content_type="application/json" if body is not None else None)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, body if body is not None else {}, **kw)

    def register(self, **extra):
        body = {"name": self.name, "public_key": self.public_key, **extra}
        return self.post("/api/players", body)

    def move_body(self, game_id, seat, move, seq=None, prev=None, ts=None):
        """The signed body of ``move``, stamped with the fake clock (or ``ts``: a server in
        another process keeps the real one, and refuses a move signed ahead of it)."""
        if seq is None or prev is None:
            info = self.get(f"/api/games/{game_id}/view").get_json()
            seq = info["next_seq"] if seq is None else seq
            prev = info["prev"] if prev is None else prev
        return signed_move(self.key, game_id, seq, prev, seat, move,
                           ts=self.clock() if ts is None else ts)

    def play(self, game_id, seat, move, **kw):
        return self.post(f"/api/games/{game_id}/moves", self.move_body(game_id, seat, move, **kw))


@pytest.fixture
def make_player(client, clock):
    def make(name, register=True, key=None, **extra):
        p = Player(client, clock, name, key)
        if register:
            r = p.register(**extra)
            assert r.status_code == 201, r.get_json()
        return p
    return make


def _sections():
    """What this process has to print at the end of the run, as {title: lines}: the
    reliability figures the durability and fuzz tests gathered (docs/RELIABILITY.md) and the
    browser tests' screenshots."""
    import sys
    lines = []
    durability = sys.modules.get("tests.server.test_durability")
    if durability is not None and durability.STATS:
        for name, stats in sorted(durability.STATS.items()):
            lines.append(f"{name}: " + ", ".join(f"{k} {v}" for k, v in stats.items()))
    fuzz = sys.modules.get("tests.server.test_fuzz")
    if fuzz is not None and fuzz.FUZZED["cases"]:
        lines.append(f"fuzzed requests: {fuzz.FUZZED['cases']}, "
                     f"5xx seen: {fuzz.FUZZED['server_errors']}")
    figures = sys.modules.get("tests.figures")
    if figures is not None:
        lines += figures.lines()
    sections = {"reliability figures": lines} if lines else {}
    web = sys.modules.get("tests.web.conftest")
    if web is not None and web.SHOTS:
        sections["page screenshots"] = [str(path) for path in web.SHOTS]
    return sections


#: the sections the parallel run's workers sent back (pytest-xdist)
_FROM_WORKERS = {}


def pytest_sessionfinish(session):
    if hasattr(session.config, "workeroutput"):  # a worker of ``-n``: its controller prints
        session.config.workeroutput["pbem_sections"] = _sections()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    for title, lines in (getattr(node, "workeroutput", None) or {}).get(
            "pbem_sections", {}).items():
        _FROM_WORKERS.setdefault(title, []).extend(lines)


def pytest_terminal_summary(terminalreporter):
    sections = _sections()
    for title, lines in _FROM_WORKERS.items():
        sections.setdefault(title, []).extend(lines)
    figures = sections.get("reliability figures")
    if figures:
        terminalreporter.section("reliability figures")
        for line in sorted(set(figures)):
            terminalreporter.write_line(line)
    shots = sections.get("page screenshots")
    if shots:
        terminalreporter.section("page screenshots")
        folders = sorted({os.path.dirname(path) for path in shots})
        terminalreporter.write_line(f"{len(shots)} screenshots in {', '.join(folders)}")
        for path in shots:
            terminalreporter.write_line(f"  {os.path.basename(path)}")


#: the fixtures that start a real server process or a browser, by the module defining them:
#: a test using one is end-to-end (marker ``e2e``), left out of the default run and run by
#: ``pytest -m e2e`` (.ci/run, on both databases)
E2E_FIXTURES = {"server": "tests.client.conftest", "bot_server": None, "live": None,
                "chrome": None, "launch_chromium": None}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Mark ``e2e`` every test that starts a server process or drives Chromium through a
    fixture (before ``-m`` selects): a module that starts one itself says so with
    ``pytestmark = pytest.mark.e2e`` (tests/test_test_suite.py keeps that true)."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None or item.get_closest_marker("slow"):
            continue          # a slow test is run by ``-m slow`` alone
        for name, module in E2E_FIXTURES.items():
            defs = info.name2fixturedefs.get(name)
            if defs and (module is None or defs[-1].func.__module__ == module):
                item.add_marker(pytest.mark.e2e)
                break
