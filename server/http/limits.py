"""Rate limits (Flask-Limiter): per address and per key, visible in response headers.

Storage: ``PBEM_RATELIMIT_STORAGE`` when set (``redis://127.0.0.1:6379``, ``memory://``
...); otherwise the service's own database (``server.http.ratelimit_storage``), so the limits
hold across gunicorn workers and machines with nothing more to run.

A request counts against the player or seat it names only once its signature verified (the
request's for a player, the move's for a seat): 400 forged moves for a seat used to spend
that seat's allowance and lock its player out.  A request whose signature does not verify
counts against the sender's address instead (``PBEM_LIMIT_UNVERIFIED``).  An idempotent
repeat of an accepted request (a move already in the log, an Idempotency-Key's stored
answer) spends only the address's limit (``PBEM_LIMIT_ADDRESS``), as a read does.

Every refusal names the limit and the setting that raises it (``details.limit``,
``details.setting``).  ``pbem-server run`` on a loopback address, the one-person
development server, spares requests from loopback (``PBEM_LIMIT_LOOPBACK``).
"""

import ipaddress
import json

from flask import current_app, g, request
from flask_limiter import ApplicationLimit, Limit, Limiter
from werkzeug.exceptions import RequestEntityTooLarge

from .jsonbody import loads_request_json

#: setting -> (default, what it counts)
SETTINGS = {
    "PBEM_LIMIT_ADDRESS": ("1200/minute", "requests from one address to one endpoint"),
    "PBEM_LIMIT_KEY": ("600/minute", "requests by one player or seat to one endpoint"),
    "PBEM_LIMIT_REGISTER": ("20/hour", "registrations from one address"),
    "PBEM_LIMIT_MOVES": ("120/minute", "moves by one player or seat"),
    "PBEM_LIMIT_UNVERIFIED": ("120/minute", "requests from one address whose signature "
                              "did not verify"),
    # table talk and standing orders (server/game/talk.py, server/game/orders.py)
    "PBEM_LIMIT_TALK": ("10/minute;100/hour", "messages and standing orders written by one "
                        "player"),
}


def address_key():
    return "addr:" + (request.remote_addr or "?")


def _body():
    """The request's body, or None when it is over the server's cap (``MAX_CONTENT_LENGTH``).

    The limiter reads the body in its after-request hook too, after the view (or the error
    handler of a 413) ran: reading an oversized body there raised RequestEntityTooLarge inside
    the hook, and a 70 KB move sent past the proxy was a 500 instead of the view's 413.
    """
    cap = request.max_content_length
    if cap is not None and request.content_length is not None and request.content_length > cap:
        return None
    try:
        return request.get_data(cache=True) or b"{}"
    except RequestEntityTooLarge:  # a chunked body that grew past the cap
        return None


def _claimed_key():
    """The player or seat a request names (not yet proven), or None."""
    name = request.headers.get("X-Pbem-Player")
    if name:
        return "player:" + name[:64]
    if request.path.endswith("/messages") and request.method == "POST":
        # an unsigned message (the game page): the seat its document names, as for a move
        raw = _body()
        if raw is None:
            return None
        try:
            body = loads_request_json(raw).get("body") or {}
            return f"seat:{str(body.get('game'))[:16]}:{str(body.get('seat'))[:32]}"
        except (ValueError, AttributeError, TypeError, RecursionError):
            return None
    if request.path.endswith("/moves") and request.method == "POST":
        raw = _body()
        if raw is None:
            return None
        try:
            body = loads_request_json(raw)
            env = json.loads(body.get("envelope", "{}"))
            return f"seat:{str(env.get('game'))[:16]}:{str(env.get('seat'))[:32]}"
        except (ValueError, AttributeError, TypeError, RecursionError):
            pass
    return None


def player_key():
    return _claimed_key() or address_key()


def _verified(key):
    if key.startswith("player:"):
        return g.get("pbem_verified_player") == key[len("player:"):]
    if key.startswith("seat:"):
        return g.get("pbem_verified_seat") == key[len("seat:"):]
    return True  # an address is never claimed: it is where the request came from


def _repeat(response):
    """An idempotent repeat of an accepted request: the stored answer replayed for an
    Idempotency-Key, or a move's envelope that is already in the log (200, where a new move
    is 201).  It changes nothing and costs what a read costs, so it spends no allowance but
    the address's (PBEM_LIMIT_ADDRESS): the game page retrying a move whose answer it lost
    counted against its address as unverified, and enough retries locked it out."""
    if response.headers.get("Idempotent-Replayed") == "true":
        return True
    return request.method == "POST" and request.path.endswith("/moves") \
        and response.status_code == 200


def _authentic(response):
    """Deduct from the named player or seat only when its signature verified, and never for
    a repeat."""
    return not _repeat(response) and _verified(player_key())


def _unverified(response):
    """A request that named a player or seat it could not prove counts against its address.

    A new move whose seat's signature verified counts for its seat, even refused (a lost
    race, a rules refusal: server/api/games.py sets ``pbem_verified_seat``): the game page
    posts moves without signed headers, and its lost races once locked its address out
    (reads included) after PBEM_LIMIT_UNVERIFIED of them.  A copy of a stored entry is not
    the seat's doing, nor a forgery: a repeat (see :func:`_repeat`) counts only against the
    address's own limit, as a read does."""
    if _repeat(response) or response.status_code == 429:
        return False  # a repeat; or refused by a limit before any signature was checked
    claimed = _claimed_key()
    return claimed is not None and not _verified(claimed)


def limit(name):
    """The limit ``PBEM_LIMIT_<name>`` as configured (server/config.py), or its default."""
    setting = f"PBEM_LIMIT_{name}"
    return current_app.config.get(setting) or SETTINGS[setting][0]


def _spared():
    """Requests from loopback to the development server (see the module's docstring)."""
    if not current_app.config.get("PBEM_LIMIT_LOOPBACK_SPARED"):
        return False
    try:
        return ipaddress.ip_address(request.remote_addr or "").is_loopback
    except ValueError:
        return False


limiter = Limiter(
    key_func=address_key,
    default_limits=[
        Limit(lambda: limit("ADDRESS"), error_message="PBEM_LIMIT_ADDRESS"),
        Limit(lambda: limit("KEY"), key_function=player_key, deduct_when=_authentic,
              error_message="PBEM_LIMIT_KEY"),
    ],
    application_limits=[
        ApplicationLimit(lambda: limit("UNVERIFIED"), key_function=address_key,
                         scope="unverified", deduct_when=_unverified,
                         error_message="PBEM_LIMIT_UNVERIFIED"),
    ],
    headers_enabled=True,
)
limiter.request_filter(_spared)


def registration_limit():
    return limiter.limit(lambda: limit("REGISTER"), key_func=address_key, methods=["POST"],
                         error_message="PBEM_LIMIT_REGISTER")


def move_limit():
    """The moves a verified player or seat may append (PBEM_LIMIT_MOVES), and the repeats
    one address may post (PBEM_LIMIT_ADDRESS: this route's own limits replace the default
    ones, and a repeat spends no other)."""
    moves = limiter.limit(lambda: limit("MOVES"), key_func=player_key, deduct_when=_authentic,
                          methods=["POST"], error_message="PBEM_LIMIT_MOVES")
    repeats = limiter.limit(lambda: limit("ADDRESS"), key_func=address_key,
                            deduct_when=_repeat, methods=["POST"],
                            error_message="PBEM_LIMIT_ADDRESS")

    def both(view):
        return moves(repeats(view))
    return both


def talk_limit():
    """Messages and orders one (verified) player may write: PBEM_LIMIT_TALK."""
    return limiter.limit(lambda: limit("TALK"), key_func=player_key, deduct_when=_authentic,
                         methods=["POST", "DELETE"], error_message="PBEM_LIMIT_TALK")


def configure_storage(app):
    """The shared database storage unless PBEM_RATELIMIT_STORAGE names another."""
    # Flask-Limiter merges each app's storage options into the (module-wide) limiter's: start
    # clean, or an earlier app's options reach this app's storage (tests build many apps)
    limiter._storage_options = {}
    if app.config.get("RATELIMIT_STORAGE_URI"):
        return
    from . import ratelimit_storage  # noqa: F401  (registers the pbemdb:// scheme)
    url = ratelimit_storage.storage_url(app.config["SQLALCHEMY_DATABASE_URI"])
    if url is None:
        app.config["RATELIMIT_STORAGE_URI"] = "memory://"
        return
    app.config["RATELIMIT_STORAGE_URI"] = "pbemdb://"
    app.config["RATELIMIT_STORAGE_OPTIONS"] = {"url": url}


def describe(setting):
    return SETTINGS.get(setting, (None, "requests"))[1]
