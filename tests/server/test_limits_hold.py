"""rate limits nobody can spend for someone else, that
hold across workers, and that say what they are.

Each test runs on SQLite, and on PostgreSQL when PBEM_TEST_DATABASE_URL is set.
"""

import concurrent.futures
import json

import pytest
import requests

from client.signing import request_headers, signed_move
from shared.envelope import public_key_hex
from tests.conftest import Player, database_url
from tests.figures import record
from tests.helpers.limits import _dispose, client_from, start_pig_on


@pytest.fixture
def limited(tmp_path, clock, monkeypatch):
    """make(**limits) -> an app with rate limits on (the default storage) and its cleanup."""
    from flask_migrate import upgrade

    from server import create_app
    from server.db import db
    made = []

    def make(url=None, **limits):
        for name, value in limits.items():
            monkeypatch.setenv(f"PBEM_LIMIT_{name}", value)
        if url is None:
            url, cleanup = database_url(tmp_path)
            made.append(cleanup)
        app = create_app({"TESTING": True, "PBEM_CLOCK": clock, "SQLALCHEMY_DATABASE_URI": url,
                          "RATELIMIT_STORAGE_URI": None})
        with app.app_context():
            upgrade()
        made.append(lambda: _dispose(app, db))
        return app

    yield make
    for cleanup in reversed(made):
        cleanup()


def test_forged_moves_never_spend_the_seats_allowance(limited, clock):
    """Item 2, as reported: 400 well-formed envelopes for a seat with a bogus signature (403
    each) spent the seat's move allowance and the real player got 429.  Now they count
    against the sender's address, which is refused once it passes PBEM_LIMIT_UNVERIFIED."""
    app = limited(MOVES="3/minute", UNVERIFIED="40/minute", REGISTER="100/hour")
    game_id, ann, bob = start_pig_on(client_from(app, "10.0.0.1"), clock)
    attacker = client_from(app, "10.6.6.6")
    eve_key = bytes(range(32))
    info = ann.get(f"/api/games/{game_id}/view").get_json()
    seat = info["view"]["to_act"][0]
    codes = []
    for i in range(60):
        forged = signed_move(eve_key, game_id, info["next_seq"], info["prev"], seat, "roll",
                             ts=clock(), nonce=f"forged{i:04d}")
        codes.append(attacker.post(f"/api/games/{game_id}/moves", json=forged).status_code)
    assert set(codes[:40]) == {403} and set(codes[40:]) == {429}, codes
    refusal = attacker.post(f"/api/games/{game_id}/moves", json=forged).get_json()["error"]
    assert refusal["details"]["setting"] == "PBEM_LIMIT_UNVERIFIED"
    # the same with forged signed requests in the players' names (401 each)
    forger = client_from(app, "10.6.6.7")
    for _ in range(45):
        headers = request_headers(eve_key, "ann", "GET", "/api/players/me", ts=clock())
        assert forger.get("/api/players/me", headers=headers).status_code in (401, 429)
    player = {"north": ann, "east": bob}[seat]
    assert player.play(game_id, seat, "roll").status_code == 201
    assert ann.get("/api/players/me").status_code == 200
    # and the seat's own allowance still holds for its own verified moves
    results = []
    for _ in range(8):
        info = ann.get(f"/api/games/{game_id}/view").get_json()
        seat = info["view"]["to_act"][0]
        results.append({"north": ann, "east": bob}[seat].play(game_id, seat, "roll")
                       .status_code)
    assert 429 in results
    record("2 forged moves for a seat from one address (PBEM_LIMIT_UNVERIFIED 40/minute)",
           f"{codes.count(403)} x 403, then {codes.count(429)} x 429 for that address; the "
           f"seat's player then moves (201)")


@pytest.mark.e2e
def test_registration_limit_holds_across_two_app_instances_sharing_a_database(tmp_path):
    """Item 6: with the Procfile's two workers the registration limit measured 40 an hour
    instead of 20 (in-memory counters per worker).  Two separate server processes on one
    database (no Redis configured) now count against one allowance."""
    from tests.liveserver import LiveServer
    url, cleanup = database_url(tmp_path)
    env = {"PBEM_RATELIMIT": "on", "PBEM_LIMIT_REGISTER": "6/hour"}
    servers = []
    try:
        for i in range(2):
            instance = tmp_path / f"instance{i}"
            servers.append(LiveServer(url, instance, workers=1, threads=2,
                                      extra_env=env).start())
        codes = []
        for i in range(12):
            key = bytes([i + 1]) * 32
            name = f"p{i:02d}"
            data = json.dumps({"name": name, "public_key": public_key_hex(key)}).encode()
            headers = request_headers(key, name, "POST", "/api/players", data)
            headers["Content-Type"] = "application/json"
            r = requests.post(servers[i % 2].url + "/api/players", data=data, headers=headers,
                              timeout=30)
            codes.append(r.status_code)
            if r.status_code == 429:
                assert r.json()["error"]["details"] == {
                    "limit": "6 per 1 hour", "setting": "PBEM_LIMIT_REGISTER",
                    "counts": "registrations from one address"}
        assert codes.count(201) == 6 and codes.count(429) == 6, codes
        record("6 registrations through two server processes on one database, limit 6/hour",
               f"{codes.count(201)} x 201, {codes.count(429)} x 429")
    finally:
        for server in servers:
            server.stop()
        cleanup()


def test_a_refusal_names_the_limit_and_the_setting_that_raises_it(limited, clock):
    """"too many requests: 20 per 1 hour" did not say what to change."""
    app = limited(REGISTER="2/hour")
    client = client_from(app, "10.0.0.9")
    for name in ("ann", "bob"):
        assert Player(client, clock, name).register().status_code == 201
    r = Player(client, clock, "cyd").register()
    assert r.status_code == 429
    error = r.get_json()["error"]
    assert error["details"] == {"limit": "2 per 1 hour", "setting": "PBEM_LIMIT_REGISTER",
                                "counts": "registrations from one address"}
    assert "PBEM_LIMIT_REGISTER" in error["message"] and "2 per 1 hour" in error["message"]


@pytest.mark.e2e
def test_the_development_server_on_loopback_spares_local_sign_ups(limited, clock):
    """around the 20th `pbem register` on a fresh local server the sign-up
    limit refused, and a four-player game could not start.  `pbem-server run` on a loopback
    address spares loopback callers; other addresses, and every other way to run it, keep
    the limits."""
    app = limited(REGISTER="2/hour")
    app.config["PBEM_LIMIT_LOOPBACK_SPARED"] = True  # what `pbem-server run` sets on loopback
    local = client_from(app, "127.0.0.1")
    for i in range(25):
        assert Player(local, clock, f"local{i}").register().status_code == 201
    remote = client_from(app, "192.0.2.10")
    codes = [Player(remote, clock, f"far{i}").register().status_code for i in range(3)]
    assert codes == [201, 201, 429]


def test_run_spares_loopback_only_when_bound_to_loopback(monkeypatch):
    from server.cli import spare_loopback_default
    monkeypatch.delenv("PBEM_LIMIT_LOOPBACK", raising=False)
    assert spare_loopback_default("127.0.0.1") and spare_loopback_default("localhost")
    assert spare_loopback_default("::1")
    assert not spare_loopback_default("0.0.0.0") and not spare_loopback_default("192.0.2.1")
    monkeypatch.setenv("PBEM_LIMIT_LOOPBACK", "limit")
    assert not spare_loopback_default("127.0.0.1")


def test_wsgi_app_never_spares_loopback():
    """Behind a proxy every caller is loopback: the production entry point keeps the limits."""
    import wsgi
    assert not wsgi.app.config.get("PBEM_LIMIT_LOOPBACK_SPARED")


def test_parallel_counting_is_exact(limited):
    """The database storage counts each hit once under concurrent writers."""
    from server.http.ratelimit_storage import DatabaseStorage, storage_url
    app = limited()
    storage = DatabaseStorage("pbemdb://", url=storage_url(app.config["SQLALCHEMY_DATABASE_URI"]))
    try:
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda _: storage.incr("k", 60), range(200)))
        assert storage.get("k") == 200
        storage.clear("k")
        assert storage.get("k") == 0
    finally:
        storage.dispose()


# --- open games: a cap per player, and a list in pages ---------------------------------------

def test_one_player_may_keep_only_so_many_open_games(app, make_player):
    """Item 6, as reported: one key created 1,200 games in 33 s and filled the open-games list
    (200 of 200).  PBEM_MAX_OPEN_GAMES caps the games one player has waiting."""
    app.config["PBEM_MAX_OPEN_GAMES"] = 3
    ann, bob = make_player("ann"), make_player("bob")
    codes = [ann.post("/api/games", {"type": "pig", "seats": 2}).status_code for _ in range(5)]
    assert codes == [201, 201, 201, 409, 409]
    record("6 open games one player may keep (PBEM_MAX_OPEN_GAMES=3), 5 creations",
           f"{codes.count(201)} x 201, {codes.count(409)} x 409")
    error = ann.post("/api/games", {"type": "pig", "seats": 2}).get_json()["error"]
    assert error["code"] == "too_many_open_games"
    assert error["details"] == {"limit": 3, "setting": "PBEM_MAX_OPEN_GAMES"}
    # once one fills, another may be opened; other players are not affected
    game_id = ann.get("/api/games?status=open").get_json()["games"][0]["id"]
    assert bob.post(f"/api/games/{game_id}/join", {}).status_code == 200
    assert ann.post("/api/games", {"type": "pig", "seats": 2}).status_code == 201
    assert bob.post("/api/games", {"type": "pig", "seats": 2}).status_code == 201


def test_concurrent_creations_respect_the_cap(app, make_player):
    app.config["PBEM_MAX_OPEN_GAMES"] = 4
    ann = make_player("ann")
    bodies = []
    for _ in range(12):
        data = json.dumps({"type": "pig", "seats": 2}).encode()
        bodies.append((data, ann.headers("POST", "/api/games", data)))

    def create(item):
        data, headers = item
        return app.test_client().post("/api/games", data=data, headers=headers,
                                      content_type="application/json").status_code
    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        codes = list(pool.map(create, bodies))
    assert codes.count(201) == 4 and codes.count(409) == 8, codes
    record("6 open games, 12 concurrent creations (PBEM_MAX_OPEN_GAMES=4)",
           f"{codes.count(201)} x 201, {codes.count(409)} x 409")


def test_the_open_games_list_comes_in_pages(app, make_player, clock):
    app.config["PBEM_MAX_OPEN_GAMES"] = 0  # no cap: this test is about the pages
    ann = make_player("ann")
    made = []
    for i in range(7):
        made.append(ann.post("/api/games", {"type": "pig", "seats": 2}).get_json()["id"])
        if i % 2:
            clock.advance(1)  # some share a creation second, some do not
    seen, cursor, pages = [], None, 0
    while True:
        url = "/api/games?limit=3" + (f"&cursor={cursor}" if cursor else "")
        page = ann.get(url, signed=False).get_json()
        seen += [g["id"] for g in page["games"]]
        pages += 1
        cursor = page["next"]
        if cursor is None:
            break
    assert pages == 3 and sorted(seen) == sorted(made) and len(set(seen)) == 7
    assert ann.get("/api/games?limit=201", signed=False).status_code == 400
    for bad in ("x", "AAAA", "OTk5OTk5OTk5OTk5OTk5OTk5OTk6YWJj", "%00"):
        r = ann.get(f"/api/games?cursor={bad}", signed=False)
        assert r.status_code == 400 and set(r.get_json()) == {"error"}


def test_copies_of_a_seats_public_envelopes_never_spend_its_allowance(limited, clock):
    """Item 2, the other way round: an envelope and its signature are public (the log serves
    them) and verify, but posting a copy again is not the seat's doing.  Only moves actually
    appended count against the seat; a copy is a repeat, which costs what a read costs: the
    address's own limit (PBEM_LIMIT_ADDRESS), never the unverified allowance that locks an
    address out."""
    app = limited(MOVES="3/minute", UNVERIFIED="5/minute", ADDRESS="45/minute",
                  REGISTER="100/hour")
    game_id, ann, bob = start_pig_on(client_from(app, "10.0.0.1"), clock)
    assert ann.play(game_id, "north", "peek").status_code == 201
    entry = ann.get(f"/api/games/{game_id}/log", signed=False).get_json()["entries"][0]
    copy = {"envelope": entry["envelope"], "signature": entry["signature"]}
    copier = client_from(app, "10.6.6.8")
    codes = [copier.post(f"/api/games/{game_id}/moves", json=copy).status_code
             for _ in range(50)]
    assert set(codes[:45]) == {200} and set(codes[45:]) == {429}, codes
    assert copier.get(f"/api/games/{game_id}").status_code == 200  # not locked out
    assert ann.play(game_id, "north", "peek").status_code == 201
    assert ann.play(game_id, "north", "peek").status_code == 201


def test_repeats_of_an_accepted_request_spend_no_allowance(limited, clock):
    """Issue item 7, what was left: the game page posts moves without signed headers, and a
    page that lost the answer to its move posts it again.  Each repeat (200, the stored
    entry) counted as unverified against the page's address, so enough retries locked it
    out, reads included; and a signed repeat spent the player's move allowance.  A repeat
    of an accepted request (the same envelope, or the same Idempotency-Key and body) now
    spends nothing but the address's limit; a forgery still counts as before."""
    app = limited(UNVERIFIED="5/minute", MOVES="3/minute", KEY="6/minute",
                  REGISTER="100/hour")
    game_id, ann, bob = start_pig_on(client_from(app, "10.0.0.1"), clock)
    page = client_from(app, "10.0.0.2")  # the game page: no signed headers
    info = ann.get(f"/api/games/{game_id}/view").get_json()
    seat = info["view"]["to_act"][0]
    mover = {"north": ann, "east": bob}[seat]
    move = signed_move(mover.key, game_id, info["next_seq"], info["prev"], seat, "roll",
                       ts=clock(), nonce="retry0000000")
    assert page.post(f"/api/games/{game_id}/moves", json=move).status_code == 201
    retries = [page.post(f"/api/games/{game_id}/moves", json=move).status_code
               for _ in range(12)]
    assert set(retries) == {200}, retries
    assert page.get(f"/api/games/{game_id}").status_code == 200
    # the same retries signed by the seat's player spend neither its moves nor its requests
    signed = [mover.post(f"/api/games/{game_id}/moves", move).status_code for _ in range(8)]
    assert set(signed) == {200}, signed
    # an Idempotency-Key replayed: the stored answer, again and again, past the key's limit
    data = json.dumps({"type": "pig", "seats": 2}).encode()

    def create():
        headers = dict(ann.headers("POST", "/api/games", data), **{"Idempotency-Key": "once"})
        return ann.client.post("/api/games", data=data, headers=headers,
                               content_type="application/json")

    assert create().status_code == 201
    replays = [create() for _ in range(8)]
    assert {(r.status_code, r.headers.get("Idempotent-Replayed")) for r in replays} == \
        {(201, "true")}, [r.status_code for r in replays]
    assert ann.get(f"/api/games/{game_id}/view").status_code == 200
    # forged moves from the page's address still count, and are refused past the limit
    forged = [page.post(f"/api/games/{game_id}/moves", json=signed_move(
        bytes(range(32)), game_id, info["next_seq"] + 1, "0" * 64, seat, "roll",
        ts=clock(), nonce=f"forged{i:06d}")).status_code for i in range(7)]
    assert forged[:5] == [403] * 5 and 429 in forged, forged
    record("B7 repeats of an accepted move (unsigned, then signed) / Idempotency-Key "
           "replays, limits 5 unverified, 3 moves, 6 requests a minute",
           f"{len(retries)} + {len(signed)} x 200 / {len(replays)} x 201 replayed, 0 x 429; "
           "forged: 5 x 403, then 429")


def test_what_the_limiter_reads_from_a_body_is_never_a_500(limited, clock):
    """The move limits read the seat an envelope names before the view runs: a body nested
    thousands deep, or a seat holding NUL (a counter key PostgreSQL cannot store)."""
    app = limited()
    game_id, ann, bob = start_pig_on(client_from(app, "10.0.0.1"), clock)
    client = client_from(app, "10.0.0.2")
    r = client.post(f"/api/games/{game_id}/moves", data="[" * 3000 + "]" * 3000,
                    content_type="application/json")
    assert r.status_code == 400 and set(r.get_json()) == {"error"}
    for seat in ("north\x00", "x" * 5000):
        body = signed_move(ann.key, game_id, 0, "0" * 64, seat, "roll")
        r = client.post(f"/api/games/{game_id}/moves", json=body)
        assert 400 <= r.status_code < 500 and set(r.get_json()) == {"error"}, r.get_json()


@pytest.mark.e2e
def test_twenty_local_sign_ups_on_pbem_server_run(tmp_path):
    """As reported: around the 20th `pbem register` on a fresh local server
    (`pbem-server run`, loopback) the sign-up limit refused.  The same server process, limits
    on, takes 25 registrations from loopback."""
    from tests.liveserver import LiveServer
    url, cleanup = database_url(tmp_path)
    server = LiveServer(url, tmp_path / "instance", kind="run",
                        extra_env={"PBEM_RATELIMIT": "on", "PBEM_LIMIT_REGISTER": "3/hour",
                                   "PBEM_NOTIFY_INTERVAL": "0"})
    try:
        server.start()
        codes = []
        for i in range(25):
            key = bytes([i + 1]) * 32
            data = json.dumps({"name": f"p{i:02d}", "public_key": public_key_hex(key)}).encode()
            headers = request_headers(key, f"p{i:02d}", "POST", "/api/players", data)
            headers["Content-Type"] = "application/json"
            codes.append(requests.post(server.url + "/api/players", data=data, headers=headers,
                                       timeout=30).status_code)
        assert codes == [201] * 25
        record("6 registrations from loopback to `pbem-server run`, limit 3/hour",
               f"{codes.count(201)} x 201")
    finally:
        server.stop()
        cleanup()
