"""The lean append path: a worker's remembered head, duties without a read, the body
and answer without the schema layers, answer=view, and the idle-connection ping."""

import json

import pytest

from client.signing import signed_move
from shared.envelope import head_message, verify
from shared.games import game_types, get_game
from tests.conftest import Player, database_url


def _app(url, clock):
    from server import create_app
    return create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": url, "PBEM_CLOCK": clock,
                       "RATELIMIT_ENABLED": False})


@pytest.fixture
def two_workers(tmp_path, clock):
    """Two apps (two workers' worth of caches) on one database."""
    from server.db import db
    url, cleanup = database_url(tmp_path)
    a, b = _app(url, clock), _app(url, clock)
    with a.app_context():
        from flask_migrate import upgrade
        upgrade()
    yield a, b
    for app in (a, b):
        with app.app_context():
            db.engine.dispose()
    cleanup()


def _pig(make_player):
    ann, bob = make_player("ann"), make_player("bob")
    game = ann.post("/api/games", {"type": "pig", "seats": 2}).get_json()
    game = bob.post(f"/api/games/{game['id']}/join", {}).get_json()
    return game["id"], {"north": ann, "east": bob}, game["head"]


def _duties(app, game_id):
    from server.db import db
    from server.db.models import Duty
    with app.app_context():
        return sorted(d.seat for d in db.session.execute(
            db.select(Duty).filter_by(game_id=game_id)).scalars())


def test_a_worker_whose_remembered_head_is_stale_reads_the_game(two_workers, clock):
    a, b = two_workers
    ca, cb = a.test_client(), b.test_client()
    ann, bob = Player(ca, clock, "ann"), Player(ca, clock, "bob")
    assert ann.register().status_code == 201 and bob.register().status_code == 201
    game = ann.post("/api/games", {"type": "pig", "seats": 2}).get_json()
    game = bob.post(f"/api/games/{game['id']}/join", {}).get_json()
    gid, head = game["id"], game["head"]

    def body(player, seat, seq, prev, move="hold"):
        return signed_move(player.key, gid, seq, prev, seat, move, ts=clock())

    def post(client, b_):
        return client.post(f"/api/games/{gid}/moves", json=b_)

    r0 = post(ca, body(ann, "north", 0, head))                  # a remembers head 0
    assert r0.status_code == 201
    r1 = post(cb, body(bob, "east", 1, r0.get_json()["hash"]))  # b appends 1
    assert r1.status_code == 201
    # a's remembered head (seq 0) is behind: the move at seq 2 goes the long way
    r2 = post(ca, body(ann, "north", 2, r1.get_json()["hash"]))
    assert r2.status_code == 201, r2.get_json()
    h2 = r2.get_json()["hash"]
    # b appends 3; a still remembers head 2, which a move for seq 3 from a stale client
    # matches: the conditional update refuses it, and the long way answers stale_seq
    x3 = body(bob, "east", 3, h2)
    assert post(cb, x3).status_code == 201
    y3 = body(bob, "east", 3, h2, move="roll")
    stale = post(ca, y3)
    assert stale.status_code == 409
    assert stale.get_json()["error"]["code"] == "stale_seq"
    assert stale.get_json()["error"]["details"]["seq"] == 4
    # the very envelope b appended is the existing entry on a too
    again = post(ca, x3)
    assert again.status_code == 200 and again.get_json()["seq"] == 3
    # and a goes on from the head it read
    assert post(ca, body(ann, "north", 4, again.get_json()["hash"])).status_code == 201
    log = ca.get(f"/api/games/{gid}/log").get_json()["entries"]
    assert [e["seq"] for e in log] == [0, 1, 2, 3, 4]
    assert _duties(a, gid) == ["east"]


def test_duties_are_the_seats_that_owe_a_move_after_every_move(app, make_player, clock):
    gid, seats, head = _pig(make_player)
    assert _duties(app, gid) == ["north"]
    prev, seq = head, 0
    for seat, move in [("north", "peek"), ("north", "hold"), ("east", "peek"),
                       ("east", "hold"), ("north", "hold")]:
        r = seats[seat].play(gid, seat, move, seq=seq, prev=prev)
        assert r.status_code == 201, r.get_json()
        prev, seq = r.get_json()["hash"], seq + 1
        to_act = seats[seat].get(f"/api/games/{gid}").get_json()["to_act"]
        assert _duties(app, gid) == sorted(to_act)


def test_a_stray_duty_row_does_not_block_the_move(app, make_player):
    """A row for the seat about to owe (there should be none) is replaced, not a 500/409."""
    from server.db import db
    from server.db.models import Duty, Seat
    gid, seats, head = _pig(make_player)
    with app.app_context():
        east = db.session.execute(db.select(Seat).filter_by(game_id=gid, seat="east")) \
            .scalar_one()
        db.session.add(Duty(game_id=gid, seat="east", player_id=east.player_id, since_seq=-1))
        db.session.commit()
    r = seats["north"].play(gid, "north", "hold", seq=0, prev=head)
    assert r.status_code == 201, r.get_json()
    assert _duties(app, gid) == ["east"]


def test_a_game_that_ends_leaves_no_duties(app, make_player):
    ann, bob = make_player("ann"), make_player("bob")
    game = ann.post("/api/games", {"type": "pig", "seats": 2, "options": {"target": 1}}) \
        .get_json()
    game = bob.post(f"/api/games/{game['id']}/join", {}).get_json()
    gid, prev, seq = game["id"], game["head"], 0
    for _ in range(60):  # roll until a roll sticks, then hold: target 1 is reached
        r = ann.play(gid, "north", "roll", seq=seq, prev=prev)
        prev, seq = r.get_json()["hash"], seq + 1
        if ann.get(f"/api/games/{gid}").get_json()["to_act"] == ["north"]:
            break
        r = bob.play(gid, "east", "hold", seq=seq, prev=prev)
        prev, seq = r.get_json()["hash"], seq + 1
    r = ann.play(gid, "north", "hold", seq=seq, prev=prev)
    assert r.status_code == 201
    assert ann.get(f"/api/games/{gid}").get_json()["status"] == "over"
    assert _duties(app, gid) == []


def test_entries_are_already_what_the_entry_schema_dumps(app, make_player):
    """The move POST answers the entry without EntrySchema().dump: it must change nothing."""
    from server.http.schemas import EntrySchema
    for type_ in game_types():
        g = get_game(type_)
        players = [make_player(f"{type_[:10]}{i}") for i in range(g.min_seats)]
        game = players[0].post("/api/games", {"type": type_, "seats": g.min_seats}).get_json()
        for p in players[1:]:
            game = p.post(f"/api/games/{game['id']}/join", {}).get_json()
        by_seat = {s["seat"]: next(p for p in players if p.name == s["player"])
                   for s in game["seats"]}
        for _ in range(3):
            info = players[0].get(f"/api/games/{game['id']}").get_json()
            if info["status"] != "playing":
                break
            seat = info["to_act"][0]
            legal = by_seat[seat].get(f"/api/games/{game['id']}/legal?seat={seat}").get_json()
            r = by_seat[seat].play(game["id"], seat, legal["moves"][0],
                                   seq=legal["next_seq"], prev=legal["prev"])
            assert r.status_code == 201, (type_, r.get_json())
            assert EntrySchema().dump(r.get_json()) == r.get_json()


def test_answer_view_carries_the_view_and_a_signed_head(app, make_player, client):
    gid, seats, head = _pig(make_player)
    ann = seats["north"]
    key = client.get("/api/server").get_json()["public_key"]
    body = ann.move_body(gid, "north", "peek", seq=0, prev=head)
    r = ann.post(f"/api/games/{gid}/moves?answer=view", body)
    assert r.status_code == 201
    entry = r.get_json()
    view = entry["view"]
    assert view["seat"] == "north" and view["next_seq"] == 1 and view["prev"] == entry["hash"]
    assert view["head"] == {**view["head"], "length": 1, "hash": entry["hash"]}
    assert verify(key, head_message(gid, 1, entry["hash"]), view["head"]["signature"])
    assert "peeked at" in entry["events"][0]          # the mover's own eyes
    # no text board is rendered for a move's answer (GET /view has it)
    assert view["board"] is None and view["view"]["you"] == "north"
    assert ann.get(f"/api/games/{gid}/view").get_json()["board"]
    # unsigned, the same kind of answer is a spectator's
    body = ann.move_body(gid, "north", "peek", seq=1, prev=entry["hash"])
    r = client.post(f"/api/games/{gid}/moves?answer=view", json=body)
    assert r.status_code == 201
    assert r.get_json()["view"]["seat"] is None
    assert "peeked at" not in json.dumps(r.get_json())
    # a stale move: the refusal carries the current view and the entry it linked to
    stale = ann.move_body(gid, "north", "hold", seq=1, prev=entry["hash"])
    r = ann.post(f"/api/games/{gid}/moves?answer=view", stale)
    assert r.status_code == 409
    details = r.get_json()["error"]["details"]
    assert details["seq"] == 2 and details["view"]["next_seq"] == 2
    assert [e["seq"] for e in details["entries"]] == [0]
    assert details["entries"][0]["hash"] == entry["hash"]
    assert "peeked at" in details["entries"][0]["events"][0]  # ann's own entry, her eyes
    # bob's stale copy: his eyes, not ann's
    r = seats["east"].post(f"/api/games/{gid}/moves?answer=view", stale)
    assert r.status_code == 409
    assert "peeked at" not in json.dumps(r.get_json())
    # a bad answer kind is the schema's refusal
    r = ann.post(f"/api/games/{gid}/moves?answer=everything",
                 ann.move_body(gid, "north", "hold", seq=2, prev=details["view"]["prev"]))
    assert r.status_code == 400 and "answer" in r.get_json()["error"]["details"]["fields"]


def test_well_formed_and_malformed_bodies_as_the_schema_reads_them(app, make_player, client):
    gid, seats, head = _pig(make_player)
    good = seats["north"].move_body(gid, "north", "hold", seq=0, prev=head)
    url = f"/api/games/{gid}/moves"
    for bad, field in [({**good, "extra": 1}, "extra"), ({"envelope": good["envelope"]},
                                                         "signature"),
                       ({**good, "signature": good["signature"].upper()}, "signature"),
                       ({**good, "envelope": 5}, "envelope"), ([good], None)]:
        r = client.post(url, json=bad)
        assert r.status_code == 400, bad
        if field:
            assert field in r.get_json()["error"]["details"]["fields"], r.get_json()
    r = client.post(url, data=json.dumps(good), content_type="text/plain")
    assert r.status_code == 400
    assert client.post(url, json=good).status_code == 201


def test_a_dead_idle_postgres_connection_is_replaced(tmp_path, clock, monkeypatch):
    import psycopg

    import server
    from server.db import db
    url, cleanup = database_url(tmp_path, "postgres")
    app = _app(url, clock)
    try:
        with app.app_context():
            from flask_migrate import upgrade
            upgrade()
        c = app.test_client()
        assert c.get("/api/games").status_code == 200      # a pooled connection now
        monkeypatch.setattr(server, "PING_AFTER_IDLE", 0.0)
        name = url.rsplit("/", 1)[1]
        admin = url.rsplit("/", 1)[0] + "/postgres"
        with psycopg.connect(admin.replace("postgresql+psycopg", "postgresql"),
                             autocommit=True) as conn:
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                         "datname = %s AND pid <> pg_backend_pid()", (name,))
        assert c.get("/api/games").status_code == 200
    finally:
        with app.app_context():
            db.engine.dispose()
        cleanup()


def test_the_snapshot_stays_one_row_of_bounded_size_however_long_the_log(app, make_player):
    """The snapshot is a cache of the latest state, overwritten at each move: after 60 moves
    and after 120 the game still has one snapshot row, no larger, while the log grew."""
    from server.db import db
    from server.db.models import Move, Snapshot
    gid, players, _ = _pig(make_player)

    def stored():
        with app.app_context():
            snaps = db.session.execute(db.select(Snapshot).filter_by(game_id=gid)).scalars()
            sizes = [len(s.state) for s in snaps]
            moves = db.session.scalar(db.select(db.func.count()).select_from(Move)
                                      .filter_by(game_id=gid))
            return sizes, moves

    sizes = {}
    for n in range(1, 121):
        seat = "north" if n % 2 else "east"
        r = players[seat].play(gid, seat, "hold")
        assert r.status_code == 201, r.get_json()
        if n in (60, 120):
            sizes[n] = stored()
    (first, moves60), (second, moves120) = sizes[60], sizes[120]
    assert moves120 == moves60 + 60
    assert len(first) == len(second) == 1
    assert second[0] <= first[0] + 8  # a counter's digits at most, never the log


def test_the_log_ends_at_the_head_it_was_read_with(app, make_player):
    """A move appended by another process between the read of a game's head and the read of
    its log is left for the next read: the entries end at the signed head that answers with
    them (a `pbem log` read while bots moved found one more entry than its head)."""
    from server.db import db
    from server.db.models import Game
    from server.game.views import log_entries, signed_head
    gid, seats, _ = _pig(make_player)
    for _ in range(3):
        info = seats["north"].get(f"/api/games/{gid}").get_json()
        seat = info["to_act"][0]
        assert seats[seat].play(gid, seat, "roll").status_code == 201
    with app.app_context():
        game = db.session.get(Game, gid)
        assert [e["seq"] for e in log_entries(game, None)][-1] == game.head_seq
        game.head_seq -= 1  # the head as read before the last move committed
        head = signed_head(game)
        entries = log_entries(game, None)
        db.session.rollback()
    assert [e["seq"] for e in entries][-1] + 1 == head["length"]
