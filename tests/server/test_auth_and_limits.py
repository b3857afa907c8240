"""Signed requests, idempotent retries, rate limits, permissions."""

import json

import pytest

from client.signing import request_headers
from tests.helpers.api import start_pig


def test_exact_replay_of_a_signed_request_is_401(make_player, client):
    ann = make_player("ann")
    headers = ann.headers("GET", "/api/players/me")
    assert client.get("/api/players/me", headers=headers).status_code == 200
    r = client.get("/api/players/me", headers=headers)
    assert r.status_code == 401 and r.get_json()["error"]["code"] == "replayed_request"


def test_stale_timestamp_is_401(make_player, client, clock):
    ann = make_player("ann")
    headers = request_headers(ann.key, "ann", "GET", "/api/players/me", ts=clock() - 301)
    r = client.get("/api/players/me", headers=headers)
    assert r.status_code == 401 and r.get_json()["error"]["code"] == "stale_request"
    clock.advance(400)
    headers = request_headers(ann.key, "ann", "GET", "/api/players/me", ts=clock())
    assert client.get("/api/players/me", headers=headers).status_code == 200


def test_signature_moved_to_another_path_or_body_is_401(make_player, client):
    ann = make_player("ann")
    headers = ann.headers("GET", "/api/players/me")
    r = client.get("/api/games", headers=headers)
    assert r.status_code == 401 and r.get_json()["error"]["code"] == "bad_signature"
    body = json.dumps({"type": "pig", "seats": 2}).encode()
    headers = ann.headers("POST", "/api/games", body)
    other = json.dumps({"type": "pig", "seats": 3}).encode()
    r = client.post("/api/games", data=other, headers=headers, content_type="application/json")
    assert r.status_code == 401


def test_incomplete_or_unknown_signatures_are_401(make_player, client):
    ann = make_player("ann")
    headers = ann.headers("GET", "/api/players/me")
    del headers["X-Pbem-Nonce"]
    assert client.get("/api/players/me", headers=headers).status_code == 401
    headers = request_headers(ann.key, "nobody", "GET", "/api/players/me")
    r = client.get("/api/players/me", headers=headers)
    assert r.status_code == 401 and r.get_json()["error"]["code"] == "unknown_player"
    assert client.get("/api/players/me").status_code == 401


def test_registration_must_be_signed_by_the_registered_key(make_player, client):
    ann = make_player("ann", register=False)
    bob = make_player("bob", register=False)
    body = json.dumps({"name": "ann", "public_key": ann.public_key}).encode()
    headers = request_headers(bob.key, "ann", "POST", "/api/players", body)
    r = client.post("/api/players", data=body, headers=headers, content_type="application/json")
    assert r.status_code == 401
    assert ann.register().status_code == 201
    again = ann.register()
    assert again.status_code == 409 and again.get_json()["error"]["code"] == "name_taken"


@pytest.mark.parametrize("body", [
    {"name": "x", "public_key": "00"},
    {"name": "ok-name", "public_key": "zz" * 32},
    {"name": "ok-name", "public_key": "ab" * 32, "tz": "Mars/Olympus"},
    {"name": "ok-name", "public_key": "ab" * 32, "admin": True},
    {"name": "ok-name", "public_key": "ab" * 32, "created_at": "2020-01-01T00:00:00"},
])
def test_bad_registrations_are_400_and_server_fields_cannot_be_set(client, body):
    r = client.post("/api/players", data=json.dumps(body), content_type="application/json")
    assert r.status_code == 400, r.get_json()
    assert r.get_json()["error"]["message"]


def test_idempotency_key_replays_the_stored_answer(make_player):
    ann = make_player("ann")
    body = {"type": "pig", "seats": 2}
    data = json.dumps(body).encode()

    def create(payload):
        headers = ann.headers("POST", "/api/games", payload)
        headers["Idempotency-Key"] = "create-1"
        return ann.client.post("/api/games", data=payload, headers=headers,
                               content_type="application/json")

    first = create(data)
    second = create(data)
    assert first.status_code == second.status_code == 201
    assert first.get_json()["id"] == second.get_json()["id"]
    assert second.headers.get("Idempotent-Replayed") == "true"
    mine = ann.get("/api/games").get_json()["games"]
    assert len(mine) == 1
    reused = create(json.dumps({"type": "pig", "seats": 3}).encode())
    assert reused.status_code == 422
    assert reused.get_json()["error"]["code"] == "idempotency_key_reused"


def test_rate_limits_are_visible_and_enforced(tmp_path, clock, monkeypatch):
    from flask_migrate import upgrade

    from server import create_app
    from tests.conftest import Player
    monkeypatch.setenv("PBEM_LIMIT_REGISTER", "2/hour")
    monkeypatch.setenv("PBEM_LIMIT_KEY", "5/minute")
    app = create_app({"TESTING": True, "PBEM_CLOCK": clock,
                      "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path}/rl.sqlite"})
    with app.app_context():
        upgrade()
    client = app.test_client()
    players = [Player(client, clock, n) for n in ("ann", "bob", "cyd")]
    assert players[0].register().status_code == 201
    assert players[1].register().status_code == 201
    r = players[2].register()
    assert r.status_code == 429 and r.get_json()["error"]["code"] == "rate_limited"
    ann = players[0]
    codes = []
    for _ in range(6):
        r = ann.get("/api/players/me")
        codes.append(r.status_code)
    assert "X-RateLimit-Limit" in r.headers and "X-RateLimit-Remaining" in r.headers
    assert codes[-1] == 429
    # forged requests in bob's name do not spend bob's allowance
    bob = players[1]
    for _ in range(8):
        forged = request_headers(ann.key, "bob", "GET", "/api/players/me", ts=clock())
        assert client.get("/api/players/me", headers=forged).status_code in (401, 429)
    assert bob.get("/api/players/me").status_code == 200


# Every endpoint that takes a game id, and what another player (eve) and an anonymous caller
# get: seat-only endpoints refuse; public ones answer with what a spectator may see.
ENDPOINTS = [
    ("GET", "/api/games/{id}/legal", None, (403,), (401,)),
    ("POST", "/api/games/{id}/join", {}, (409,), (401,)),
    ("POST", "/api/games/{id}/moves", "move", (403,), (403,)),
    ("GET", "/api/games/{id}/view?seat=north", None, (403,), (401,)),
    ("GET", "/api/games/{id}/view", None, (200,), (200,)),
    ("GET", "/api/games/{id}", None, (200,), (200,)),
    ("GET", "/api/games/{id}/log", None, (200,), (200,)),
    ("GET", "/api/games/{id}/archive", None, (200,), (200,)),
]


@pytest.mark.parametrize("method, path, body, other, anonymous", ENDPOINTS)
def test_every_game_endpoint_with_another_players_key_and_with_none(
        make_player, method, path, body, other, anonymous):
    game_id, (ann, bob) = start_pig(make_player)
    assert ann.play(game_id, "north", "peek").status_code == 201
    secret = ann.get(f"/api/games/{game_id}/log").get_json()["entries"][0]["events"][0]
    assert secret.startswith("north peeked at ")
    eve = make_player("eve")
    url = path.format(id=game_id)
    if body == "move":  # eve signs a move for ann's seat
        body = eve.move_body(game_id, "north", "roll")
    r = eve.request(method, url, body)
    assert r.status_code in other, r.get_json()
    assert secret not in r.get_data(as_text=True)
    if r.status_code == 200 and "view" in url:
        assert r.get_json()["seat"] is None and "secret" not in r.get_json()["view"]
    r = eve.request(method, url, body, signed=False)
    assert r.status_code in anonymous, r.get_json()
    assert secret not in r.get_data(as_text=True)
    if r.status_code >= 400:
        assert set(r.get_json()) == {"error"}


def test_rate_limits_are_shared_across_workers_with_redis(tmp_path, clock, monkeypatch):
    """Two app instances (as two gunicorn workers) count against one allowance in Redis."""
    import secrets
    redis = pytest.importorskip("redis")
    try:
        redis.Redis(host="127.0.0.1", port=6379, socket_timeout=1).ping()
    except redis.RedisError:
        pytest.skip("no Redis server on 127.0.0.1:6379")
    from flask_migrate import upgrade

    from server import create_app
    from tests.conftest import Player
    monkeypatch.setenv("PBEM_LIMIT_KEY", "4/minute")
    db_url = f"sqlite:///{tmp_path}/shared.sqlite"
    workers = []
    for i in range(2):
        app = create_app({"TESTING": True, "PBEM_CLOCK": clock, "SQLALCHEMY_DATABASE_URI": db_url,
                          "RATELIMIT_STORAGE_URI": "redis://127.0.0.1:6379",
                          "RATELIMIT_KEY_PREFIX": "pbem-test-" + secrets.token_hex(4)})
        if i == 0:
            with app.app_context():
                upgrade()
        else:
            app.config["RATELIMIT_KEY_PREFIX"] = workers[0].config["RATELIMIT_KEY_PREFIX"]
        workers.append(app)
    ann = Player(workers[0].test_client(), clock, "ann")
    assert ann.register().status_code == 201
    codes = []
    for i in range(6):
        ann.client = workers[i % 2].test_client()
        codes.append(ann.get("/api/players/me").status_code)
    assert codes[:3] == [200, 200, 200] and codes[-1] == 429


def test_view_for_a_seat_you_do_not_hold_is_403(make_player):
    game_id, (ann, bob) = start_pig(make_player)
    r = bob.get(f"/api/games/{game_id}/view?seat=north")
    assert r.status_code == 403


def test_oversized_body_is_413(make_player, client):
    r = client.post("/api/players", data=b"{" + b" " * 70000 + b"}",
                    content_type="application/json")
    assert r.status_code == 413 and r.get_json()["error"]["code"] == "too_large"


@pytest.mark.parametrize("extra", [{"seq": 5}, {"result": {"winners": ["north"]}},
                                   {"status": "over"}, {"id": "mine"}, {"created_by": 1}])
def test_server_owned_game_fields_cannot_be_set(make_player, extra):
    ann = make_player("ann")
    r = ann.post("/api/games", {"type": "pig", "seats": 2, **extra})
    assert r.status_code == 400, r.get_json()
    assert ann.get("/api/games").get_json()["games"] == []


@pytest.mark.parametrize("options", [{"x" * 40: 1}, {f"o{i}": 1 for i in range(30)},
                                     {"target": 1.5}, {"target": [1]}, {"target": "y" * 100}])
def test_option_caps(make_player, options):
    ann = make_player("ann")
    r = ann.post("/api/games", {"type": "pig", "seats": 2, "options": options})
    assert r.status_code in (400, 422), r.get_json()
