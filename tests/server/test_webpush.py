"""Web Push against a local push service: the payload decrypts with the browser's own keys,
says only what a spectator may know plus "your move", carries the game as its topic, is
authorised by the server's VAPID key, and a 410 drops the subscription."""

import base64
import json

import pytest

from server.game.domain import Malformed
from server.workers.channels import ChannelError, PublicNotice
from tests.helpers.receiver import Receiver
from tests.helpers.webpush import PushKeys as Browser
from tests.helpers.webpush import b64url as _b64

NOTICE = PublicNotice(kind="turn", headline="Your move in The Settlers of Zarahemla k7m2q9xa3b",
                      game_id="k7m2q9xa3b", lines=("blue placed a road on 33-38",),
                      url="https://pbem.example/g/k7m2q9xa3b")


@pytest.fixture
def push_app(app):
    app.config["PBEM_WEBHOOK_ALLOW_PRIVATE"] = True  # the local push service is on loopback
    return app


def _player(name="ann"):
    from server.db import db
    from server.db.models import Player
    player = Player(name=name, public_key=(name.encode().hex() * 32)[:64])
    db.session.add(player)
    db.session.commit()
    return player


def test_a_push_decrypts_with_the_browsers_keys_and_says_only_the_public_part(push_app):
    from server.workers import webpush
    service = Receiver(status=201)
    try:
        with push_app.app_context():
            browser = Browser(service.url + "/push/abc")
            ann = _player()
            webpush.subscribe(ann, browser.endpoint, browser.p256dh, _b64(browser.auth), "phone")
            assert webpush.push_to_player(ann, NOTICE) == 1
            got = service.requests[-1]
            headers = {k.lower(): v for k, v in got["headers"].items()}
            assert got["path"] == "/push/abc"
            assert headers["content-encoding"] == "aes128gcm"
            assert headers["topic"] == "pbem-k7m2q9xa3b" and int(headers["ttl"]) > 0
            body = browser.decrypt(got["body"])
            assert body == {"title": NOTICE.headline, "body": "blue placed a road on 33-38",
                            "url": NOTICE.url, "tag": "pbem-k7m2q9xa3b", "game": "k7m2q9xa3b",
                            "kind": "turn"}
            # the push service sees only ciphertext
            assert b"road" not in got["body"] and b"k7m2q9xa3b" not in got["body"]
            # authorised by the server's VAPID key, for this push service's origin
            scheme, _, rest = headers["authorization"].partition(" ")
            assert scheme == "vapid"
            parts = dict(p.split("=", 1) for p in rest.split(","))
            assert parts["k"] == webpush.vapid_public_key()
            claims = json.loads(base64.urlsafe_b64decode(parts["t"].split(".")[1] + "=="))
            assert claims["aud"] == service.url and claims["sub"].startswith("mailto:")
    finally:
        service.close()


def test_a_subscription_the_push_service_forgot_is_dropped(push_app):
    from server.workers import webpush
    service = Receiver(status=410)
    try:
        with push_app.app_context():
            ann = _player()
            browser = Browser(service.url + "/push/gone")
            webpush.subscribe(ann, browser.endpoint, browser.p256dh, _b64(browser.auth))
            assert webpush.push_to_player(ann, NOTICE) == 0
            assert webpush.subscriptions(ann) == []
    finally:
        service.close()


def test_a_failing_push_service_is_retried_later_and_the_subscription_kept(push_app):
    from server.workers import webpush
    service = Receiver(status=503)
    try:
        with push_app.app_context():
            ann = _player()
            browser = Browser(service.url + "/push/busy")
            webpush.subscribe(ann, browser.endpoint, browser.p256dh, _b64(browser.auth))
            with pytest.raises(ChannelError) as failed:
                webpush.push_to_player(ann, NOTICE)
            assert not failed.value.permanent
            assert len(webpush.subscriptions(ann)) == 1
    finally:
        service.close()


def test_a_subscription_to_a_private_address_is_refused(app):
    from server.workers import webpush
    with app.app_context():
        ann = _player()
        browser = Browser("http://127.0.0.1:9/push")
        with pytest.raises(Malformed):  # plain http: refused when it is set
            webpush.subscribe(ann, browser.endpoint, browser.p256dh, _b64(browser.auth))
        # an https name that reaches loopback is refused where it connects
        service = Receiver(status=201)
        try:
            port = service.server.server_address[1]
            sub = webpush.subscribe(ann, f"https://localhost:{port}/push", browser.p256dh,
                                    _b64(browser.auth))
            with pytest.raises(ChannelError) as refused:
                webpush.push(sub, NOTICE)
            assert refused.value.permanent and "refused destination" in refused.value.message
            assert service.requests == []
        finally:
            service.close()


@pytest.mark.parametrize("endpoint, p256dh, auth, words", [
    ("https://push.example/x", "AAAA", _b64(bytes(16)), "P-256 public key"),
    ("https://push.example/x", _b64(b"\x04" + bytes(64)), _b64(bytes(16)), "P-256"),
    ("https://push.example/x", None, _b64(bytes(16)), "P-256"),
    ("https://push.example/x", "valid", "short", "P-256"),
    ("ftp://push.example/x", "x", "y", "https://"),
    ("https://push.example/" + "x" * 1000, "x", "y", "1000 characters"),
    ("https://push.example/a b", "x", "y", "one URL"),
])
def test_malformed_subscriptions_are_refused_with_a_sentence(endpoint, p256dh, auth, words):
    from server.workers.webpush import check_subscription
    if p256dh == "valid":
        p256dh = Browser("x").p256dh
        words = "16-byte secret"
    with pytest.raises(Malformed) as refused:
        check_subscription(endpoint, p256dh, auth)
    assert words in refused.value.message


def test_the_vapid_key_is_made_once_and_kept(app):
    from server.workers import webpush
    with app.app_context():
        first = webpush.vapid_public_key()
        app.extensions.pop("pbem_vapid")
        assert webpush.vapid_public_key() == first
        raw = base64.urlsafe_b64decode(first + "==")
        assert len(raw) == 65 and raw[0] == 4
