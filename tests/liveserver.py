"""Start real server processes (gunicorn or pbem-server) on free loopback ports, for tests."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env(db_url, instance, extra=None):
    env = dict(os.environ)
    env.update({"PBEM_DATABASE_URL": db_url, "PBEM_INSTANCE_PATH": str(instance),
                "PBEM_EXTRA_GAMES": "tests.fixtures.pig:GAME", "PBEM_RATELIMIT": "off",
                "PYTHONPATH": str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")})
    env.update(extra or {})
    return env


def upgrade(env):
    subprocess.run([sys.executable, "-c", "from server.cli import main; main()", "db", "upgrade"],
                   env=env, cwd=ROOT, check=True, capture_output=True)


class LiveServer:
    """A server process; ``url`` is its base URL.  Always ``stop()`` it (or use ``with``)."""

    def __init__(self, db_url, instance, workers=2, threads=4, extra_env=None, kind="gunicorn",
                 log=None):
        """``kind``: "gunicorn" (``workers`` x ``threads``: sync or gthread workers),
        "procfile" (the Procfile's web command and gunicorn_conf.py, ``workers`` of them;
        ``threads`` unused) or "run" (``pbem-server run``)."""
        self.env = server_env(db_url, instance, extra_env)
        self.workers, self.threads, self.kind = workers, threads, kind
        self.log = log
        self.proc = None
        self.port = None

    def start(self):
        upgrade(self.env)
        self.port = self.port or free_port()
        if self.kind == "gunicorn":
            cmd = [sys.executable, "-m", "gunicorn", "--workers", str(self.workers),
                   "--threads", str(self.threads), "--bind", f"127.0.0.1:{self.port}",
                   "--graceful-timeout", "2", "wsgi:app"]
        elif self.kind == "procfile":
            # the Procfile's web command: its settings file (gevent workers), on this port
            web = next(line for line in (ROOT / "Procfile").read_text().splitlines()
                       if line.startswith("web:"))
            args = web.split(":", 1)[1].split()
            assert args[0] == "gunicorn", web
            cmd = [sys.executable, "-m", *args[:-1], "--workers", str(self.workers),
                   "--bind", f"127.0.0.1:{self.port}", "--graceful-timeout", "2", args[-1]]
        else:
            cmd = [sys.executable, "-c", "from server.cli import main; main()", "run",
                   "--port", str(self.port)]
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL
        self.proc = subprocess.Popen(cmd, env=self.env, cwd=ROOT, stdout=out, stderr=out,
                                     start_new_session=True)
        try:
            self._wait_healthy(60)
        except BaseException:  # whatever went wrong, never leave a server behind
            self.kill()
            raise
        return self

    def _wait_healthy(self, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited with {self.proc.returncode}")
            try:
                if requests.get(self.url + "/api/health", timeout=5).ok:
                    return
            except requests.RequestException:
                time.sleep(0.1)
        raise RuntimeError(f"the server did not come up within {seconds} s")

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def kill(self):
        """kill -9 the whole process group (master and workers)."""
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
