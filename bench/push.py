"""5. Push: how soon a waiting client learns of a move, and what idle waiters cost.

Per backend (SQLite, then PostgreSQL), against the Procfile's deployment: its ``web`` process
(``gunicorn -c gunicorn_conf.py``: 2 gthread workers x 4 threads) takes the moves, its ``push``
process (``pbem-server push``: one asyncio process, server/http/pushserver.py) the long
polls, each on its own port (the bench sends ``/wait`` to the push port as the documented
nginx front routes it):

* 5,000 idle waiters (500 with ``--quick``), each a long poll (``GET /api/games/<id>/wait``)
  on one of 500 games that do not move (ten waiters a game), held by a separate process
  (asyncio, so the load generator's threads do not share its interpreter), renewing at a
  steady 200 a second (their first long polls end spread over 5-30 s, then each lasts 25 s);
  the push workers' resident memory before and with them gives the memory per waiter;
* wake-up latency: a client long-polls a game, the bench POSTs a move to it, and the latency
  is the time from the POST's 201 reaching the bench to the waiter's answer reaching it (both
  clocks are the bench's; a wake-up that beats the 201 counts as 0).  The waiter and the POST
  land on either worker, so both the in-process and the cross-process paths are measured;
* move POST throughput (pre-signed chains, the load generator of the HTTP section, 8
  connections) without waiters, with the waiters, and without again; the ratio is "with"
  over the mean of both "without" runs.
"""

import asyncio
import http.client
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

from . import load as loadgen
from .common import ROOT, child_env, fmt_ms, fmt_rate, median, percentile
from .servers import (
    Database,
    Player,
    Setup,
    _stop,
    cpu_seconds,
    hold_chain,
    pids_named,
    worker_pids,
)


def rss_kb(pids):
    """Resident memory of ``pids`` together, in KB."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as fh:
                total += next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:"))
        except (OSError, StopIteration):
            continue
    return total

WAITERS = 5000
QUICK_WAITERS = 500
IDLE_GAMES = 500
MEMORY_TARGET_KB = 20
CONNECTIONS = 8
LATENCY_TARGET = 1.0
RATIO_TARGET = 0.9


class ProcfileServer:
    """The Procfile's deployment on loopback ports: its ``web`` process (moves and every
    ordinary request, ``url``) and its ``push`` process (the long polls, ``push_url``).  The
    bench sends ``/wait`` to the push port itself, as the documented nginx front routes it
    (docs/DEPLOYMENT.md), and everything else to the web port."""

    def __init__(self, db_url, workdir, log):
        from tests.liveserver import free_port, procfile_command, server_env, upgrade
        instance = Path(workdir) / f"instance-{secrets.token_hex(3)}"
        instance.mkdir(parents=True, exist_ok=True)
        self.port, self.push_port = free_port(), free_port()
        # the 500 waiters all come from loopback, where they stand for 500 clients: the
        # per-address share (32) would refuse them
        self.env = server_env(db_url, instance, {
            "PBEM_BIND": f"127.0.0.1:{self.port}",
            "PBEM_PUSH_BIND": f"127.0.0.1:{self.push_port}",
            "PBEM_NOTIFY_INTERVAL": "0", "PBEM_PUSH_PER_ADDRESS": "10000"})
        self.env["PYTHONPATH"] = child_env()["PYTHONPATH"]
        upgrade(self.env)
        from tests.liveserver import is_gunicorn
        self.cmds = {}
        for kind in ("web", "push"):
            cmd = procfile_command(kind)
            self.cmds[kind] = cmd[:3] + ["--log-level", "warning"] + cmd[3:] \
                if is_gunicorn(cmd) else cmd
        self.cmd = self.cmds["web"]
        self.log = log
        self.procs = {}

    def start(self):
        import requests
        out = open(self.log, "ab")
        for kind, cmd in self.cmds.items():
            self.procs[kind] = subprocess.Popen(cmd, env=self.env, cwd=ROOT, stdout=out,
                                                stderr=out, start_new_session=True)
        deadline = time.monotonic() + 90
        for kind, url in (("web", self.url), ("push", self.push_url)):
            while True:
                if self.procs[kind].poll() is not None:
                    self.stop()
                    raise RuntimeError(f"the {kind} process exited with "
                                       f"{self.procs[kind].returncode}")
                try:
                    if requests.get(url + "/api/health", timeout=5).ok:
                        break
                except requests.RequestException:
                    pass
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"the {kind} process did not come up within 90 s")
                time.sleep(0.2)
        return self

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def push_url(self):
        return f"http://127.0.0.1:{self.push_port}"

    @property
    def pids(self):
        return {kind: proc.pid for kind, proc in self.procs.items()}

    def describe(self):
        return "; ".join(f"{kind}: `{' '.join(cmd[3:])}`" for kind, cmd in self.cmds.items())

    def processes(self, kind):
        """The processes that serve ``kind``: gunicorn's workers, else the process itself."""
        return worker_pids(self.pids[kind]) or [self.pids[kind]]

    def stop(self):
        for proc in self.procs.values():
            _stop(proc)


# --- the idle waiters: a child process ----------------------------------------------------------

def _waiter_process(url, games):
    """``python -m bench.push --waiters URL`` with one game id and seq a line on stdin."""
    return subprocess.Popen([sys.executable, "-m", "bench.push", "--waiters", url],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT,
                            env=child_env(), text=True, start_new_session=True)


async def _hold(host, port, game_id, seq, counts, stop, first=25.0):
    """Long-poll ``game_id`` from ``seq`` again and again on one kept-alive connection; the
    first long poll lasts ``first`` seconds, the next ones 25."""
    reader = writer = None
    timeout = first
    while not stop.is_set():
        try:
            if writer is None:
                reader, writer = await asyncio.open_connection(host, port)
            path = f"/api/games/{game_id}/wait?after={seq}&timeout={timeout:.2f}"
            timeout = 25.0
            writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head.split(b" ", 2)[1])
            length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length:"))
            await reader.readexactly(length)
            counts[status] = counts.get(status, 0) + 1
            if status != 200:  # 503: this worker is full; a new connection may land on another
                writer.close()
                reader = writer = None
                await asyncio.sleep(1)
        except Exception:  # noqa: BLE001 - counted; reconnect
            counts["error"] = counts.get("error", 0) + 1
            if writer is not None:
                writer.close()
            reader = writer = None
            await asyncio.sleep(0.5)


async def _hold_all(url, pairs):
    host, port = url.split("//", 1)[1].split(":")
    counts, stop = {}, asyncio.Event()
    # the first long polls end evenly spread over 5-30 s, so the waiters renew at a steady
    # 500 / 25 s = 20 a second, as clients that came at different times do; all opened at
    # once with the same 25 s, the 500 renewals came in one burst that landed in the measured
    # window or not, by chance (bench/ANALYSIS.md, "Split deployment")
    tasks = [asyncio.create_task(_hold(host, int(port), g, s, counts, stop,
                                       5.0 + 25.0 * i / max(1, len(pairs))))
             for i, (g, s) in enumerate(pairs)]
    print("READY", flush=True)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)  # until the bench closes our stdin
    stop.set()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(json.dumps({str(k): v for k, v in counts.items()}), flush=True)


class IdleWaiters:
    def __init__(self, url, games):
        self.url, self.games = url, games

    def __enter__(self):
        self.proc = _waiter_process(self.url, self.games)
        self.proc.stdin.write("".join(f"{g['id']} {g['seq']}\n" for g in self.games) + "END\n")
        self.proc.stdin.flush()
        if self.proc.stdout.readline().strip() != "READY":
            raise RuntimeError("the waiter process did not start")
        # every connection opened and its long poll registered
        time.sleep(3 + 2 * len(self.games) / 1000)
        return self

    def __exit__(self, *exc):
        self.proc.stdin.close()
        try:
            out = self.proc.stdout.read()
            self.proc.wait(30)
            self.counts = json.loads(out.strip().splitlines()[-1]) if out.strip() else {}
        except (subprocess.TimeoutExpired, ValueError):
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.counts = {}


def _waiters_main(url):
    pairs = []
    for line in sys.stdin:
        if line.strip() == "END":
            break
        game_id, seq = line.split()
        pairs.append((game_id, int(seq)))
    asyncio.run(_hold_all(url, pairs))


# --- the measurements ---------------------------------------------------------------------------

def _latencies(url, push_url, game, keys, count):
    """``count`` moves on ``game`` (POSTed to ``url``), each with a long poll waiting for it
    (on ``push_url``): wake-up latencies."""
    from client.signing import signed_move
    from shared.envelope import entry_hash
    host, port = url.split("//", 1)[1].split(":")
    push_host, push_port = push_url.split("//", 1)[1].split(":")
    seq, prev = game["seq"], game["head"]
    seats = ("north", "east")
    poster = http.client.HTTPConnection(host, int(port), timeout=30)
    out, statuses = [], {}
    for _ in range(count):
        nxt = seq + 1
        body = signed_move(keys[seats[nxt % 2]], game["id"], nxt, prev, seats[nxt % 2], "hold")
        got = {}

        def wait(seq=seq, got=got):
            conn = http.client.HTTPConnection(push_host, int(push_port), timeout=60)
            conn.request("GET", f"/api/games/{game['id']}/wait?after={seq}&timeout=30")
            resp = conn.getresponse()
            resp.read()
            got["t"], got["status"] = time.perf_counter(), resp.status
            conn.close()

        t = threading.Thread(target=wait)
        t.start()
        time.sleep(0.3)  # the long poll is registered (a late one would answer at once)
        try:
            resp = _post(poster, game["id"], body)
        except (ConnectionError, http.client.HTTPException):
            # the web process closed the kept-alive connection (its keep-alive is 5 s, and a
            # slow wake-up can outlast it): the same move on a new one
            poster.close()
            poster = http.client.HTTPConnection(host, int(port), timeout=30)
            resp = _post(poster, game["id"], body)
        posted = time.perf_counter()
        statuses[resp.status] = statuses.get(resp.status, 0) + 1
        t.join(60)
        if resp.status == 201 and got.get("status") == 200:
            out.append(max(0.0, got["t"] - posted))
        seq, prev = nxt, entry_hash(body["envelope"].encode("utf-8"), body["signature"])
    poster.close()
    game["seq"], game["head"] = seq, prev
    return out, statuses


def _post(conn, game_id, body):
    conn.request("POST", f"/api/games/{game_id}/moves", json.dumps(body),
                 {"Content-Type": "application/json"})
    resp = conn.getresponse()
    resp.read()
    return resp


def _chains(games, keys, seconds, cap):
    """Pre-signed move streams, one a connection, for a run of ``seconds``."""
    per_game = int(cap * seconds / len(games)) + 50
    streams = [[] for _ in range(CONNECTIONS)]
    for i, g in enumerate(games):
        chain, prev = hold_chain(g["id"], g["head"], g["seq"] + 1, per_game, keys)
        streams[i % CONNECTIONS].extend(chain)
        g["seq"], g["head"] = g["seq"] + per_game, prev
    return streams


def _throughput(url, games, keys, seconds, cap, watch=None):
    """Move POSTs for ``seconds``; ``watch`` (a _Watch) sees the CPU used meanwhile."""
    streams = _chains(games, keys, seconds, cap)
    if watch is not None:
        watch.begin(seconds)
    res = loadgen.run_streams(url, streams, seconds)
    if watch is not None:
        watch.end(res)
    # the chains were cut where the run stopped: re-read each game's head
    setup = Setup(url)
    for g in games:
        fresh = setup.s.get(f"{url}/api/games/{g['id']}", timeout=30).json()
        g["seq"], g["head"] = fresh["seq"], fresh["head"]
    return res


class _Watch:
    """CPU seconds used by each part of the deployment during a throughput run, per move
    (web workers, push workers, the database's server processes, the idle waiters' client
    process), and optionally a py-spy profile of the web and push workers meanwhile."""

    def __init__(self, server, label, profile_dir=None, db_url=None):
        self.server, self.label, self.profile_dir = server, label, profile_dir
        self.db_url = db_url  # PostgreSQL: also count the sessions (connections) opened
        self.postgres = bool(db_url)
        self.sessions = None
        self.waiters_pid = None
        self.cpu = {}
        self.spies = []

    def _groups(self):
        groups = {kind: self.server.processes(kind) for kind in self.server.pids}
        if self.postgres:  # every PostgreSQL process of the machine (others' work too)
            groups["database"] = pids_named("postgres")
        if self.waiters_pid:
            groups["waiters"] = [self.waiters_pid]
        return groups

    def _sessions(self):
        import psycopg
        with psycopg.connect(self.db_url, autocommit=True, connect_timeout=5) as conn:
            conn.execute("SELECT pg_stat_clear_snapshot()")
            return conn.execute("SELECT sessions FROM pg_stat_database "
                                "WHERE datname = current_database()").fetchone()[0]

    def _sample_waits(self):
        """PostgreSQL's side of the profile: what the active backends of the bench's database
        wait on (pg_stat_activity, every 10 ms), e.g. ``Lock:object`` (NOTIFY's queue lock,
        held from a notifying transaction's pre-commit through its commit)."""
        import psycopg
        try:
            with psycopg.connect(self.db_url, autocommit=True, connect_timeout=5) as conn:
                while not self._sampling.is_set():
                    for kind, name in conn.execute(
                            "SELECT wait_event_type, wait_event FROM pg_stat_activity "
                            "WHERE datname = current_database() AND state = 'active' "
                            "AND pid <> pg_backend_pid()"):
                        self.waits[f"{kind}:{name}" if kind else "on CPU"] += 1
                    self._sampling.wait(0.01)
        except Exception:  # noqa: BLE001 - a profile, never a failure
            pass

    def begin(self, seconds):
        if self.postgres:
            self.sessions = self._sessions()
            self.waits, self._sampling = Counter(), threading.Event()
            self._sampler = threading.Thread(target=self._sample_waits, daemon=True)
            self._sampler.start()
        self.start = {k: cpu_seconds(v) for k, v in self._groups().items()}
        if self.profile_dir is not None and shutil.which("py-spy"):
            for kind in self.server.pids:
                for worker in self.server.processes(kind):
                    out = Path(self.profile_dir) / f"pyspy-{self.label}-{kind}-{worker}.txt"
                    self.spies.append((kind, out, subprocess.Popen(
                        ["py-spy", "record", "--pid", str(worker), "--duration",
                         str(max(1, int(seconds) - 1)), "--rate", "100", "--format", "raw",
                         "--output", str(out), "--nonblocking", "--threads"],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)))

    def end(self, res):
        moves = max(1, res.statuses.get("201", 0) + res.statuses.get(201, 0))
        now = {k: cpu_seconds(v) for k, v in self._groups().items()}
        self.cpu = {k: (now[k] - self.start.get(k, 0.0)) / moves * 1000 for k in now}
        for _, _, proc in self.spies:
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
        if self.postgres:
            self._sampling.set()
            self._sampler.join(10)
            # a session is counted when it ends; the statistics are flushed within ~1 s
            time.sleep(1.5)
            self.sessions = self._sessions() - self.sessions - 1  # less our own first one

    def text(self):
        text = ", ".join(f"{k} {v:.2f}" for k, v in self.cpu.items())
        if self.postgres:
            total = sum(self.waits.values()) or 1
            text += (f" (database sessions ended meanwhile: {self.sessions}; active backends "
                     "waiting on: " + ", ".join(f"{k} {v / total:.0%}" for k, v in
                                                self.waits.most_common(3)) + ")")
        return text

    def stacks(self, kind):
        out = Counter()
        for k, path, _ in self.spies:
            if k == kind and path.exists():
                for line in path.read_text().splitlines():
                    stack, _, count = line.rpartition(" ")
                    if count.isdigit():
                        out[stack] += int(count)
        return out


def _own_time(stacks, top=10):
    total = sum(stacks.values()) or 1
    own, threads = Counter(), Counter()
    for stack, n in stacks.items():
        frames = stack.split(";")
        own[frames[-1].split(" (")[0] + " (" + "/".join(
            frames[-1].partition(" (")[2].rstrip(")").split("/")[-2:]) + ")"] += n
        threads[frames[0][:60]] += n
    lines = [f"{sum(stacks.values())} CPU samples (py-spy, 100 Hz, active threads only)",
             "by thread: " + "; ".join(f"{n / total:.0%} {t}" for t, n in
                                       threads.most_common(4)),
             "top functions by own time:"]
    lines += [f"  {n / total:6.1%}  {fn}" for fn, n in own.most_common(top)]
    lines.append("inclusive:")
    for label, needles in _INCLUSIVE:
        n = sum(c for stack, c in stacks.items() if any(nd in stack for nd in needles))
        lines.append(f"  {n / total:6.1%}  {label}")
    return "\n".join(lines)


_INCLUSIVE = [
    ("Flask request handling", ("full_dispatch_request (flask",)),
    ("  append_move", ("append_move (server/game/append.py",)),
    ("  wait_for_move (the long polls)", ("wait_for_move (server/workers/push.py",)),
    ("    public_head (the head read)", ("public_head (server/workers/push.py",)),
    ("database connections opened (psycopg connect)", ("connect (psycopg/connection.py",)),
    ("database connections closed", ("close (psycopg/connection.py",)),
    ("the LISTEN thread (notifications)", ("_listen (server/workers/push.py",)),
    ("the event loop itself", ("_run_once (asyncio/base_events.py",)),
]


def _procfile_worker_classes():
    """The worker classes the Procfile's processes run here (settings read, not imported)."""
    import runpy
    return {"web": runpy.run_path(str(ROOT / "gunicorn_conf.py"))["worker_class"],
            "push": "asyncio (pbem-server push)"}


def _many_games(setup, a, b, count):
    from .http import _new_games
    return _new_games(setup.url, a, b, count)


def bench_backend(run, backend):
    quick = run.settings.quick
    section = f"5. push {backend}"
    seconds = 4 if quick else 10
    samples = 20 if quick else 60
    waiters_n = QUICK_WAITERS if quick else WAITERS
    workdir = run.settings.workdir
    with Database(backend, workdir) as db:
        server = ProcfileServer(db.url, workdir, str(workdir / f"push-{backend}.log")).start()
        try:
            setup = Setup(server.url)
            a, b = Player(f"pa{secrets.token_hex(3)}"), Player(f"pb{secrets.token_hex(3)}")
            setup.register(a)
            setup.register(b)
            keys = {"north": a.key, "east": b.key}
            t0 = time.perf_counter()
            games = _many_games(setup, a, b, min(IDLE_GAMES, waiters_n))
            idle = [games[i % len(games)] for i in range(waiters_n)]
            hot = _many_games(setup, a, b, CONNECTIONS + 1)
            model = _procfile_worker_classes()
            run.add(section, "set-up", f"{len(games) + CONNECTIONS + 1} games created in "
                    f"{time.perf_counter() - t0:.0f} s; {loadgen.tool_name()} load generator; "
                    f"Procfile: {server.describe()}; {model['web']} web workers (the moves), "
                    f"{model['push']} push workers (the waiters: /wait sent to the push "
                    "port, as the nginx front routes it)")
            latency_game, move_games = hot[0], hot[1:]
            _throughput(server.url, move_games, keys, 1, 100)  # warm-up
            cap = 1000
            profile = run.settings.profile and backend == "postgres"
            watches = {label: _Watch(server, label, workdir if profile else None,
                                     db.url if backend == "postgres" else None)
                       for label in ("before", "during", "after")}
            before = _throughput(server.url, move_games, keys, seconds, cap,
                                 watches["before"])
            lat_idle, _ = _latencies(server.url, server.push_url, latency_game, keys,
                                     max(5, samples // 4))
            push_workers = server.processes("push")
            rss_before = rss_kb(push_workers)
            with IdleWaiters(server.push_url, idle) as waiters:
                rss_with = rss_kb(push_workers)
                client_kb = rss_kb([waiters.proc.pid])
                lat, statuses = _latencies(server.url, server.push_url, latency_game, keys,
                                           samples)
                watches["during"].waiters_pid = watches["after"].waiters_pid = \
                    waiters.proc.pid
                during = _throughput(server.url, move_games, keys, seconds, cap,
                                     watches["during"])
            after = _throughput(server.url, move_games, keys, seconds, cap, watches["after"])
            held = waiters.counts
            per_waiter = (rss_with - rss_before) / waiters_n
            run.add(section, f"push workers' memory per waiter ({waiters_n:,} waiters: RSS "
                    f"{rss_before / 1024:.0f} MB before, {rss_with / 1024:.0f} MB with them, "
                    f"{len(push_workers)} workers; the asyncio client's own "
                    f"{client_kb / waiters_n:.1f} KB a waiter)", f"{per_waiter:.1f} KB",
                    f"<= {MEMORY_TARGET_KB} KB", per_waiter <= MEMORY_TARGET_KB)
            p50, p99 = median(lat), percentile(lat, 99)
            run.add(section, f"wake-up after a move's 201, {waiters_n:,} idle waiters on "
                    f"{len(push_workers)} push process(es)",
                    f"median {fmt_ms(p50)}, p99 {fmt_ms(p99)}, max {fmt_ms(max(lat or [0]))} "
                    f"({len(lat)} moves; POST statuses {statuses})",
                    "< 1 s", bool(lat) and p99 < LATENCY_TARGET and len(lat) == samples)
            run.add(section, "wake-up without idle waiters (for comparison)",
                    f"median {fmt_ms(median(lat_idle))}, max {fmt_ms(max(lat_idle or [0]))} "
                    f"({len(lat_idle)} moves)")
            base = (before.rps + after.rps) / 2
            ratio = during.rps / base if base else 0
            for label, res in (("without waiters", before),
                               (f"with {waiters_n:,} waiters", during),
                               ("without waiters, again", after)):
                run.add(section, f"move POST {label}, {CONNECTIONS} conns",
                        f"{fmt_rate(res.rps)} (p50 {fmt_ms(res.p50)}, p99 {fmt_ms(res.p99)}; "
                        f"statuses {res.status_text()})")
            run.add(section, f"move POST throughput with / without {waiters_n:,} waiters",
                    f"{ratio:.2f} (vs the mean of both runs without)", f">= {RATIO_TARGET}",
                    ratio >= RATIO_TARGET)
            run.add(section, "CPU ms per move: without waiters, with, without again",
                    " | ".join(f"{label}: {w.text()}" for label, w in watches.items()))
            if profile:  # all three runs are profiled alike, so py-spy's cost cancels out
                for label, kind in (("before", "web"), ("during", "web"), ("during", "push"),
                                    ("after", "push")):
                    stacks = watches[label].stacks(kind)
                    if stacks:
                        run.note(section, f"py-spy of the {kind} workers during the move run "
                                          f"{label} the {waiters_n:,} waiters: "
                                          + _own_time(stacks))
            run.add(section, "the idle waiters' answers meanwhile",
                    ", ".join(f"{k}: {v}" for k, v in sorted(held.items())) or "none")
        finally:
            server.stop()


def main(run):
    # PBEM_BENCH_PUSH_BACKENDS=postgres: one backend only (profiling one row)
    backends = os.environ.get("PBEM_BENCH_PUSH_BACKENDS", "sqlite,postgres").split(",")
    for backend in [b.strip() for b in backends if b.strip()]:
        try:
            bench_backend(run, backend)
        except Exception as exc:  # noqa: BLE001 - e.g. no PostgreSQL here
            import traceback
            traceback.print_exc()
            run.unavailable(f"5. push {backend}", "push benchmarks",
                            f"{exc.__class__.__name__}: {exc}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--waiters":
        _waiters_main(sys.argv[2])
