"""Moves by plain mail: the mail key the server holds for a player, and the reply tokens of
the mails it sends them.

A player who turns moves by mail on (``pbem mail on``, or the switch on /settings) asks the
server for a fresh key (:func:`prepare`): the server makes it and keeps its private half
(:class:`~server.db.models.MailKey`, sealed with ``PBEM_MAIL_KEY_SECRET`` when the operator
sets one).  The player's main key then signs a delegation of that key, labelled ``"mail"``
(``shared/delegation.py``), which the server registers like any device's
(:func:`activate`).  From then on a plain reply to a turn notice is signed by the mail key,
the delegation inside its envelope: every archive shows which moves the server signed for the
player and that the player allowed it; the table state refuses any table entry a mail key
signs.  ``pbem mail off`` revokes the key (the registry at once, then an ``@revoke`` entry
signed by the main key in each running game) and the private half is wiped (:func:`turn_off`).

A reply token is good for one move: the ``seq`` owed by ``seat`` of ``game_id`` when the mail
was sent.  It travels in the notice's Reply-To address and its Message-ID; only its SHA-256 is
stored.  What it proves, and what it does not, is in docs/DEPLOYMENT.md.
"""

import hashlib
import secrets

from flask import current_app
from sqlalchemy import update

from shared.delegation import (
    MAIL_LABEL,
    DelegationError,
    fingerprint,
    is_mail_key,
    verify_delegation,
)
from shared.envelope import make_envelope, public_key_hex, sign_envelope

from ..clock import now, now_ts
from ..db import db
from ..db.models import MailKey, MailToken
from . import devicekeys
from .domain import Conflict, Malformed, NotFound

TOKEN_BYTES = 16
#: a token as it travels: 32 lowercase hex digits
TOKEN_LENGTH = 2 * TOKEN_BYTES
_SEAL_DOMAIN = b"pbem-mail-key-seal-v1\n"


# --- the private half, sealed at rest --------------------------------------------------------

def _sealing_key():
    secret = current_app.config.get("PBEM_MAIL_KEY_SECRET")
    return hashlib.sha256(_SEAL_DOMAIN + secret.encode("utf-8")).digest() if secret else None


def seal(private_key):
    """The stored form of a mail key's private half: AES-GCM under the operator's
    ``PBEM_MAIL_KEY_SECRET`` ("aesgcm:" + hex of nonce and ciphertext), or without that
    setting "plain:" + hex (as the server keeps its own signing key)."""
    key = _sealing_key()
    if key is None:
        return "plain:" + private_key.hex()
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    nonce = secrets.token_bytes(12)
    return "aesgcm:" + (nonce + AESGCM(key).encrypt(nonce, private_key, _SEAL_DOMAIN)).hex()


def unseal(text):
    """The private half of a stored mail key, or None when it cannot be read (wiped, or
    sealed under a secret this server no longer has)."""
    if not text:
        return None
    kind, _, data = text.partition(":")
    try:
        raw = bytes.fromhex(data)
    except ValueError:
        return None
    if kind == "plain":
        return raw if len(raw) == 32 else None
    key = _sealing_key()
    if kind != "aesgcm" or key is None:
        return None
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    try:
        return AESGCM(key).decrypt(raw[:12], raw[12:], _SEAL_DOMAIN)
    except InvalidTag:
        return None


# --- turning it on and off ---------------------------------------------------------------------

def max_days():
    return int(current_app.config.get("PBEM_MAIL_KEY_DAYS") or 365)


def _device(player):
    """The player's mail key in the registry, not revoked (maybe ended), or None."""
    return next((d for d in devicekeys.live_devices(player) if d.label == MAIL_LABEL), None)


def prepare(player):
    """A fresh mail key for ``player``, waiting for the delegation their main key signs;
    returns its public key (hex).  Refused while a mail key is on (Conflict ``mail_on``)."""
    if _device(player) is not None:
        raise Conflict("mail_on", "moves by mail are already on: turn them off first "
                       "(pbem mail off), then on again for a new key")
    db.session.execute(db.delete(MailKey).where(MailKey.player_id == player.id,
                                                MailKey.delegated_at.is_(None)))
    private = secrets.token_bytes(32)
    public = public_key_hex(private)
    db.session.add(MailKey(player_id=player.id, device_key=public, private_key=seal(private),
                           created_at=now()))
    db.session.commit()
    return public


def activate(player, delegation):
    """Register the delegation ``player``'s main key signed for the key :func:`prepare`
    made; return the registry row.  Refused: a delegation not labelled "mail", for another
    key, longer than ``PBEM_MAIL_KEY_DAYS``, or not signed by the player's key."""
    if not isinstance(delegation, dict) or not is_mail_key(delegation):
        raise Malformed("bad_delegation", f"a mail key's delegation is labelled "
                        f"{MAIL_LABEL!r}")
    if not isinstance(delegation.get("device_key"), str):
        raise Malformed("bad_delegation", "the delegation's device key is not an Ed25519 "
                        "public key (64 lowercase hex digits)")
    row = db.session.execute(db.select(MailKey).filter_by(
        player_id=player.id, device_key=delegation.get("device_key"),
        delegated_at=None)).scalar_one_or_none()
    if row is None:
        raise NotFound("unknown_mail_key", "this server made no such mail key for you (or it "
                       "is delegated already): run pbem mail on again")
    not_after = delegation.get("not_after")
    if isinstance(not_after, int) and not_after - now_ts() > max_days() * 86400 + 3600:
        raise Malformed("delegation_too_long", f"a mail key is delegated for at most "
                        f"{max_days()} days on this server")
    device = devicekeys.register(player, delegation, mail=True)
    row.delegated_at = now()
    devicekeys.commit_or_conflict()
    return device


def turn_off(player):
    """Revoke ``player``'s mail key in the registry, wipe its private half and spend its
    tokens; return (its public keys, the standing orders ended).  NotFound ``mail_off``
    when it is not on."""
    if _device(player) is None:
        raise NotFound("mail_off", "moves by mail are not on for you")
    keys, ended = devicekeys.revoke(player, MAIL_LABEL)  # commits
    db.session.execute(update(MailKey).where(MailKey.device_key.in_(keys))
                       .values(private_key=None, revoked_at=now()))
    db.session.execute(update(MailToken).where(MailToken.player_id == player.id,
                                               MailToken.spent_at.is_(None))
                       .values(spent_at=now()))
    db.session.commit()
    return keys, ended


def live_key(player):
    """(private key bytes, delegation) of ``player``'s mail key in force now, or None: on,
    not ended by the server's clock, delegated by the player's current main key, and its
    private half readable."""
    device = _device(player)
    if device is None or device.not_after < now_ts():
        return None
    delegation = device.delegation(player.name)
    try:
        verify_delegation(delegation, player.public_key, player.name)
    except DelegationError:  # a key rotation ended it
        return None
    row = db.session.execute(db.select(MailKey).filter_by(
        device_key=device.device_key, revoked_at=None)).scalar_one_or_none()
    private = unseal(row.private_key) if row is not None else None
    if private is None or public_key_hex(private) != device.device_key:
        return None
    return private, delegation


def status(player):
    """What the caller reads of their mail key: {on, device_key, fingerprint, not_after,
    ended}."""
    device = _device(player)
    if device is None:
        return {"on": False, "device_key": None, "fingerprint": None, "not_after": None,
                "ended": False}
    ended = device.not_after < now_ts() or live_key(player) is None
    return {"on": not ended, "device_key": device.device_key,
            "fingerprint": fingerprint(device.device_key), "not_after": device.not_after,
            "ended": ended}


def sign_move(private, delegation, game, seat, move):
    """(envelope text, signature) of ``move`` for ``seat`` at ``game``'s head, signed by the
    mail key, its delegation in the envelope.  Raises EnvelopeError for a move text no
    envelope may carry."""
    env = make_envelope(game.id, game.head_seq + 1, game.head_hash, seat, move,
                        secrets.token_hex(12), now_ts(), delegation=delegation)
    return sign_envelope(private, env)


# --- reply tokens ------------------------------------------------------------------------------

def _token_hash(token):
    return hashlib.sha256(token.encode("ascii", "replace")).hexdigest()


def _mail_domain():
    sender = current_app.config.get("PBEM_MAIL_FROM") or "pbem@localhost"
    return sender.rpartition("@")[2].strip(" >") or "localhost"


def reply_address(token):
    """The address a reply carrying ``token`` goes to: ``PBEM_MAIL_REPLY_TO`` with the token
    for "{token}", else PBEM_MAIL_FROM's with "+TOKEN" after its local part."""
    template = current_app.config.get("PBEM_MAIL_REPLY_TO")
    if template and "{token}" in template:
        return template.replace("{token}", token)
    sender = current_app.config.get("PBEM_MAIL_FROM") or "pbem@localhost"
    from email.utils import parseaddr
    address = parseaddr(sender)[1] or "pbem@localhost"
    local, _, domain = address.rpartition("@")
    return f"{local.split('+', 1)[0]}+{token}@{domain}"


def message_id(token):
    return f"<pbem.{token}@{_mail_domain()}>"


def issue_token(player, game_id, seat, seq):
    """A new reply token for move ``seq`` of ``seat`` in ``game_id``, in the caller's
    transaction; returns the mail headers that carry it (Reply-To, Message-ID)."""
    token = secrets.token_hex(TOKEN_BYTES)
    db.session.add(MailToken(token_hash=_token_hash(token), player_id=player.id,
                             game_id=game_id, seat=seat, seq=seq, created_at=now()))
    return {"Reply-To": reply_address(token), "Message-ID": message_id(token)}


def token_row(token):
    """The stored token ``token`` names, or None."""
    if not isinstance(token, str) or len(token) != TOKEN_LENGTH:
        return None
    return db.session.execute(db.select(MailToken).filter_by(
        token_hash=_token_hash(token.lower()))).scalar_one_or_none()


def spend(row):
    """Mark ``row`` spent, in the caller's transaction; False when another reply did first."""
    done = db.session.execute(update(MailToken).where(MailToken.id == row.id,
                                                      MailToken.spent_at.is_(None))
                              .values(spent_at=now()))
    return done.rowcount == 1


def opted_in(player):
    return live_key(player) is not None


