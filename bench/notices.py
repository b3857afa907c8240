"""8. Notices: draining a long outbox by mail, and two workers never sending one notice twice.

Per backend (SQLite, then PostgreSQL), with the schema upgraded as the release step does:

* 10,000 due notices (mail, one player each, a turn notice's size) written straight into the
  outbox; one ``pbem-server notify`` process (the Procfile's ``notify:`` line) with
  ``PBEM_SMTP_URL`` naming a local SMTP sink (aiosmtpd, in the bench's own process) drains
  them: the time from the worker's start to the sink holding all 10,000 (its start-up
  included), the SMTP connections it opened, and its peak resident memory (``VmHWM``);
* 2,000 due notices drained by two such workers started at once: the mails the sink got
  twice (the same notice's subject) must be none.
"""

import os
import secrets
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

from .common import ROOT, child_env
from .servers import Database, _stop

DRAIN = 10_000
RACE = 2_000
DRAIN_TARGET = 60.0
BODY = ("Pig - game g000000 - you play north\nYou owe: roll or hold\nNo deadline is set.\n\n"
        + "north 0 | east 0 | turn 0\n" * 12 + "\nYour legal moves:\n  roll\n  hold\n"
        "To answer:\n  pbem play g000000 '<move>'\n")


class Sink:
    """An SMTP server on a loopback port that counts what it receives (aiosmtpd)."""

    def __init__(self):
        from aiosmtpd.controller import Controller

        from tests.liveserver import free_port
        self.port = free_port()
        self.lock = threading.Lock()
        self.subjects = {}
        self.peers = set()
        self.count = 0
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)

    async def handle_DATA(self, server, session, envelope):
        content = envelope.content
        head = content.split(b"\r\n\r\n", 1)[0]
        subject = next((line for line in head.split(b"\r\n")
                        if line.lower().startswith(b"subject:")), b"")
        with self.lock:
            self.count += 1
            self.subjects[subject] = self.subjects.get(subject, 0) + 1
            self.peers.add(session.peer)
        return "250 OK"

    def __enter__(self):
        self.controller.start()
        return self

    def __exit__(self, *exc):
        self.controller.stop()


def _fill(db_url, count, tag):
    """``count`` due mail notices in the outbox, straight into the table (one transaction)."""
    from sqlalchemy import create_engine

    from server.config import normalize_database_url
    from server.db.models import Notice
    engine = create_engine(normalize_database_url(db_url))
    at = datetime(2020, 1, 1, tzinfo=timezone.utc)
    rows = [{"to_address": f"p{i}@example.org", "game_id": "g000000", "kind": "turn",
             "channel": "email", "subject": f"[pbem] {tag} notice {i}", "body": BODY,
             "next_attempt_at": at, "created_at": at, "attempts": 0, "status": "pending"}
            for i in range(count)]
    with engine.begin() as conn:
        for i in range(0, count, 1000):
            conn.execute(Notice.__table__.insert(), rows[i:i + 1000])
    engine.dispose()


def _peak_rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def _workers(env, n, log):
    cmd = [sys.executable, "-c", "from server.cli import main; main()", "notify",
           "--interval", "1"]
    out = open(log, "ab")
    return [subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=out, stderr=out,
                             start_new_session=True) for _ in range(n)]


def _until(sink, count, seconds, procs):
    """Seconds until ``sink`` got ``count`` mails (None past ``seconds``); the workers' peak
    RSS sampled meanwhile (the last sample before they stop)."""
    t0 = time.perf_counter()
    peak = {}
    while time.perf_counter() - t0 < seconds:
        for p in procs:
            peak[p.pid] = _peak_rss_mb(p.pid)
        if sink.count >= count:
            return time.perf_counter() - t0, peak
        if all(p.poll() is not None for p in procs):
            return None, peak
        time.sleep(0.05)
    return None, peak


def bench_backend(run, backend):
    from tests.liveserver import server_env, upgrade
    section = f"8. notices {backend}"
    workdir = Path(run.settings.workdir)
    drain = 2_000 if run.settings.quick else DRAIN
    race = 400 if run.settings.quick else RACE
    with Database(backend, workdir) as db, Sink() as sink:
        instance = workdir / f"instance-{secrets.token_hex(3)}"
        instance.mkdir(parents=True, exist_ok=True)
        env = server_env(db.url, instance, {"PBEM_SMTP_URL": f"smtp://127.0.0.1:{sink.port}",
                                            "PBEM_MAIL_FROM": "pbem@bench.example"})
        env["PYTHONPATH"] = child_env()["PYTHONPATH"]
        upgrade(env)
        _fill(db.url, drain, "drain")
        log = str(workdir / f"notices-{backend}.log")
        procs = _workers(env, 1, log)
        try:
            took, peak = _until(sink, drain, 300, procs)
        finally:
            for p in procs:
                _stop(p)
        rss = max(peak.values() or [float("nan")])
        run.add(section, f"{drain:,} due notices drained by one notice worker (SMTP sink "
                f"on loopback; the worker's start-up included), seconds",
                f"{took:.1f} s ({drain / took:,.0f} mails/s; {len(sink.peers)} SMTP "
                f"connection(s); peak RSS {rss:.0f} MB)" if took else
                f"not drained in 300 s ({sink.count:,} received)",
                f"<= {DRAIN_TARGET:.0f} s", took is not None and took <= DRAIN_TARGET)
        run.add(section, "notice worker peak RSS while draining", f"{rss:.0f} MB",
                "< 150 MB (bounded)", rss < 150)
        # two workers at once on a fresh outbox
        sink.subjects.clear()
        sink.count = 0
        _fill(db.url, race, "race")
        procs = _workers(env, 2, log)
        try:
            took, _ = _until(sink, race, 300, procs)
            time.sleep(2)  # anything sent twice arrives now
        finally:
            for p in procs:
                _stop(p)
        twice = sum(n - 1 for n in sink.subjects.values() if n > 1)
        run.add(section, f"{race:,} notices drained by two workers at once: mails sent twice",
                f"{twice} ({sink.count:,} mails for {race:,} notices"
                + (f" in {took:.1f} s)" if took else ", not all within 300 s)"),
                "0", twice == 0 and sink.count == race)


def main(run):
    backends = os.environ.get("PBEM_BENCH_NOTICE_BACKENDS", "sqlite,postgres").split(",")
    for backend in [b.strip() for b in backends if b.strip()]:
        try:
            bench_backend(run, backend)
        except Exception as exc:  # noqa: BLE001 - e.g. no PostgreSQL here
            import traceback
            traceback.print_exc()
            run.unavailable(f"8. notices {backend}", "notice benchmarks",
                            f"{exc.__class__.__name__}: {exc}")
