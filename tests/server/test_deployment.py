"""the Procfile's deployment, as written there: a ``web`` process (gthread workers, the
moves and every ordinary request, gunicorn_conf.py) and a ``push`` process (``pbem-server
push``: asyncio, the long polls and streams), on one database.

* a move made on the web process wakes a long poll held by the push process (another process:
  PostgreSQL's NOTIFY, or SQLite's watcher);
* the web process holds no waiter: a long poll that lands there is answered at once when it
  has news (or asks for no wait), else refused with 503, Retry-After and the push URL;
* ``pbem wait`` against the web URL follows that push URL;
* behind the documented nginx front (deploy/nginx.conf, the file itself), one URL serves both:
  the long poll and the stream reach the push process, the move the web process.
"""

import json
import os
import re
import shutil
import subprocess
import threading
import time

import pytest
import requests

from tests.client.conftest import Player
from tests.conftest import database_url
from tests.liveserver import ROOT, ProcfileDeployment, free_port, nginx_config

# end-to-end: starts real server processes (left out of the default run)
pytestmark = pytest.mark.e2e

NGINX = shutil.which("nginx") or next(
    (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.path.exists(p)), None)


@pytest.fixture(scope="module")
def deployment(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("deployment")
    url, cleanup = database_url(tmp)
    # PBEM_PUSH_URL: what the web process names in its 503 for a long poll
    deploy = ProcfileDeployment(url, tmp / "instance", log=tmp / "server.log")
    deploy.env["PBEM_PUSH_URL"] = deploy.push_url
    try:
        deploy.start()
    except BaseException:
        cleanup()
        raise
    try:
        yield deploy
    finally:
        deploy.stop()
        cleanup()


_names = iter(range(1, 10_000))


def _game(deployment, tmp_path, url=None):
    """A started Pig game between two CLI players of ``url`` (default: the web process);
    returns (game, mover, waiter, head) where the mover owes the next move."""
    players = []
    for prefix in ("ann", "bob"):
        name = f"{prefix}{next(_names)}d{os.getpid() % 1000}"
        p = Player(url or deployment.url, tmp_path / name, name)
        p.run("register", name)
        players.append(p)
    game = players[0].run("new", "pig", "--seats", 2, "--option", "target=100").stdout.strip()
    players[1].run("join", game)
    head = requests.get(f"{deployment.url}/api/games/{game}", timeout=10).json()
    mover = players[0] if "north" in head["to_act"] else players[1]
    waiter = players[1] if mover is players[0] else players[0]
    return game, mover, waiter, head


def _long_poll(base, game, after, out, timeout=60):
    def run():
        r = requests.get(f"{base}/api/games/{game}/wait",
                         params={"after": after, "timeout": timeout}, timeout=timeout + 30)
        out["status"], out["body"] = r.status_code, r.json()
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def test_the_procfile_names_both_process_types_with_their_settings_files():
    lines = dict(line.split(":", 1) for line in (ROOT / "Procfile").read_text().splitlines()
                 if line.strip())
    assert lines["web"].split() == ["gunicorn", "-c", "gunicorn_conf.py", "wsgi:app"]
    assert lines["push"].split() == ["pbem-server", "push"]
    # the two processes without HTTP: notices and deadlines, and the bots' seats
    assert lines["notify"].split() == ["pbem-server", "notify"]
    assert lines["bots"].split() == ["pbem-server", "bots"]
    from server.cli import main as server_cli
    assert {"notify", "bots", "push"} <= set(server_cli.commands)
    import runpy

    from server.http.pushserver import bind_address
    web = runpy.run_path(str(ROOT / "gunicorn_conf.py"))
    assert web["worker_class"] == "gthread"
    host, port = bind_address()
    assert web["bind"] != f"{host}:{port}"


def test_a_move_on_the_web_process_wakes_a_long_poll_held_by_the_push_process(deployment,
                                                                              tmp_path):
    game, mover, _, head = _game(deployment, tmp_path)
    out = {}
    t = _long_poll(deployment.push_url, game, head["seq"], out)
    time.sleep(0.5)  # registered by now (if not, it reads the moved head: same answer)
    mover.run("play", game, "hold")
    t.join(90)
    assert not t.is_alive()
    # a 60 s long poll that answered "changed" with the new seq: woken by the move
    assert out["status"] == 200, out
    assert out["body"]["changed"] is True
    assert out["body"]["seq"] == head["seq"] + 1


def test_the_web_process_answers_a_long_poll_at_once_and_never_holds_it(deployment, tmp_path):
    game, mover, waiter, _ = _game(deployment, tmp_path)
    mover.run("play", game, "hold")
    head = requests.get(f"{deployment.url}/api/games/{game}", timeout=10).json()
    wait = f"{deployment.url}/api/games/{game}/wait"
    # news already: answered at once, as the push process would
    r = requests.get(wait, params={"after": head["seq"] - 1}, timeout=30)
    assert r.status_code == 200 and r.json()["changed"] is True
    r = requests.get(wait, params={"after": head["seq"], "status": "open"}, timeout=30)
    assert r.status_code == 200 and r.json()["changed"] is True
    # a short poll (timeout 0): the head as it is
    r = requests.get(wait, params={"after": head["seq"], "timeout": 0}, timeout=30)
    assert r.status_code == 200 and r.json()["changed"] is False
    # no news and a wait asked for: 503 + Retry-After + where to ask, not a held thread (held,
    # it would answer 200 after the 30 s asked for)
    r = requests.get(wait, params={"after": head["seq"], "timeout": 30}, timeout=20)
    assert r.status_code == 503, r.text
    assert r.headers["Retry-After"] == "5"
    err = r.json()["error"]
    assert err["code"] == "busy"
    assert err["details"]["push_url"] == deployment.push_url
    assert deployment.push_url in err["message"]
    # a stream too
    r = requests.get(f"{deployment.url}/api/games/{game}/events", timeout=20)
    assert r.status_code == 503 and r.json()["error"]["details"]["push_url"]
    # bad input is still a 400 there, an unknown game a 404
    assert requests.get(wait, params={"after": "x"}, timeout=20).status_code == 400
    assert requests.get(f"{deployment.url}/api/games/nosuchgame/wait",
                        params={"after": 0}, timeout=20).status_code == 404
    # and moves go on meanwhile
    waiter.run("play", game, "hold")


class Recording(requests.Session):
    def __init__(self):
        super().__init__()
        self.urls = []

    def request(self, method, url, *a, **kw):
        self.urls.append(url.split("?")[0])
        return super().request(method, url, *a, **kw)


def test_pbem_wait_on_the_web_url_follows_the_announced_push_url(deployment, tmp_path):
    game, mover, waiter, _ = _game(deployment, tmp_path)
    session = Recording()
    out = {}
    # polling every hour would never see the move within the test: only push can
    t = threading.Thread(target=lambda: out.update(result=waiter.run(
        "wait", game, "--interval", 3600, "--timeout", 120, ok=None,
        obj={"session": session})), daemon=True)
    t.start()
    wait_path = f"/api/games/{game}/wait"
    for _ in range(600):
        if deployment.push_url + wait_path in session.urls:
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"pbem wait never asked the push process: {session.urls}")
    time.sleep(0.3)
    mover.run("play", game, "hold")
    t.join(120)
    assert not t.is_alive()
    result = out["result"]
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(f"your move in game {game}")
    assert result.stderr.strip() == ""
    waits = [u for u in session.urls if u.endswith(wait_path)]
    # asked the web process once, then the push process (and stayed there)
    assert waits[0] == deployment.url + wait_path
    assert waits[1:] and all(u == deployment.push_url + wait_path for u in waits[1:])


@pytest.mark.skipif(NGINX is None, reason="needs nginx (Debian: apt-get install nginx-light)")
def test_behind_the_documented_nginx_front_one_url_serves_moves_and_waiters(deployment,
                                                                             tmp_path):
    port = free_port()
    main = nginx_config(tmp_path, deployment.port, deployment.push_port, port)
    proxy = subprocess.Popen([NGINX, "-c", str(main), "-p", str(tmp_path)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             start_new_session=True)
    front = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                requests.get(front + "/api/health", timeout=2)
                break
            except requests.RequestException:
                if proxy.poll() is not None:
                    pytest.fail("nginx exited: " + proxy.stderr.read().decode())
                time.sleep(0.1)
        game, mover, _, head = _game(deployment, tmp_path, url=front)
        # a long poll through the front is held (the web process would refuse it: 503)
        out = {}
        t = _long_poll(front, game, head["seq"], out)
        time.sleep(0.5)
        mover.run("play", game, "hold")  # through the front, to the web process
        t.join(90)
        assert not t.is_alive()
        assert out["status"] == 200, out
        assert out["body"]["changed"] is True and out["body"]["seq"] == head["seq"] + 1
        # the stream too: its first event comes through unbuffered
        with requests.get(f"{front}/api/games/{game}/events", params={"timeout": 5},
                          stream=True, timeout=30) as r:
            assert r.status_code == 200
            assert r.headers["Content-Type"].startswith("text/event-stream")
            lines = []
            for line in r.iter_lines(decode_unicode=True):
                lines.append(line)
                if line.startswith("data: "):
                    break
            assert json.loads(lines[-1][len("data: "):])["seq"] == head["seq"] + 1
        # and every other path is the web process's (a page, a game's JSON)
        assert requests.get(f"{front}/api/games/{game}", timeout=10).json()["seq"] \
            == head["seq"] + 1
        assert requests.get(f"{front}/g/{game}", timeout=10).status_code == 200
    finally:
        proxy.terminate()
        proxy.wait(10)


def test_the_waiters_a_process_holds_follow_its_role():
    """The web role holds none (unless PBEM_PUSH_WAITERS says so); the push role on gevent
    its connections less 100; a server started without the settings files (tests'
    ``gunicorn --threads 4 wsgi:app``) 2 a worker."""
    from server.workers.push import waiter_limit
    assert waiter_limit({"PBEM_GUNICORN": {"role": "web", "worker": "gthread",
                                           "threads": "4"}}) == 0
    assert waiter_limit({"PBEM_GUNICORN": {"role": "push", "worker": "gevent",
                                           "connections": "1000"}}) == 900
    assert waiter_limit({"PBEM_PUSH_WAITERS": "7",
                         "PBEM_GUNICORN": {"role": "web", "worker": "gthread"}}) == 7
    assert waiter_limit({"PBEM_GUNICORN": {"worker": "gthread", "threads": "4"}}) == 2


def test_a_push_worker_on_postgresql_queues_for_a_fixed_pool(monkeypatch):
    """bench/ANALYSIS.md: 500 waiters whose timeouts came due together opened and closed an
    overflow connection each on the push process; there they queue for a fixed pool."""
    from server import create_app
    from server.db import db
    url = "postgresql://nobody@127.0.0.1:1/none"  # never connected to here
    monkeypatch.setenv("PBEM_GUNICORN_ROLE", "push")
    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        assert (db.engine.pool.size(), db.engine.pool._max_overflow) == (10, 0)
    monkeypatch.setenv("PBEM_PUSH_POOL", "3")
    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        assert db.engine.pool.size() == 3
    monkeypatch.setenv("PBEM_GUNICORN_ROLE", "web")
    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        assert (db.engine.pool.size(), db.engine.pool._max_overflow) == (5, 10)


@pytest.mark.parametrize("web, push", [(50013, 33107), (33107, 50009), (5001, 5000)])
def test_the_test_nginx_site_takes_any_pair_of_free_ports(tmp_path, web, push):
    """The tests behind nginx failed when the free web port began with 5001: replacing the
    site's 5000 and then its 5001 rewrote it too ("invalid port in upstream 331073")."""
    text = nginx_config(tmp_path, web, push, 40000).read_text()
    ports = re.findall(r"127\.0\.0\.1:(\d+)", text)
    assert set(ports) == {str(web), str(push), "40000"}, ports
