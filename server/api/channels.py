"""Notice channels, chat ids and Web Push subscriptions (server/workers/channels.py,
server/workers/channel_outbox.py, server/workers/webpush.py)."""

from flask import current_app
from flask.views import MethodView

from ..clock import now_ts
from ..db import db
from ..db.models import NoticeChannel
from ..http.auth import current_player
from ..http.errors import Blueprint, fail
from ..http.schemas import (
    ChannelCreateSchema,
    ChannelListSchema,
    ChannelSchema,
    ChatIdsSchema,
    NoBodySchema,
    PushEndpointSchema,
    PushSubscribeSchema,
    SecretSchema,
    TestResultSchema,
    VapidSchema,
)
from ..workers import channel_outbox, webpush
from ..workers.channels import (
    ChannelError,
    build_request,
    check_target,
    new_secret,
    public_target,
    send,
)
from .games import SIGNED, get_or_404

blp = Blueprint("channels", __name__, url_prefix="/api",
                description="Where notices go: chat channels, chat ids, Web Push")

#: channels one player may have (its own) and one game may have
MAX_CHANNELS, MAX_GAME_CHANNELS = 8, 3
GAME_KINDS = ("discord", "slack", "matrix", "telegram")


def _allow_private():
    return current_app.config.get("PBEM_WEBHOOK_ALLOW_PRIVATE", False)


def _json(channel, secret=None):
    return {"id": channel.id, "kind": channel.kind,
            "target": public_target(channel.kind, channel.target), "status": channel.status,
            "failures": channel.failures, "stopped_reason": channel.stopped_reason,
            "game": channel.game_id, "secret": secret}


def _checked(kind, target):
    try:
        return check_target(kind, target, _allow_private())
    except ChannelError as exc:
        fail(422, "bad_channel", exc.message)


def _mine(player, channel_id):
    channel = db.session.get(NoticeChannel, channel_id)
    if channel is None or channel.player_id != player.id:
        fail(404, "unknown_channel", f"you have no channel {channel_id}")
    return channel


def _list(player):
    own = db.session.execute(db.select(NoticeChannel).filter_by(player_id=player.id)
                             .order_by(NoticeChannel.id)).scalars().all()
    push = [{"endpoint": s.endpoint[:40] + "...", "label": s.label,
             "created_at": s.created_at.isoformat() if s.created_at else None}
            for s in webpush.subscriptions(player)]
    return {"channels": [_json(c) for c in own], "chat_ids": player.chat_ids or {},
            "push": push}


@blp.route("/players/me/channels")
class MyChannels(MethodView):
    @blp.doc(security=SIGNED)
    @blp.response(200, ChannelListSchema)
    @blp.refusals(401)
    def get(self):
        """Your notice channels (secrets cut short), your chat ids, your push subscriptions."""
        return _list(current_player())

    @blp.doc(security=SIGNED)
    @blp.arguments(ChannelCreateSchema)
    @blp.response(201, ChannelSchema)
    @blp.refusals(401, 409, 422)
    def post(self, data):
        """Add a channel of your own. A ``json`` channel's signing secret is in the answer
        this once (Standard Webhooks): keep it to check the signatures."""
        player = current_player()
        target = _checked(data["kind"], data["target"])
        count = db.session.execute(db.select(db.func.count(NoticeChannel.id)).filter_by(
            player_id=player.id, game_id=None)).scalar_one()
        if count >= MAX_CHANNELS:
            fail(409, "too_many_channels", f"you have {MAX_CHANNELS} channels, the most "
                 "allowed: remove one first")
        channel = NoticeChannel(player_id=player.id, kind=data["kind"], target=target,
                                status="active", failures=0)
        db.session.add(channel)
        db.session.commit()
        return _json(channel, target.get("secret"))


@blp.route("/players/me/channels/<int:channel_id>")
class MyChannel(MethodView):
    @blp.doc(security=SIGNED)
    @blp.response(204)
    @blp.refusals(401, 404)
    def delete(self, channel_id):
        """Remove one of your channels (a game's channel you set too)."""
        channel = _mine(current_player(), channel_id)
        db.session.delete(channel)
        db.session.commit()
        return ""


@blp.route("/players/me/channels/<int:channel_id>/test")
class TestChannel(MethodView):
    @blp.doc(security=SIGNED)
    @blp.arguments(NoBodySchema)
    @blp.response(200, TestResultSchema)
    @blp.refusals(400, 401, 404, 422)
    def post(self, _data, channel_id):
        """Send a sample notice to the channel now; says whether it went, and why not.
        A stopped channel that works again is started anew."""
        player = current_player()
        channel = _mine(player, channel_id)
        notice = channel_outbox.simple_notice(
            "test", f"pbem test notice for {player.name}: this channel works",
            lines=("Your turn notices will look like this one.",))
        req = build_request(channel.kind, channel.target, notice,
                            msg_id=f"pbem-test-{channel.id}-{now_ts()}", timestamp=now_ts(),
                            telegram_api=current_app.config.get("PBEM_TELEGRAM_API"))
        try:
            send(req, _allow_private())
        except ChannelError as exc:
            return {"sent": False, "reason": exc.message}
        channel.status, channel.failures, channel.stopped_reason = "active", 0, None
        db.session.commit()
        return {"sent": True, "reason": None}


@blp.route("/players/me/channels/<int:channel_id>/secret")
class RotateSecret(MethodView):
    @blp.doc(security=SIGNED)
    @blp.arguments(NoBodySchema)
    @blp.response(200, SecretSchema)
    @blp.refusals(400, 401, 404, 409, 422)
    def post(self, _data, channel_id):
        """A new signing secret for a ``json`` channel, shown this once; the old one signs
        nothing from now on."""
        channel = _mine(current_player(), channel_id)
        if channel.kind != "json":
            fail(409, "no_secret", f"a {channel.kind} channel has no signing secret")
        secret = new_secret()
        channel.target = dict(channel.target, secret=secret)
        db.session.commit()
        return {"secret": secret}


@blp.route("/players/me/chat-ids")
class ChatIds(MethodView):
    @blp.doc(security=SIGNED)
    @blp.arguments(ChatIdsSchema)
    @blp.response(200, ChannelListSchema)
    @blp.refusals(401, 422)
    def put(self, data):
        """Your ids in chat services, so that a game's channel can mention you when you owe
        a move (empty or null removes one)."""
        player = current_player()
        ids = {}
        for kind, value in data.items():
            if value:
                probe = {"discord": {"url": "https://discord.com/x", "mention": value},
                         "slack": {"url": "https://hooks.slack.com/x", "mention": value},
                         "matrix": {"homeserver": "https://m.example", "room": "!r:m.example",
                                    "token": "t" * 8, "mention": value}}[kind]
                ids[kind] = _checked(kind, probe)["mention"]
        player.chat_ids = ids or None
        db.session.commit()
        return _list(player)


@blp.route("/games/<game_id>/channels")
class GameChannels(MethodView):
    @blp.doc(security=SIGNED)
    @blp.response(200, ChannelListSchema)
    @blp.refusals(401, 403, 404)
    def get(self, game_id):
        """The game's channels, for its players (secrets cut short)."""
        game = get_or_404(game_id)
        player = current_player()
        if not channel_outbox.seated(game.id, player):
            fail(403, "not_seated", f"only the players of game {game.id} see its channels")
        rows = db.session.execute(db.select(NoticeChannel).filter_by(game_id=game.id)
                                  .order_by(NoticeChannel.id)).scalars().all()
        return {"channels": [_json(c) for c in rows], "chat_ids": {}, "push": []}

    @blp.doc(security=SIGNED)
    @blp.arguments(ChannelCreateSchema)
    @blp.response(201, ChannelSchema)
    @blp.refusals(401, 403, 404, 409, 422)
    def post(self, data, game_id):
        """Give the game a channel (its group's Discord, Slack, Matrix or Telegram): each
        move posts its public line and whose move it is, mentioning them by their chat ids."""
        game = get_or_404(game_id)
        player = current_player()
        if not channel_outbox.seated(game.id, player):
            fail(403, "not_seated", f"only the players of game {game.id} give it a channel")
        if data["kind"] not in GAME_KINDS:
            fail(422, "bad_channel", f"a game's channel is one of {', '.join(GAME_KINDS)}")
        target = _checked(data["kind"], dict(data["target"], mention=None)
                          if data["kind"] != "telegram" else data["target"])
        count = db.session.execute(db.select(db.func.count(NoticeChannel.id)).filter_by(
            game_id=game.id)).scalar_one()
        if count >= MAX_GAME_CHANNELS:
            fail(409, "too_many_channels", f"game {game.id} has {MAX_GAME_CHANNELS} channels, "
                 "the most allowed")
        channel = NoticeChannel(player_id=player.id, game_id=game.id, kind=data["kind"],
                                target=target, status="active", failures=0,
                                last_seq=game.head_seq)
        db.session.add(channel)
        db.session.commit()
        return _json(channel)


@blp.route("/games/<game_id>/channels/<int:channel_id>")
class GameChannel(MethodView):
    @blp.doc(security=SIGNED)
    @blp.response(204)
    @blp.refusals(401, 403, 404)
    def delete(self, game_id, channel_id):
        """Remove one of the game's channels: any of its players may (the channel is the
        table's, whoever set it)."""
        game = get_or_404(game_id)
        player = current_player()
        if not channel_outbox.seated(game.id, player):
            fail(403, "not_seated", f"only the players of game {game.id} remove its channels")
        channel = db.session.get(NoticeChannel, channel_id)
        if channel is None or channel.game_id != game.id:
            fail(404, "unknown_channel", f"game {game.id} has no channel {channel_id}")
        db.session.delete(channel)
        db.session.commit()
        return ""


@blp.route("/push/key")
class PushKey(MethodView):
    @blp.response(200, VapidSchema)
    def get(self):
        """The server's VAPID public key, the ``applicationServerKey`` a page subscribes with."""
        return {"public_key": webpush.vapid_public_key()}


@blp.route("/players/me/push")
class MyPush(MethodView):
    @blp.doc(security=SIGNED)
    @blp.arguments(PushSubscribeSchema)
    @blp.response(201, ChannelListSchema)
    @blp.refusals(401, 400, 422)
    def post(self, data):
        """Keep this browser's push subscription (``PushSubscription.toJSON()``)."""
        player = current_player()
        webpush.subscribe(player, data["endpoint"], data["keys"]["p256dh"],
                          data["keys"]["auth"], data.get("label"))
        return _list(player)

    @blp.doc(security=SIGNED)
    @blp.arguments(PushEndpointSchema)
    @blp.response(204)
    @blp.refusals(401, 404)
    def delete(self, data):
        """Forget this browser's subscription."""
        if not webpush.unsubscribe(current_player(), data["endpoint"]):
            fail(404, "unknown_subscription", "no subscription of yours has that endpoint")
        return ""

