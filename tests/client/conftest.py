"""Fixtures for the CLI: a real ``pbem-server`` process and helpers that drive ``pbem``."""

import json
import os
import socket
import subprocess
import time
from itertools import count
from pathlib import Path

import pytest
import requests
from click.testing import CliRunner

from client.cli import cli

ROOT = Path(__file__).resolve().parents[2]
_names = count(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def child_env(**extra):
    env = dict(os.environ)
    env.update({"PBEM_EXTRA_GAMES": "tests.fixtures.pig:GAME", "PBEM_RATELIMIT": "off",
                "PYTHONPATH": str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""),
                "NO_COLOR": "1"})
    env.pop("PBEM_HOME", None)
    env.pop("PBEM_SERVER", None)
    env.update(extra)
    return env


class Server:
    """A ``pbem-server run`` process on a free loopback port with its own database."""

    def __init__(self, tmp, **extra_env):
        self.tmp = Path(tmp)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = open(self.tmp / "server.log", "ab")
        env = child_env(PBEM_DATABASE_URL=f"sqlite:///{self.tmp}/pbem.sqlite",
                        PBEM_INSTANCE_PATH=str(self.tmp / "instance"), **extra_env)
        self.proc = subprocess.Popen(["pbem-server", "run", "--host", "127.0.0.1", "--port",
                                      str(self.port)], env=env, cwd=ROOT, stdout=self.log,
                                     stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120  # a shared, loaded machine starts slowly
        while True:
            try:
                if requests.get(self.url + "/api/health", timeout=1).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("pbem-server did not start:\n" +
                                   (self.tmp / "server.log").read_text(errors="replace"))
            time.sleep(0.1)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """One ``pbem-server`` for the whole run: each test isolates itself by fresh player names
    (``make_player``) and its own games, so a start-up (seconds on a busy machine) is paid once
    rather than once per module. A module that needs other settings defines its own."""
    srv = Server(tmp_path_factory.mktemp("server"))
    try:
        yield srv
    finally:
        srv.stop()


class Player:
    """One person at a terminal: a home directory and the ``pbem`` command."""

    def __init__(self, server_url, home, name):
        self.server = server_url
        self.home = Path(home)
        self.name = name

    def env(self):
        return {"PBEM_SERVER": self.server, "PBEM_HOME": str(self.home), "NO_COLOR": "1"}

    def run(self, *args, ok=True, obj=None, input=None):
        """Run ``pbem ARGS`` in-process (click's runner); ``ok``: assert exit code 0;
        ``input``: what the player types (a confirmation)."""
        result = CliRunner().invoke(cli, [str(a) for a in args], env=self.env(), obj=obj,
                                    catch_exceptions=False, input=input)
        if ok is True:
            assert result.exit_code == 0, (args, result.stdout, result.stderr)
        elif ok is not None and ok is not False:
            assert result.exit_code == ok, (args, result.stdout, result.stderr)
        return result

    def json(self, *args, **kw):
        return json.loads(self.run("--json", *args, **kw).stdout)

    def proc(self, *args, **kw):
        """Run the real console script ``pbem ARGS`` as a process."""
        env = child_env(**self.env())
        return subprocess.run(["pbem", *map(str, args)], env=env, cwd=ROOT, text=True,
                              capture_output=True, timeout=60, **kw)

    def popen(self, *args):
        env = child_env(**self.env())
        return subprocess.Popen(["pbem", *map(str, args)], env=env, cwd=ROOT, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.fixture
def make_player(server, tmp_path):
    """A registered player with a fresh home (unique name per test run)."""
    def make(prefix, register=True, **kw):
        name = f"{prefix}{next(_names)}{os.getpid() % 1000}"
        p = Player(server.url, tmp_path / name, name)
        if register:
            p.run("register", name, *sum((["--" + k, v] for k, v in kw.items()), []))
        return p
    return make
