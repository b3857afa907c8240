"""``POST /api/games/<id>/check``: may I play this move now, and what will it do?

Asked by the game page before it signs a move (and by any signed client).  The caller is the
player of a signed request or, for the page, the player its session cookie names (the
cookie is HttpOnly and SameSite=Strict, and this endpoint changes nothing).  The answer is
for the caller's own seat only: the rules' reason for a refusal (it may name their hand)
and the move's effect worked out on worlds sampled from their own view
(``shared.preview``), so it never tells the dice, a draw or another seat's cards.
"""

import hashlib
import random

from flask.views import MethodView

from shared.games import get_game
from shared.preview import check_move

from ..db.state_cache import load_state
from ..game.domain import Conflict, Forbidden, Unauthenticated
from ..game.views import seat_of
from ..http.auth import current_player
from ..http.schemas import (
    CheckAnswerSchema,
    CheckSchema,
)
from .games import OPTIONAL, blp, get_or_404


def caller():
    """The player asking: a signed request's, else the page's signed-in player, else None."""
    player = current_player(required=False)
    if player is None:
        from ..web.signin import session_player
        player = session_player()
    return player


@blp.route("/games/<game_id>/check")
class Check(MethodView):
    @blp.doc(security=OPTIONAL)
    @blp.arguments(CheckSchema)
    @blp.response(200, CheckAnswerSchema)
    @blp.refusals(400, 401, 403, 404, 409)
    def post(self, data, game_id):
        """Whether the caller's seat may play ``move`` now, and what it will do (for them only).

        Signed, or from the game page of a signed-in player.  ``legal`` false: ``reason`` is
        the rules' own.  Legal: ``outcome`` says whether the effect is certain (then
        ``events``, ``changes`` to your hand and points, and ``next``: who owes what) or left
        to chance or to hidden cards.  Nothing is stored or sent to anyone.
        """
        player = caller()
        if player is None:
            raise Unauthenticated("unauthenticated", "sign the request (or sign in to the "
                                  "page with pbem open GAME) to check a move")
        game = get_or_404(game_id)
        seat = seat_of(game, player, data["seat"])
        if seat is None:
            raise Forbidden("not_seated", f"you hold no seat in game {game.id}")
        if game.status != "playing":
            state_word = "over" if game.status == "over" else "not started"
            raise Conflict("game_over" if game.status == "over" else "not_started",
                           f"game {game.id} is {state_word}")
        game_def = get_game(game.type)
        state = load_state(game)
        # the sampled worlds depend on the position and the question only: the same answer
        # every time it is asked
        key = f"{game.id}|{game.head_hash}|{seat}|{data['move']}".encode()
        rng = random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))
        answer = check_move(game_def, state, seat, data["move"], rng)
        answer.update(seat=seat, next_seq=game.head_seq + 1, prev=game.head_hash)
        return answer
