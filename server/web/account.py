"""The pages that make a browser a player's home (no shell needed): ``/signup``, ``/signin``,
``/new`` (start a game), ``/settings``.

The pages only show forms and what the server knows; ``static/account.js`` does the rest in
the browser with ``static/keys.js``: the main key is made there (WebCrypto Ed25519, not
extractable, kept in IndexedDB; the server only ever gets its public half), every change is a
request signed by that key like any other API call, and the session cookie comes from a signed
``POST /api/session`` (server/api/links.py).  Nothing here accepts a form post: a page cannot
be made to act for its reader by another site.
"""

from flask import make_response, render_template, request

from shared.bots import LEVELS
from shared.games import game_types, get_game

from ..api.players import vacation_days_left
from .blueprint import bp
from .signin import session_player

#: what a missed deadline may do (shared/table.py on_timeout), in words
TIMEOUT_CHOICES = (("move", "the game plays its timeout move for the seat"),) + tuple(
    (f"bot:{level}", f"a bot ({level}) takes the seat over for the rest of the game")
    for level in LEVELS)


def _page(template, **context):
    resp = make_response(render_template(template, player=session_player(), **context))
    resp.headers["Cache-Control"] = "no-store"
    return resp


def _option_fields(game_def):
    """The game's options (its declarations in shared/) as form fields."""
    out = []
    for key, spec in game_def.options_schema.items():
        kind = spec.get("type", "str")
        label = key.replace("_", " ")
        label = ("victory points" + label[2:] if label.startswith("vp ") else label).capitalize()
        out.append({"key": key, "label": label, "kind": kind, "default": spec.get("default"),
                    "choices": spec.get("choices"), "help": spec.get("help", "")})
    return out


@bp.get("/signup")
def signup():
    return _page("signup.html")


@bp.get("/signin")
def signin():
    return _page("signin.html", name=request.args.get("name", "")[:32])


@bp.get("/new")
def new_game():
    types = []
    for name in game_types():
        g = get_game(name)
        types.append({"name": name, "title": g.title or name, "min": g.min_seats,
                      "max": g.max_seats, "options": _option_fields(g),
                      "timeout_option": "on_timeout" not in g.options_schema})
    wanted = request.args.get("type")
    if wanted not in [t["name"] for t in types]:
        wanted = "zarahemla" if "zarahemla" in [t["name"] for t in types] else types[0]["name"]
    return _page("new_game.html", types=types, chosen=wanted, timeouts=TIMEOUT_CHOICES,
                 levels=list(LEVELS))


@bp.get("/settings")
def settings():
    from ..game import mailkeys
    player = session_player()
    days = vacation_days_left(player) if player is not None else None
    mail = mailkeys.status(player) if player is not None else None
    if mail and mail["on"]:
        from datetime import datetime, timezone
        mail["until"] = datetime.fromtimestamp(mail["not_after"], timezone.utc)
    return _page("settings.html", days_left=days, mail=mail)
