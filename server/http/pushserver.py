"""The Procfile's ``push`` process (``pbem-server push``): the waiting clients, on asyncio.

It answers ``GET /api/games/<id>/wait`` (long polls) and ``GET /api/games/<id>/events``
(Server-Sent Events), the same bytes as their Flask handlers (server/api/push.py), and
``/api/health``; any other request is answered 421 with a pointer to the web process.

A waiting client is a coroutine asleep on a future, not a Flask request: its frames are heap
objects of a few hundred bytes, where a gevent greenlet that ran Flask's dispatch kept a
saved C stack and the Python stack pages it touched (bench/ANALYSIS.md, "Cost at scale").
HTTP is parsed by h11; the requests are validated by the same schemas, refused in the same
error shape (the API's own handler writes the bodies) and answered the same public heads
(server/workers/push.py).

Nothing blocking runs on the event loop.  One reader thread reads the heads in batches
(every head asked for while a read is under way waits for the next one: one query for many
games); on PostgreSQL the hub's ``LISTEN pbem_heads`` thread (server/workers/push.py) posts
the notifications to the loop, and a head read while it listened is answered from memory
until a notification for its game comes; on SQLite the reader thread asks ``PRAGMA
data_version`` every ``PBEM_PUSH_PROBE`` seconds while someone waits and, when another
connection committed, reads the heads of every game waited on in one query, waking the
waiters whose head moved (heads are then answered from memory until SQLite says something
was committed).

Limits: ``PBEM_PUSH_WAITERS`` waiters (10,000; at most the open-file limit less a reserve),
``PBEM_PUSH_PER_ADDRESS`` of them per address (503 with Retry-After past either); a
connection past waiters + 100 gets a 503 at once and is closed; a request's line and
headers must come within ``PBEM_PUSH_HEADER_TIMEOUT`` seconds (10) and 16 KiB (else 408 or
431, and the connection is closed); an idle kept-alive connection is closed after 5 s.
"""

import asyncio
import email.utils
import logging
import queue
import re
import resource
import signal
import threading
import time
from urllib.parse import unquote_to_bytes

import h11
from sqlalchemy import bindparam, func, select
from werkzeug.exceptions import HTTPException, MethodNotAllowed
from werkzeug.wrappers import Request

from ..config import push_bind
from ..db import db
from ..db.models import Move
from ..game.domain import DomainError
from ..web import security_headers
from ..workers import push
from .errors import BAD_CHARACTERS, ApiError, Blueprint, api, has_nul, http_error
from .proxy import TrustedProxyFix
from .schemas import MAX_SEQ, MAX_WAIT, EventsQuerySchema, WaitQuerySchema

# SQLite's watcher: the last move's id, and the games that moved since an id (the primary key)
_MOVES = Move.__table__
_LAST_MOVE = select(func.max(_MOVES.c.id))
_MOVED_SINCE = select(_MOVES.c.game_id, _MOVES.c.id).where(_MOVES.c.id > bindparam("mark"))

log = logging.getLogger("pbem.push")

DEFAULT_WAITERS = 10000
RESERVE = 100          # connections past the waiters: health checks, refusals
MAX_HEAD = 16 * 1024   # a request's line and headers
KEEP_ALIVE = 5.0       # seconds an idle connection is kept between requests
MAX_BUFFERED = 256 * 1024  # bytes a client may leave unread before it is dropped
ALLOW = "GET, HEAD, OPTIONS"
WEB = ("this is the push process: it answers only /api/games/<id>/wait, "
       "/api/games/<id>/events and /api/health; send every other request to the web process "
       "(the front proxy routes them, docs/DEPLOYMENT.md)")


def waiter_limit(config):
    """``PBEM_PUSH_WAITERS`` (10,000 by default), at most the open-file limit less a reserve
    (the soft limit is raised to the hard one first)."""
    wanted = int(config.get("PBEM_PUSH_WAITERS") or DEFAULT_WAITERS)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or soft < hard):
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(1, min(wanted, soft - 2 * RESERVE))


class Waiter:
    """One client waiting on ``game_id``: the head it knows, whether it was woken since it
    last read the head, and the future it sleeps on."""

    __slots__ = ("game_id", "known", "woken", "fut")

    def __init__(self, game_id):
        self.game_id, self.known, self.woken, self.fut = game_id, None, False, None

    def wake(self):
        self.woken = True
        if self.fut is not None and not self.fut.done():
            self.fut.set_result(True)

    async def sleep(self, loop, seconds):
        """Until woken or ``seconds`` passed; True when woken."""
        if self.woken:
            return True
        self.fut = fut = loop.create_future()
        timer = loop.call_later(seconds, _settle, fut)
        try:
            return await fut
        finally:
            timer.cancel()
            self.fut = None


def _settle(fut):
    if not fut.done():
        fut.set_result(False)


class LoopHub(push.Hub):
    """The waiters of the push server, on its event loop.  The Hub's LISTEN thread is reused:
    its wake-ups are posted to the loop."""

    def __init__(self, app, loop):
        super().__init__(app)
        self.loop = loop
        self.limit = waiter_limit(app.config)
        self.by_game = {}      # game_id -> set of Waiter (the loop's; Hub.waiters is unused)
        self.cache = {}        # PostgreSQL: game_id -> (head, epoch, until)
        self.settled = {}      # SQLite: game_id -> (head, until), see settled_head
        self.queued = {}       # game_id -> futures of the next read
        self.inflight = {}     # game_id -> futures of the read under way
        self.stale = set()     # games woken while their read was under way
        self.read_epoch = None
        self.batches = queue.SimpleQueue()
        self.reader = None
        self.pending = []      # games notified, not yet woken on the loop
        self.pending_lock = threading.Lock()

    # the threads' wake-ups, posted to the loop --------------------------------------------
    def wake(self, game_id):
        """From the LISTEN thread: one call to the loop for all the games notified while it
        was busy (each call writes to the loop's self-pipe and is a turn of its own)."""
        with self.pending_lock:
            first = not self.pending
            self.pending.append(game_id)
        if first:
            self.loop.call_soon_threadsafe(self._wake_pending)

    def wake_all(self):
        self.loop.call_soon_threadsafe(self._wake_all)

    def _wake(self, game_id):
        self.cache.pop(game_id, None)
        if game_id in self.inflight:
            self.stale.add(game_id)
        for w in self.by_game.get(game_id, ()):
            w.wake()

    def _wake_pending(self):
        with self.pending_lock:
            games, self.pending = self.pending, []
        for game_id in dict.fromkeys(games):
            self._wake(game_id)

    def _wake_all(self):
        self.cache.clear()
        self.settled.clear()
        self.stale.update(self.inflight)
        for ws in self.by_game.values():
            for w in ws:
                w.wake()

    def _watched(self, heads, moved=()):
        """SQLite: the heads of the games waited on, read after another connection
        committed (and the games that stored a move since the last read): wake the waiters
        whose head moved."""
        settled, until = self.settled, time.monotonic() + self.poll
        for game_id in moved:
            settled.pop(game_id, None)
        if len(settled) + len(heads) > push.HEADS_KEPT:
            settled.clear()
        for game_id, head in heads.items():
            settled[game_id] = (head, until)   # before its waiters wake and read it
            now = push.mark(head)
            for w in self.by_game.get(game_id, ()):
                if w.known is not None and w.known != now:
                    w.wake()

    # subscribing ------------------------------------------------------------------------
    def join(self, game_id, address):
        """A Waiter on ``game_id``; raises Busy past the limits."""
        if self.count >= self.limit:
            raise push.full()
        if self.by_address.get(address, 0) >= self.per_address:
            raise push.address_full(self.per_address)
        self.by_address[address] = self.by_address.get(address, 0) + 1
        w = Waiter(game_id)
        self.by_game.setdefault(game_id, set()).add(w)
        self.count += 1
        self.start()
        return w

    def leave(self, w, address):
        ws = self.by_game.get(w.game_id)
        ws.discard(w)
        if not ws:
            del self.by_game[w.game_id]
        self.count -= 1
        left = self.by_address.pop(address) - 1
        if left:
            self.by_address[address] = left

    def start(self):
        if self.reader is None:
            self.reader = threading.Thread(target=self._read_loop, daemon=True,
                                           name="pbem-push-read")
            self.reader.start()
        if self.postgres and (self._listener is None or not self._listener.is_alive()):
            self._listener = threading.Thread(target=self._listen, daemon=True,
                                              name="pbem-push-listen")
            self._listener.start()

    # heads --------------------------------------------------------------------------------
    def settled_head(self, game_id):
        """SQLite: the head of ``game_id`` as the watcher or a read last saw it, if that was
        within ``poll`` seconds and no move of the game was seen since; else None.

        It may miss what was committed since the watcher's last read (at most ``READ_GAP``
        for a move, ``poll`` for a seat taken or a status), so only a request that then
        waits reads it, and only to learn that it has nothing to answer yet: it is joined
        before it reads, so the watcher's next read wakes it as it wakes every waiter.  A
        renewal of a long poll then costs no read (bench/ANALYSIS.md, the push process's
        CPU with 5,000 waiters)."""
        entry = None if self.postgres else self.settled.get(game_id)
        if entry is not None and time.monotonic() < entry[1]:
            return entry[0]
        return None

    async def public_head(self, game_id):
        """The public head of ``game_id``, from memory while it is known current, else read
        with the other heads asked for meanwhile.  Raises NotFound."""
        if len(game_id) > push.MAX_GAME_ID:
            raise push.unknown_game(game_id)
        if self.postgres:
            entry = self.cache.get(game_id)
            if entry is not None and self.listening and entry[1] == self.epoch \
                    and time.monotonic() < entry[2]:
                return entry[0]
        fut = self.loop.create_future()
        self.queued.setdefault(game_id, []).append(fut)
        self._dispatch()
        head = await fut
        if head is None:
            raise push.unknown_game(game_id)
        return head

    def _dispatch(self):
        if self.inflight or not self.queued:
            return
        self.start()
        self.inflight, self.queued = self.queued, {}
        self.read_epoch = self.epoch if self.listening else None
        self.batches.put(list(self.inflight))

    def _answered(self, heads, error):
        inflight, self.inflight = self.inflight, {}
        stale, self.stale = self.stale, set()
        until = time.monotonic() + self.head_ttl
        keep = self.postgres and error is None and self.listening \
            and self.read_epoch is not None and self.read_epoch == self.epoch
        settle = not self.postgres and error is None
        until_settled = time.monotonic() + self.poll
        for game_id, futs in inflight.items():
            head = None if error else heads.get(game_id)
            if keep and head is not None and game_id not in stale:
                self.cache[game_id] = (head, self.epoch, until)
            if settle and head is not None:  # read after every post before this one
                self.settled[game_id] = (head, until_settled)
            for fut in futs:
                if fut.done():
                    continue
                if error is not None:
                    fut.set_exception(error)
                else:
                    fut.set_result(head)
        if len(self.cache) > push.HEADS_KEPT:
            self.cache.clear()
        self._dispatch()

    def _read_loop(self):
        """The reader thread: the batches the loop asks for and, on SQLite, the watch."""
        with self.app.app_context():
            engine = db.engine
        box = [None]         # SQLite: the probe's own connection
        kept, version = {}, None
        last_read, last_full, dirty, mark = 0.0, 0.0, True, None
        gap = min(self.poll, push.READ_GAP)
        while not self._stop.is_set():
            waiting = self.count > 0
            try:
                batch = self.batches.get(
                    timeout=min(self.probe, self.poll) if waiting and not self.postgres
                    else 1.0)
            except queue.Empty:
                batch = None
            if self.postgres:
                if batch is not None:
                    self._post_read(engine, batch)
                continue
            seen = self._data_version(engine, box)
            if seen is None or seen != version:
                kept.clear()
                version, dirty = seen, True
            now = time.monotonic()
            if waiting and (dirty and now - last_read >= gap or now - last_read >= self.poll):
                # every ``poll`` seconds all the heads waited on (a seat taken, a status
                # changed: what adds no move); in between only those of the games that
                # moved since the last read (the moves' ids go up): a busy server changes
                # data_version at every move, and 5,000 waiters' heads read ten times a
                # second cost the push process more than the moves did
                full = mark is None or now - last_full >= self.poll
                try:
                    if full:
                        games, top = self._waited(), self._last_move(engine)
                    else:
                        moved, top = self._moved_since(engine, mark)
                        games = [g for g in moved if g in self.by_game]
                    heads = self._read(engine, games) if games else {}
                    if full:
                        moved = ()
                except Exception as exc:  # noqa: BLE001 - a locked database: next round
                    log.warning("push watcher: %s", exc)
                    heads = None
                if heads is not None:
                    last_read, dirty, mark = now, False, top
                    if full:
                        last_full = now
                    if seen is not None:
                        kept.update(heads)
                    if heads or moved:
                        self.loop.call_soon_threadsafe(self._watched, heads, moved)
            if batch is not None:
                need = [g for g in batch if g not in kept]
                try:
                    got = self._read(engine, need) if need else {}
                except Exception as exc:  # noqa: BLE001 - answered as the request's 500
                    log.warning("push head read: %s", exc)
                    self.loop.call_soon_threadsafe(self._answered, None, exc)
                    continue
                if seen is not None:
                    kept.update(got)
                    if len(kept) > push.HEADS_KEPT:
                        kept.clear()
                self.loop.call_soon_threadsafe(
                    self._answered, {g: got.get(g) or kept.get(g) for g in batch}, None)
        if box[0] is not None:
            box[0].close()

    def _waited(self):
        while True:
            try:
                return list(self.by_game)
            except RuntimeError:  # changed on the loop meanwhile
                continue

    def _post_read(self, engine, batch):
        try:
            heads = self._read(engine, batch)
        except Exception as exc:  # noqa: BLE001 - answered as the request's 500
            log.warning("push head read: %s", exc)
            self.loop.call_soon_threadsafe(self._answered, None, exc)
            return
        self.loop.call_soon_threadsafe(self._answered, heads, None)

    def _read(self, engine, games):
        self.head_reads += 1
        with engine.connect() as conn:
            return push.public_heads(conn, games)

    def _last_move(self, engine):
        """SQLite: the id of the last move stored (0 when none), read before a full read of
        the heads: a move stored meanwhile is then also among the next round's."""
        with engine.connect() as conn:
            return conn.execute(_LAST_MOVE).scalar() or 0

    def _moved_since(self, engine, mark):
        """SQLite: (the games that stored a move with an id above ``mark``, the highest id)."""
        with engine.connect() as conn:
            rows = conn.execute(_MOVED_SINCE, {"mark": mark}).all()
        return {r.game_id for r in rows}, max((r.id for r in rows), default=mark)


# --- HTTP ------------------------------------------------------------------------------------

class Refused(Exception):
    """An answer given instead of the route's: (status, body bytes, headers)."""

    def __init__(self, status, body, headers):
        super().__init__(status)
        self.status, self.body, self.headers = status, body, headers


class PushServer:
    def __init__(self, app, loop):
        self.app, self.loop = app, loop
        self.hub = LoopHub(app, loop)
        self.max_connections = self.hub.limit + RESERVE
        self.connections = 0
        self.header_timeout = float(app.config.get("PBEM_PUSH_HEADER_TIMEOUT") or 10)
        self.hold = app.config.get("PBEM_PUSH_HOLD")
        self.parser = Blueprint.ARGUMENTS_PARSER
        self.wait_schema, self.events_schema = WaitQuerySchema(), EventsQuerySchema()
        hops = app.config.get("PBEM_PROXY_HOPS")
        self.proxy = TrustedProxyFix(_remote_addr, int(hops),
                                     app.config.get("PBEM_TRUSTED_PROXIES")) \
            if hops else None
        self.fast_json = self._fast_json()
        self.full = self._error_bytes(self._busy(push.full()), close=True)

    # answers ------------------------------------------------------------------------------
    def json(self, status, obj, headers=None):
        if self.fast_json:
            body = (self.app.json.dumps(obj, separators=(",", ":")) + "\n").encode()
            return status, body, {"Content-Type": "application/json", **(headers or {})}
        resp = self.app.json.response(obj)
        return status, resp.get_data(), {"Content-Type": resp.content_type, **(headers or {})}

    def _fast_json(self):
        """Whether the app's JSON answer is its compact ``dumps`` and a newline: then an
        answer is written without building a werkzeug Response (~a quarter of this process's
        CPU, py-spy during bench/push.py); checked against the app's own on a sample."""
        sample = {"game": "g\u00e9", "to_act": ["a"], "seq": 1, "result": None, "ok": True}
        resp = self.app.json.response(sample)
        fast = (self.app.json.dumps(sample, separators=(",", ":")) + "\n").encode()
        return resp.get_data() == fast and resp.content_type == "application/json"

    def error(self, exc):
        """The API's own answer to ``exc`` (an ApiError, a DomainError, an HTTPException)."""
        if isinstance(exc, DomainError):
            exc = http_error(exc)
        body, status, headers = api.handle_http_exception(exc)
        return self.json(status, body, headers)

    def _busy(self, exc):
        return ApiError(503, exc.code, exc.message, exc.details,
                        headers={"Retry-After": push.RETRY_AFTER})

    def _error_bytes(self, exc, close=False):
        status, body, headers = self.error(exc)
        conn = h11.Connection(h11.SERVER)
        conn.receive_data(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        conn.next_event()
        if close:
            headers = {**headers, "Connection": "close"}
        return conn.send(_response(status, headers, len(body))) + conn.send(h11.Data(body))

    def _held(self, seconds):
        return seconds if self.hold is None else min(seconds, self.hold)

    # one request --------------------------------------------------------------------------
    def request(self, conn, event):
        """A werkzeug Request of ``event`` as gunicorn's environ would have made it."""
        target = event.target
        path, _, query = target.partition(b"?")
        environ = {"REQUEST_METHOD": event.method.decode("latin-1"),
                   "SCRIPT_NAME": "", "PATH_INFO": unquote_to_bytes(path).decode("latin-1"),
                   "QUERY_STRING": query.decode("latin-1"), "SERVER_NAME": "push",
                   "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1",
                   "REMOTE_ADDR": conn.peer, "wsgi.url_scheme": "http"}
        for name, value in event.headers:
            key = name.decode("latin-1").upper().replace("-", "_")
            if key in ("CONTENT_TYPE", "CONTENT_LENGTH"):
                environ[key] = value.decode("latin-1")
                continue
            key = "HTTP_" + key
            value = value.decode("latin-1")
            environ[key] = environ[key] + "," + value if key in environ else value
        if self.proxy is not None:
            self.proxy(environ, None)
        return Request(environ)

    async def handle(self, conn, event):
        try:
            req = self.request(conn, event)
            parts = req.path.split("/")
            route = parts[4] if len(parts) == 5 and parts[1] == "api" and \
                parts[2] == "games" and parts[3] and parts[4] in ("wait", "events") else None
            if route is None:
                if req.path == "/api/health" and req.method in ("GET", "HEAD"):
                    raise Refused(*self.json(200, {"status": "ok"}))
                raise Refused(*self.json(421, {"error": {
                    "code": "misdirected", "message": WEB, "details": {"path": req.path}}}))
            if req.method == "OPTIONS":
                raise Refused(200, b"", {"Allow": ALLOW, "Content-Type": "text/html; "
                                         "charset=utf-8"})
            if req.method not in ("GET", "HEAD"):
                raise MethodNotAllowed(valid_methods=ALLOW.split(", "))
            if _may_hold_nul(event) and has_nul(req):
                raise ApiError(400, *BAD_CHARACTERS)
            address = req.remote_addr or "?"
            game_id = parts[3]
            if route == "wait":
                await self.wait(conn, req, game_id, address)
            else:
                await self.events(conn, req, game_id, address)
        except Refused as r:
            conn.answer(r.status, r.body, r.headers)
        except push.Busy as exc:
            conn.answer(*self.error(self._busy(exc)))
        except (HTTPException, DomainError) as exc:
            conn.answer(*self.error(exc))
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - a 500 in the API's shape, logged
            log.exception("push request failed")
            if not conn.started:
                conn.answer(*self.json(500, {"error": {
                    "code": "internal_error", "message": "internal server error",
                    "details": {}}}))
            else:
                conn.close()

    def _query(self, schema, req):
        return self.parser.parse(schema, req, location="query")

    async def wait(self, conn, req, game_id, address):
        query = plain_wait_query(req.query_string) or self._query(self.wait_schema, req)
        after, status = query["after"], query["status"]
        timeout = 0.0 if req.method == "HEAD" else self._held(query["timeout"])
        deadline = time.monotonic() + timeout
        hub = self.hub
        w = hub.join(game_id, address)
        try:
            while True:
                w.woken = False
                head = hub.settled_head(game_id) if timeout > 0 else None
                if head is None or push.moved(head, after, status):
                    head = await hub.public_head(game_id)  # news is answered as read now
                w.known = push.mark(head)
                changed = push.moved(head, after, status)
                left = deadline - time.monotonic()
                if changed or left <= 0:
                    break
                await w.sleep(self.loop, left)
        finally:
            hub.leave(w, address)
        conn.answer(*self.json(200, wait_answer(head, changed)))

    async def events(self, conn, req, game_id, address):
        query = self._query(self.events_schema, req)
        hub = self.hub
        await hub.public_head(game_id)  # 404 before a stream starts
        lifetime = 0.0 if req.method == "HEAD" else self._held(query["timeout"])
        known = push.last_event_id(req.headers.get("Last-Event-ID", ""))
        w = hub.join(game_id, address)
        try:
            deadline = time.monotonic() + lifetime
            conn.start_stream({"Content-Type": "text/event-stream; charset=utf-8",
                               **push.SSE_HEADERS,
                               **security_headers(req.path, "text/event-stream")})
            conn.send_text(push.sse_start(game_id))
            last = known
            while not conn.closed:
                w.woken = False
                head = await hub.public_head(game_id)
                now = push.mark(head)
                w.known = now
                if now != last:
                    last = now
                    conn.send_text(push.sse_head(head))
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                if not await w.sleep(self.loop, min(left, push.HEARTBEAT)) \
                        and time.monotonic() < deadline:
                    conn.send_text(push.SSE_KEEPALIVE)
            conn.send_text(push.SSE_END)
            conn.end_stream()
        finally:
            hub.leave(w, address)


#: a wait's query as the CLI, the pages and the bench send it: each of after, status and timeout
#: at most once, ASCII digits without a leading zero, nothing percent-encoded
_PLAIN_WAIT = re.compile(rb"(?:(?:after=(?P<after>-1|0|[1-9][0-9]{0,9})"
                         rb"|status=(?P<status>open|playing|over)"
                         rb"|timeout=(?P<timeout>(?:0|[1-9][0-9]{0,2})(?:\.[0-9]{1,3})?))"
                         rb"(?:&|\Z))+\Z")


def plain_wait_query(raw):
    """The wait query (WaitQuerySchema's load) of a plain query string, without the schema
    layers (a third of this process's CPU per renewal, cProfile in bench/ANALYSIS.md); None
    for anything else, which the schema then reads and refuses as it always has."""
    found = _PLAIN_WAIT.match(raw) if raw else None
    if found is None or raw.count(b"=") != sum(v is not None for v in found.groups()):
        return None  # not plain, or a parameter given twice (the regex keeps the last)
    after, status, timeout = found.group("after", "status", "timeout")
    if after is None or int(after) > MAX_SEQ:
        return None
    timeout = 25.0 if timeout is None else float(timeout)
    if timeout > MAX_WAIT:
        return None
    return {"after": int(after), "status": status.decode() if status else None,
            "timeout": timeout}


def wait_answer(head, changed):
    """WaitSchema's dump of ``head`` (push.public_head's dict: its fields are already what the
    schema dumps, tests/server/test_pushserver_fast.py) with ``changed``."""
    return {**head, "changed": changed}


def _may_hold_nul(event):
    """Whether a request's path, query or headers can decode to a NUL character: only a raw
    NUL byte or a ``%00`` can (has_nul then says for sure)."""
    return b"%00" in event.target or b"\0" in event.target \
        or any(b"\0" in name or b"\0" in value for name, value in event.headers)


def _remote_addr(environ, start_response):
    """The app that TrustedProxyFix calls: the fixed environ is all we want of it."""
    return None


def _response(status, headers, length=None):
    items = [(k.encode("latin-1"), str(v).encode("latin-1")) for k, v in headers.items()]
    items.append((b"Date", _date()))
    if length is not None:
        items.append((b"Content-Length", str(length).encode()))
    return h11.Response(status_code=status, headers=items,
                        reason=_REASONS.get(status, b""))


_DATE = [0, b""]


def _date():
    """The Date header's value, formatted once a second."""
    second = int(time.time())
    if _DATE[0] != second:
        _DATE[0], _DATE[1] = second, email.utils.formatdate(second, usegmt=True).encode()
    return _DATE[1]


_REASONS = {200: b"OK", 400: b"Bad Request", 404: b"NOT FOUND", 405: b"METHOD NOT ALLOWED",
            408: b"Request Timeout", 421: b"Misdirected Request",
            431: b"Request Header Fields Too Large", 500: b"INTERNAL SERVER ERROR",
            503: b"SERVICE UNAVAILABLE"}


class Connection(asyncio.Protocol):
    """One client connection: h11 parses its requests, one at a time."""

    def __init__(self, server):
        self.server = server
        self.transport = self.h11 = self.task = self.timer = None
        self.peer, self.method, self.unread, self.received = "?", b"GET", 0, 0
        self.closed = self.started = False

    # asyncio's callbacks ------------------------------------------------------------------
    def connection_made(self, transport):
        self.transport = transport
        srv = self.server
        srv.connections += 1
        peer = transport.get_extra_info("peername")
        self.peer = peer[0] if isinstance(peer, tuple) else "?"
        if srv.connections > srv.max_connections:
            transport.write(srv.full)
            self.close()
            return
        self.h11 = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
        self.timer = srv.loop.call_later(srv.header_timeout, self._too_slow)

    def data_received(self, data):
        if self.closed:
            return
        if self.task is not None:
            # a request is being answered: what comes meanwhile waits, within a bound
            self.unread += len(data)
            if self.unread > MAX_HEAD:
                self.close()
                return
        self.received += len(data)
        self.h11.receive_data(data)
        if self.task is None:
            self._next()

    def eof_received(self):
        if self.h11 is not None and not self.closed:
            self.h11.receive_data(b"")
            if self.task is None:
                self._next()
        return False

    def connection_lost(self, exc):
        self.server.connections -= 1
        self.closed = True
        if self.timer is not None:
            self.timer.cancel()
        if self.task is not None:
            self.task.cancel()

    # requests -----------------------------------------------------------------------------
    def _next(self):
        try:
            event = self.h11.next_event()
        except h11.RemoteProtocolError as exc:
            self._refuse(exc.error_status_hint)
            return
        if event is h11.NEED_DATA:
            return
        if isinstance(event, h11.Request):
            # h11 bounds a head that comes in pieces; one that came whole is measured here
            rest = len(self.h11.trailing_data[0])
            if self.received - rest > MAX_HEAD:
                self._refuse(431)
                return
            self.received = rest
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None
            self.started, self.method, self.unread = False, event.method, 0
            self.task = self.server.loop.create_task(self.server.handle(self, event))
            self.task.add_done_callback(self._done)
        elif isinstance(event, h11.ConnectionClosed) or event is h11.PAUSED:
            self.close()

    def _done(self, task):
        self.task = None
        if self.closed:
            return
        if self.h11.our_state is h11.MUST_CLOSE or self.h11.their_state is not h11.DONE:
            # drain what the request sent (no body is read: a request with one is closed)
            try:
                while self.h11.their_state is h11.SEND_BODY:
                    ev = self.h11.next_event()
                    if ev is h11.NEED_DATA or isinstance(ev, h11.ConnectionClosed):
                        break
            except h11.RemoteProtocolError:
                pass
        if self.h11.our_state is h11.DONE and self.h11.their_state is h11.DONE:
            self.h11.start_next_cycle()
            self.timer = self.server.loop.call_later(KEEP_ALIVE, self._idle)
            self._next()
        else:
            self.close()

    def _too_slow(self):
        self.timer = None
        self._refuse(408)

    def _idle(self):
        self.timer = None
        if self.task is None:
            self.close()

    def _refuse(self, status):
        """408, 431 or 400 in the API's shape, then close (once an answer began: close)."""
        if self.h11.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
            self.close()
            return
        code, message = {
            408: ("request_timeout", "the request's headers did not come in time"),
            431: ("headers_too_large", f"the request's line and headers exceed "
                  f"{MAX_HEAD} bytes")}.get(status, ("malformed", "the request is not "
                                                    "valid HTTP/1.1"))
        self.answer(*self.server.json(status, {"error": {"code": code, "message": message,
                                                         "details": {}}},
                                      {"Connection": "close"}),
                    force=self.h11.our_state is h11.IDLE)
        self.close()

    # writing ------------------------------------------------------------------------------
    def answer(self, status, body, headers, force=False):
        if self.closed:
            return
        if force:
            self.transport.write(_raw_response(status, body, headers))
            return
        try:
            data = self.h11.send(_response(status, headers, len(body)))
            if body and self.method != b"HEAD":
                data += self.h11.send(h11.Data(body))
            data += self.h11.send(h11.EndOfMessage())
        except h11.LocalProtocolError:
            self.close()
            return
        self.started = True
        self.transport.write(data)

    def start_stream(self, headers):
        self.started = True
        self.transport.write(self.h11.send(_response(200, headers)))

    def send_text(self, text):
        if self.closed:
            return
        if self.transport.get_write_buffer_size() > MAX_BUFFERED:
            self.close()
            return
        if self.method != b"HEAD":
            self.transport.write(self.h11.send(h11.Data(text.encode())))

    def end_stream(self):
        if not self.closed:
            self.transport.write(self.h11.send(h11.EndOfMessage()))

    def close(self):
        if not self.closed:
            self.closed = True
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None
            self.transport.close()


def _raw_response(status, body, headers):
    """A response written by hand, for a request h11 could not parse."""
    lines = [f"HTTP/1.1 {status} {_REASONS.get(status, b'').decode()}".encode()]
    for k, v in {**headers, "Content-Length": str(len(body))}.items():
        lines.append(f"{k}: {v}".encode("latin-1"))
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def bind_address(config=None):
    """Where the push process listens: PBEM_PUSH_BIND, else PBEM_PUSH_PORT (5001) on loopback
    behind a proxy (PBEM_PROXY_HOPS), on every address without one (docs/DEPLOYMENT.md,
    "Who may reach the ports")."""
    host, _, port = push_bind().rpartition(":")
    return host.strip("[]") or "0.0.0.0", int(port)


async def _serve(app, host, port, ready=None):
    loop = asyncio.get_running_loop()
    server = PushServer(app, loop)
    srv = await loop.create_server(lambda: Connection(server), host, port, backlog=4096,
                                   reuse_address=True)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (ValueError, RuntimeError):  # not the main thread (tests)
            pass
    if ready is not None:
        ready(server, srv, stop)
    log.info("push server on %s:%s, up to %d waiters", host, port, server.hub.limit)
    try:
        await stop.wait()
    finally:
        srv.close()
        server.hub._stop.set()


def serve(app, host, port, ready=None):
    """Serve the waiting clients until SIGTERM (or ``ready``'s stop event is set)."""
    asyncio.run(_serve(app, host, port, ready))
