"""Web Push: a turn notice on the phone's lock screen, from the browser the player plays in.

The browser subscribes with the server's VAPID key (RFC 8292; ``vapid_public_key``, made once
and kept in the database, or ``PBEM_VAPID_PRIVATE_KEY``) and hands the server its push
service's endpoint and its keys (RFC 8291: ``p256dh`` and ``auth``).  A push is encrypted for
that browser alone (``aes128gcm``, by ``pywebpush``); the push service only carries it.

What a push says is a :class:`server.channels.PublicNotice`: what a spectator may know, plus
"your move in GAME"; never a hand or a private message (a lock screen is read by anyone
nearby).  Each push of a game carries the game as its ``Topic`` (a newer push replaces one the
service still holds) and as the notification's ``tag`` (the browser shows the newest only).

An endpoint is a URL the browser gave: it is sent to only through the guard that checks the
address connected to (``server.workers.mailer``), like every webhook.  A push service answering 404
or 410 has forgotten the subscription: it is dropped.
"""

import base64
import json
import re
from urllib.parse import urlparse

from flask import current_app

from ..db import db
from ..db.models import PushSubscription, ServerSecret
from ..game.domain import Malformed
from .channels import ChannelError, PublicNotice

#: how long a push service keeps an undelivered push (seconds): a day, as a turn can wait
TTL = 24 * 3600
_B64URL = re.compile(r"[A-Za-z0-9_\-]+={0,2}\Z")


def _b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _b64url(data):
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def vapid():
    """The server's VAPID key (a ``py_vapid.Vapid02``): configured, or made once and kept."""
    from py_vapid import Vapid02
    cached = current_app.extensions.get("pbem_vapid")
    if cached is not None:
        return cached
    raw = current_app.config.get("PBEM_VAPID_PRIVATE_KEY")
    if not raw:
        row = db.session.get(ServerSecret, "vapid")
        if row is None:
            from cryptography.hazmat.primitives.asymmetric import ec
            key = ec.generate_private_key(ec.SECP256R1())
            raw = _b64url(key.private_numbers().private_value.to_bytes(32, "big"))
            db.session.add(ServerSecret(name="vapid", value=raw))
            try:
                db.session.commit()
            except Exception:  # noqa: BLE001 - another worker made it first: use theirs
                db.session.rollback()
                raw = db.session.get(ServerSecret, "vapid").value
        else:
            raw = row.value
    key = Vapid02.from_raw(raw.encode("ascii"))
    current_app.extensions["pbem_vapid"] = key
    return key


def vapid_public_key():
    """The ``applicationServerKey`` a page subscribes with: the uncompressed P-256 point,
    base64url."""
    from cryptography.hazmat.primitives import serialization
    return _b64url(vapid().public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))


def check_subscription(endpoint, p256dh, auth, allow_private=False):
    """The subscription's three parts, checked; Malformed saying what is wrong.

    The endpoint is an https URL of a push service (plain http and any host only when the
    operator allows private addresses); ``p256dh`` the browser's P-256 public key (65 bytes,
    uncompressed), ``auth`` its 16-byte secret, both base64url.
    """
    if not isinstance(endpoint, str) or not 10 <= len(endpoint) <= 1000 \
            or any(c.isspace() for c in endpoint):
        raise Malformed("bad_subscription", "the push endpoint is one URL of at most 1000 "
                        "characters")
    u = urlparse(endpoint)
    if not u.hostname or u.scheme not in (("http", "https") if allow_private else ("https",)):
        raise Malformed("bad_subscription", "the push endpoint is an https:// address")
    key, secret = _decoded(p256dh), _decoded(auth)
    if len(key) != 65 or key[0] != 4 or not _on_curve(key):
        raise Malformed("bad_subscription", "p256dh is the browser's P-256 public key: 65 "
                        "bytes in base64url")
    if len(secret) != 16:
        raise Malformed("bad_subscription", "auth is the subscription's 16-byte secret in "
                        "base64url")
    return endpoint, p256dh.rstrip("="), auth.rstrip("=")


def _decoded(text):
    if not isinstance(text, str) or not _B64URL.match(text):
        return b""
    try:
        return _b64url_decode(text.rstrip("="))
    except ValueError:
        return b""


def _on_curve(point):
    from cryptography.hazmat.primitives.asymmetric import ec
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        return False
    return True


def payload(notice: PublicNotice):
    """The push's JSON, which the service worker (static/sw.js) shows: a title, a body of
    public lines, the game's page and the tag that replaces the game's older push."""
    return {"title": notice.headline[:120], "body": "\n".join(notice.lines)[:600],
            "url": notice.url, "tag": f"pbem-{notice.game_id}" if notice.game_id else "pbem",
            "game": notice.game_id, "kind": notice.kind}


def _topic(game_id):
    # RFC 8030 5.4: at most 32 characters of the base64url alphabet
    return re.sub(r"[^A-Za-z0-9_\-]", "-", f"pbem-{game_id or 'notice'}")[:32]


def push(subscription, notice, allow_private=False):
    """Send ``notice`` to one subscription: "sent", or "gone" (the push service forgot it: the
    caller drops it).  ChannelError for a failure worth retrying later."""
    import requests
    from pywebpush import WebPushException, webpush

    from .mailer import PrivateDestination, _checked_session
    session = requests.Session() if allow_private else _checked_session()
    session.trust_env = False
    sender = current_app.config.get("PBEM_MAIL_FROM") or "pbem@localhost"
    info = {"endpoint": subscription.endpoint,
            "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth}}
    try:
        with session:
            resp = webpush(info, json.dumps(payload(notice), ensure_ascii=False),
                           vapid_private_key=vapid(), vapid_claims={"sub": f"mailto:{sender}"},
                           ttl=TTL, timeout=10, requests_session=session,
                           headers={"Topic": _topic(notice.game_id), "Urgency": "normal"})
    except WebPushException as exc:
        status = exc.response.status_code if exc.response is not None else None
        if status in (404, 410):
            return "gone"
        raise ChannelError(f"push service answered {status}",
                           permanent=status is not None and 400 <= status < 500
                           and status not in (408, 429)) from None
    except PrivateDestination as exc:
        raise ChannelError(f"refused destination {exc} (loopback, private, link-local or "
                           "multicast)", permanent=True) from None
    except requests.RequestException as exc:
        cause = exc.__context__ or exc
        if isinstance(cause, PrivateDestination) or "PrivateDestination" in repr(exc):
            raise ChannelError("refused destination (loopback, private, link-local or "
                               "multicast)", permanent=True) from None
        raise ChannelError(f"push service: {exc.__class__.__name__}") from None
    if getattr(resp, "status_code", 201) in (404, 410):
        return "gone"
    return "sent"


def subscribe(player, endpoint, p256dh, auth, label=None):
    """Keep a subscription for ``player`` (the same endpoint again replaces its keys; an
    endpoint another player holds is theirs no more: a browser has one owner at a time)."""
    allow = current_app.config.get("PBEM_WEBHOOK_ALLOW_PRIVATE", False)
    endpoint, p256dh, auth = check_subscription(endpoint, p256dh, auth, allow)
    row = db.session.execute(db.select(PushSubscription).filter_by(endpoint=endpoint)) \
        .scalar_one_or_none()
    if row is None:
        row = PushSubscription(player_id=player.id, endpoint=endpoint, p256dh=p256dh,
                               auth=auth, label=(label or None) and label[:64])
        db.session.add(row)
    else:
        row.player_id, row.p256dh, row.auth = player.id, p256dh, auth
        row.label = (label or None) and label[:64]
    db.session.commit()
    return row


def unsubscribe(player, endpoint):
    """Forget ``player``'s subscription at ``endpoint``: True when there was one."""
    row = db.session.execute(db.select(PushSubscription).filter_by(
        endpoint=endpoint, player_id=player.id)).scalar_one_or_none()
    if row is None:
        return False
    db.session.delete(row)
    db.session.commit()
    return True


def subscriptions(player):
    return db.session.execute(db.select(PushSubscription).filter_by(player_id=player.id)
                              .order_by(PushSubscription.id)).scalars().all()


def push_to_player(player, notice):
    """Push ``notice`` to every subscription of ``player``; dropped those that are gone.

    Returns the number sent; ChannelError when none went and one may go later.
    """
    allow = current_app.config.get("PBEM_WEBHOOK_ALLOW_PRIVATE", False)
    sent, failed = 0, None
    for sub in subscriptions(player):
        try:
            outcome = push(sub, notice, allow)
        except ChannelError as exc:
            failed = exc
            continue
        if outcome == "gone":
            db.session.delete(sub)
            db.session.commit()
        else:
            sent += 1
    if not sent and failed is not None:
        raise failed
    return sent
