"""inbound mail is no spam relay, webhooks reach no local address.

Runs on SQLite, and on PostgreSQL when PBEM_TEST_DATABASE_URL is set.
"""

import logging
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from server.db import db
from server.db.models import Notice
from tests.figures import count, record
from tests.helpers.mail import _mail, armored, pig_game, tick


def notices(app):
    with app.app_context():
        return [(n.to_address, n.kind, n.body) for n in db.session.execute(
            db.select(Notice).order_by(Notice.id)).scalars()]


def raw_post(client, raw, **headers):
    return client.post("/api/mail/inbound", data=raw, content_type="message/rfc822",
                       headers=headers)


def test_inbound_mail_is_refused_without_a_token_or_an_explicit_opening(app, client,
                                                                        make_player, clock):
    """As reported: with no PBEM_INBOUND_TOKEN, 20 forged posts queued 20 reply mails to an
    address the messages only claimed."""
    game_id, ann, bob = pig_game(make_player, clock)
    before = notices(app)
    for i in range(20):
        r = raw_post(client, _mail("victim@example.net", f"spam {i}", subject=f"buy {i}"))
        assert r.status_code == 403
        assert r.get_json()["error"]["code"] == "inbound_closed"
        assert "PBEM_INBOUND_TOKEN" in r.get_json()["error"]["message"]
    assert notices(app) == before
    record("5 forged inbound mails with no token", "20 x 403, 0 notices queued")


def test_a_wrong_token_is_401(app, client):
    app.config["PBEM_INBOUND_TOKEN"] = "right"
    for given in ("wrong", "", "righ", "right\u00e9"):
        r = raw_post(client, _mail("a@example.net", "x"), **{"X-Pbem-Inbound-Token": given})
        assert r.status_code == 401 and r.get_json()["error"]["code"] == "bad_inbound_token"


def test_opened_inbound_mail_replies_only_to_the_signing_players_address(app, client,
                                                                         make_player, clock):
    """Even opened (PBEM_INBOUND_OPEN), a reply goes to the registered address of the player
    whose key signed the block, never to the From header."""
    app.config["PBEM_INBOUND_OPEN"] = True
    game_id, ann, bob = pig_game(make_player, clock)
    before = len(notices(app))
    # 20 forged messages claiming to come from someone: no block, a bogus block, a block
    # signed by the wrong key, a block for no game
    info = ann.get(f"/api/games/{game_id}/view").get_json()
    forged, _ = armored(bob, game_id, "north", "peek", 0, info["prev"], clock)
    bodies = ["hello", "-----BEGIN PBEM MOVE-----\nAAAA\n-----END PBEM MOVE-----", forged]
    for i in range(20):
        r = raw_post(client, _mail("victim@example.net", bodies[i % 3]))
        assert r.status_code == 200
    assert len(notices(app)) == before
    # a real block sent from somebody else's address: Ann's result goes to Ann only
    block, _ = armored(ann, game_id, "north", "peek", 0, info["prev"], clock)
    r = raw_post(client, _mail("victim@example.net", block))
    assert r.get_json()["results"][0]["status"] == "accepted"
    new = notices(app)[before:]
    assert [(to, kind) for to, kind, _ in new] == [("ann@example.org", "mail-reply")]
    # a block the rules refuse: the reason is mailed to its player, not answered to the poster
    info = ann.get(f"/api/games/{game_id}/view").get_json()
    bad, _ = armored(ann, game_id, "north", "jump", info["next_seq"], info["prev"], clock)
    r = raw_post(client, _mail("victim@example.net", bad))
    result = r.get_json()["results"][0]
    assert result["status"] == "refused" and "jump" not in result["reason"]
    to, kind, body = notices(app)[-1]
    assert to == "ann@example.org" and "'jump' is not a move" in body


def test_an_open_inbound_warns_in_the_log_at_start(tmp_path, monkeypatch, caplog):
    from server import create_app
    monkeypatch.setenv("PBEM_INBOUND_OPEN", "1")
    monkeypatch.delenv("PBEM_INBOUND_TOKEN", raising=False)
    with caplog.at_level(logging.WARNING, logger="pbem.server"):
        create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path}/x.db"})
    assert any("PBEM_INBOUND_OPEN" in r.getMessage() for r in caplog.records)


class Receiver:
    """A webhook receiver on loopback: what the notice worker must not reach by default."""

    def __init__(self):
        got = self.got = []

        class Hook(BaseHTTPRequestHandler):
            def do_POST(self):
                got.append(self.rfile.read(int(self.headers["Content-Length"])))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Hook)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize("url", ["http://127.0.0.1:{port}/hook", "http://localhost:{port}/hook",
                                 "http://[::1]:{port}/hook", "http://10.1.2.3/hook",
                                 "http://169.254.169.254/latest/meta-data",
                                 "http://192.168.0.1/", "http://224.0.0.1/",
                                 "http://0.0.0.0:{port}/", "http://[::ffff:127.0.0.1]:{port}/",
                                 "http://2130706433:{port}/"])
def test_a_webhook_to_a_local_address_is_refused_when_set(make_player, url):
    ann = make_player("ann")
    r = ann.request("PATCH", "/api/players/me", {"webhook_url": url.format(port=8000)})
    assert r.status_code in (400, 422), r.get_json()
    count("5 local webhook URLs refused when set", "of 10")


def test_the_notice_worker_never_posts_to_loopback(app, make_player, clock):
    """As reported: the notice worker posted to loopback.  The check is on the address the
    connection reached, when sending: a name that resolves to 127.0.0.1 (here: one set while
    the operator allowed local webhooks, or one whose DNS changed since) is still refused."""
    with Receiver() as hook:
        app.config["PBEM_WEBHOOK_ALLOW_PRIVATE"] = True   # set while allowed...
        game_id, ann, bob = pig_game(
            make_player, clock,
            ann_settings={"webhook_url": f"http://127.0.0.1:{hook.server.server_port}/h"})
        app.config["PBEM_WEBHOOK_ALLOW_PRIVATE"] = False  # ...sent once no longer allowed
        tick(app)
        assert hook.got == []
        with app.app_context():
            failed = db.session.execute(db.select(Notice).filter_by(channel="channel")) \
                .scalars().all()
            assert failed and all("refused destination 127.0.0.1" in (n.last_error or "")
                                  for n in failed)
        record("5 webhook notices to a loopback receiver (the notice worker)",
               f"{len(failed)} refused when sent, 0 requests received")
        # the operator's setting lets a local receiver through (the tests' own receivers)
        app.config["PBEM_WEBHOOK_ALLOW_PRIVATE"] = True
        clock.advance(3600)
        tick(app)
        assert hook.got


def test_a_name_resolving_to_loopback_is_refused_on_the_connected_address(monkeypatch):
    """DNS rebinding: the name passed every check made on the name; the connection reaches
    127.0.0.1 and is closed before a byte of the request is sent."""
    import socket

    from server.workers.mailer import SendError, post_webhook
    real = socket.getaddrinfo

    def rebound(host, *args, **kwargs):
        return real("127.0.0.1" if host == "hooks.example.com" else host, *args, **kwargs)

    with Receiver() as hook:
        monkeypatch.setattr(socket, "getaddrinfo", rebound)
        with pytest.raises(SendError, match="refused destination 127.0.0.1"):
            post_webhook(f"http://hooks.example.com:{hook.server.server_port}/h", {"x": 1})
        assert hook.got == []
        post_webhook(f"http://hooks.example.com:{hook.server.server_port}/h", {"x": 1},
                     allow_private=True)
        assert len(hook.got) == 1


@pytest.mark.parametrize("ip, refused", [
    ("127.0.0.1", True), ("10.0.0.1", True), ("172.16.5.4", True), ("192.168.1.1", True),
    ("169.254.169.254", True), ("224.0.0.251", True), ("::1", True), ("fe80::1", True),
    ("fc00::1", True), ("ff02::1", True), ("::ffff:10.0.0.1", True), ("0.0.0.0", True),
    ("100.64.0.1", True), ("93.184.216.34", False), ("2606:2800:220:1::1", False)])
def test_which_destinations_are_refused(ip, refused):
    from server.workers.mailer import destination_refused
    assert destination_refused(ip) is refused
