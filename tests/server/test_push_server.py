"""The push process (``pbem-server push``, server/http/pushserver.py) answers what the Flask
handlers answer, byte for byte where a client can see it, wakes on moves committed by another
process, and holds up against hostile clients.

Each contract test sends the same raw requests to the Flask handlers (a gunicorn of the app,
its waiters allowed) and to the push process, both on the test's database (SQLite, or
PostgreSQL with PBEM_TEST_DATABASE_URL), and compares status, body and the headers a client
reads.  The moves are made in this process (the fake clock), so the push process learns of
them as in production: SQLite's data_version, or PostgreSQL's notifications.
"""

import http.client
import resource
import select
import selectors
import socket
import threading
import time

import pytest

from tests.helpers.api import move_first, pig_table
from tests.liveserver import LiveServer

pytestmark = pytest.mark.e2e


pig, move = pig_table, move_first

SEEN_HEADERS = ("Content-Type", "Cache-Control", "X-Accel-Buffering", "Retry-After", "Allow",
                "Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options",
                "Referrer-Policy")


def _url(app):
    return app.config["SQLALCHEMY_DATABASE_URI"].replace("postgresql+psycopg://",
                                                         "postgresql://")


def _env(**extra):
    return {"PBEM_NOTIFY_INTERVAL": "0", "PBEM_BOT_INTERVAL": "0", "PBEM_PUSH_HOLD": "0.5",
            **extra}


@pytest.fixture
def servers(app, tmp_path):
    """(flask, push): a gunicorn of the app whose workers may hold waiters, and the push
    process, on the app's database."""
    env = _env(PBEM_PUSH_WAITERS="40")
    flask = LiveServer(_url(app), tmp_path / "flask", workers=1, threads=8, extra_env=env)
    pushed = LiveServer(_url(app), tmp_path / "push", kind="procfile-push", extra_env=env)
    try:
        flask.start()
        pushed.start()
        yield flask, pushed
    finally:
        pushed.stop()
        flask.stop()


def ask(server, target, headers=None, method="GET"):
    """(status, body bytes, {header: value}) of one request on a connection of its own."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        conn.putrequest(method, target, skip_accept_encoding=True)
        for name, value in (headers or {}).items():
            conn.putheader(name, value)
        conn.endheaders()
        r = conn.getresponse()
        body = r.read()
        seen = {h: r.getheader(h) for h in SEEN_HEADERS if r.getheader(h)}
        if "Allow" in seen:  # a set of methods: werkzeug's order is the set's
            seen["Allow"] = ", ".join(sorted(seen["Allow"].split(", ")))
        return r.status, body, seen
    finally:
        conn.close()


def same(servers, target, headers=None, method="GET"):
    flask, pushed = servers
    want = ask(flask, target, headers, method)
    got = ask(pushed, target, headers, method)
    assert got == want, (target, headers)
    return got


BAD_WAITS = ["", "?after=", "?after=x", "?after=-2", "?after=2147483648", "?after=1.5",
             "?after=1&timeout=61", "?after=1&timeout=-1", "?after=1&timeout=nan",
             "?after=1&timeout=x", "?after=1&status=bogus", "?after=1&status=",
             # other alphabets: digits that are not ASCII, letters, a NUL, broken UTF-8
             "?after=%D9%A3", "?after=%EF%BC%91", "?after=%E4%B8%89", "?after=1&status=%C3%B6pen",
             "?after=1&status=%D0%BE%D0%BF%D0%B5%D0%BD", "?after=1&timeout=%E2%88%9E",
             "?after=%00", "?after=1&status=open%00", "?after=%FF%FE", "?%E6%97%A5=1",
             "?after=1&after=x", "?after=1&bogus=1",
             # what the push process's own reading of a plain query leaves to the schema
             "?after=1&after=2", "?after=01", "?after=1&timeout=1e1", "?after=1;timeout=2",
             "?after=1&timeout=25.", "?after=1&timeout=inf", "?after=%31&timeout=0",
             "?after=1&timeout=0&timeout=9", "?after=+1&timeout=0", "?after=1&&timeout=0"]
BAD_EVENTS = ["?timeout=0", "?timeout=601", "?timeout=x", "?timeout=-5", "?timeout=%D9%A3",
              "?timeout=%00", "?timeout=1&x=%FF"]
# numbers in other scripts' digits (int() reads them; the API does not)
FOREIGN = {"?after=%D9%A3", "?after=%EF%BC%91", "?timeout=%D9%A3"}
UNKNOWN = ["nosuchgame", "x" * 17, "%27%3B--", "%E6%97%A5%E6%9C%AC",
           "%D8%B9%D8%B1%D8%A8%D9%8A", "%FF%FE", "a%00b", "%F0%9F%8E%B2"]


def test_the_push_process_answers_what_the_flask_handlers_answer(app, make_player, servers):
    info, by_seat = pig(make_player)
    move(info, by_seat)
    game = info["id"]
    seq = info["seq"] + 1
    # answered at once: news, a status that changed, a timeout of 0
    for query in (f"?after={seq}&timeout=0", "?after=-1", f"?after={seq}&status=open",
                  f"?after={seq}&status=playing&timeout=0", f"?after={seq - 1}&timeout=5"):
        status, body, headers = same(servers, f"/api/games/{game}/wait{query}")
        assert status == 200 and b'"game"' in body
    # a long poll that times out (the servers' hold: 0.5 s)
    status, body, _ = same(servers, f"/api/games/{game}/wait?after={seq}&timeout=30")
    assert status == 200 and b'"changed":false' in body
    for i, query in enumerate(BAD_WAITS):
        status, body, _ = same(servers, f"/api/games/{game}/wait{query}")
        # a number is read only in ASCII digits, by both: "٣" and "１" are 400s too
        assert status == 400 or (i >= 12 and status == 200 and query not in FOREIGN), query
    for i, query in enumerate(BAD_EVENTS):
        status, _, _ = same(servers, f"/api/games/{game}/events{query}")
        assert status == 400 or (i >= 4 and status == 200 and query not in FOREIGN), query
    for unknown in UNKNOWN:
        for path in (f"/api/games/{unknown}/wait?after=0&timeout=0",
                     f"/api/games/{unknown}/events?timeout=1"):
            status, _, _ = same(servers, path)
            assert status in (400, 404), path
    for method in ("POST", "PUT", "DELETE"):
        status, _, headers = same(servers, f"/api/games/{game}/wait?after=0", method=method)
        assert status == 405 and headers["Allow"]


def test_the_event_streams_are_the_same_text(app, make_player, servers):
    info, by_seat = pig(make_player)
    move(info, by_seat)
    game = info["id"]
    now = ask(servers[0], f"/api/games/{game}/wait?after=-1")[1]
    import json
    head = json.loads(now)
    mark = f"{head['seq']}.{head['status']}.{head['seats_taken']}"
    for last in (None, mark, "garbage", "1.bogus.2", f"{head['seq']}.open.2", "x" * 3000,
                 "99999999999999999999999.playing.2", "\u00e9t\u00e9"):
        headers = {"Last-Event-ID": last} if last is not None else None
        status, body, seen = same(servers, f"/api/games/{game}/events?timeout=1", headers)
        assert status == 200 and seen["Cache-Control"] == "no-cache"
        assert seen["X-Accel-Buffering"] == "no"
        assert body.startswith(b"retry: 2000\n") and body.endswith(b"event: end\ndata: {}\n\n")
        assert (b"event: head" in body) == (last != mark), last


def test_both_refuse_a_full_address_with_503_and_retry_after(app, make_player, tmp_path):
    """One address holds its share (PBEM_PUSH_PER_ADDRESS) of long polls: the next is a 503."""
    env = _env(PBEM_PUSH_WAITERS="40", PBEM_PUSH_PER_ADDRESS="1", PBEM_PUSH_HOLD="30")
    info, _ = pig(make_player)
    answers = []
    for kind, extra in (("gunicorn", {"workers": 1, "threads": 8}), ("procfile-push", {})):
        with LiveServer(_url(app), tmp_path / kind, kind=kind, extra_env=env, **extra) as s:
            wait = f"/api/games/{info['id']}/wait?after={info['seq']}"

            def hold():
                conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=30)
                conn.request("GET", wait + "&timeout=20")
                return conn
            held = hold()
            for _ in range(300):  # until the first long poll is counted
                # a probe that got the address's slot first holds it only a second
                answer = ask(s, wait + "&timeout=1")
                if answer[0] == 503:
                    break
                if select.select([held.sock], [], [], 0)[0]:  # the held one was answered
                    held.close()
                    held = hold()
                time.sleep(0.05)
            answers.append(answer)
            held.close()
    assert answers[0] == answers[1]
    assert answers[0][0] == 503 and answers[0][2]["Retry-After"] == "5"


def test_a_long_poll_wakes_on_a_move_made_by_another_process(app, make_player, tmp_path):
    """The move commits in this process: only SQLite's data_version, or PostgreSQL's
    notification, tells the push process."""
    info, by_seat = pig(make_player)
    with LiveServer(_url(app), tmp_path / "push", kind="procfile-push",
                    extra_env=_env(PBEM_PUSH_HOLD="")) as s:
        out = {}

        def poll():
            out["answer"] = ask(s, f"/api/games/{info['id']}/wait?after={info['seq']}"
                                   "&timeout=50")
        t = threading.Thread(target=poll, daemon=True)
        t.start()
        time.sleep(0.5)  # parked (an answer that beats the move is still the move's)
        move(info, by_seat)
        t.join(60)
        assert not t.is_alive(), "the long poll never answered"
    status, body, _ = out["answer"]
    assert status == 200 and b'"changed":true' in body
    assert f'"seq":{info["seq"] + 1}'.encode() in body


def test_a_stream_sends_each_move_made_by_another_process(app, make_player, tmp_path):
    info, by_seat = pig(make_player)
    with LiveServer(_url(app), tmp_path / "push", kind="procfile-push",
                    extra_env=_env(PBEM_PUSH_HOLD="")) as s:
        conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=60)
        conn.request("GET", f"/api/games/{info['id']}/events?timeout=600")
        r = conn.getresponse()
        assert r.status == 200
        text = b""
        while text.count(b"event: head") < 1:
            text += r.read1(4096)
        move(info, by_seat)
        while text.count(b"event: head") < 2:
            text += r.read1(4096)
        conn.close()
    assert f'"seq":{info["seq"] + 1}'.encode() in text


def test_other_requests_are_sent_to_the_web_process(app, tmp_path):
    with LiveServer(_url(app), tmp_path / "push", kind="procfile-push", extra_env=_env()) as s:
        for method, path in (("GET", "/api/players"), ("POST", "/api/games"), ("GET", "/"),
                             ("GET", "/api/games/x/wait/more"),
                             ("GET", "/api/games/..%2F..%2Fetc/wait?after=0")):
            status, body, headers = ask(s, path, method=method)
            assert status == 421 and b'"misdirected"' in body and b"web process" in body
            assert headers["Content-Type"] == "application/json"
        assert ask(s, "/api/health")[:2] == (200, b'{"status":"ok"}\n')


# --- hostile clients ---------------------------------------------------------------------------

def _read_all(sock, limit=1 << 20):
    data = b""
    while len(data) < limit:
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, socket.timeout):
            break
        if not chunk:
            break
        data += chunk
    return data


def test_hostile_clients_are_refused_and_honest_ones_still_served(app, make_player, tmp_path):
    info, _ = pig(make_player)
    env = _env(PBEM_PUSH_HEADER_TIMEOUT="1", PBEM_PUSH_WAITERS="20")
    with LiveServer(_url(app), tmp_path / "push", kind="procfile-push", extra_env=env) as s:
        # slowloris: headers that never end are a 408, and the connection is closed
        slow = []
        for _ in range(50):
            c = socket.create_connection(("127.0.0.1", s.port), timeout=20)
            c.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            slow.append(c)
        assert ask(s, "/api/health")[0] == 200
        for c in slow:
            answer = _read_all(c)
            assert answer.startswith(b"HTTP/1.1 408 ") and b'"request_timeout"' in answer
            c.close()
        # huge headers: 431
        with socket.create_connection(("127.0.0.1", s.port), timeout=20) as c:
            c.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 40000
                      + b"\r\n\r\n")
            answer = _read_all(c)
        assert answer.startswith(b"HTTP/1.1 431 ") and b'"headers_too_large"' in answer
        # not HTTP at all: 400
        with socket.create_connection(("127.0.0.1", s.port), timeout=20) as c:
            c.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n")
            answer = _read_all(c)
        assert answer.startswith(b"HTTP/1.1 400 ")
        # a stream with a Last-Event-ID of bytes that are not text still starts
        with socket.create_connection(("127.0.0.1", s.port), timeout=20) as c:
            c.sendall(f"GET /api/games/{info['id']}/events?timeout=1 HTTP/1.1\r\nHost: x\r\n"
                      "Connection: close\r\nLast-Event-ID: ".encode() + b"\xff\xfe.open.\xe9"
                      + b"\r\n\r\n")
            answer = _read_all(c)
        assert answer.startswith(b"HTTP/1.1 200 ") and b"event: head" in answer
        assert ask(s, "/api/health")[0] == 200


def test_ten_thousand_connections_are_refused_cleanly_past_the_limit(app, tmp_path):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 10000 + 500
    if hard != resource.RLIM_INFINITY and hard < want:
        pytest.skip(f"the open-file limit ({hard}) is under {want}")
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    env = _env(PBEM_PUSH_WAITERS="20", PBEM_PUSH_HEADER_TIMEOUT="60")
    socks = []
    try:
        with LiveServer(_url(app), tmp_path / "push", kind="procfile-push",
                        extra_env=env) as s:
            sel = selectors.DefaultSelector()
            refused, held = 0, 0
            for _ in range(10000):
                c = socket.socket()
                c.setblocking(False)
                c.connect_ex(("127.0.0.1", s.port))
                socks.append(c)
                sel.register(c, selectors.EVENT_READ)
            deadline = time.monotonic() + 120
            data = {}
            while time.monotonic() < deadline and len(data) < 10000 - 120:
                for key, _ in sel.select(timeout=1):
                    try:
                        chunk = key.fileobj.recv(4096)
                    except (BlockingIOError, ConnectionResetError):
                        chunk = b""
                    data[key.fileobj] = data.get(key.fileobj, b"") + chunk
                    if not chunk:
                        sel.unregister(key.fileobj)
            refused = sum(1 for d in data.values() if d.startswith(b"HTTP/1.1 503 "))
            held = 10000 - len(data)
            assert refused >= 10000 - 120 - 50, (refused, held)
            assert all(b'"busy"' in d for d in data.values() if d)
            for c in socks:  # the connections it held go, and it answers again
                c.close()
            for _ in range(100):
                if ask(s, "/api/health")[0] == 200:
                    break
                time.sleep(0.1)
            assert ask(s, "/api/health")[0] == 200
    finally:
        for c in socks:
            c.close()
