"""The private calendar feed of a player's deadlines (server/game/calendar.py)."""

from flask import Response, request
from flask.views import MethodView

from ..game import calendar
from ..http.auth import current_player
from ..http.errors import Blueprint
from ..http.schemas import (
    FeedSchema,
    NoBodySchema,
)
from .games import SIGNED

blp = Blueprint("calendar", __name__, url_prefix="",
                description="A private calendar feed (text/calendar) of your deadlines")


@blp.route("/api/players/me/calendar")
class MyCalendar(MethodView):
    @blp.doc(security=SIGNED)
    @blp.response(200, FeedSchema)
    @blp.refusals(401)
    def get(self):
        """Your feed's address (keep it private: whoever has it reads your deadlines)."""
        player = current_player()
        return {"url": calendar.base_url(request.host_url) + calendar.feed_path(player)}

    @blp.doc(security=SIGNED)
    @blp.arguments(NoBodySchema)
    @blp.response(200, FeedSchema)
    @blp.refusals(400, 401, 422)
    def post(self, _data):
        """A new address for your feed; the old one stops working."""
        return {"url": calendar.base_url(request.host_url) +
                calendar.new_feed(current_player())}


@blp.route("/api/calendar/<name>/<token>.ics")
class Feed(MethodView):
    @blp.response(200, content_type="text/calendar")
    @blp.refusals(404)
    def get(self, name, token):
        """The feed itself, for a calendar app: one event per pending deadline."""
        player = calendar.player_for(name, token)
        return Response(calendar.feed(player, calendar.base_url(request.host_url)),
                        mimetype="text/calendar",
                        headers={"Cache-Control": "private, max-age=300"})
