"""The page that delegates a browser's key: ``/device/TOKEN`` (``pbem device add --browser``).

The page itself only shows who the link is for; ``static/keys.js`` makes the key in the
browser and talks to ``/api/device-links/TOKEN/...`` (server/api/devices.py).
"""

from flask import make_response, render_template

from ..db import db
from ..db.models import Player
from ..game.devicekeys import LinkGone, link_by_token
from .blueprint import bp, error_page


class _Refused(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code, self.message = code, message


@bp.get("/device/<token>")
def device_page(token):
    try:
        link = link_by_token(token)
    except LinkGone as exc:
        resp = make_response(error_page(_Refused(exc.status, exc.message)))
    else:
        owner = db.session.get(Player, link.player_id)
        resp = make_response(render_template(
            "device.html", token=token, link_player=owner.name, label=link.label,
            expires_at=link.expires_at.strftime("%Y-%m-%d %H:%M"), player=None))
    resp.headers["Referrer-Policy"] = "no-referrer"
    resp.headers["Cache-Control"] = "no-store"
    return resp
