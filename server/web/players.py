"""A player's page (``/p/NAME``: their record and ratings) and a seat's one-time link
(``/seat/TOKEN``: what it offers, and the claim, which ``static/account.js`` signs with this
browser's key)."""

from flask import make_response, render_template

from shared.games import get_game

from ..db import db
from ..db.models import Game, Player
from ..game import substitutes
from ..game.domain import NotFound
from ..game.ratings import player_ratings
from ..game.records import player_record
from .blueprint import bp, error_page
from .signin import session_player


def _title(type_):
    try:
        return get_game(type_).title or type_
    except KeyError:
        return type_


class _Missing(Exception):
    """A page's 404, with its one sentence."""

    code = 404

    def __init__(self, message):
        super().__init__(message)
        self.message = message


@bp.get("/p/<name>")
def player_page(name):
    player = db.session.execute(db.select(Player).filter_by(name=name[:40])) \
        .scalar_one_or_none()
    if player is None:
        return error_page(_Missing(f"no player is registered as {name[:40]!r}"))
    ratings = player_ratings(player)
    return render_template("player.html", who=player, record=player_record(player),
                           ratings=ratings["ratings"], teams=ratings["team_records"],
                           title_of=_title, player=session_player())


@bp.get("/seat/<token>")
def seat_page(token):
    try:
        row = substitutes.find(token[:200])
    except NotFound as exc:
        resp = make_response(error_page(_Missing(exc.message)))
    else:
        game = db.session.get(Game, row.game_id)
        offer = substitutes.offer_json(row, game)
        resp = make_response(render_template("seat.html", offer=offer, game=game,
                                             title=_title(game.type), token=token,
                                             player=session_player()))
    # the token is in the address: no referrer carries it away, nothing keeps the page
    resp.headers["Referrer-Policy"] = "no-referrer"
    resp.headers["Cache-Control"] = "no-store"
    return resp
