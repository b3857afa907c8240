"""Signed requests: proof that the caller holds a player's key.

A signed request carries four headers::

    X-Pbem-Player:    the player's name
    X-Pbem-Timestamp: seconds since the epoch (must be within the window)
    X-Pbem-Nonce:     single use, 8 to 64 characters
    X-Pbem-Signature: Ed25519 (hex) over shared.envelope.request_message(
                          method, path-with-query, timestamp, nonce, body)

An exact replay (same nonce), a stale timestamp, a signature moved to
another path or body, or an unknown player each get 401.  A device home adds
``X-Pbem-Device: <device public key>`` and signs with that key, which must be a
live device the player registered (``server/game/devicekeys.py``).
"""

import random
import re

from flask import g, request
from sqlalchemy.exc import IntegrityError

from shared.envelope import request_message, verify

from ..clock import now_ts
from ..db import db
from ..db.models import Player, RequestNonce
from ..game.domain import Unauthenticated

HEADERS = ("X-Pbem-Player", "X-Pbem-Timestamp", "X-Pbem-Nonce", "X-Pbem-Signature")
#: optional: the request is signed by this device key (hex), one the player delegated and
#: registered (server/game/devicekeys.py), instead of the player's main key
DEVICE_HEADER = "X-Pbem-Device"
# ASCII digits only: str.isdigit() also accepts "²", which int() then refuses (a 500 before)
_TIMESTAMP = re.compile(r"[0-9]{1,12}")
_NONCE = re.compile(r"[\x21-\x7e]{8,64}")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{1,31}")


def signed_path():
    qs = request.query_string.decode("latin-1")
    return request.path + ("?" + qs if qs else "")


def _check_signature(public_key, name):
    from flask import current_app
    ts_text = request.headers.get("X-Pbem-Timestamp", "")
    nonce = request.headers.get("X-Pbem-Nonce", "")
    sig = request.headers.get("X-Pbem-Signature", "")
    if not _TIMESTAMP.fullmatch(ts_text):
        raise Unauthenticated("bad_timestamp", "X-Pbem-Timestamp must be seconds since the epoch")
    window = current_app.config["PBEM_AUTH_WINDOW"]
    now = now_ts()
    if abs(now - int(ts_text)) > window:
        raise Unauthenticated("stale_request", f"the request's timestamp is more than {window} "
                              "seconds away from the server's clock; check your clock and retry")
    if not _NONCE.fullmatch(nonce):
        raise Unauthenticated("bad_nonce",
                              "X-Pbem-Nonce must be 8 to 64 printable ASCII characters")
    message = request_message(request.method, signed_path(), ts_text, nonce,
                              request.get_data(cache=True))
    if not verify(public_key, message, sig):
        raise Unauthenticated("bad_signature",
                              f"the request's signature does not match {name}'s key")
    return int(ts_text), nonce


def _use_nonce(player_id, nonce, ts):
    from flask import current_app
    db.session.add(RequestNonce(player_id=player_id, nonce=nonce, ts=ts))
    try:
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        raise Unauthenticated("replayed_request",
                              "this request was already used (its nonce is spent)") from None
    if random.random() < 0.01:  # prune spent nonces now and then; outside the window they are dead
        cutoff = now_ts() - 2 * current_app.config["PBEM_AUTH_WINDOW"]
        RequestNonce.query.filter(RequestNonce.ts < cutoff).delete()
        db.session.commit()


def current_player(required=True):
    """The authenticated Player, None for an unsigned request (when not required).

    A request with some but not all signature headers, or a bad signature,
    is always refused with 401.
    """
    if "player" in g:
        return g.player
    present = [h for h in HEADERS if h in request.headers]
    if not present:
        if required:
            raise Unauthenticated("unauthenticated", "this request must be signed by a player's "
                                  "key (X-Pbem-Player, X-Pbem-Timestamp, X-Pbem-Nonce, "
                                  "X-Pbem-Signature)")
        g.player = None
        return None
    if len(present) != len(HEADERS):
        missing = ", ".join(h for h in HEADERS if h not in request.headers)
        raise Unauthenticated("unauthenticated",
                              f"the request's signature headers are incomplete: {missing}")
    name = request.headers["X-Pbem-Player"]
    if not _NAME.fullmatch(name):
        raise Unauthenticated("unknown_player", f"no player is registered as {name[:40]!r}")
    player = db.session.execute(db.select(Player).filter_by(name=name)).scalar_one_or_none()
    if player is None:
        raise Unauthenticated("unknown_player", f"no player is registered as {name!r}")
    key = player.public_key
    if DEVICE_HEADER in request.headers:  # signed by a device key the player delegated
        from ..game.devicekeys import request_key
        device = request_key(player, request.headers[DEVICE_HEADER])
        if device is None:
            raise Unauthenticated("unknown_device", f"{DEVICE_HEADER} names no live device of "
                                  f"{name} (revoked, ended or never registered)")
        key, g.pbem_device = device.device_key, device
    ts, nonce = _check_signature(key, name)
    _use_nonce(player.id, nonce, ts)
    g.player = player
    g.pbem_verified_player = player.name
    return player


def check_self_signed(name, public_key):
    """For registration: the request must be signed by the key being registered."""
    if request.headers.get("X-Pbem-Player") != name:
        raise Unauthenticated("unauthenticated", "a registration must be signed by the key it "
                              "registers, with X-Pbem-Player set to the new name")
    checked = _check_signature(public_key, name)
    g.pbem_verified_player = name
    return checked
