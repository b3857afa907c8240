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
def make_limited(tmp_path, clock):
    """make(**config) -> an app with rate limits on, counting in its own database."""
    from flask_migrate import upgrade
    from server import create_app
    from server.extensions import db
    from server.limits import limiter
    url, cleanup = database_url(tmp_path)
    made = []

    def make(**config):
        app = create_app({"TESTING": True, "PBEM_CLOCK": clock, "SQLALCHEMY_DATABASE_URI": url,
                          "RATELIMIT_ENABLED": True, "RATELIMIT_STORAGE_URI": None, **config})
        with app.app_context():
            upgrade()
        made.append(app)
        return app

    yield make
    for app in made:
        with app.app_context():
            db.engine.dispose()
    storage = getattr(limiter, "_storage", None)
    if hasattr(storage, "dispose"):
        storage.dispose()
    cleanup()


@pytest.fixture
def limited_app(make_limited):
    return make_limited()


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


def _from(app, peer, forwarded=None):
    """A test client whose connection comes from ``peer``, claiming ``forwarded``."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = peer
    if forwarded:
        client.environ_base["HTTP_X_FORWARDED_FOR"] = forwarded
    return client


def test_x_forwarded_for_counts_only_from_the_proxys_own_address(make_limited):
    """Item 5: with PBEM_PROXY_HOPS=1 the app believed X-Forwarded-For from anyone.  A
    stranger who reached the port directly skipped every address limit (a new claimed
    address a request) and locked a chosen address out.  Now only the proxy's own address
    (loopback by default, PBEM_TRUSTED_PROXIES) is believed."""
    app = make_limited(PBEM_PROXY_HOPS=1, PBEM_LIMIT_ADDRESS="5/minute")
    victim = "198.51.100.7"
    stranger = "203.0.113.9"
    # the stranger claims the victim's address, past the proxy: counted as the stranger
    attack = [_from(app, stranger, victim).get("/api/types").status_code for _ in range(8)]
    assert attack == [200] * 5 + [429] * 3, attack
    # ... and claiming a fresh address each time does not reset the stranger's allowance
    rotated = [_from(app, stranger, f"10.9.0.{i}").get("/api/types").status_code
               for i in range(3)]
    assert rotated == [429] * 3
    # the victim, through the proxy (loopback), was not locked out
    through_proxy = _from(app, "127.0.0.1", victim)
    assert through_proxy.get("/api/types").status_code == 200
    # the proxy's own header is believed: each real client has its own allowance
    other = [_from(app, "127.0.0.1", "192.0.2.50").get("/api/types").status_code
             for _ in range(6)]
    assert other == [200] * 5 + [429]
    assert _from(app, "::1", "192.0.2.51").get("/api/types").status_code == 200
    # a proxy on another address is named in PBEM_TRUSTED_PROXIES
    app2 = make_limited(PBEM_PROXY_HOPS=1, PBEM_LIMIT_ADDRESS="5/minute",
                        PBEM_TRUSTED_PROXIES="10.1.0.0/16, 127.0.0.1")
    assert [_from(app2, "10.1.2.3", f"192.0.2.{60 + i}").get("/api/types").status_code
            for i in range(7)] == [200] * 7
    assert [_from(app2, "10.2.0.1", f"192.0.2.{70 + i}").get("/api/types").status_code
            for i in range(7)] == [200] * 5 + [429] * 2
    with pytest.raises(ValueError, match="PBEM_TRUSTED_PROXIES"):
        make_limited(PBEM_PROXY_HOPS=1, PBEM_TRUSTED_PROXIES="proxy.example.org")
    record("B5 a stranger past the proxy claiming X-Forwarded-For (address limit 5/minute)",
           f"{attack.count(429) + rotated.count(429)} of {len(attack) + len(rotated)} "
           f"refused once its own 5 were spent; the claimed victim still served through the "
           f"proxy")


def test_the_procfile_processes_listen_on_loopback_behind_a_proxy(monkeypatch):
    """Item 5: with PBEM_PROXY_HOPS set (a proxy expected) the Procfile's web and push
    processes bind 127.0.0.1; without a proxy, every address; PBEM_BIND overrides."""
    import runpy

    from tests.liveserver import ROOT
    for name in ("PBEM_BIND", "PBEM_PUSH_BIND", "PORT", "PBEM_PUSH_PORT", "PBEM_PROXY_HOPS"):
        monkeypatch.delenv(name, raising=False)
    web, push = (lambda: runpy.run_path(str(ROOT / "gunicorn_conf.py"))["bind"],
                 lambda: runpy.run_path(str(ROOT / "gunicorn_push.py"))["bind"])
    assert (web(), push()) == ("0.0.0.0:5000", "0.0.0.0:5001")
    monkeypatch.setenv("PBEM_PROXY_HOPS", "1")
    assert (web(), push()) == ("127.0.0.1:5000", "127.0.0.1:5001")
    monkeypatch.setenv("PORT", "8000")
    monkeypatch.setenv("PBEM_BIND", "0.0.0.0:9000")
    assert web() == "0.0.0.0:9000"


def _outside_address():
    """This machine's address on a non-loopback interface, or None."""
    import socket
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # no packet is sent: it picks the route's address
            address = s.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def test_the_procfile_web_process_behind_a_proxy_is_not_reachable_from_outside(tmp_path):
    """Item 5, as deployed: the Procfile's web line with PBEM_PROXY_HOPS=1 answers on
    loopback (where the proxy connects) and refuses a connection to the machine's outside
    address (it listened on 0.0.0.0)."""
    import os
    import signal
    import socket
    import subprocess

    from tests.liveserver import ROOT, _wait_healthy, free_port, procfile_command, server_env
    from tests.liveserver import upgrade as upgrade_db
    outside = _outside_address()
    if outside is None:
        pytest.skip("this machine has no non-loopback address to try")
    url, cleanup = database_url(tmp_path)
    port = free_port()
    env = server_env(url, tmp_path / "instance", {"PBEM_PROXY_HOPS": "1", "PORT": str(port),
                                                  "WEB_CONCURRENCY": "1"})
    env.pop("PBEM_BIND", None)
    upgrade_db(env)
    proc = subprocess.Popen(procfile_command("web") + ["--graceful-timeout", "2"], env=env,
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        _wait_healthy(proc, f"http://127.0.0.1:{port}", 60)
        with pytest.raises(OSError):
            socket.create_connection((outside, port), timeout=5).close()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(20)
        cleanup()
    record("B5 the Procfile's web process with PBEM_PROXY_HOPS=1, reached at the machine's "
           "outside address", "connection refused (loopback answers)")
