"""The second attack on the running service, part B: HTTP, deployment, archives, messages.

Each test runs on SQLite, and on PostgreSQL when PBEM_TEST_DATABASE_URL is set
(docs/RELIABILITY.md names each one with its figure).
"""

import json
import os
import re
import secrets
import shutil
import subprocess
import time

import pytest
import requests

from client.signing import request_headers, signed_move
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
    from server.db import db
    from server.http.limits import limiter
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


@pytest.mark.e2e
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

    from server.http.pushserver import bind_address
    from tests.liveserver import ROOT
    for name in ("PBEM_BIND", "PBEM_PUSH_BIND", "PORT", "PBEM_PUSH_PORT", "PBEM_PROXY_HOPS"):
        monkeypatch.delenv(name, raising=False)
    web, push = (lambda: runpy.run_path(str(ROOT / "gunicorn_conf.py"))["bind"],
                 lambda: "%s:%d" % bind_address())
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


# --- behind the shipped nginx (deploy/nginx.conf, the file itself), on a non-default port ---

NGINX = shutil.which("nginx") or next(
    (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.path.exists(p)), None)


@pytest.fixture(scope="module")
def front(tmp_path_factory):
    """The Procfile's web and push processes (PBEM_PROXY_HOPS=1) behind deploy/nginx.conf on a
    free port that is not 80; yields (front URL, deployment)."""
    if NGINX is None:
        pytest.skip("needs nginx (Debian: apt-get install nginx-light)")
    from tests.liveserver import ProcfileDeployment, free_port, nginx_config
    tmp = tmp_path_factory.mktemp("front")
    url, cleanup = database_url(tmp)
    deploy = ProcfileDeployment(url, tmp / "instance", log=tmp / "server.log",
                                extra_env={"PBEM_PROXY_HOPS": "1"})
    port = free_port()
    main = nginx_config(tmp, deploy.port, deploy.push_port, port)
    proxy = None
    try:
        deploy.start()
        proxy = subprocess.Popen([NGINX, "-c", str(main), "-p", str(tmp)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                 start_new_session=True)
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                requests.get(base + "/api/health", timeout=2)
                break
            except requests.RequestException:
                if proxy.poll() is not None:
                    pytest.fail("nginx exited: " + proxy.stderr.read().decode())
                time.sleep(0.1)
        yield base, deploy
    finally:
        if proxy is not None:
            proxy.terminate()
            proxy.wait(10)
        deploy.stop()
        cleanup()


class Signer:
    """A player over real HTTP: signed requests with the real clock."""

    def __init__(self, base, name):
        self.base, self.name = base, name
        self.key = secrets.token_bytes(32)

    def send(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else b""
        headers = request_headers(self.key, self.name, method, path, data, ts=int(time.time()))
        if body is not None:
            headers["Content-Type"] = "application/json"
        return requests.request(method, self.base + path, data=data, headers=headers,
                                timeout=30)

    def register(self):
        r = self.send("POST", "/api/players", {"name": self.name,
                                                "public_key": public_key_hex(self.key)})
        assert r.status_code == 201, r.text
        return self


def _started_pig(base):
    ann = Signer(base, "ann" + secrets.token_hex(3)).register()
    bob = Signer(base, "bob" + secrets.token_hex(3)).register()
    r = ann.send("POST", "/api/games", {"type": "pig", "seats": 2})
    assert r.status_code == 201, r.text
    game = r.json()["id"]
    assert bob.send("POST", f"/api/games/{game}/join", {}).status_code == 200
    return game, ann, bob


@pytest.mark.e2e
def test_links_made_behind_nginx_on_another_port_keep_the_port(front):
    """Item 14: deploy/nginx.conf passed ``Host $host``, which drops the port: behind nginx on
    port 8080 a sign-in link named port 80.  It passes ``$http_host`` now."""
    base, _ = front
    game, ann, _ = _started_pig(base)
    r = ann.send("POST", f"/api/games/{game}/link")
    assert r.status_code == 201, r.text
    link = r.json()["url"]
    assert link.startswith(base + "/login/"), (link, base)
    # the link works where it points
    page = requests.get(link, timeout=30, allow_redirects=False)
    assert page.status_code in (200, 302, 303), page.status_code
    record("B14 a sign-in link made behind nginx on a non-default port",
           f"names {base.split(':')[-1]}, the front's port (it named none: port 80)")


@pytest.mark.e2e
def test_a_real_archive_uploads_to_the_archive_page_through_nginx(front):
    """Item 9: deploy/nginx.conf capped every body at 64k, and the archive page's upload of a
    real archive (a finished Zarahemla game is ~474 KB) got nginx's 413.  /archive has the
    page's own cap (8 MiB) there now; other paths keep 64k."""
    base, _ = front
    game, ann, _ = _started_pig(base)
    archive = requests.get(f"{base}/api/games/{game}/archive", timeout=30)
    assert archive.status_code == 200, archive.text
    # the same archive, 480 KB long (JSON allows the whitespace; the verifier reads it alike)
    text = json.dumps(archive.json(), indent=1) + " " * (480 * 1024)
    r = requests.post(f"{base}/archive", files={"file": ("game.json", text.encode())},
                      timeout=60)
    assert r.status_code == 200, (r.status_code, r.text[:300])
    assert "Verified prefix" in r.text and game in r.text
    # the textarea of the page re-posts it when stepping: a form field, as big
    r = requests.post(f"{base}/archive", data={"archive": text, "step": "0"}, timeout=60)
    assert r.status_code == 200, (r.status_code, r.text[:300])
    # past the page's own cap: nginx's 413; elsewhere the API's 64k hold
    r = requests.post(f"{base}/archive", data=b"x" * (9 * 1024 * 1024), timeout=60,
                      headers={"Content-Type": "application/octet-stream"})
    assert r.status_code == 413
    r = requests.post(f"{base}/api/games/{game}/moves", data=b"x" * (70 * 1024), timeout=60,
                      headers={"Content-Type": "application/json"})
    assert r.status_code == 413
    record("B9 an archive page upload of 480 KB through the shipped nginx",
           "200, verified (it was nginx's 413); 9 MiB: 413; a 70 KB move: 413")


def test_the_archive_page_names_the_signing_key_and_whether_it_is_this_servers(
        app, client, make_player, tmp_path, clock):
    """Item 8: the archive page said "Verified" for an archive signed by any server (anyone
    can re-sign a rewritten game with a key of their own).  It shows the key's fingerprint and
    says whether it is this server's."""
    from flask_migrate import upgrade

    from server import create_app
    from server.db import db
    from shared.delegation import fingerprint
    ann, bob = make_player("ann"), make_player("bob")
    game = ann.post("/api/games", {"type": "pig", "seats": 2}).get_json()["id"]
    assert bob.post(f"/api/games/{game}/join", {}).status_code == 200
    text = client.get(f"/api/games/{game}/archive").get_data(as_text=True)
    ours = client.get("/api/server").get_json()["public_key"]
    page = client.post("/archive", data={"archive": text}).get_data(as_text=True)
    assert "Verified prefix" in page
    assert f"Signed by server key <code>{fingerprint(ours)}</code>: this server's key." in page
    # the same archive on another server (another key): verified, and said to be another's
    (tmp_path / "other").mkdir()
    url, cleanup = database_url(tmp_path / "other")
    other = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": url, "PBEM_CLOCK": clock,
                        "RATELIMIT_ENABLED": False})
    try:
        with other.app_context():
            upgrade()
        theirs = other.test_client().get("/api/server").get_json()["public_key"]
        assert theirs != ours
        page = other.test_client().post("/archive", data={"archive": text}) \
            .get_data(as_text=True)
        assert "Verified prefix" in page
        assert f"Signed by server key <code>{fingerprint(ours)}</code>, <strong>not this " \
               f"server's</strong> (this server signs with <code>{fingerprint(theirs)}" \
               f"</code>)" in page
    finally:
        with other.app_context():
            db.engine.dispose()
        cleanup()
    # a refused archive names no signer
    page = client.post("/archive", data={"archive": text.replace(game, "zzz", 1)})
    assert page.status_code == 422 and "Signed by server key" not in page.get_data(as_text=True)
    record("B8 the archive page on an archive of this server / of another server",
           "names the key's fingerprint: this server's / not this server's, with its own")


def test_message_ids_count_only_what_the_reader_may_read(app, client, make_player, clock):
    """Item 11: message ids were the table's, server-wide and sequential: a third seat saw a
    gap in them where two others wrote privately (and, from the neighbours' times, when).  A
    message's id is now its number among the messages its reader may read; ``since`` stays
    a cursor for every reader."""
    from tests.server.talk_helpers import say
    ann, bob, cat = make_player("ann"), make_player("bob"), make_player("cat")
    game = ann.post("/api/games", {"type": "pig", "seats": 3}).get_json()["id"]
    for p in (bob, cat):
        assert p.post(f"/api/games/{game}/join", {}).status_code == 200
    seat = {p.name: next(s["seat"] for s in client.get(f"/api/games/{game}").get_json()
                         ["seats"] if s["player"] == p.name) for p in (ann, bob, cat)}
    # ann and bob write privately between public messages; in a second game too (the ids
    # were server-wide: a message in another game left a gap as well)
    other = ann.post("/api/games", {"type": "pig", "seats": 2}).get_json()["id"]
    assert bob.post(f"/api/games/{other}/join", {}).status_code == 200
    script = [(ann, None, "hello all"), (ann, "bob", "psst"), (bob, "ann", "psst back"),
              (cat, None, "hi"), (ann, "bob", "again"), (bob, None, "bye")]
    posted = []
    for i, (who, to, text) in enumerate(script):
        r = say(who, game, seat[who.name], text, to=seat[to] if to else None)
        assert r.status_code == 201, r.get_json()
        posted.append(r.get_json()["id"])
        if i == 1:
            assert say(ann, other, "north", "elsewhere").status_code == 201

    def ids(reader, since=0):
        path = f"/api/games/{game}/messages?since={since}"
        r = reader.get(path) if reader else client.get(path)
        return [(m["id"], m["text"]) for m in r.get_json()["messages"]]

    # the third seat and a spectator: the public messages numbered 1, 2, 3 with no gap
    assert ids(cat) == [(1, "hello all"), (2, "hi"), (3, "bye")]
    assert ids(None) == ids(cat)
    # the two who talked privately see theirs numbered among the rest
    assert ids(ann) == [(1, "hello all"), (2, "psst"), (3, "psst back"), (4, "hi"),
                        (5, "again"), (6, "bye")]
    assert ids(bob) == ids(ann)
    # each writer got its own number back
    assert posted == [1, 2, 3, 2, 5, 6]
    # since is a cursor for each reader
    assert ids(cat, 1) == [(2, "hi"), (3, "bye")] and ids(cat, 3) == []
    assert ids(ann, 4) == [(5, "again"), (6, "bye")]
    # muting hides, and never renumbers
    assert ann.post("/api/mutes", {"player": "bob"}).status_code in (200, 201)
    assert ids(ann) == [(1, "hello all"), (2, "psst"), (4, "hi"), (5, "again")]
    record("B11 message ids a third seat reads after 3 public and 3 private messages "
           "(and one in another game)", f"{[i for i, _ in ids(cat)]}: no gap (were 1, 5, 7)")


def test_dropping_or_reordering_the_table_talk_of_an_archive_is_refused(make_player, client):
    """Item 10: "complete and verified" said nothing of table talk: dropping or reordering the
    messages of an archive still verified complete.  pbem-archive-v4 carries the server's
    signature of the ordered messages and orders, their reader and the head; a v3 archive
    still verifies, and its report says its messages are those the exporter chose."""
    import copy

    from shared.archive import V3_FORMAT, V4_FORMAT, ArchiveError, verify_archive
    from tests.helpers.api import start_pig
    from tests.server.talk_helpers import say
    game, (ann, bob) = start_pig(make_player, target=1)
    for who, seat, text, to in ((ann, "north", "gl", None), (bob, "east", "psst", "north"),
                                (ann, "north", "ok", "east"), (bob, "east", "hf", None)):
        assert say(who, game, seat, text, to=to).status_code == 201
    for _ in range(200):
        info = ann.get(f"/api/games/{game}/view").get_json()
        if info["game"]["status"] == "over":
            break
        seat = info["view"]["to_act"][0]
        player = ann if seat == "north" else bob
        assert player.play(game, seat, "hold" if info["view"]["pot"] else "roll") \
            .status_code == 201
    key = client.get("/api/server").get_json()["public_key"]
    mine = ann.get(f"/api/games/{game}/archive").get_json()
    public = client.get(f"/api/games/{game}/archive").get_json()
    assert mine["format"] == V4_FORMAT
    report = verify_archive(copy.deepcopy(mine), server_key=key)
    assert report["complete"] and report["documents"] == {"signed": True, "reader": "ann",
                                                          "note": None}
    assert [m["text"] for m in report["messages"]] == ["gl", "psst", "ok", "hf"]
    assert verify_archive(copy.deepcopy(public))["documents"]["reader"] is None
    attacks = {
        "a message dropped": lambda a: a["messages"].pop(1),
        "two messages swapped": lambda a: a["messages"].reverse(),
        "the last message dropped": lambda a: a["messages"].pop(),
        "the spectator's set with ann's signature": lambda a: a.update(
            messages=copy.deepcopy(public["messages"])),
        "ann's set with the spectator's signature": lambda a: a.update(
            documents=copy.deepcopy(public["documents"])),
        "the reader renamed": lambda a: a["documents"].update(reader="bob"),
        "the signature of the set removed": lambda a: a.pop("documents"),
        "an unknown key in the set's block": lambda a: a["documents"].update(extra=1),
    }
    refused = []
    for name, attack in attacks.items():
        archive = copy.deepcopy(mine)
        attack(archive)
        with pytest.raises(ArchiveError):
            verify_archive(archive, server_key=key)
        refused.append(name)
    # the same archive as v3 (no signature of the set) still verifies, and says what it
    # cannot prove; dropping a message there goes unseen, as before
    old = copy.deepcopy(mine)
    old["format"] = V3_FORMAT
    del old["documents"]
    old["messages"].pop(1)
    report = verify_archive(old, server_key=key)
    assert report["complete"] and not report["documents"]["signed"]
    assert "those its exporter chose" in report["documents"]["note"]
    # the page says which of the two it is
    page = client.post("/archive", data={"archive": json.dumps(mine)}).get_data(as_text=True)
    assert "4 message(s) and its standing orders are every one ann may read" in page
    page = client.post("/archive", data={"archive": json.dumps(old)}).get_data(as_text=True)
    assert "those its exporter chose" in page
    record("B10 a finished game's archive with 4 messages: its table talk dropped, reordered, "
           "swapped for another reader's, re-signed", f"{len(refused)} of {len(attacks)} "
           "attacks refused (a v3 archive: verified, with the note that its messages are the "
           "exporter's choice)")


def test_every_405_names_the_allowed_methods(app, client):
    """Item 13: 405 answers lacked ``Allow`` (RFC 9110 requires it; schemathesis's
    unsupported-method check found 34-35).  Every route of the URL map, every method it does
    not take: a 405 whose Allow lists what the path does take."""
    answered = 0
    for path, allowed in _routes_and_methods(app):
        for other in sorted({"GET", "POST", "PUT", "PATCH", "DELETE"} - allowed):
            r = client.open(path, method=other, data=b"{}", content_type="application/json")
            if r.status_code != 405:  # another rule on the same path takes it
                continue
            answered += 1
            assert "Allow" in r.headers, (other, path)
            named = {m.strip() for m in r.headers["Allow"].split(",")}
            assert allowed <= named, (other, path, r.headers["Allow"])
            if path.startswith("/api/"):
                assert r.get_json()["error"]["code"] == "method_not_allowed"
    assert answered > 40
    record("B13 405 answers (every route, every method it does not take)",
           f"{answered}, each with Allow")


def _routes_and_methods(app):
    out = []
    for rule in app.url_map.iter_rules():
        path = re.sub(r"<int:[^>]+>", "1", rule.rule)
        path = re.sub(r"<(?:[^:>]+:)?[^>]+>", "x", path)
        methods = {m for m in rule.methods if m not in ("HEAD", "OPTIONS")}
        out.append((path, methods))
    return out


def _request_strings(spec):
    """(schema name, property, its schema) of every string a request body may send."""
    for name, schema in spec["components"]["schemas"].items():
        if name in ("Error", "ErrorBody"):  # answers only
            continue
        for prop, sub in (schema.get("properties") or {}).items():
            if sub.get("readOnly"):
                continue
            if sub.get("type") == "string":
                yield name, prop, sub
            values = sub.get("additionalProperties")
            if isinstance(values, dict):
                for alt in values.get("anyOf", [values]):
                    if alt.get("type") == "string":
                        yield name, f"{prop} (values)", alt


def test_the_published_schema_allows_only_what_the_server_accepts(app, client, make_player):
    """Item 13: requests the published schema allowed were refused (schemathesis's
    positive-data check): ``tz: ""``, NUL in a JSON string, a malformed ``cursor``, an option
    whose value is an object.  The schema now says what the server accepts: every string a
    request sends excludes NUL, ``tz`` lists the zone names, ``cursor`` has its pattern,
    options their value types; and what it allows, the server takes."""
    from server.api.games import _read_cursor
    from server.http.schemas import GameCreateSchema, SettingsSchema
    spec = client.get("/api/openapi.json").get_json()
    strings = list(_request_strings(spec))
    assert len(strings) > 20
    for name, prop, sub in strings:
        if "enum" in sub:
            assert all("\x00" not in v for v in sub["enum"] if isinstance(v, str)), (name, prop)
        else:
            assert "pattern" in sub and re.search(sub["pattern"], "a\x00b") is None, \
                (name, prop, sub)
    # tz: the enum is what the server takes, "" and "message" are not in it
    tz = spec["components"]["schemas"]["Settings"]["properties"]["tz"]["enum"]
    assert "" not in tz and "message" not in tz and "Europe/Paris" in tz
    settings = SettingsSchema()
    assert all(settings.validate({"tz": name}) == {} for name in tz)
    ann = make_player("ann")
    assert ann.request("PATCH", "/api/players/me", {"tz": tz[-1]}).status_code == 200
    assert ann.request("PATCH", "/api/players/me", {"tz": ""}).status_code == 400
    # the cursor: what its pattern allows is a position in the list (200), the rest a 400
    params = {p["name"]: p for p in spec["paths"]["/api/games"]["get"]["parameters"]}
    pattern = params["cursor"]["schema"]["pattern"]
    for good in ("0.a", "99999999999999999.zzzzzzzzzzzzzzzz", "1800000000000000.abc"):
        assert re.search(pattern, good)
        _read_cursor(good)
        assert client.get(f"/api/games?cursor={good}").status_code == 200
    for bad in ("0" * 200, "AAAA", "1.", ".a", "1:a"):
        assert re.search(pattern, bad) is None
        assert client.get(f"/api/games?cursor={bad}").status_code == 400
    # a page's next is of that form
    for _ in range(3):
        ann.post("/api/games", {"type": "pig", "seats": 2})
    page = client.get("/api/games?limit=1").get_json()
    assert re.search(pattern, page["next"])
    # options: a value may be a string, an integer or a boolean, never an object or a list
    options = spec["components"]["schemas"]["GameCreate"]["properties"]["options"]
    assert options["additionalProperties"] is False and options["maxProperties"] == 20
    assert {"vp_to_win", "setup"} <= set(options["properties"])
    for value in options["properties"].values():
        assert {alt["type"] for alt in value["anyOf"]} == {"string", "integer", "boolean"}
    create = GameCreateSchema()
    for value in ("x" * 64, 7, True):
        assert create.validate({"type": "pig", "seats": 2, "options": {"o": value}}) == {}
    for value in ({}, [], 1.5, "x" * 65):
        assert create.validate({"type": "pig", "seats": 2, "options": {"o": value}}) != {}
    record("B13 request strings in the published schema that exclude NUL / tz names listed",
           f"{len(strings)} of {len(strings)} / {len(tz)}, each accepted")


def _children(pid):
    """The pids whose parent is ``pid`` (Linux /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(entry))
    return out


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.e2e
def test_killing_the_gunicorn_master_alone_ends_its_workers_and_loses_no_move(tmp_path):
    """Not attacked before: SIGKILL to the Procfile web process's master only.  Its workers
    see their parent gone and exit (no orphan keeps the port or a database connection);
    every move answered 201 before the kill is in the log after a restart."""
    import signal
    if not os.path.isdir("/proc"):
        pytest.skip("needs Linux /proc")
    url, cleanup = database_url(tmp_path)
    server = LiveServer(url, tmp_path / "instance", workers=2, kind="procfile")
    restarted = None
    try:
        server.start()
        game, ann, bob = _started_pig(server.url)
        by_seat = {"north": ann, "east": bob}
        accepted = []
        for _ in range(6):
            info = requests.get(f"{server.url}/api/games/{game}", timeout=30).json()
            seat = info["to_act"][0]
            view = by_seat[seat].send("GET", f"/api/games/{game}/view").json()
            body = signed_move(by_seat[seat].key, game, view["next_seq"], view["prev"], seat,
                               "roll", ts=int(time.time()))
            r = by_seat[seat].send("POST", f"/api/games/{game}/moves", body)
            assert r.status_code == 201, r.text
            accepted.append(r.json()["hash"])
        workers = _children(server.proc.pid)
        assert len(workers) == 2, workers
        os.kill(server.proc.pid, signal.SIGKILL)
        server.proc.wait(10)
        deadline = time.monotonic() + 60
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        orphans = [w for w in workers if _alive(w)]
        assert orphans == [], "workers outlived their master"
        restarted = LiveServer(url, tmp_path / "instance", workers=1, kind="procfile")
        restarted.port = server.port  # the port is free again: no orphan holds it
        restarted.start()
        log = requests.get(f"{restarted.url}/api/games/{game}/log", timeout=30).json()
        logged = [e["hash"] for e in log["entries"]]
        assert all(h in logged for h in accepted), (accepted, logged)
    finally:
        for s in (server, restarted):
            if s is not None and s.proc is not None:
                try:
                    os.killpg(s.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        cleanup()
    record("B the Procfile web master killed alone (SIGKILL), 2 workers",
           f"both workers exited; {len(accepted)} of {len(accepted)} accepted moves in the "
           "log after a restart on the same port")
