"""Real servers for the HTTP benchmarks: pbem under gunicorn, the hello app, databases.

The pbem server runs as the Procfile's ``web:`` line deploys it (its gunicorn options, with
the bench's own ``--bind``; the schema upgraded first, as the release step does), or for
comparison as tests/liveserver.py starts it (2 workers x 4 threads).  The hello app always
gets the very same gunicorn options as the pbem server it is compared with.
"""

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import requests

from .common import ROOT, child_env

WORKERS = 2
THREADS = 4
PG_ADMIN_URL = os.environ.get("PBEM_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")


def threaded_options(threads=THREADS):
    """tests/liveserver.py's gunicorn options: 2 workers x ``threads`` threads."""
    return ["--workers", str(WORKERS), "--threads", str(threads)]


def procfile_options():
    """The gunicorn options of the Procfile's ``web:`` line, without its bind and app.

    (options, text): ``text`` names the deployment for the report.  ``${VAR:-default}`` is
    read as its default; ``--bind``/``-b`` are the bench's own.
    """
    import re
    import shlex
    line = next((ln.split(":", 1)[1].strip() for ln in (ROOT / "Procfile").read_text()
                 .splitlines() if ln.startswith("web:")), "")
    line = re.sub(r"\$\{[A-Za-z_]+:-([^}]*)\}", r"\1", line)
    words = shlex.split(line)
    if not words or words[0] != "gunicorn":
        raise RuntimeError(f"the Procfile's web line is not a gunicorn command: {line!r}")
    words, out, skip = words[1:], [], False
    for i, word in enumerate(words):
        if skip:
            skip = False
        elif word in ("--bind", "-b"):
            skip = True
        elif word.startswith("--bind=") or i == len(words) - 1 and ":" in word \
                and not word.startswith("-"):
            continue  # the bind, and the app (module:variable) last
        else:
            out.append(word)
    return out, "gunicorn " + " ".join(out)


def gunicorn_cmd(app, port, options):
    return [sys.executable, "-m", "gunicorn", *options, "--bind", f"127.0.0.1:{port}",
            "--graceful-timeout", "2", "--log-level", "warning", app]


class HelloServer:
    """``bench.hello:app`` under gunicorn with the same options as the pbem server."""

    def __init__(self, log, options):
        self.log = log
        self.options = options
        self.proc = None

    def start(self):
        from tests.liveserver import free_port
        self.port = free_port()
        out = open(self.log, "ab")
        self.proc = subprocess.Popen(gunicorn_cmd("bench.hello:app", self.port, self.options),
                                     cwd=ROOT,
                                     env=child_env(), stdout=out, stderr=out,
                                     start_new_session=True)
        _wait_up(self.proc, self.url + "/hello")
        return self

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def stop(self):
        _stop(self.proc)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def _wait_up(proc, url, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}")
        try:
            if requests.get(url, timeout=5).ok:
                return
        except requests.RequestException:  # refused, or a first answer slow on a loaded machine
            time.sleep(0.1)
    _stop(proc)
    raise RuntimeError("the server did not come up within 30 s")


def _stop(proc):
    if proc and proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


class Database:
    """A throw-away database: SQLite in the work dir, or a fresh PostgreSQL database."""

    def __init__(self, backend, workdir):
        self.backend = backend
        self.workdir = Path(workdir)
        self.url = None
        self._drop = None

    def __enter__(self):
        if self.backend == "sqlite":
            path = self.workdir / f"pbem-{secrets.token_hex(4)}.sqlite"
            self.url = f"sqlite:///{path}"
        else:
            import psycopg
            name = "pbem_bench_" + secrets.token_hex(6)
            with psycopg.connect(PG_ADMIN_URL, autocommit=True, connect_timeout=5) as conn:
                conn.execute(f'CREATE DATABASE "{name}"')

            def drop():
                with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
                    conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            self._drop = drop
            self.url = PG_ADMIN_URL.rsplit("/", 1)[0] + "/" + name
        return self

    def __exit__(self, *exc):
        if self._drop:
            self._drop()


def pbem_server(db_url, workdir, log, options=None):
    """A started pbem server on ``db_url`` under gunicorn with ``options`` (default:
    tests/liveserver.py's 2 workers x 4 threads)."""
    instance = Path(workdir) / f"instance-{secrets.token_hex(3)}"
    instance.mkdir(parents=True, exist_ok=True)
    server = GunicornServer(db_url, instance, log=log)
    server.options = options or threaded_options()
    server.env["PYTHONPATH"] = child_env()["PYTHONPATH"]
    return server.start()


def _gunicorn_server_class():
    from tests.liveserver import LiveServer, free_port, upgrade

    class _GunicornServer(LiveServer):
        """tests/liveserver.py's LiveServer with the bench's gunicorn options."""

        options = None

        def start(self):
            upgrade(self.env)
            self.port = self.port or free_port()
            out = open(self.log, "ab") if self.log else subprocess.DEVNULL
            self.proc = subprocess.Popen(gunicorn_cmd("wsgi:app", self.port, self.options),
                                         env=self.env, cwd=ROOT, stdout=out, stderr=out,
                                         start_new_session=True)
            try:
                self._wait_healthy(60)
            except BaseException:
                self.kill()
                raise
            return self
    return _GunicornServer


def GunicornServer(*args, **kw):  # noqa: N802 - a class made on first use (tests/ import)
    return _gunicorn_server_class()(*args, **kw)


def worker_pids(master_pid):
    """The gunicorn worker processes (children of the master)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            if int(fields[1]) == master_pid:
                out.append(int(entry))
        except (OSError, IndexError, ValueError):
            continue
    return sorted(out)


def cpu_seconds(pids):
    """User + system CPU seconds used so far by ``pids``."""
    total = 0
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            continue
    return total


def pids_named(name):
    """Processes whose command name is ``name`` (e.g. every postgres backend)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/comm") as fh:
                    if fh.read().strip() == name:
                        out.append(int(entry))
            except OSError:
                continue
    return out


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


# --- a small signed-HTTP client for setting games up ------------------------------------

class Player:
    def __init__(self, name):
        from shared.envelope import public_key_hex
        self.name = name
        self.key = secrets.token_bytes(32)
        self.public_key = public_key_hex(self.key)

    def headers(self, method, path, body=b""):
        from client.signing import request_headers
        h = request_headers(self.key, self.name, method, path, body)
        h["Content-Type"] = "application/json"
        return h


class Setup:
    """Register players and create started 2-seat games over HTTP."""

    def __init__(self, url, session=None):
        self.url = url
        self.s = session or requests.Session()

    def signed(self, player, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else b""
        r = self.s.request(method, self.url + path, data=data,
                           headers=player.headers(method, path, data), timeout=30)
        if r.status_code >= 300:
            raise RuntimeError(f"{method} {path}: {r.status_code} {r.text[:200]}")
        return r.json()

    def register(self, player):
        return self.signed(player, "POST", "/api/players",
                           {"name": player.name, "public_key": player.public_key})

    def new_game(self, a, b, type_="pig", options=None):
        """A started game between a (first seat) and b (second); returns the game JSON."""
        game = self.signed(a, "POST", "/api/games",
                           {"type": type_, "seats": 2, "options": options or {}})
        return self.signed(b, "POST", f"/api/games/{game['id']}/join", {})


def hold_chain(game_id, prev, start_seq, count, keys, seats=("north", "east")):
    """Pre-signed Pig moves: every seat in turn says ``hold`` (legal forever with pot 0).

    Returns a list of (method, path, body) and the hash after the last one.
    """
    from client.signing import signed_move
    from shared.envelope import entry_hash
    out = []
    path = f"/api/games/{game_id}/moves"
    ts = int(time.time())
    for seq in range(start_seq, start_seq + count):
        seat = seats[seq % len(seats)]
        body = signed_move(keys[seat], game_id, seq, prev, seat, "hold", ts=ts)
        prev = entry_hash(body["envelope"].encode("utf-8"), body["signature"])
        out.append(("POST", path, json.dumps(body, separators=(",", ":"))))
    return out, prev
