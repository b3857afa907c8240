"""Players: register a name with a public key; read a profile."""

from datetime import timedelta

from flask import current_app
from flask.views import MethodView
from sqlalchemy import update
from sqlalchemy.exc import IntegrityError

from ..clock import now
from ..db import db
from ..db.models import Duty, Player, RequestNonce
from ..game import timebank
from ..game.ratings import player_ratings
from ..http.auth import check_self_signed, current_player
from ..http.errors import Blueprint, fail
from ..http.idempotency import idempotent
from ..http.limits import registration_limit
from ..http.schemas import (
    KeyRotationSchema,
    MeSchema,
    PlayerCreateSchema,
    PlayerSchema,
    ProfileSchema,
    SettingsSchema,
    VacationSchema,
)

#: what PATCH /api/players/me may change (SettingsSchema's fields)
SETTINGS_FIELDS = ("email", "tz", "notify", "quiet_start", "quiet_end", "webhook_url",
                   "weekends_off")

blp = Blueprint("players", __name__, url_prefix="/api/players",
                description="Players and their public keys")


def _public(player, me=False):
    out = {"name": player.name, "public_key": player.public_key, "tz": player.tz,
           "created_at": player.created_at, "recovery_key": player.recovery_key,
           "recovery_certs": player.recovery_certs,
           "key_rotations": player.key_rotations or 0}
    if me:
        out["email"] = player.email
    return out


def _me(player):
    out = _public(player, me=True)
    out.update(notify=player.notify, quiet_start=player.quiet_start,
               quiet_end=player.quiet_end, webhook_url=player.webhook_url,
               weekends_off=bool(player.weekends_off),
               vacation_until=player.vacation_until,
               vacation_days_left=vacation_days_left(player))
    return out


def vacation_days_left(player):
    allowance = current_app.config.get("PBEM_VACATION_DAYS", 21)
    if player.vacation_year != now().year:
        return allowance
    return max(0, allowance - player.vacation_days_used)


@blp.route("")
class Players(MethodView):
    decorators = [registration_limit()]

    @idempotent
    @blp.arguments(PlayerCreateSchema)
    @blp.response(201, PlayerSchema)
    @blp.refusals(400, 401, 409)
    def post(self, data):
        """Register a player name with an Ed25519 public key.

        The request must be signed by the key it registers (proof of
        possession), with X-Pbem-Player set to the new name.
        """
        ts, nonce = check_self_signed(data["name"], data["public_key"])
        # a name differing only in case from one taken ("Ann" beside "ann") would pass for
        # that player in every list, message and tournament; a name of one player and the
        # key of another match two rows
        exists = db.session.execute(db.select(Player).where(
            (db.func.lower(Player.name) == data["name"].lower())
            | (Player.public_key == data["public_key"])).order_by(Player.id)).scalars().first()
        if exists is not None:
            what = "name" if exists.name.lower() == data["name"].lower() else "key"
            fail(409, f"{what}_taken", f"that {what} is already registered")
        recovery = _recovery(data["name"], data["public_key"], data["recovery_key"],
                             data["recovery_cert"])
        player = Player(name=data["name"], public_key=data["public_key"],
                        email=data["email"], tz=data["tz"], created_at=now(), **recovery)
        db.session.add(player)
        try:
            db.session.flush()
            db.session.add(RequestNonce(player_id=player.id, nonce=nonce, ts=ts))
            db.session.commit()
        except IntegrityError:
            db.session.rollback()
            fail(409, "name_taken", "that name or key is already registered")
        return _public(player, me=True)


@blp.route("/me")
class Me(MethodView):
    @blp.doc(security=[{"pbemSignature": []}])
    @blp.response(200, MeSchema)
    @blp.refusals(401)
    def get(self):
        """The caller's own profile and notification settings (signed request)."""
        return _me(current_player())

    @blp.doc(security=[{"pbemSignature": []}])
    @blp.arguments(SettingsSchema)
    @blp.response(200, MeSchema)
    @blp.refusals(400, 401, 422)
    def patch(self, data):
        """Change email, time zone, notices (every, digest, none), quiet hours, webhook."""
        player = current_player()
        if data.get("webhook_url") and not current_app.config.get("PBEM_WEBHOOK_ALLOW_PRIVATE"):
            _refuse_private_webhook(data["webhook_url"])
        changes = {field: data[field] for field in SETTINGS_FIELDS if field in data}
        secret = _settings_webhook(player, data["webhook_url"]) if "webhook_url" in data \
            else None
        if changes:
            db.session.execute(update(Player).where(Player.id == player.id).values(**changes))
        db.session.commit()  # expires ``player``: _me reads the stored settings back
        return dict(_me(player), webhook_secret=secret)


def _settings_webhook(player, url):
    """The settings' webhook is a ``json`` notice channel (server/workers/channels.py), signed as
    Standard Webhooks says: setting it makes the channel and a new secret, shown this once;
    null removes it."""
    from ..db.models import NoticeChannel
    from ..workers.channels import ChannelError, check_target
    old = [c for c in db.session.execute(db.select(NoticeChannel).filter_by(
        player_id=player.id, game_id=None, kind="json")).scalars() if c.target.get("settings")]
    for channel in old:
        db.session.delete(channel)
    if not url:
        return None
    try:
        target = check_target("json", {"url": url},
                              current_app.config.get("PBEM_WEBHOOK_ALLOW_PRIVATE", False))
    except ChannelError as exc:
        fail(422, "webhook_refused", exc.message)
    db.session.add(NoticeChannel(player_id=player.id, kind="json", status="active",
                                 failures=0, target=dict(target, settings=True)))
    return target["secret"]


def _refuse_private_webhook(url):
    """An early, clear refusal for a webhook URL naming a local address outright.

    Names are checked where it counts, on the address connected to when sending
    (server/workers/mailer.py): a name may resolve elsewhere by then.
    """
    from urllib.parse import urlsplit

    from ..workers.mailer import destination_refused
    host = (urlsplit(url).hostname or "").strip("[]").lower()
    import ipaddress
    import socket
    address = None
    try:
        address = str(ipaddress.ip_address(host.split("%", 1)[0]))
    except ValueError:
        try:  # the legacy IPv4 spellings a resolver accepts: 2130706433, 127.1, 0x7f.1
            address = socket.inet_ntoa(socket.inet_aton(host))
        except (OSError, ValueError):
            address = None
    if host in ("localhost", "") or host.endswith(".localhost") or \
            (address is not None and destination_refused(address)):
        fail(422, "webhook_refused", f"a webhook may not point at {host or 'that host'}: "
             "loopback, private, link-local and multicast addresses are refused (the "
             "server's operator may allow them with PBEM_WEBHOOK_ALLOW_PRIVATE)")


@blp.route("/me/vacation")
class Vacation(MethodView):
    @blp.doc(security=[{"pbemSignature": []}])
    @blp.arguments(VacationSchema)
    @blp.response(200, MeSchema)
    @blp.refusals(400, 401, 422)
    def post(self, data):
        """Take vacation days from now: your deadlines pause for that long."""
        player = current_player()
        left = vacation_days_left(player)
        if data["days"] > left:
            fail(422, "no_vacation_left", f"you have {left} vacation days left this year")
        current = now()
        if player.vacation_year != current.year:
            player.vacation_year, player.vacation_days_used = current.year, 0
        start = max(current, player.vacation_until or current)
        extra = timedelta(days=data["days"])
        player.vacation_until = start + extra
        player.vacation_days_used += data["days"]
        for duty in db.session.execute(db.select(Duty).filter_by(player_id=player.id)
                                       .filter(Duty.due_at.is_not(None))).scalars():
            duty.due_at = duty.due_at + extra
            timebank.shift(duty.game_id, duty.seat, extra)  # a time bank's spell, too
            duty.reminded = False
        db.session.commit()
        return _me(player)


@blp.route("/<name>")
class OnePlayer(MethodView):
    @blp.response(200, ProfileSchema)
    @blp.refusals(404)
    def get(self, name):
        """A player's public profile: name, public key, time zone, ratings per game type
        and team records of cooperative games."""
        player = db.session.execute(db.select(Player).filter_by(name=name)).scalar_one_or_none()
        if player is None:
            fail(404, "unknown_player", f"no player is registered as {name!r}")
        from ..game.records import player_record
        return {**_public(player), "record": player_record(player), **player_ratings(player)}


# --- key rotation (shared/table.py: @rotate entries) -----------------------------------------

def _recovery(name, public_key, recovery_key, cert):
    """The recovery columns of a new player: the recovery key bound by the registered key's
    certificate (``shared.table.recovery_message``), or none."""
    from shared.envelope import verify
    from shared.table import recovery_message
    if recovery_key is None and cert is None:
        return {}
    if recovery_key is None or cert is None:
        fail(422, "bad_recovery_cert", "give the recovery key and its certificate together")
    if not verify(public_key, recovery_message(name, recovery_key), cert):
        fail(422, "bad_recovery_cert", "the recovery certificate is not signed by the "
             "registered key for this name and recovery key")
    return {"recovery_key": recovery_key, "recovery_certs": {public_key: cert}}


@blp.route("/<name>/key")
class PlayerKey(MethodView):
    decorators = [registration_limit()]

    @blp.arguments(KeyRotationSchema)
    @blp.response(200, PlayerSchema)
    @blp.refusals(400, 403, 404, 409, 422)
    def post(self, data, name):
        """Replace the player's main key (games in progress learn it from their ``@rotate``
        entries; see docs/CLI.md, pbem key rotate).

        No signed request: ``proof`` is the signature of
        ``shared.table.key_rotation_message(name, old_key, public_key, rotation)`` (the key
        being replaced and the profile's ``key_rotations``) by the current main key
        (``by`` main) or by the recovery key registered with the player (``by`` recovery, for a
        lost main key).  A player with a recovery key gives ``recovery_cert``: the new key's
        signature binding the same recovery key, so that a later rotation by recovery verifies
        in games started under the new key.
        """
        from shared.envelope import verify
        from shared.table import key_rotation_message, recovery_message
        player = db.session.execute(db.select(Player).filter_by(name=name)
                                    .with_for_update()).scalar_one_or_none()
        if player is None:
            fail(404, "unknown_player", f"no player is registered as {name!r}")
        signer = player.public_key if data["by"] == "main" else player.recovery_key
        if signer is None:
            fail(403, "no_recovery_key", f"{name} registered no recovery key")
        rotation = player.key_rotations or 0
        if not verify(signer, key_rotation_message(name, player.public_key, data["public_key"],
                                                   rotation), data["proof"]):
            fail(403, "bad_proof", f"the proof is not signed by {name}'s "
                 f"{'main' if data['by'] == 'main' else 'recovery'} key for replacing the key "
                 f"{name} has now (rotation {rotation}); a proof is good once, for the key it "
                 "replaces")
        certs = dict(player.recovery_certs or {})
        if player.recovery_key is not None:
            cert = data["recovery_cert"]
            if cert is None or not verify(data["public_key"], recovery_message(
                    name, player.recovery_key), cert):
                fail(422, "bad_recovery_cert", "the new key must sign a recovery certificate "
                     "for the recovery key on file")
            certs[data["public_key"]] = cert
        if data["public_key"] != player.public_key:
            taken = db.session.execute(db.select(Player.id).filter_by(
                public_key=data["public_key"])).scalar_one_or_none()
            if taken is not None:
                fail(409, "key_taken", "that key is already registered")
        player.public_key = data["public_key"]
        player.recovery_certs = certs
        player.key_rotations = rotation + 1
        try:
            db.session.commit()
        except IntegrityError:
            db.session.rollback()
            fail(409, "key_taken", "that key is already registered")
        return _public(player)
