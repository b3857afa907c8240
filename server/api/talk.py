"""Table talk and standing orders: messages, mutes, orders (server/game/talk.py,
server/game/orders.py)."""

from flask import g
from flask.views import MethodView

from shared.games import get_game

from ..db import db
from ..db.models import Player
from ..game import orders as orders_service
from ..game import talk
from ..http.auth import current_player
from ..http.errors import Blueprint
from ..http.limits import talk_limit
from ..http.schemas import (
    CancelDocumentSchema,
    MessageDocumentSchema,
    MessageListSchema,
    MessageSchema,
    MessagesQuerySchema,
    MuteListSchema,
    MuteSchema,
    OrderDocumentSchema,
    OrderListSchema,
    OrderPostedSchema,
    OrderSchema,
)
from .games import OPTIONAL, SIGNED, get_or_404

blp = Blueprint("talk", __name__, url_prefix="/api",
                description="Table talk (signed messages), mutes and standing orders")


@blp.app_template_global("table_talk")
def table_talk(game, player):
    """The messages the game page shows its reader (templates/_talk.html)."""
    if game.status == "open":
        return []
    rows = talk.readable(game, player)
    names = talk.names_for(rows)
    return [talk.message_json(m, names) for m in rows]


@blp.route("/games/<game_id>/messages")
class Messages(MethodView):
    decorators = [talk_limit()]

    @blp.doc(security=OPTIONAL)
    @blp.arguments(MessagesQuerySchema, location="query")
    @blp.response(200, MessageListSchema)
    @blp.refusals(401, 404)
    def get(self, query, game_id):
        """The messages the caller may read: to the whole table, and private ones to or from
        a seat they hold (unsigned: the public ones); without those of players they muted."""
        player = current_player(required=False)
        game = get_or_404(game_id)
        rows = talk.readable(game, player, query["since"])
        names = talk.names_for(rows)
        return {"messages": [talk.message_json(m, names) for m in rows]}

    @blp.doc(security=OPTIONAL)
    @blp.arguments(MessageDocumentSchema)
    @blp.response(201, MessageSchema)
    @blp.refusals(400, 401, 403, 404, 409, 422, 429)
    def post(self, data, game_id):
        """Write a message: a document signed with the seat's key at the log's length now, or
        by a device of its player with the delegation in the body (shared/messages.py).  The
        request may be signed by the seat's player (pbem say) or not (the game page, whose
        browser key signs the document only): the document's signature is the proof, as a
        move's is.  ``at`` must be the log's length now."""
        player = current_player(required=False)
        message = talk.post_message(get_or_404(game_id), player, data)
        g.pbem_verified_seat = f"{game_id}:{message.seat}"  # the talk limit's key (limits.py)
        author = db.session.get(Player, message.player_id)
        return talk.message_json(message, {author.id: author.name})


@blp.route("/games/<game_id>/orders")
class Orders(MethodView):
    decorators = [talk_limit()]

    @blp.doc(security=SIGNED)
    @blp.response(200, OrderListSchema)
    @blp.refusals(401, 404)
    def get(self, game_id):
        """The caller's own standing orders in this game (nobody else's: they are secret)."""
        player = current_player()
        game = get_or_404(game_id)
        game_def = get_game(game.type)
        return {"orders": [orders_service.order_json(r, game_def)
                           for r in orders_service.own_orders(game, player)]}

    @blp.doc(security=SIGNED)
    @blp.arguments(OrderDocumentSchema)
    @blp.response(201, OrderPostedSchema)
    @blp.refusals(400, 401, 403, 404, 409, 422, 429)
    def post(self, data, game_id):
        """Write a standing order (shared/orders.py), signed with the seat's key at the log's
        length now (or by a device of its player, the delegation in the body), in a request
        signed by that player; the server carries it out whenever its situation comes, from
        now on."""
        player = current_player()
        game = get_or_404(game_id)
        row, played = orders_service.post_order(game, player, data)
        return {"order": orders_service.order_json(row, get_game(game.type)), "played": played}


@blp.route("/games/<game_id>/orders/cancel")
class CancelOrder(MethodView):
    decorators = [talk_limit()]

    @blp.doc(security=SIGNED)
    @blp.arguments(CancelDocumentSchema)
    @blp.response(200, OrderSchema)
    @blp.refusals(400, 401, 403, 404, 409, 429)
    def post(self, data, game_id):
        """Cancel one of the caller's orders with a signed cancellation (kind "cancel")."""
        player = current_player()
        game = get_or_404(game_id)
        row = orders_service.cancel_order(game, player, data)
        return orders_service.order_json(row, get_game(game.type))


@blp.route("/mutes")
class Mutes(MethodView):
    decorators = [talk_limit()]

    @blp.doc(security=SIGNED)
    @blp.response(200, MuteListSchema)
    @blp.refusals(401)
    def get(self):
        """The players whose messages the caller does not read."""
        return {"muted": talk.muted_names(current_player())}

    @blp.doc(security=SIGNED)
    @blp.arguments(MuteSchema)
    @blp.response(200, MuteListSchema)
    @blp.refusals(400, 401, 404, 422, 429)
    def post(self, data):
        """Mute a player: their messages leave what the caller reads (lists, page, notices)."""
        player = current_player()
        talk.set_mute(player, data["player"], True)
        return {"muted": talk.muted_names(player)}


@blp.route("/mutes/<name>")
class Unmute(MethodView):
    decorators = [talk_limit()]

    @blp.doc(security=SIGNED)
    @blp.response(200, MuteListSchema)
    @blp.refusals(401, 404, 429)
    def delete(self, name):
        """Unmute a player."""
        player = current_player()
        talk.set_mute(player, name[:64], False)
        return {"muted": talk.muted_names(player)}
