"""Rematches and ratings: offer, accept or decline a rematch; the rating tables."""

from flask.views import MethodView

from shared.games import game_types, get_game

from ..game import ratings, rematch
from ..game.domain import NotFound
from ..game.lifecycle import join_game
from ..http.auth import current_player
from ..http.errors import Blueprint
from ..http.idempotency import idempotent
from ..http.schemas import GameSchema, RatingTableSchema, RematchSchema
from .games import SIGNED, game_json, get_or_404

blp = Blueprint("ratings", __name__, url_prefix="/api",
                description="Rematches of finished games and ratings per game type")


@blp.route("/games/<game_id>/rematch")
class Rematch(MethodView):
    @idempotent
    @blp.doc(security=SIGNED)
    @blp.arguments(RematchSchema)
    @blp.response(200, GameSchema)
    @blp.refusals(401, 403, 404, 409)
    def post(self, data, game_id):
        """Offer a rematch of a finished game, accept the standing offer, or decline it.

        The first player to ask makes the offer: a new game with the same options, each seat
        kept for the player one seat before it in this game (seats rotated); the offerer's
        seat and the bots' are taken at once.  Asking again (any player of this game) accepts:
        it takes the caller's kept seat; the game starts when all have accepted.  With
        ``decline``, the open offer is withdrawn.  Answers the rematch game (for a decline,
        this game).
        """
        player = current_player()
        game = get_or_404(game_id)
        if data["decline"]:
            rematch.decline(game, player)
            return game_json(get_or_404(game_id), player)
        new, made = rematch.offer(game, player)
        if not made and new.status == "open" and \
                any(s.invited_id == player.id and s.player_id is None for s in new.seats):
            new = join_game(new, player)
        return game_json(get_or_404(new.id), player)


@blp.route("/ratings/<game_type>")
class RatingTable(MethodView):
    @blp.response(200, RatingTableSchema)
    @blp.refusals(404)
    def get(self, game_type):
        """The ratings of a competitive game type, best first (openskill's ordinal, mu - 3
        sigma), or a cooperative game's record of games and wins by team size."""
        try:
            get_game(game_type)
        except KeyError:
            raise NotFound("unknown_game_type", f"there is no game called {game_type!r}",
                           {"known": game_types()}) from None
        return ratings.leaderboard(game_type)
