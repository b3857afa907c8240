"""Rate-limited apps: a client from a chosen address, Pig started on one, and an app's database
and rate-limit storage let go."""

from tests.conftest import Player


def _dispose(app, db):
    with app.app_context():
        db.engine.dispose()
    from server.http.limits import limiter
    storage = getattr(limiter, "_storage", None)
    if hasattr(storage, "dispose"):
        storage.dispose()


def client_from(app, address):
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def start_pig_on(client, clock):
    ann, bob = Player(client, clock, "ann"), Player(client, clock, "bob")
    assert ann.register().status_code == 201 and bob.register().status_code == 201
    game_id = ann.post("/api/games", {"type": "pig", "seats": 2}).get_json()["id"]
    assert bob.post(f"/api/games/{game_id}/join", {}).status_code == 200
    return game_id, ann, bob
