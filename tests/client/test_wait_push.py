"""``pbem wait`` learns of a move from the server's long poll, and polls a server without it."""

import json
import threading

import requests

from tests.helpers.cli import start, to_act


class Recording(requests.Session):
    """A real session that notes each path it asks for; ``old``: answer /wait like a server
    from before push (404 with the API's JSON error for an unknown path)."""

    def __init__(self, old=False):
        super().__init__()
        self.paths, self.old = [], old
        self.waiting = threading.Event()

    def request(self, method, url, *a, **kw):
        path = url.split("//", 1)[1].split("/", 1)[1].split("?")[0]
        self.paths.append(path)
        if path.endswith("/wait"):
            self.waiting.set()
            if self.old:
                resp = requests.Response()
                resp.status_code, resp.reason, resp.url = 404, "NOT FOUND", url
                resp._content = b'{"error": {"code": "not_found", "message": "Not Found", ' \
                                b'"details": {}}}'
                resp.headers["Content-Type"] = "application/json"
                return resp
        return super().request(method, url, *a, **kw)


def _wait_in_thread(player, game, session, *args):
    out = {}
    t = threading.Thread(target=lambda: out.update(result=player.run(
        "wait", game, *args, ok=None, obj={"session": session})), daemon=True)
    t.start()
    return t, out


def _mover_and_waiter(players, game):
    mover_seat = to_act(players[0], game)[0]
    mover = players[0] if mover_seat == "north" else players[1]
    return mover, players[1] if mover is players[0] else players[0]


def test_pbem_wait_returns_on_a_move_told_by_the_server(make_player):
    game, players = start(make_player)
    mover, waiter = _mover_and_waiter(players, game)
    session = Recording()
    # polling every hour would never see the move within the test: only push can
    t, out = _wait_in_thread(waiter, game, session, "--interval", 3600, "--timeout", 120)
    assert session.waiting.wait(60), "pbem wait never asked the server to wait"
    mover.run("play", game, "hold")
    t.join(120)
    assert not t.is_alive()
    result = out["result"]
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(f"your move in game {game}")
    assert any(p.endswith(f"/games/{game}/wait") for p in session.paths)


def test_pbem_wait_polls_a_server_without_push(make_player):
    game, players = start(make_player)
    mover, waiter = _mover_and_waiter(players, game)
    session = Recording(old=True)
    t, out = _wait_in_thread(waiter, game, session, "--interval", 0.05, "--timeout", 120)
    assert session.waiting.wait(60)
    mover.run("play", game, "hold")
    t.join(120)
    assert not t.is_alive()
    result = out["result"]
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(f"your move in game {game}")
    waits = [p for p in session.paths if p.endswith("/wait")]
    assert len(waits) == 1  # asked once, then polled the game
    assert sum(p == f"api/games/{game}" for p in session.paths) >= 2  # then polled
    assert "Traceback" not in result.stderr and result.stderr.strip() == ""


class PointsAway(requests.Session):
    """The server's /wait refuses like a web process whose push process is elsewhere (503,
    details.push_url), and names an address where nothing answers."""

    def __init__(self, dead_url):
        super().__init__()
        self.dead_url, self.urls = dead_url, []
        self.waiting = threading.Event()

    def request(self, method, url, *a, **kw):
        self.urls.append(url.split("?")[0])
        if url.startswith(self.dead_url):
            self.waiting.set()
        elif url.split("?")[0].endswith("/wait"):
            resp = requests.Response()
            resp.status_code, resp.reason, resp.url = 503, "SERVICE UNAVAILABLE", url
            resp._content = json.dumps({"error": {
                "code": "busy", "message": "this process does not hold waiting clients",
                "details": {"retry_after": 5, "push_url": self.dead_url}}}).encode()
            resp.headers["Content-Type"] = "application/json"
            resp.headers["Retry-After"] = "5"
            return resp
        return super().request(method, url, *a, **kw)


def test_pbem_wait_polls_when_the_announced_push_url_does_not_answer(make_player):
    from tests.client.conftest import free_port
    game, players = start(make_player)
    mover, waiter = _mover_and_waiter(players, game)
    dead = f"http://127.0.0.1:{free_port()}"
    session = PointsAway(dead)
    t, out = _wait_in_thread(waiter, game, session, "--interval", 0.05, "--timeout", 120)
    assert session.waiting.wait(60), "pbem wait never followed the announced push URL"
    mover.run("play", game, "hold")
    t.join(120)
    assert not t.is_alive()
    result = out["result"]
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(f"your move in game {game}")
    assert "Traceback" not in result.stderr and result.stderr.strip() == ""
    assert sum(u.endswith(f"api/games/{game}") for u in session.urls) >= 1  # polled
