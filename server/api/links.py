"""One-time sign-in links for the pages: ``pbem open GAME`` asks for one with a signed request."""

from flask import current_app, request
from flask.views import MethodView

from ..game.views import seat_of
from ..http.auth import current_player
from ..http.errors import Blueprint, fail
from ..http.schemas import (
    LinkSchema,
    SessionSchema,
)
from ..web.signin import issue_link
from .games import SIGNED, get_or_404

blp = Blueprint("links", __name__, url_prefix="/api",
                description="One-time links that sign a player into the web pages")


@blp.route("/games/<game_id>/link")
class Link(MethodView):
    @blp.doc(security=SIGNED)
    @blp.response(201, LinkSchema)
    @blp.refusals(401, 403, 404)
    def post(self, game_id):
        """A short-lived link that opens GAME's page as the caller sees it (signed; one use).

        Anyone holding the link until it is used sees the caller's private view: it is
        printed for the player only and never sent by mail.
        """
        player = current_player()
        game = get_or_404(game_id)
        seat = seat_of(game, player)
        if seat is None:
            fail(403, "not_seated", f"you hold no seat in game {game.id}; its page is public "
                 "to spectators without a link")
        token, expires = issue_link(player, game.id)
        path = f"/login/{token}"
        base = (current_app.config.get("PBEM_BASE_URL") or request.host_url).rstrip("/")
        return {"path": path, "url": base + path, "expires_at": expires, "game": game.id,
                "seat": seat}


@blp.route("/session")
class Session(MethodView):
    @blp.doc(security=SIGNED)
    @blp.response(200, SessionSchema)
    @blp.refusals(400, 401)
    def post(self):
        """Sign this browser into the pages with its own key (a signed request, empty body):
        the answer sets the session cookie, with the same rules as a one-time link's
        (HttpOnly, SameSite=Strict, Secure under HTTPS, PBEM_SESSION_HOURS).

        The pages' script signs it with the key the browser keeps (its main key, or a
        device key the player delegated): no password, and no key leaves the browser.
        """
        from flask import make_response

        from ..web.signin import session_hours, set_session
        if request.get_data(cache=True).strip() not in (b"", b"{}"):
            fail(400, "unexpected_body", "a session request has an empty body (or {})")
        player = current_player()
        answer = make_response(SessionSchema().dump(
            {"player": player.name, "expires_in": session_hours() * 3600}))
        answer.headers["Cache-Control"] = "no-store"
        return set_session(answer, player)
