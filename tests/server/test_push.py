"""Push: a waiter wakes on a move, in-process and across processes; a timeout answers the
unchanged head; bad parameters are refused; the stream carries only the public head.

No timing assertions: a test waits for the server's own count of waiters before it moves, and
tells a wake-up from a timeout by what the waiter's sleep returned (every wait in these tests
is far longer than the test).
"""

import json
import threading
import time

import pytest

from server.workers import push
from tests.helpers.api import move_first, pig_table

LONG = 50  # seconds a test's waiter may sleep: never reached when the wake-up works


@pytest.fixture
def hub(app):
    app.config["PBEM_PUSH_HOLD"] = None  # these tests wait for real (tests/conftest.py: 0.5 s)
    with app.app_context():
        the_hub = push.hub(app)
    yield the_hub
    the_hub.close()


class Wakes(list):
    """What each Waiter.wait returned (True: woken; False: its time ran out), and how many
    waits began (``parked``): a waiter counted by the hub may still be reading its head, and a
    move then is an answer without a sleep."""

    parked = 0


@pytest.fixture
def wakes(monkeypatch):
    seen = Wakes()
    original = push.Waiter.wait

    def wait(self, timeout):
        seen.parked += 1
        woken = original(self, timeout)
        seen.append(woken)
        return woken
    monkeypatch.setattr(push.Waiter, "wait", wait)
    return seen


def until(condition, what):
    """Wait for a state of the server (not a measure of speed: the bound is generous)."""
    for _ in range(3000):
        if condition():
            return
        time.sleep(0.01)
    pytest.fail(f"never happened: {what}")


pig, move = pig_table, move_first


def in_thread(fn):
    out = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised by the test
            out["error"] = exc
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, out


def finished(t, out):
    t.join(LONG + 20)
    assert not t.is_alive(), "the waiter never answered"
    if "error" in out:
        raise out["error"]
    return out["value"]


# --- waking ----------------------------------------------------------------------------------

def test_a_waiter_wakes_on_a_move(app, make_player, hub, wakes):
    app.config["PBEM_PUSH_POLL"] = 3600  # SQLite's watcher stays out of it: the signal wakes
    hub.poll = hub.probe = 3600
    info, by_seat = pig(make_player)
    client = app.test_client()
    t, out = in_thread(lambda: client.get(
        f"/api/games/{info['id']}/wait?after={info['seq']}&timeout={LONG}"))
    until(lambda: wakes.parked >= 1, "the long poll is asleep")
    entry = move(info, by_seat)
    r = finished(t, out)
    body = r.get_json()
    assert r.status_code == 200 and body["changed"] is True
    assert body["seq"] == entry["seq"] == info["seq"] + 1
    assert True in wakes  # woken, not timed out
    assert hub.count == 0


def test_a_waiter_wakes_when_the_game_starts(app, make_player, hub, wakes):
    hub.poll = hub.probe = 3600
    ann, bob = make_player("ann"), make_player("bob")
    game = ann.post("/api/games", {"type": "pig", "seats": 2}).get_json()
    client = app.test_client()
    t, out = in_thread(lambda: client.get(
        f"/api/games/{game['id']}/wait?after=-1&status=open&timeout={LONG}"))
    until(lambda: wakes.parked >= 1, "the long poll is asleep")
    bob.post(f"/api/games/{game['id']}/join", {})
    body = finished(t, out).get_json()
    assert body["changed"] is True and body["status"] == "playing" and body["seq"] == -1
    assert True in wakes


def test_a_timeout_answers_the_unchanged_head(app, make_player, hub, wakes):
    info, by_seat = pig(make_player)
    for timeout in (0, 0.2):
        r = app.test_client().get(f"/api/games/{info['id']}/wait?after={info['seq']}"
                                  f"&timeout={timeout}")
        body = r.get_json()
        assert r.status_code == 200 and body["changed"] is False
        assert (body["seq"], body["head"], body["to_act"]) == \
            (info["seq"], info["head"], info["to_act"])
    # a client that is behind is answered at once, with the head it missed
    entry = move(info, by_seat)
    body = app.test_client().get(f"/api/games/{info['id']}/wait?after=-1&timeout={LONG}") \
        .get_json()
    assert body["changed"] is True and body["seq"] == entry["seq"]
    assert hub.count == 0


def test_the_servers_hold_limit_shortens_a_long_wait(app, make_player, hub, wakes):
    app.config["PBEM_PUSH_HOLD"] = 0.1
    info, _ = pig(make_player)
    body = app.test_client().get(f"/api/games/{info['id']}/wait?after={info['seq']}"
                                 "&timeout=60").get_json()
    assert body["changed"] is False and body["seq"] == info["seq"]
    assert wakes and wakes[-1] is False  # it ran out of time; nothing woke it
    text = app.test_client().get(f"/api/games/{info['id']}/events?timeout=600") \
        .get_data(as_text=True)
    assert text.count("event: head") == 1 and text.endswith("event: end\ndata: {}\n\n")


def test_the_notice_worker_wakes_on_a_move(app, make_player, hub, wakes):
    hub.poll = hub.probe = 3600
    info, by_seat = pig(make_player)
    pause = push.any_move_waiter(app, min_gap=0)
    stop = threading.Event()
    t, out = in_thread(lambda: pause(3600, stop))
    until(lambda: wakes.parked >= 1, "the worker is asleep")
    move(info, by_seat)
    finished(t, out)
    assert not stop.is_set() and True in wakes


def test_the_event_stream_sends_the_head_now_and_at_each_move(app, make_player, hub):
    hub.poll = hub.probe = 3600
    info, by_seat = pig(make_player)
    client = app.test_client()
    resp = client.get(f"/api/games/{info['id']}/events?timeout={LONG}", buffered=False)
    assert resp.status_code == 200 and resp.mimetype == "text/event-stream"
    chunks = iter(resp.response)
    events = []

    def next_head():
        for chunk in chunks:
            text = chunk.decode() if isinstance(chunk, bytes) else chunk
            if text.startswith("event: head"):
                return json.loads(text.split("data: ", 1)[1])
        return None
    events.append(next_head())
    assert events[0]["seq"] == info["seq"]
    for _ in range(2):
        entry = move(info, by_seat, "roll")
        info = by_seat["north"].get(f"/api/games/{info['id']}").get_json()
        head = next_head()
        assert head["seq"] == entry["seq"]
    resp.close()
    assert hub.count == 0


def test_an_eventsource_reconnecting_is_not_sent_what_it_has(app, make_player, hub):
    info, _ = pig(make_player)
    mark = f"{info['seq']}.{info['status']}.2"
    r = app.test_client().get(f"/api/games/{info['id']}/events?timeout=1",
                              headers={"Last-Event-ID": mark})
    assert "event: head" not in r.get_data(as_text=True)
    r = app.test_client().get(f"/api/games/{info['id']}/events?timeout=1",
                              headers={"Last-Event-ID": "nonsense.x.y"})
    assert r.get_data(as_text=True).count("event: head") == 1


# --- what the answers carry ------------------------------------------------------------------

PUBLIC = {"game", "status", "seq", "head", "to_act", "result", "seats_taken"}


def test_the_stream_and_the_wait_never_carry_hidden_information(app, make_player, hub):
    """A game with hidden hands: every push answer, signed by a seat or not, is the public
    summary's fields and nothing else."""
    from shared.games import game_types
    type_ = "zarahemla" if "zarahemla" in game_types() else "pig"
    players = [make_player(n) for n in ("ann", "bob", "cyd")]
    n = 3 if type_ == "zarahemla" else 2
    game = players[0].post("/api/games", {"type": type_, "seats": n}).get_json()
    for p in players[1:n]:
        assert p.post(f"/api/games/{game['id']}/join", {}).status_code == 200
    summary = players[0].get(f"/api/games/{game['id']}").get_json()
    views = [p.get(f"/api/games/{game['id']}/view").get_json()["view"] for p in players[:n]]
    for who in [None] + players[:n]:
        for path in (f"/api/games/{game['id']}/wait?after=-1&timeout=0",
                     f"/api/games/{game['id']}/events?timeout=1"):
            r = who.get(path) if who else app.test_client().get(path)
            text = r.get_data(as_text=True)
            bodies = [json.loads(line[6:]) for line in text.splitlines()
                      if line.startswith("data: {\"")] if "events" in path else [r.get_json()]
            assert bodies
            for body in bodies:
                body.pop("changed", None)
                assert set(body) == PUBLIC
                assert body == {"game": summary["id"], "status": summary["status"],
                                "seq": summary["seq"], "head": summary["head"],
                                "to_act": summary["to_act"], "result": summary["result"],
                                "seats_taken": n}
            # nothing of any seat's private view shows up
            for view in views:
                for key in ("hand", "cards", "private"):
                    value = view.get(key) if isinstance(view, dict) else None
                    if value:
                        assert json.dumps(value) not in text


@pytest.mark.parametrize("query", [
    "", "?after=", "?after=x", "?after=-2", "?after=2147483648", "?after=1.5",
    "?after=1&timeout=61", "?after=1&timeout=-1", "?after=1&timeout=nan", "?after=1&timeout=x",
    "?after=1&status=bogus", "?after=1&status=",
])
def test_bad_wait_parameters_are_refused(app, make_player, hub, query):
    info, _ = pig(make_player)
    r = app.test_client().get(f"/api/games/{info['id']}/wait{query}")
    assert r.status_code == 400, (query, r.get_json())
    assert r.get_json()["error"]["code"] == "malformed"
    assert hub.count == 0


@pytest.mark.parametrize("query", ["?timeout=0", "?timeout=601", "?timeout=x", "?timeout=-5"])
def test_bad_event_parameters_are_refused(app, make_player, hub, query):
    info, _ = pig(make_player)
    r = app.test_client().get(f"/api/games/{info['id']}/events{query}")
    assert r.status_code == 400 and r.get_json()["error"]["code"] == "malformed"


@pytest.mark.parametrize("game_id", ["nosuchgame", "x" * 17, "%27%3B--", "..%2F..%2Fetc"])
def test_unknown_games_are_404(app, hub, game_id):
    for path in (f"/api/games/{game_id}/wait?after=0&timeout=0",
                 f"/api/games/{game_id}/events?timeout=1"):
        r = app.test_client().get(path)
        assert r.status_code == 404 and r.get_json()["error"]["code"] in (
            "unknown_game", "not_found"), path
    assert hub.count == 0


def test_a_full_server_answers_503_with_retry_after(app, make_player, hub):
    hub.limit = 0
    info, _ = pig(make_player)
    for path in (f"/api/games/{info['id']}/wait?after={info['seq']}&timeout=5",
                 f"/api/games/{info['id']}/events"):
        r = app.test_client().get(path)
        assert r.status_code == 503 and r.headers["Retry-After"] == "5"
        assert r.get_json()["error"]["code"] == "busy"
    assert hub.count == 0


def test_one_address_cannot_take_every_waiting_slot(app, make_player, hub):
    """A stranger opening long polls by the hundred gets a 503 past its share; another
    address still waits, and the share comes back when its waits end."""
    hub.per_address = 2
    info, by_seat = pig(make_player)
    path = f"/api/games/{info['id']}/wait?after={info['seq']}&timeout={LONG}"

    def wait_from(address):
        return app.test_client().get(path, environ_base={"REMOTE_ADDR": address})
    held = [in_thread(lambda: wait_from("10.6.6.6")) for _ in range(2)]
    until(lambda: hub.count == 2, "the stranger's two long polls wait")
    refused = wait_from("10.6.6.6")
    assert refused.status_code == 503 and refused.get_json()["error"]["code"] == "busy"
    assert refused.get_json()["error"]["details"]["per_address"] == 2
    other = in_thread(lambda: wait_from("10.1.1.1"))
    until(lambda: hub.count == 3, "another address still waits")
    move(info, by_seat)
    for t, out in held + [other]:
        assert finished(t, out).get_json()["changed"] is True
    assert hub.count == 0 and hub.by_address == {}


def test_the_spec_documents_both_endpoints(app):
    spec = app.test_client().get("/api/openapi.json").get_json()
    wait = spec["paths"]["/api/games/{game_id}/wait"]["get"]
    assert {p["name"] for p in wait["parameters"]} >= {"after", "status", "timeout"}
    assert {"200", "400", "404", "503"} <= set(wait["responses"])
    events = spec["paths"]["/api/games/{game_id}/events"]["get"]
    assert "text/event-stream" in events["responses"]["200"]["content"]


# --- across processes -----------------------------------------------------------------------

@pytest.mark.e2e
def test_a_waiter_wakes_on_a_move_appended_by_another_process(app, make_player, hub, wakes,
                                                              tmp_path):
    """The move goes to a gunicorn process on the same database: only LISTEN/NOTIFY
    (PostgreSQL) or the watcher (SQLite) can wake this process's waiter."""
    import requests

    from tests.liveserver import LiveServer
    url = app.config["SQLALCHEMY_DATABASE_URI"].replace("postgresql+psycopg://", "postgresql://")
    info, by_seat = pig(make_player)
    seat = info["to_act"][0]
    # the other process keeps the real clock: a move signed on the fake one is ahead of it
    body = by_seat[seat].move_body(info["id"], seat, "roll", ts=int(time.time()))
    with LiveServer(url, tmp_path / "other", workers=1, threads=2,
                    extra_env={"PBEM_NOTIFY_INTERVAL": "0"}) as other:
        client = app.test_client()
        t, out = in_thread(lambda: client.get(
            f"/api/games/{info['id']}/wait?after={info['seq']}&timeout={LONG}"))
        until(lambda: wakes.parked >= 1 and (hub.listening or not hub.postgres),
              "the long poll is waiting (and on PostgreSQL, listening)")
        r = requests.post(f"{other.url}/api/games/{info['id']}/moves", json=body, timeout=30)
        assert r.status_code == 201, r.text
        answer = finished(t, out).get_json()
    assert answer["changed"] is True and answer["seq"] == info["seq"] + 1
    assert True in wakes


@pytest.mark.e2e
def test_sqlite_watcher_reads_the_heads_when_another_process_commits(app, make_player, hub,
                                                                     wakes, tmp_path):
    """SQLite: with the periodic read an hour away, only the watcher's ``PRAGMA
    data_version`` probe can see that another process appended the move."""
    import requests

    from tests.liveserver import LiveServer
    if hub.postgres:
        pytest.skip("SQLite's watcher")
    hub.poll = 3600
    assert hub.probe < 1
    info, by_seat = pig(make_player)
    seat = info["to_act"][0]
    # the other process keeps the real clock: a move signed on the fake one is ahead of it
    body = by_seat[seat].move_body(info["id"], seat, "roll", ts=int(time.time()))
    with LiveServer(app.config["SQLALCHEMY_DATABASE_URI"], tmp_path / "other", workers=1,
                    threads=2, extra_env={"PBEM_NOTIFY_INTERVAL": "0"}) as other:
        client = app.test_client()
        t, out = in_thread(lambda: client.get(
            f"/api/games/{info['id']}/wait?after={info['seq']}&timeout={LONG}"))
        until(lambda: wakes.parked >= 1, "the long poll is asleep")
        time.sleep(0.2)  # the watcher's first read is done: the next one needs the probe
        r = requests.post(f"{other.url}/api/games/{info['id']}/moves", json=body, timeout=30)
        assert r.status_code == 201, r.text
        answer = finished(t, out).get_json()
    assert answer["changed"] is True and answer["seq"] == info["seq"] + 1
    assert True in wakes


def test_an_announcement_is_delivered_only_when_its_transaction_commits(app, make_player,
                                                                       hub):
    """Rolled back: nobody is told (in this process, nor through PostgreSQL); committed:
    this process's waiter and every LISTEN connection are."""
    from server.db import db
    info, _ = pig(make_player)
    listener = None
    if hub.postgres:
        import psycopg
        url = app.config["SQLALCHEMY_DATABASE_URI"].replace("postgresql+psycopg://",
                                                            "postgresql://")
        listener = psycopg.connect(url, autocommit=True)
        listener.execute(f"LISTEN {push.CHANNEL}")
    try:
        with app.app_context(), hub.subscribe(info["id"]) as waiter:
            push.announce(info["id"], 7)
            db.session.rollback()
            assert not waiter.event.is_set()
            if listener is not None:
                assert list(listener.notifies(timeout=0.5)) == []
            push.announce(info["id"], 8)
            db.session.commit()
            assert waiter.event.is_set()
            if listener is not None:
                notes = list(listener.notifies(timeout=LONG, stop_after=1))
                assert [n.payload for n in notes] == [f"{info['id']}:8"]
    finally:
        if listener is not None:
            listener.close()


def test_a_timed_out_long_poll_reads_the_head_again_only_without_a_steady_listener(
        app, make_player, hub, monkeypatch):
    """PostgreSQL: a long poll whose time runs out with no notification, the same LISTEN
    connection up all along, answers the head it read (one read, not two: bench/ANALYSIS.md);
    when the listener is down or was replaced meanwhile, it reads the head again."""
    if not hub.postgres:
        pytest.skip("PostgreSQL's listener")
    info, _ = pig(make_player)
    reads = []
    original = push.public_head
    monkeypatch.setattr(push, "public_head", lambda g: reads.append(g) or original(g))
    client = app.test_client()
    url = f"/api/games/{info['id']}/wait?after={info['seq']}&timeout=0.3"
    with app.app_context(), hub.subscribe(None, bounded=False):  # start the listener
        until(lambda: hub.listening, "the listener is up")
        body = client.get(url).get_json()
        assert body["changed"] is False and body["seq"] == info["seq"]
        assert len(reads) == 1
        # the listener reconnects while the long poll sleeps: the head is read again
        reads.clear()
        hub.wake_all()  # forget the kept head: this long poll reads it
        epoch = hub.epoch
        t, out = in_thread(lambda: client.get(url.replace("timeout=0.3", "timeout=3")))
        until(lambda: reads, "the long poll read the head")
        hub.epoch = epoch + 1
        assert finished(t, out).get_json()["changed"] is False
        assert len(reads) == 2


def test_long_polls_on_a_game_that_did_not_move_share_one_head_read(app, make_player, hub,
                                                                    monkeypatch):
    """PostgreSQL: a head read while the LISTEN connection is up is kept until a notification
    of its game (or a new LISTEN connection), so renewing long polls need no database
    connection; a move, then a listener that reconnects, make the next long poll read it."""
    if not hub.postgres:
        pytest.skip("PostgreSQL's listener")
    info, by_seat = pig(make_player)
    reads = []
    original = push.public_head
    monkeypatch.setattr(push, "public_head", lambda g: reads.append(g) or original(g))
    client = app.test_client()

    def poll(after):
        body = client.get(f"/api/games/{info['id']}/wait?after={after}&timeout=0").get_json()
        return body["seq"]

    with app.app_context(), hub.subscribe(None, bounded=False):  # start the listener
        until(lambda: hub.listening, "the listener is up")
        assert [poll(info["seq"]) for _ in range(5)] == [info["seq"]] * 5
        assert len(reads) == 1
        tick = hub._tick
        moved = move(info, by_seat)
        # the move drops the kept head: in-process after its commit, then by its NOTIFY
        until(lambda: hub._tick >= tick + 2, "the move's notification came")
        reads.clear()
        assert poll(info["seq"]) == moved["seq"] and len(reads) == 1
        assert poll(moved["seq"]) == moved["seq"] and len(reads) == 1
        hub.epoch += 1  # a new LISTEN connection: what was kept may have missed a notification
        assert poll(moved["seq"]) == moved["seq"] and len(reads) == 2


def test_a_head_read_that_a_notification_overtakes_is_not_kept(app, make_player, hub):
    """A notification of the game that arrives while its head is being read drops that read:
    it may predate the move."""
    if not hub.postgres:
        pytest.skip("PostgreSQL's listener")
    info, _ = pig(make_player)
    original = push.public_head

    def slow(game_id):
        head = original(game_id)
        hub.wake(game_id)  # the notification of a commit the read may have missed
        return head

    with app.app_context(), hub.subscribe(None, bounded=False):
        until(lambda: hub.listening, "the listener is up")
        push.public_head = slow
        try:
            hub.head(info["id"])
        finally:
            push.public_head = original
        before = hub.head_reads
        hub.head(info["id"])
        assert hub.head_reads == before + 1  # nothing was kept: read again
        hub.head(info["id"])
        assert hub.head_reads == before + 1  # this one was kept
