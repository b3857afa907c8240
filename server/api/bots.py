"""The server's bot accounts: their names and public keys (server/game/bots.py).

A player who hands a seat to a bot (``pbem leave GAME --to-bot``) signs ``@handover NAME KEY``
(shared/table.py) with the bot account's public key, read here.
"""

from flask.views import MethodView

from shared.bots import LEVELS, levels
from shared.games import game_types, get_game

from ..game import bots
from ..game.domain import NotFound
from ..http.errors import Blueprint
from ..http.schemas import BotListQuerySchema, BotListSchema

blp = Blueprint("bots", __name__, url_prefix="/api",
                description="The server's bot accounts (one per level) and their keys")


@blp.route("/bots")
class BotList(MethodView):
    @blp.arguments(BotListQuerySchema, location="query")
    @blp.response(200, BotListSchema)
    @blp.refusals(404, 409)
    def get(self, query):
        """The bot accounts, one per level (``bot-random``, ``bot-greedy``, ``bot-strong``),
        each with its public key (an account is made with its key on first use).  With
        ``game=TYPE``: ``levels`` are the levels that game has bots for (a seat is handed
        only to one of those), and ``bots`` lists only them."""
        wanted = LEVELS
        if query["game"] is not None:
            try:
                wanted = tuple(levels(get_game(query["game"])))
            except KeyError:
                raise NotFound("unknown_game_type", f"there is no game called "
                               f"{query['game']!r}", {"known": game_types()}) from None
        accounts = [{"level": level, "player": p.name, "public_key": p.public_key}
                    for level in wanted for p in [bots.bot_player(level)]]
        return {"game": query["game"], "levels": list(wanted), "bots": accounts}
