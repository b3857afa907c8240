"""A small client for the pbem HTTP API: one requestor over a session (client/transport.py's,
or an injected ``requests.Session``-like object).

Every endpoint is a thin method returning the parsed JSON body.  Failures
raise :class:`ApiError` subclasses that carry the HTTP status, the server's
error ``code``, ``message`` and ``details`` (every error body is
``{"error": {"code", "message", "details"}}``), or :class:`ServerUnreachable`
when no answer came back at all.

>>> api = Api("http://127.0.0.1:5000", identity=("ann", key))   # doctest: +SKIP
>>> api.view("g7Hk2")["next_seq"]                                 # doctest: +SKIP
"""

import json
import sys
from urllib.parse import quote, urlencode

from .signing import request_headers

DEFAULT_TIMEOUT = 15


class ApiError(Exception):
    """The server refused a request.  ``status`` is the HTTP status (None when unreachable)."""

    def __init__(self, message, status=None, code=None, details=None, reason=None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.details = details or {}
        self.reason = reason


class ServerUnreachable(ApiError):
    """No HTTP answer: connection refused, DNS failure, timeout."""


class BadServerUrl(ApiError):
    """The server URL itself is wrong (no scheme, no host): nothing was sent."""


class NotPbemServer(ApiError):
    """Something answered, but not as a pbem server: a web page, or no pbem API at that path."""


class BadRequest(ApiError):
    """400: the request was malformed."""


class Unauthorized(ApiError):
    """401: the signature, nonce, clock or player name was not accepted."""


class Forbidden(ApiError):
    """403: signed correctly but not allowed (wrong seat, bad move signature)."""


class NotFound(ApiError):
    """404: no such game, player or game type."""


class Conflict(ApiError):
    """409: the state moved on (stale seq, game started, seat taken, game over)."""


class Refused(ApiError):
    """422: the rules refused the move or the game's options."""


class RateLimited(ApiError):
    """429: too many requests; ``retry_after`` seconds (or None)."""

    retry_after = None


class ServerError(ApiError):
    """5xx: the server failed."""


_BY_STATUS = {400: BadRequest, 401: Unauthorized, 403: Forbidden, 404: NotFound, 409: Conflict,
              422: Refused, 429: RateLimited}


def check_server_url(url):
    """``url`` without a trailing slash; raises BadServerUrl when it cannot be a server's address.

    >>> check_server_url("http://127.0.0.1:5000/")
    'http://127.0.0.1:5000'
    >>> check_server_url("127.0.0.1:5000")    # BadServerUrl: ... has no scheme: write http://...
    Traceback (most recent call last):
    ...
    client.api.BadServerUrl: ...
    """
    from urllib.parse import urlsplit
    text = str(url).strip()
    hint = "(--server or PBEM_SERVER)"
    if not text:
        raise BadServerUrl(f"the server URL is empty: give one like {_EXAMPLE_URL} {hint}")
    try:
        parts = urlsplit(text) if "://" in text else None
    except ValueError as exc:  # "http://[::1": an unclosed IPv6 bracket
        raise BadServerUrl(f"the server URL {text!r} is not a valid URL ({exc}) {hint}") \
            from None
    if parts is None:
        raise BadServerUrl(f"the server URL {text!r} has no scheme: write "
                           f"http://{text.lstrip('/')} {hint}")
    if parts.scheme.lower() not in ("http", "https"):
        raise BadServerUrl(f"the server URL {text!r} must start with http:// or https:// {hint}")
    try:
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        raise BadServerUrl(f"the server URL {text!r} has a port that is not a number "
                           f"{hint}") from None
    if not parts.hostname:
        raise BadServerUrl(f"the server URL {text!r} names no host: write it like "
                           f"{_EXAMPLE_URL} {hint}")
    if parts.query or parts.fragment:
        raise BadServerUrl(f"the server URL {text!r} must not have a ?query or #fragment "
                           f"{hint}")
    return text.rstrip("/")


_EXAMPLE_URL = "http://127.0.0.1:5000"


def _looks_like_html(resp):
    ctype = (resp.headers.get("Content-Type") or "").lower()
    text = getattr(resp, "text", "") or ""
    return "html" in ctype or text[:200].lstrip().lower().startswith(("<!doctype", "<html"))


def _not_pbem(base_url, resp, path):
    """The NotPbemServer for an answer that did not come from a pbem API, or None.

    A 5xx is not judged: a proxy's error page in front of a real pbem server
    means that server failed (ServerError), not that it is something else.
    """
    if resp.status_code >= 500:
        return None
    where = f"the server at {base_url}"
    fix = (f"--server should be the address pbem-server prints, like {_EXAMPLE_URL}, "
           "with no /api or other path")
    status = f"HTTP {resp.status_code}"
    try:
        body = resp.json()
    except ValueError:
        body = None
    err = body.get("error") if isinstance(body, dict) else None
    if isinstance(err, dict):
        if resp.status_code == 404 and err.get("code") == "not_found":
            # pbem's own 404s name what is missing (unknown_game, ...); "not_found" is a route
            return NotPbemServer(f"{where} has no pbem API at {path.split('?')[0]} ({status}): "
                                 + fix, resp.status_code, "not_pbem")
        return None
    html = _looks_like_html(resp)
    if resp.status_code == 404 and html:
        # a pbem server serves web pages too: a page's 404 under the API path means the
        # address has a path in front of /api
        return NotPbemServer(f"{where} has no pbem API at {path.split('?')[0]} ({status}): "
                             + fix, resp.status_code, "not_pbem")
    kind = "a web page (HTML)" if html else "text that is not JSON"
    return NotPbemServer(f"{where} answered {status} with {kind} where the pbem API answers "
                         "JSON: " + fix, resp.status_code, "not_pbem")


def error_from_response(resp, base_url=None, path=""):
    """The ApiError for a non-2xx ``requests.Response`` (of a request to ``base_url + path``)."""
    if base_url is not None:
        foreign = _not_pbem(base_url, resp, path)
        if foreign is not None:
            return foreign
    code, details, message = None, {}, None
    try:
        body = resp.json()
        err = body.get("error") if isinstance(body, dict) else None
        if isinstance(err, dict):
            code = err.get("code")
            message = err.get("message")
            details = err.get("details") or {}
    except ValueError:
        pass
    if not message:
        message = f"the server answered HTTP {resp.status_code} {resp.reason or ''}".strip()
    cls = _BY_STATUS.get(resp.status_code)
    if cls is None:
        cls = ServerError if resp.status_code >= 500 else ApiError
    if cls is ServerError:
        message = f"the server failed ({message.rstrip('.')}); try again later"
    exc = cls(message, resp.status_code, code, details, resp.reason)
    if cls is RateLimited:
        try:
            exc.retry_after = float(resp.headers.get("Retry-After"))
        except (TypeError, ValueError):
            exc.retry_after = None
    return exc


def _failure(exc):
    """What kind of failure to send a request ``exc`` is: "url", "timeout", "unreachable",
    or None (not a failure to send: raised on).  Both sessions' errors: client/transport.py's
    and, when it is loaded (a proxy; an injected session), requests'."""
    from . import transport
    if isinstance(exc, transport.InvalidUrl):
        return "url"
    if isinstance(exc, transport.Timeout):
        return "timeout"
    if isinstance(exc, transport.TransportError):
        return "unreachable"
    requests = sys.modules.get("requests")
    if requests is None:
        return None
    errors = requests.exceptions
    if isinstance(exc, (errors.InvalidURL, errors.MissingSchema, errors.InvalidSchema)):
        return "url"
    if isinstance(exc, errors.Timeout):
        return "timeout"
    if isinstance(exc, errors.RequestException):
        return "unreachable"
    return None


class Api:
    """The pbem API at ``base_url``.

    ``identity`` is ``(name, private key bytes)``; with it, requests are
    signed (see ``client.signing.request_headers``).  ``session`` is any
    object with ``requests.Session.request``'s signature (tests inject fakes).
    """

    def __init__(self, base_url, identity=None, session=None, timeout=DEFAULT_TIMEOUT):
        self.base_url = check_server_url(base_url)
        self.identity = identity
        self.timeout = timeout
        if session is None:
            from .transport import session as new_session
            session = new_session()
        self.session = session

    # --- the requestor --------------------------------------------------------------

    def request(self, method, path, body=None, params=None, signed=True, identity=None):
        """Send one request; return the parsed JSON body.  Raises ApiError."""
        query = urlencode({k: v for k, v in (params or {}).items() if v is not None})
        full_path = path + ("?" + query if query else "")
        data = json.dumps(body, separators=(",", ":")).encode("utf-8") \
            if body is not None else b""
        headers = {"Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        who = identity or (self.identity if signed else None)
        if who is not None:
            name, key = who
            headers.update(request_headers(key, name, method, full_path, data))
        try:
            resp = self.session.request(method, self.base_url + full_path, data=data or None,
                                        headers=headers, timeout=self.timeout)
        except Exception as exc:
            kind = _failure(exc)
            if kind is None:
                raise
            if kind == "url":
                raise BadServerUrl(f"the server URL {self.base_url!r} is not a valid URL "
                                   f"({exc.__class__.__name__}); write it like "
                                   f"{_EXAMPLE_URL}") from None
            if kind == "timeout":
                raise ServerUnreachable(f"the server at {self.base_url} did not answer within "
                                        f"{self.timeout} seconds") from None
            raise ServerUnreachable(f"cannot reach the server at {self.base_url} (is it "
                                    "running? see --server or PBEM_SERVER)") from None
        if not 200 <= resp.status_code < 300:
            raise error_from_response(resp, self.base_url, full_path)
        try:
            body = resp.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise _not_pbem(self.base_url, resp, full_path) or NotPbemServer(
                f"the server at {self.base_url} answered with JSON that no pbem server sends: "
                f"is --server ({self.base_url}) a pbem server?", resp.status_code, "not_pbem")
        return body

    @staticmethod
    def _g(game_id):
        return quote(game_id, safe="")

    # --- endpoints ----------------------------------------------------------------------

    def health(self):
        return self.request("GET", "/api/health", signed=False)

    def server_info(self):
        """{"public_key", "time", "version"}: the key that signs log heads."""
        return self.request("GET", "/api/server", signed=False)

    def types(self):
        return self.request("GET", "/api/types", signed=False)["types"]

    def register(self, name, private_key, public_key, email=None, tz=None, recovery=None):
        """``recovery``: {"recovery_key", "recovery_cert"} (client/recovery.py)."""
        body = {"name": name, "public_key": public_key, **(recovery or {})}
        if email:
            body["email"] = email
        if tz:
            body["tz"] = tz
        return self.request("POST", "/api/players", body, identity=(name, private_key))

    def me(self):
        return self.request("GET", "/api/players/me")

    def update_settings(self, changes):
        """PATCH /api/players/me: email, tz, notify (every, digest, none), quiet_start,
        quiet_end, webhook_url; the profile with its settings."""
        return self.request("PATCH", "/api/players/me", changes)

    def channels(self):
        """GET /api/players/me/channels: your channels, chat ids and push subscriptions."""
        return self.request("GET", "/api/players/me/channels")

    def add_channel(self, kind, target, game_id=None):
        """A channel of your own, or (``game_id``) the game's channel."""
        path = f"/api/games/{self._g(game_id)}/channels" if game_id else \
            "/api/players/me/channels"
        return self.request("POST", path, {"kind": kind, "target": target})

    def game_channels(self, game_id):
        return self.request("GET", f"/api/games/{self._g(game_id)}/channels")

    def remove_channel(self, channel_id):
        return self.request("DELETE", f"/api/players/me/channels/{int(channel_id)}")

    def test_channel(self, channel_id):
        return self.request("POST", f"/api/players/me/channels/{int(channel_id)}/test", {})

    def rotate_channel_secret(self, channel_id):
        return self.request("POST", f"/api/players/me/channels/{int(channel_id)}/secret", {})

    def set_chat_ids(self, ids):
        return self.request("PUT", "/api/players/me/chat-ids", ids)

    def calendar(self, new=False):
        """Your private calendar feed's address (``new``: a new one; the old one ends)."""
        return self.request("POST" if new else "GET", "/api/players/me/calendar",
                            {} if new else None)

    def vacation(self, days):
        """Take ``days`` vacation days from now: the caller's deadlines pause that long."""
        return self.request("POST", "/api/players/me/vacation", {"days": days})

    def player(self, name):
        return self.request("GET", "/api/players/" + quote(name, safe=""), signed=False)

    def games(self, status=None, asked=False):
        """Every game of the listing, following the server's pages (``next``); ``asked``:
        each playing game of the caller's with what its table asks (``asked``)."""
        games, cursor = [], None
        for _ in range(1000):
            page = self.request("GET", "/api/games", params={
                "status": status, "limit": 200, "cursor": cursor,
                "asked": "true" if asked else None})
            games += page["games"]
            cursor = page.get("next")
            if not cursor:
                break
        return games

    def game(self, game_id):
        return self.request("GET", f"/api/games/{self._g(game_id)}")

    def create_game(self, type_, seats, options=None, seat=None, move_hours=None, bots=0,
                    bot_level=None, rated=None):
        body = {"type": type_, "seats": seats, "options": options or {}}
        if rated is not None:
            body["rated"] = rated
        if bots:
            body["bots"] = bots
            if bot_level:
                body["bot_level"] = bot_level
        if seat:
            body["seat"] = seat
        if move_hours:
            body["move_hours"] = move_hours
        return self.request("POST", "/api/games", body)

    def rematch(self, game_id, decline=False):
        return self.request("POST", f"/api/games/{self._g(game_id)}/rematch",
                            {"decline": True} if decline else {})

    def bots(self, game_type=None):
        """The server's bot accounts and their keys (``levels``: those ``game_type`` has)."""
        return self.request("GET", "/api/bots", params={"game": game_type}, signed=False)

    def ratings(self, game_type):
        return self.request("GET", f"/api/ratings/{game_type}", signed=False)

    # --- tournaments (shared/tournament.py) ---------------------------------------------

    @staticmethod
    def _t(tid):
        return quote(str(tid), safe="")

    def create_tournament(self, document, signature, seed_hex):
        return self.request("POST", "/api/tournaments", {"document": document,
                                                         "signature": signature,
                                                         "seed": seed_hex})

    def tournaments(self, status="open"):
        return self.request("GET", "/api/tournaments", params={"status": status},
                            signed=False)["tournaments"]

    def tournament(self, tid):
        return self.request("GET", f"/api/tournaments/{self._t(tid)}")

    def join_tournament(self, tid, public_key, signature):
        return self.request("POST", f"/api/tournaments/{self._t(tid)}/join",
                            {"public_key": public_key, "signature": signature})

    def leave_tournament(self, tid, from_round, signature):
        return self.request("POST", f"/api/tournaments/{self._t(tid)}/leave",
                            {"from_round": from_round, "signature": signature})

    def close_tournament(self, tid, signature):
        return self.request("POST", f"/api/tournaments/{self._t(tid)}/close",
                            {"signature": signature})

    def start_tournament(self, tid):
        return self.request("POST", f"/api/tournaments/{self._t(tid)}/start", {})

    def export_tournament(self, tid):
        return self.request("GET", f"/api/tournaments/{self._t(tid)}/export")

    def join(self, game_id, seat=None):
        return self.request("POST", f"/api/games/{self._g(game_id)}/join",
                            {"seat": seat} if seat else {})

    def view(self, game_id, seat=None):
        return self.request("GET", f"/api/games/{self._g(game_id)}/view", params={"seat": seat})

    def legal(self, game_id, seat=None):
        return self.request("GET", f"/api/games/{self._g(game_id)}/legal", params={"seat": seat})

    def log(self, game_id, since=None, limit=None):
        return self.request("GET", f"/api/games/{self._g(game_id)}/log",
                            params={"since": since, "limit": limit})

    def post_move(self, game_id, envelope, signature, answer=None):
        """Signed when the client has an identity: the server renders the entry (private
        events, facts) and a refusal's reason only for the seat's own signed request.

        ``answer="view"``: the entry also carries ``view`` (the view after the move, with its
        signed head), and a stale_seq Conflict's ``details`` the current ``view`` and
        ``entries`` (the entry the move linked to), so that no other request is needed.
        """
        return self.request("POST", f"/api/games/{self._g(game_id)}/moves",
                            {"envelope": envelope, "signature": signature},
                            params={"answer": answer}, signed=self.identity is not None)

    # --- the long poll (server/api/push.py) -------------------------------------------------

    #: what :meth:`wait` returns when the server holds as many waiters as it can
    BUSY = "busy"

    def wait(self, game_id, after=None, status=None, timeout=25.0):
        """Block (on the server) until ``game_id`` is past seq ``after`` (or no longer in
        ``status``), or for ``timeout`` seconds; return the game's public head
        ``{"seq", "status", "to_act", "result", ...}`` as it then is.

        Returns None from a server without push (a pbem server older than the long poll,
        or one that reads these parameters otherwise: poll ``game`` instead), and
        ``Api.BUSY`` when the server holds as many waiters as it can (poll once, then ask
        again).  A server whose push process answers elsewhere (a web process that holds no
        waiters, with PBEM_PUSH_URL set) refuses with 503 and ``details.push_url``: the long
        poll is asked there instead, and that address is remembered for the next calls;
        when it fails, it is forgotten and BUSY returned.  NotFound for an unknown game.
        """
        pushed = getattr(self, "_push_api", None)
        if pushed is not None:
            try:
                return pushed._wait_here(game_id, after, status, timeout, follow=False)
            except NotFound:
                raise
            except ApiError:
                self._push_api = None  # the announced push address fails: back to ours
                return self.BUSY
        return self._wait_here(game_id, after, status, timeout, follow=True)

    def _wait_here(self, game_id, after, status, timeout, follow):
        params = {"after": after, "status": status, "timeout": f"{max(0.0, timeout):.2f}"}
        saved = self.timeout
        self.timeout = max(saved, timeout + 10)  # the server answers by ``timeout``
        try:
            return self.request("GET", f"/api/games/{self._g(game_id)}/wait", params=params,
                                signed=False)
        except NotFound as exc:
            if exc.code == "unknown_game":
                raise
            return None  # no such endpoint: poll instead
        except NotPbemServer as exc:
            if exc.status != 404:
                raise
            return None  # a pbem server from before push: its 404 for a path it lacks
        except BadRequest:
            return None  # a server that reads these parameters otherwise: poll instead
        except ServerError as exc:
            if exc.status == 503 and exc.code == "busy":
                pointer = (exc.details or {}).get("push_url")
                if follow and isinstance(pointer, str) and pointer:
                    try:  # the push process answers elsewhere: ask there, and remember it
                        self._push_api = Api(pointer, session=self.session, timeout=saved)
                    except ApiError:
                        return self.BUSY
                    self.timeout = saved
                    return self.wait(game_id, after, status, timeout)
                return self.BUSY
            raise
        finally:
            self.timeout = saved

    def table(self, game_id, seat=None):
        """The table state: the pending takeback request, the seqs this seat could take back
        now, the seats' current keys and the revoked device keys."""
        return self.request("GET", f"/api/games/{self._g(game_id)}/table",
                            params={"seat": seat})

    def rotate_key(self, name, body):
        """Tell the server of a new main key (the body carries its own proof)."""
        return self.request("POST", "/api/players/" + quote(name, safe="") + "/key", body,
                            signed=False)

    def archive(self, game_id):
        """Signed when the client has an identity: the archive then carries the private
        messages to and from the caller's seats, and their standing orders (pbem-archive-v3)."""
        return self.request("GET", f"/api/games/{self._g(game_id)}/archive",
                            signed=self.identity is not None)

    # --- table talk and standing orders (server/api/talk.py) ---------------------------------

    def messages(self, game_id, since=None):
        return self.request("GET", f"/api/games/{self._g(game_id)}/messages",
                            params={"since": since}, signed=self.identity is not None)

    def post_message(self, game_id, document):
        return self.request("POST", f"/api/games/{self._g(game_id)}/messages", document)

    def orders(self, game_id):
        return self.request("GET", f"/api/games/{self._g(game_id)}/orders")

    def post_order(self, game_id, document):
        return self.request("POST", f"/api/games/{self._g(game_id)}/orders", document)

    def cancel_order(self, game_id, document):
        return self.request("POST", f"/api/games/{self._g(game_id)}/orders/cancel", document)

    def mutes(self):
        return self.request("GET", "/api/mutes")

    def mute(self, name):
        return self.request("POST", "/api/mutes", {"player": name})

    def unmute(self, name):
        return self.request("DELETE", "/api/mutes/" + quote(name, safe=""))
