"""The pages: the board in a browser, server-rendered (Flask and Jinja2, no build step).

``/`` the lobby, ``/g/ID`` one game (kept current by ``static/pbem.js``), ``/archive`` the
archive stepper, ``/rules/TYPE`` a game's rules, ``/login/TOKEN`` a one-time sign-in link
(``pbem open``).  Every fact on a page comes from the same functions as the API
(``views.view_for``, ``views.log_entries``); every page is sent with a strict
Content-Security-Policy (no inline script or style, no framing).  Errors on pages are HTML
pages with the right status; the API's errors stay JSON.

Public pages, and the CSS and scripts of every page, travel compressed (Flask-Compress, gzip
or what the browser prefers) when the browser accepts it (at most 100 KB
transferred on a first load).  A page asked with a session cookie is never compressed: it may
carry its reader's hand beside text other players chose (table talk, names), and the size of
a compressed answer would then tell an eavesdropper on the wire how much of that text
matches the hand (the BREACH attack).  JSON (the API, the hot path of moves) and event streams
(Server-Sent Events must not be held back) are sent as they are.
"""

from flask import request
from werkzeug.exceptions import HTTPException

from .blueprint import bp, error_page

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


COMPRESSED = ["text/html", "text/css", "text/javascript", "application/javascript",
              "image/svg+xml"]


def init_app(app):
    """Register the pages on ``app`` (after the API, whose JSON error handler it keeps for /api)."""
    from flask_compress import Compress

    from .signin import COOKIE, SECURE_COOKIE
    app.config.setdefault("COMPRESS_MIMETYPES", COMPRESSED)
    # static files are streamed (send_file): compressed as they stream; an event stream is
    # text/event-stream, not in COMPRESSED, so it is never held back
    app.config.setdefault("COMPRESS_STREAMS", True)
    app.config.setdefault("COMPRESS_MIN_SIZE", 1024)
    app.config["COMPRESS_REGISTER"] = False
    compress = Compress(app)

    def compress_public(response):
        if response.mimetype not in COMPRESSED:  # the API's JSON: nothing to do, at once
            return response
        if request.endpoint != "web.static" and (request.cookies.get(COOKIE)
                                                 or request.cookies.get(SECURE_COOKIE)):
            return response  # a signed-in reader's page: never compressed (BREACH)
        return compress.after_request(response)

    app.after_request(compress_public)
    from . import (
        account,  # noqa: F401 - sign up, sign in, a new game, settings
        devices,  # noqa: F401 - the browser key's link page
        pages,  # noqa: F401 - registers the routes on bp
        players,  # noqa: F401 - a player's page, a seat's one-time link
    )
    app.register_blueprint(bp)
    from ..http.errors import api

    def handle(error):
        if request.path == "/api" or request.path.startswith("/api/"):
            return api.handle_http_exception(error)
        return error_page(error)

    # flask-smorest answers every HTTP error of the app as JSON; outside /api a person is
    # reading, so the answer there is a page
    app.register_error_handler(HTTPException, handle)
    app.after_request(_security_headers)


def security_headers(path, mimetype):
    """The headers every answer but the API's JSON carries (push's own server sends them on
    its event streams too)."""
    if path.startswith("/api/") and mimetype == "application/json":
        return {}
    return {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
            "X-Frame-Options": "DENY", "Referrer-Policy": "same-origin"}


def _security_headers(response):
    for name, value in security_headers(request.path, response.mimetype).items():
        response.headers.setdefault(name, value)
    return response
