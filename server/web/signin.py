"""Signing a player into the pages without a password: one-time links and the session cookie.

``pbem open GAME`` sends a signed request (the player's Ed25519 key, as for every API call) to
``POST /api/games/GAME/link``; :func:`issue_link` answers with a random token that is good for
one use within ``PBEM_LINK_MINUTES`` (default 10).  Opening ``/login/TOKEN`` spends it
(:func:`redeem_link`) and sets the session cookie: the player's id, signed with a key derived
from the server's own key (so every worker agrees and a restart keeps sessions), expiring
after ``PBEM_SESSION_HOURS`` (default 12).  The cookie is HttpOnly, SameSite=Strict, and
Secure (under the ``__Host-`` prefix) when the page is served over HTTPS.

Guarantees: a token is never stored (only its SHA-256); a used, expired, unknown or malformed
token is refused the same way; a cookie that is forged, expired or names a player who no
longer exists reads as "nobody" (the spectator view), never as an error.
"""

import hashlib
import hmac
import secrets
from datetime import timedelta

from flask import current_app, request
from itsdangerous import BadSignature, URLSafeTimedSerializer
from sqlalchemy import update

from ..clock import now, now_ts
from ..db import db
from ..db.models import Player, WebLink

COOKIE = "pbem_session"
SECURE_COOKIE = "__Host-pbem_session"
TOKEN_BYTES = 32
_SALT = "pbem-web-session"


class LinkRefused(Exception):
    """The link cannot sign anyone in; ``message`` says why, ``code`` is the page's status
    (404 for a link that never existed, 410 for one used or expired)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code, self.message = code, message


def _token_hash(token):
    return hashlib.sha256(token.encode("ascii", "replace")).hexdigest()


def _setting(name, default):
    return int(current_app.config.get(name) or default)


def link_minutes():
    """How long a sign-in link stays good (``PBEM_LINK_MINUTES``, default 10)."""
    return _setting("PBEM_LINK_MINUTES", 10)


def session_hours():
    """How long a browser stays signed in (``PBEM_SESSION_HOURS``, default 12)."""
    return _setting("PBEM_SESSION_HOURS", 12)


def issue_link(player, game_id):
    """A fresh one-time token for ``player`` (opening ``game_id``); returns (token, expires_at)."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    expires = now() + timedelta(minutes=link_minutes())
    db.session.add(WebLink(token_hash=_token_hash(token), player_id=player.id, game_id=game_id,
                           created_at=now(), expires_at=expires))
    if secrets.randbelow(50) == 0:  # now and then, forget links that can no longer be used
        db.session.execute(db.delete(WebLink).where(WebLink.expires_at < now() - timedelta(days=1)))
    db.session.commit()
    return token, expires


def redeem_link(token):
    """Spend ``token``; returns (player, game id).  Raises LinkRefused (used, expired, unknown)."""
    if not isinstance(token, str) or not 20 <= len(token) <= 100 or not token.isascii():
        raise LinkRefused(404, "this sign-in link is not valid")
    digest = _token_hash(token)
    link = db.session.execute(db.select(WebLink).filter_by(token_hash=digest)).scalar_one_or_none()
    if link is None:
        raise LinkRefused(404, "this sign-in link is not valid")
    if link.used_at is not None:
        raise LinkRefused(410, "this sign-in link was already used: a link signs in once")
    current = now()
    if link.expires_at <= current:
        raise LinkRefused(410, "this sign-in link has expired")
    spent = db.session.execute(update(WebLink).where(WebLink.id == link.id,
                                                     WebLink.used_at.is_(None))
                               .values(used_at=current))
    if spent.rowcount != 1:
        db.session.rollback()
        raise LinkRefused(410, "this sign-in link was already used: a link signs in once")
    db.session.commit()
    player = db.session.get(Player, link.player_id)
    if player is None:
        raise LinkRefused(410, "this sign-in link's player is no longer registered")
    return player, link.game_id


# --- the session cookie ---------------------------------------------------------------------

def _serializer():
    cached = current_app.extensions.get("pbem_web_serializer")
    if cached is None:
        from ..db.keys import server_key
        secret = current_app.config.get("SECRET_KEY") or hmac.new(
            server_key()[0], b"pbem web session v1", hashlib.sha256).digest()
        cached = current_app.extensions["pbem_web_serializer"] = URLSafeTimedSerializer(
            secret, salt=_SALT)
    return cached


def _secure():
    return request.is_secure or current_app.config.get("PBEM_BASE_URL", "").startswith("https:")


def set_session(response, player):
    """Sign ``player`` in on ``response``: the cookie, HttpOnly, SameSite=Strict, expiring."""
    value = _serializer().dumps({"p": player.id, "t": now_ts()})
    max_age = session_hours() * 3600
    name = SECURE_COOKIE if _secure() else COOKIE
    response.set_cookie(name, value, max_age=max_age, path="/", secure=_secure(), httponly=True,
                        samesite="Strict")
    return response


def clear_session(response):
    for name in (COOKIE, SECURE_COOKIE):
        if name in request.cookies:
            response.delete_cookie(name, path="/", secure=name == SECURE_COOKIE, httponly=True,
                                   samesite="Strict")
    return response


def session_player():
    """The signed-in Player, or None (no cookie, forged, expired, or the player is gone)."""
    value = request.cookies.get(SECURE_COOKIE) or request.cookies.get(COOKIE)
    if not value or len(value) > 500:
        return None
    try:
        data = _serializer().loads(value)
    except BadSignature:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("p"), int) \
            or not isinstance(data.get("t"), int):
        return None
    # the age is checked against the server's clock (replaceable in tests), not the signer's
    if not -60 <= now_ts() - data["t"] <= session_hours() * 3600:
        return None
    return db.session.get(Player, data["p"])
