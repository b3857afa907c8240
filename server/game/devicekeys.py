"""Device keys on the server: the registry of a player's delegated keys and the one-time links
that delegate a browser's key (``pbem device add --browser``).

The proof that a device may move for a seat is its delegation, carried inside every envelope
it signs (``shared/delegation.py``): the server needs no registry to accept a delegated move.
The registry serves three things the log cannot:

- signed requests from a device home (``X-Pbem-Device``: the request is signed by a device key
  registered here, live and unrevoked, instead of the player's main key);
- ``pbem device list`` and ``pbem device revoke`` (which also appends ``@revoke`` entries to
  the player's running games, so archives show it);
- refusing at once a move of a device revoked here, or whose delegation ended by the
  server's clock.

A link (``DeviceLink``) is bound to the player who asked for it, single-use and short-lived
(``PBEM_DEVICE_LINK_MINUTES``, default 10): its token (only its SHA-256 is stored) lets a page
post one public key, then fetch the delegation the player's CLI signed for that key, once.
No private key ever reaches the server.
"""

import hashlib
import secrets
from datetime import timedelta

from flask import current_app
from sqlalchemy import update

from shared.delegation import (
    MAIL_LABEL,
    DelegationError,
    check_shape,
    fingerprint,
    is_mail_key,
    verify_delegation,
)

from ..clock import now, now_ts
from ..db import db
from ..db.models import DeviceKey, DeviceLink
from .domain import Conflict, Forbidden, Malformed, NotFound

TOKEN_BYTES = 32


def link_minutes():
    return int(current_app.config.get("PBEM_DEVICE_LINK_MINUTES") or 10)


def _token_hash(token):
    return hashlib.sha256(token.encode("ascii", "replace")).hexdigest()


# --- the registry ---------------------------------------------------------------------------

def live_devices(player):
    """The player's devices not revoked, oldest first (expired ones included: list shows
    them as ended)."""
    return db.session.execute(db.select(DeviceKey).filter_by(player_id=player.id,
                                                             revoked_at=None)
                              .order_by(DeviceKey.id)).scalars().all()


def register(player, delegation, mail=False):
    """Record ``delegation`` (signed by ``player``'s main key) in the registry; return the row.

    Refused: a delegation of the wrong shape (Malformed ``bad_delegation``), one that does
    not verify under the player's key or names another player (Forbidden ``bad_delegation``,
    as a move's delegation is: the shape is what the published schema says, the signature
    what no schema can), one already past its date, a label another live device of the
    player has, a device key already registered (Conflict).  The label "mail" is the mail
    key's (server/game/mailkeys.py, ``mail=True``): no other device takes it.
    """
    try:
        check_shape(delegation)
    except DelegationError as exc:
        raise Malformed("bad_delegation", exc.message) from None
    try:
        verify_delegation(delegation, player.public_key, player.name)
    except DelegationError as exc:
        raise Forbidden("bad_delegation", exc.message) from None
    if is_mail_key(delegation) != mail:
        raise Malformed("reserved_label", f"the label {MAIL_LABEL!r} is the mail key's, which "
                        "the server makes (pbem mail on): choose another label")
    if delegation["not_after"] <= now_ts():
        raise Malformed("delegation_expired", "this delegation has already ended")
    if any(d.label == delegation["label"] for d in live_devices(player)):
        raise Conflict("label_taken", f"you already have a device labelled "
                       f"{delegation['label']!r}: revoke it first or choose another label")
    taken = db.session.execute(db.select(DeviceKey.id).filter_by(
        device_key=delegation["device_key"])).first()
    if taken is not None:
        raise Conflict("device_taken", "that device key is already registered")
    row = DeviceKey(player_id=player.id, device_key=delegation["device_key"],
                    label=delegation["label"], not_after=delegation["not_after"],
                    signature=delegation["signature"], created_at=now())
    db.session.add(row)
    return row


def commit_or_conflict():
    """Commit; a rival registration of the same device key first is a Conflict, not a 500."""
    from sqlalchemy.exc import IntegrityError
    try:
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        raise Conflict("device_taken", "that device key is already registered") from None


def revoke(player, label):
    """Mark the player's live devices labelled ``label`` revoked, and end the standing orders
    they signed in every game (server/revocation.py); return (their keys, the orders
    ended)."""
    from .revocation import end_orders
    rows = [d for d in live_devices(player) if d.label == label]
    if not rows:
        raise NotFound("unknown_device", f"you have no device labelled {label[:40]!r}")
    for row in rows:
        row.revoked_at = now()
    keys = [r.device_key for r in rows]
    ended = end_orders(keys, player_id=player.id)
    db.session.commit()
    return keys, ended


def request_key(player, device_key):
    """The device key a request of ``player`` may be signed by (X-Pbem-Device), or None: it
    must be the player's, not revoked, not ended by the server's clock, and delegated by the
    player's current main key."""
    if not isinstance(device_key, str) or len(device_key) != 64:
        return None
    row = db.session.execute(db.select(DeviceKey).filter_by(
        player_id=player.id, device_key=device_key, revoked_at=None)).scalar_one_or_none()
    if row is None or row.not_after < now_ts() or row.label == MAIL_LABEL:
        return None  # a mail key signs moves made by mail, never a request
    try:  # signed by the player's key as it is now: a key rotation ends older delegations
        verify_delegation(row.delegation(player.name), player.public_key, player.name)
    except DelegationError:
        return None
    return row


def check_in_force(env):
    """The server's own checks of a delegated envelope, beyond verify_entry: its delegation
    has not ended by the server's clock (the receipt time), and the device is not revoked in
    the registry.  Raises Forbidden."""
    delegation = env["delegation"]
    if now_ts() > delegation["not_after"]:
        raise Forbidden("delegation_expired", f"the delegation of device "
                        f"{delegation['label']!r} ended at {delegation['not_after']} (server "
                        "time): ask for a new one (pbem device add)")
    revoked = db.session.execute(db.select(DeviceKey.id).where(
        DeviceKey.device_key == delegation["device_key"],
        DeviceKey.revoked_at.is_not(None))).first()
    if revoked is not None:
        raise Forbidden("device_revoked", f"device {delegation['label']!r} was revoked by its "
                        "player")


# --- one-time links for a browser's key -------------------------------------------------------

def issue_link(player, label):
    """A new link for ``player``'s device ``label``; returns (row, token)."""
    if label == MAIL_LABEL:
        raise Malformed("reserved_label", f"the label {MAIL_LABEL!r} is the mail key's, which "
                        "the server makes (pbem mail on): choose another label")
    if any(d.label == label for d in live_devices(player)):
        raise Conflict("label_taken", f"you already have a device labelled {label!r}: revoke "
                       "it first or choose another label")
    token = secrets.token_urlsafe(TOKEN_BYTES)
    row = DeviceLink(token_hash=_token_hash(token), player_id=player.id, label=label,
                     created_at=now(), expires_at=now() + timedelta(minutes=link_minutes()))
    db.session.add(row)
    if secrets.randbelow(50) == 0:  # now and then, forget links long dead
        db.session.execute(db.delete(DeviceLink).where(
            DeviceLink.expires_at < now() - timedelta(days=1)))
    db.session.commit()
    return row, token


class LinkGone(Exception):
    """A token that cannot be used: ``status`` 404 (never existed) or 410 (used, expired,
    cancelled); ``code`` the error code the API answers."""

    def __init__(self, status, message, code=None):
        super().__init__(message)
        self.status, self.message = status, message
        self.code = code or ("link_gone" if status == 410 else "unknown_link")


def link_by_token(token):
    """The live link of ``token``; raises LinkGone (unknown, expired or already done)."""
    if not isinstance(token, str) or not 20 <= len(token) <= 100 or not token.isascii():
        raise LinkGone(404, "this device link is not valid")
    row = db.session.execute(db.select(DeviceLink).filter_by(
        token_hash=_token_hash(token))).scalar_one_or_none()
    if row is None:
        raise LinkGone(404, "this device link is not valid")
    if row.done_at is not None and row.delegation is None:
        raise LinkGone(410, "the player answered No on the page that made this link (the "
                       "fingerprints differ): it is cancelled and nothing was delegated",
                       "link_cancelled")
    if row.done_at is not None:
        raise LinkGone(410, "this device link was already used: a link adds one device")
    if row.expires_at <= now():
        raise LinkGone(410, "this device link has expired: make a new one where this one was "
                       "made (a browser's settings page, or pbem device add --browser)")
    return row


def post_key(row, public_key):
    """The page's public key for ``row``, accepted once; returns its fingerprint."""
    from shared.envelope import valid_public_key
    if not isinstance(public_key, str) or len(public_key) != 64 \
            or public_key != public_key.lower() or not valid_public_key(public_key):
        raise Malformed("bad_key", "public_key must be an Ed25519 public key (64 lowercase hex "
                        "digits)")
    done = db.session.execute(update(DeviceLink).where(DeviceLink.id == row.id,
                                                       DeviceLink.public_key.is_(None))
                              .values(public_key=public_key))
    if done.rowcount != 1:
        db.session.rollback()
        raise Conflict("key_already_posted", "a key was already posted for this link: a link "
                       "adds one device")
    db.session.commit()
    return fingerprint(public_key)


def take_delegation(row):
    """The delegation for ``row``'s key (None while the player has not signed it); once
    given, the link is done and refused from then on."""
    if row.delegation is None:
        return None
    done = db.session.execute(update(DeviceLink).where(DeviceLink.id == row.id,
                                                       DeviceLink.done_at.is_(None))
                              .values(done_at=now()))
    if done.rowcount != 1:
        db.session.rollback()
        raise LinkGone(410, "this device link was already used: a link adds one device")
    db.session.commit()
    return row.delegation


def own_link(player, link_id):
    """``player``'s link ``link_id`` (another player's reads as unknown)."""
    row = db.session.get(DeviceLink, link_id) if 0 < link_id < 2 ** 31 else None
    if row is None or row.player_id != player.id:
        raise NotFound("unknown_link", f"you have no device link {link_id}")
    return row


def link_status(row):
    if row.done_at is not None:
        return "cancelled" if row.delegation is None else "done"
    if row.expires_at <= now():
        return "expired"
    if row.delegation is not None:
        return "delegated"
    return "key" if row.public_key else "waiting"


def cancel(row):
    """The player answered No to the fingerprint of the key posted for ``row`` (or gave the
    link up): the link is spent without a delegation, so the waiting ``pbem device claim``
    (or page) is told at once instead of when the link expires."""
    status = link_status(row)
    if status in ("expired", "done", "cancelled", "delegated"):
        raise Conflict(f"link_{status}", f"this device link is {status}: there is nothing "
                       "to cancel")
    done = db.session.execute(update(DeviceLink).where(DeviceLink.id == row.id,
                                                       DeviceLink.done_at.is_(None),
                                                       DeviceLink.delegation.is_(None))
                              .values(done_at=now()))
    if done.rowcount != 1:
        db.session.rollback()
        raise Conflict("link_done", "this device link was used meanwhile: nothing to cancel")
    db.session.commit()
    db.session.refresh(row)


def deliver(player, row, delegation):
    """The player's CLI gives the delegation it signed for the key the page posted."""
    status = link_status(row)
    if status in ("expired", "done", "cancelled"):
        raise Conflict(f"link_{status}", f"this device link is {status}")
    if status == "waiting":
        raise Conflict("no_key_yet", "the page has not posted its key yet")
    if status == "delegated":
        raise Conflict("already_delegated", "this link's device is already delegated")
    if not isinstance(delegation, dict) or delegation.get("device_key") != row.public_key:
        raise Malformed("bad_delegation", "the delegation is not for the key the page posted")
    if delegation.get("label") != row.label:
        raise Malformed("bad_delegation", f"the delegation's label is not {row.label!r}")
    register(player, delegation)
    done = db.session.execute(update(DeviceLink).where(DeviceLink.id == row.id,
                                                       DeviceLink.delegation.is_(None))
                              .values(delegation=delegation))
    if done.rowcount != 1:
        db.session.rollback()
        raise Conflict("already_delegated", "this link's device is already delegated")
    commit_or_conflict()
