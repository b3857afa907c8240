"""What the push process does per move when nobody waits on its game (server/http/pushserver.py
``LoopHub``).  SQLite's watcher (``_read_loop``): a
busy server changes SQLite's data_version at every move, so between its full reads (every
``PBEM_PUSH_POLL`` seconds) the watcher reads only the heads of the games that moved, and
still wakes their waiters; what adds no move (a seat taken) waits for the next full read.

In process: the push server's loop runs in a thread on the test's SQLite file, the moves are
made through the Flask test client, and the long polls are real HTTP requests.  PostgreSQL's
notifications reach the loop in one call per burst (the last test).
"""

import http.client
import json
import threading
import time

import pytest

from server.http.pushserver import serve


@pytest.fixture
def push(app, request):
    """The push server on a free loopback port, its full reads every ``request.param``
    seconds: (its PushServer, its port, reads), where reads lists the games of every head
    read it made."""
    if not app.config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite"):
        pytest.skip("the watcher is SQLite's (PostgreSQL notifies)")
    app.config["PBEM_PUSH_POLL"] = request.param
    app.config["PBEM_PUSH_HOLD"] = None   # hold each poll as long as it asks
    app.config["PBEM_PUSH_WAITERS"] = 100
    box, ready = {}, threading.Event()

    def on_ready(server, srv, stop):
        reads = box["reads"] = []
        real = server.hub._read

        def spy(engine, games):
            reads.append(sorted(games))
            return real(engine, games)
        server.hub._read = spy
        box.update(server=server, port=srv.sockets[0].getsockname()[1], stop=stop,
                   loop=server.loop)
        ready.set()

    t = threading.Thread(target=serve, args=(app, "127.0.0.1", 0, on_ready), daemon=True)
    t.start()
    assert ready.wait(30), "the push server did not start"
    yield box["server"], box["port"], box["reads"]
    box["loop"].call_soon_threadsafe(box["stop"].set)
    t.join(10)


def _table(make_player, n):
    a, b = make_player(f"wa{n}"), make_player(f"wb{n}")
    game = a.post("/api/games", {"type": "pig", "seats": 2}).get_json()
    assert b.post(f"/api/games/{game['id']}/join", {}).status_code == 200
    info = a.get(f"/api/games/{game['id']}").get_json()
    by_seat = {s["seat"]: (a if s["player"] == a.name else b) for s in info["seats"]}
    return info, by_seat


def _poll(port, game_id, after, out, status=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    also = f"&status={status}" if status else ""
    try:
        conn.request("GET", f"/api/games/{game_id}/wait?after={after}&timeout=50{also}")
        resp = conn.getresponse()
        out[game_id] = (resp.status, json.loads(resp.read()))
    except OSError:
        pass  # the server stopped under a poll still held: the test's end
    finally:
        conn.close()


def _parked(server, count, seconds=20):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        waiters = [w for ws in list(server.hub.by_game.values()) for w in ws]
        if len(waiters) >= count and all(w.fut is not None for w in waiters):
            return
        time.sleep(0.02)
    raise AssertionError("the long polls did not park")


@pytest.mark.parametrize("push", [3600.0], indirect=True)  # no full read but the first
def test_between_full_reads_only_the_games_that_moved_are_read(app, make_player, push):
    server, port, reads = push
    tables = [_table(make_player, n) for n in range(6)]
    out = {}
    polls = [threading.Thread(target=_poll, args=(port, info["id"], info["seq"], out),
                              daemon=True) for info, _ in tables]
    for t in polls:
        t.start()
    _parked(server, len(tables))
    time.sleep(0.3)   # the watcher's first round (a full read) is behind us
    del reads[:]

    info, by_seat = tables[0]
    seat = info["to_act"][0]
    assert by_seat[seat].play(info["id"], seat, "roll").status_code == 201
    polls[0].join(20)
    assert not polls[0].is_alive(), "the waiter of the game that moved never woke"
    status, body = out[info["id"]]
    assert status == 200 and body["changed"] and body["seq"] == info["seq"] + 1
    assert reads, "the move was never read"
    assert all(games == [info["id"]] for games in reads), reads
    assert set(out) == {info["id"]}, "a game that did not move was answered"


@pytest.mark.parametrize("push", [0.3], indirect=True)
def test_a_seat_taken_wakes_its_waiters_at_the_next_full_read(app, make_player, push):
    """No move is stored when a seat is taken: the full read (every PBEM_PUSH_POLL) sees it;
    a poll that asks with the status it knows is answered when the game starts."""
    server, port, reads = push
    ann, bob = make_player("wann"), make_player("wbob")
    game = ann.post("/api/games", {"type": "pig", "seats": 2}).get_json()
    head = ann.get(f"/api/games/{game['id']}").get_json()
    out = {}
    t = threading.Thread(target=_poll, args=(port, game["id"], head["seq"], out, "open"),
                         daemon=True)
    t.start()
    _parked(server, 1)
    assert bob.post(f"/api/games/{game['id']}/join", {}).status_code == 200
    t.join(20)
    assert not t.is_alive(), "the seat taken never woke the waiter"
    status, body = out[game["id"]]
    assert status == 200 and body["changed"] and body["status"] == "playing"


def _renew(port, game_id, after, out, timeout):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("GET", f"/api/games/{game_id}/wait?after={after}&timeout={timeout}")
        resp = conn.getresponse()
        out.append((resp.status, json.loads(resp.read())))
    finally:
        conn.close()


def _settled_table(make_player, server, port, n):
    """A game with one long poll parked on it, after the watcher's first (full) read: its
    head is settled on the push server."""
    info, by_seat = _table(make_player, n)
    threading.Thread(target=_poll, args=(port, info["id"], info["seq"], {}),
                     daemon=True).start()
    _parked(server, 1)
    time.sleep(0.3)   # the watcher's first round (a full read) is behind us
    assert server.hub.settled_head(info["id"])["seq"] == info["seq"]
    return info, by_seat


@pytest.mark.parametrize("push", [3600.0], indirect=True)
def test_a_renewal_of_a_settled_head_reads_nothing(app, make_player, push):
    """The watcher read the head of a game waited on: a second long poll on it parks on that
    head without a read of its own, and its time out answers that head."""
    server, port, reads = push
    info, _ = _settled_table(make_player, server, port, 0)
    del reads[:]
    answers = []
    _renew(port, info["id"], info["seq"], answers, 0.5)
    assert answers == [(200, {**answers[0][1], "changed": False, "seq": info["seq"]})]
    assert reads == [], "a renewal of a settled head read it again"


@pytest.mark.parametrize("push", [3600.0], indirect=True)
@pytest.mark.parametrize("knows_the_move", [False, True])
def test_a_renewal_that_the_settled_head_misleads_is_still_answered(
        app, make_player, push, knows_the_move):
    """The hostile timing: a move is committed and a long poll renewed before the watcher
    read the move, so the settled head it parks on is one move behind.  It parks (joined
    before it read), the watcher's read wakes it, and it answers what is true: the move as
    news to a client that did not know it; to a client that knew it (its own move's answer),
    nothing new at its time out, with the head after the move, never the older one."""
    server, port, reads = push
    info, by_seat = _settled_table(make_player, server, port, 1)
    hold, real = threading.Event(), server.hub._moved_since
    server.hub._moved_since = lambda engine, mark: hold.wait(30) and real(engine, mark)
    seat = info["to_act"][0]
    assert by_seat[seat].play(info["id"], seat, "roll").status_code == 201
    assert server.hub.settled_head(info["id"])["seq"] == info["seq"]   # one move behind
    answers = []
    after = info["seq"] + 1 if knows_the_move else info["seq"]
    renewal = threading.Thread(target=_renew, args=(port, info["id"], after, answers,
                                                    2 if knows_the_move else 30))
    renewal.start()
    _parked(server, 2)
    hold.set()   # the watcher reads the move now
    renewal.join(20)
    assert not renewal.is_alive(), "the renewal parked on a stale head never woke"
    [(status, body)] = answers
    assert status == 200 and body["seq"] == info["seq"] + 1
    assert body["changed"] is (not knows_the_move)


def test_the_listeners_wake_ups_reach_the_loop_in_one_call_while_it_is_busy(app):
    """PostgreSQL's LISTEN thread wakes games one notification at a time: while the loop has
    not run the first, the next ones join it, so a busy loop takes one turn for a burst of
    moves, and each game notified is woken once."""
    import asyncio

    from server.http.pushserver import LoopHub
    loop = asyncio.new_event_loop()
    try:
        hub = LoopHub(app, loop)
        posted, woken = [], []
        real_post = loop.call_soon_threadsafe
        loop.call_soon_threadsafe = lambda *a: posted.append(a) or real_post(*a)
        hub._wake = woken.append
        games = [f"g{i}" for i in range(30)]
        for game_id in games + games[:5]:   # the loop does not run meanwhile: it is busy
            hub.wake(game_id)
        assert len(posted) == 1
        loop.run_until_complete(asyncio.sleep(0))
        assert woken == games
        hub.wake("later")                  # after the loop's turn: a call of its own
        loop.run_until_complete(asyncio.sleep(0))
        assert len(posted) == 2 and woken[-1] == "later"
    finally:
        loop.close()
