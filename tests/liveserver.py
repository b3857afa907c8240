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


def nginx_main(folder, site, connections=256):
    """A main nginx configuration holding ``site`` (the text of an ``http`` block) that
    keeps everything in ``folder``: the path of that file, for ``nginx -c PATH -p folder``."""
    folder = Path(folder)
    for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (folder / sub).mkdir(exist_ok=True)
    # nginx started by root runs its workers as nobody, who cannot write a body bigger than
    # its buffer to the test's private temporary folder
    user = "user root;" if os.geteuid() == 0 else ""
    main = folder / "nginx.conf"
    main.write_text(f"""
{user}
daemon off;
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ worker_connections {connections}; }}
http {{
    access_log off;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
{site}
}}
""")
    return main


def nginx_config(folder, web_port, push_port, listen_port):
    """deploy/nginx.conf (the shipped site, as is) on ``listen_port``, its upstreams the
    given web and push ports, in a main file of :func:`nginx_main` in ``folder``.

    The upstreams are replaced in one pass: replacing 5000 first and then 5001 would also
    rewrite a web port that begins with 5001 (50013 became "<push port>3")."""
    import re
    ports = {"5000": web_port, "5001": push_port}
    site = re.sub(r"127\.0\.0\.1:(500[01])\b", lambda m: f"127.0.0.1:{ports[m.group(1)]}",
                  (ROOT / "deploy" / "nginx.conf").read_text())
    site, n = re.subn(r"listen 80;", f"listen 127.0.0.1:{listen_port};", site)
    assert n == 1, "deploy/nginx.conf listens on port 80 once"
    return nginx_main(folder, site)


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
        "procfile" / "procfile-push" (the Procfile's web or push command with its settings
        file, gunicorn_conf.py or gunicorn_push.py, ``workers`` of them; ``threads`` unused)
        or "run" (``pbem-server run``)."""
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
        elif self.kind in ("procfile", "procfile-push"):
            # the Procfile's web (gthread) or push (gevent) command, with its settings file,
            # ``workers`` of them, on this port (command-line flags override the file)
            role = "push" if self.kind == "procfile-push" else "web"
            cmd = procfile_command(role) + ["--bind", f"127.0.0.1:{self.port}"]
            if is_gunicorn(cmd):
                cmd += ["--workers", str(self.workers), "--graceful-timeout", "2"]
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


def procfile_command(kind):
    """The Procfile's ``kind`` line (``web``, ``push``) as an argv for this interpreter."""
    line = next((ln for ln in (ROOT / "Procfile").read_text().splitlines()
                 if ln.startswith(kind + ":")), None)
    if line is None:
        raise RuntimeError(f"the Procfile has no {kind}: line")
    words = line.split(":", 1)[1].split()  # gunicorn -c gunicorn_X.py wsgi:app (cwd: ROOT)
    if words[0] == "gunicorn":
        return [sys.executable, "-m", "gunicorn", *words[1:]]
    if words[0] == "pbem-server":  # pbem-server push
        return [sys.executable, "-c", "from server.cli import main; main()", *words[1:]]
    raise RuntimeError(f"the Procfile's {kind} line is neither gunicorn nor pbem-server: "
                       f"{line!r}")


def is_gunicorn(cmd):
    """Whether a procfile_command runs gunicorn (which takes its flags, --workers...)."""
    return cmd[1:3] == ["-m", "gunicorn"]


class ProcfileDeployment:
    """The Procfile's ``web`` and ``push`` process types, as they are written there (their
    gunicorn settings files), each on a free loopback port: ``url`` (web) and ``push_url``.
    Always ``stop()`` it (or use ``with``)."""

    def __init__(self, db_url, instance, extra_env=None, log=None):
        self.port, self.push_port = free_port(), free_port()
        self.env = server_env(db_url, instance, {
            "PBEM_BIND": f"127.0.0.1:{self.port}",
            "PBEM_PUSH_BIND": f"127.0.0.1:{self.push_port}", **(extra_env or {})})
        self.log = log
        self.procs = {}

    def start(self):
        upgrade(self.env)
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL
        try:
            for kind in ("web", "push"):
                cmd = procfile_command(kind)
                self.procs[kind] = subprocess.Popen(
                    cmd + (["--graceful-timeout", "2"] if is_gunicorn(cmd) else []), env=self.env,
                    cwd=ROOT, stdout=out, stderr=out, start_new_session=True)
            for kind, url in (("web", self.url), ("push", self.push_url)):
                _wait_healthy(self.procs[kind], url, 60)
        except BaseException:
            self.stop()
            raise
        return self

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def push_url(self):
        return f"http://127.0.0.1:{self.push_port}"

    def stop(self):
        for proc in self.procs.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(10)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def _wait_healthy(proc, url, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}")
        try:
            if requests.get(url + "/api/health", timeout=5).ok:
                return
        except requests.RequestException:
            time.sleep(0.1)
    raise RuntimeError(f"the server at {url} did not come up within {seconds} s")
