"""The second attack on the running service, part B: HTTP, deployment, archives, messages.

Each test runs on SQLite, and on PostgreSQL when PBEM_TEST_DATABASE_URL is set
(docs/RELIABILITY.md names each one with its figure).
"""

import json
import re
import time

import pytest
import requests

from client.signing import request_headers
from shared.envelope import public_key_hex
from tests.conftest import database_url
from tests.figures import record
from tests.liveserver import LiveServer

BIG = 70 * 1024  # over the API's 64 KiB cap (PBEM_MAX_BODY)


@pytest.fixture
def limited_app(tmp_path, clock):
    """An app with rate limits on, counting in its own database (the default storage)."""
    from flask_migrate import upgrade
    from server import create_app
    from server.extensions import db
    from server.limits import limiter
    url, cleanup = database_url(tmp_path)
    app = create_app({"TESTING": True, "PBEM_CLOCK": clock, "SQLALCHEMY_DATABASE_URI": url,
                      "RATELIMIT_ENABLED": True, "RATELIMIT_STORAGE_URI": None})
    with app.app_context():
        upgrade()
    yield app
    with app.app_context():
        db.engine.dispose()
    storage = getattr(limiter, "_storage", None)
    if hasattr(storage, "dispose"):
        storage.dispose()
    cleanup()


def _writing_routes(app):
    """(method, path) of every route of the URL map that takes a body, placeholders filled."""
    out = []
    for rule in app.url_map.iter_rules():
        path = re.sub(r"<int:[^>]+>", "1", rule.rule)
        path = re.sub(r"<(?:[^:>]+:)?[^>]+>", "x", path)
        for method in sorted(rule.methods & {"POST", "PUT", "PATCH", "DELETE"}):
            out.append((method, path))
    return out


def test_an_oversized_body_is_413_on_every_writing_route_with_limits_on(limited_app):
    """Item 4: a 70 KB body to /moves or /messages with the limits on was a 500: the limiter's
    after-request hook read the body (to learn the seat it names) and raised
    RequestEntityTooLarge inside the 413's own error handler."""
    from server.web import archive as archive_view
    client = limited_app.test_client()
    routes = _writing_routes(limited_app)
    assert ("POST", "/api/games/x/moves") in routes and ("POST", "/api/games/x/messages") \
        in routes and ("PATCH", "/api/players/me") in routes
    seen = []
    for method, path in routes:
        size = archive_view.MAX_ARCHIVE_BYTES + 1 if path == "/archive" else BIG
        for headers in ({}, {"X-Pbem-Player": "ann"}):
            body = b'{"envelope": "' + b"x" * size + b'"}'
            r = client.open(path, method=method, data=body, headers=headers,
                            content_type="application/json")
            seen.append((method, path, r.status_code))
            assert r.status_code == 413, (method, path, r.status_code, r.data[:300])
            if path.startswith("/api/"):
                error = r.get_json()["error"]
                assert error["code"] == "too_large" and error["message"], (method, path)
            else:
                assert b"Too large" in r.data, (method, path)
    record("B4 oversized bodies with the limits on (every POST/PUT/PATCH/DELETE route, "
           "with and without a named player)",
           f"{len(seen)} requests over {len(routes)} routes, {len(seen)} x 413, 0 x 5xx")


def test_an_oversized_chunked_body_to_the_procfile_web_process_is_413(tmp_path):
    """Item 4, as reported: straight to the Procfile's web process (gunicorn, gthread, limits
    on), a 70 KB move or message, with a length or chunked, is a 413 with the JSON body (it
    was a 500, or the connection dropped)."""
    url, cleanup = database_url(tmp_path)
    server = LiveServer(url, tmp_path / "instance", workers=1, kind="procfile",
                        extra_env={"PBEM_RATELIMIT": "on"})
    try:
        server.start()
        codes = []
        for path in ("/api/games/x/moves", "/api/games/x/messages"):
            body = b'{"envelope": "' + b"x" * BIG + b'"}'
            chunked = (body[i:i + 8192] for i in range(0, len(body), 8192))
            for data in (body, chunked):
                r = requests.post(server.url + path, data=data, timeout=30,
                                  headers={"Content-Type": "application/json"})
                codes.append(r.status_code)
                assert r.status_code == 413, (path, r.status_code, r.text[:300])
                assert r.json()["error"]["code"] == "too_large"
        # a chunked body under the cap is read whole, as one with a length is (the signature
        # covers the body's hash)
        key = bytes(range(32))
        body = json.dumps({"name": "chunky", "public_key": public_key_hex(key)}).encode()
        headers = request_headers(key, "chunky", "POST", "/api/players", body,
                                  ts=int(time.time()))
        r = requests.post(server.url + "/api/players", data=iter([body[:10], body[10:]]),
                          headers={"Content-Type": "application/json", **headers}, timeout=30)
        assert r.status_code == 201, r.text
    finally:
        server.stop()
        cleanup()
    record("B4 70 KB moves and messages to the Procfile's web process, limits on (with a "
           "length, chunked)", f"{codes.count(413)} of {len(codes)} x 413")
