"""Seats offered to substitutes (server/game/substitutes.py): the one-time link, what it
offers, and its claim."""

from flask import current_app, request
from flask.views import MethodView

from ..game import substitutes
from ..http.auth import current_player
from ..http.errors import Blueprint
from ..http.schemas import (
    NoBodySchema,
    OfferLinkSchema,
    OfferListSchema,
    OfferSchema,
)
from .games import SIGNED, get_or_404

blp = Blueprint("offers", __name__, url_prefix="/api",
                description="Seats offered to substitutes through one-time links")


def link_for(token):
    base = (current_app.config.get("PBEM_BASE_URL") or request.host_url).rstrip("/")
    path = substitutes.LINK_PATH + token
    return path, base + path


@blp.route("/games/<game_id>/seats/<seat>/offer")
class Offer(MethodView):
    @blp.doc(security=SIGNED)
    @blp.arguments(NoBodySchema)
    @blp.response(201, OfferLinkSchema)
    @blp.refusals(400, 401, 403, 404, 409, 422)
    def post(self, _data, game_id, seat):
        """Offer SEAT of GAME to a substitute (signed: a player of the game, or the seat's
        own): a one-time link, shown once (the server keeps only its hash).  Only a seat
        whose player left it to a bot or missed a deadline is offered."""
        player = current_player()
        game = get_or_404(game_id)
        token, who = substitutes.offer(player, game, seat)
        path, url = link_for(token)
        return {"game": game.id, "seat": seat, "path": path, "url": url, "signer": who}


@blp.route("/games/<game_id>/claims")
class Claims(MethodView):
    @blp.doc(security=SIGNED)
    @blp.response(200, OfferListSchema)
    @blp.refusals(401, 404)
    def get(self, game_id):
        """The claims of GAME's offered seats that wait for the caller's signature (signed):
        sign ``@handover CLAIMANT CLAIMANT_KEY`` for the seat to hand it over."""
        player = current_player()
        return {"offers": substitutes.pending_claims(get_or_404(game_id), player)}


@blp.route("/offers/<token>")
class OneOffer(MethodView):
    @blp.response(200, OfferSchema)
    @blp.refusals(404)
    def get(self, token):
        """What a link offers (anyone holding the link may read it)."""
        row = substitutes.find(token)
        return substitutes.offer_json(row, get_or_404(row.game_id))


@blp.route("/offers/<token>/claim")
class Claim(MethodView):
    @blp.doc(security=SIGNED)
    @blp.arguments(NoBodySchema)
    @blp.response(200, OfferSchema)
    @blp.refusals(400, 401, 403, 404, 409, 422)
    def post(self, _data, token):
        """Claim the seat a link offers (signed, by a registered player who holds no seat of
        the game): "done" when the server hands it over at once, "claimed" while the leaving
        player's signature is awaited.  A link is claimed once."""
        return substitutes.claim(current_player(), token)
