"""Push: waiting clients learn that a game moved within a second of the commit, without polling.

One :class:`Hub` per process and app (``hub()``).  A waiter (a long-poll request, a
Server-Sent Events stream, the notice worker) subscribes to a game (or to every game), reads
the game's public head, and sleeps on its own event until the head may have changed.  The
wake-ups come from three sources:

* **in-process**: :func:`announce`, called inside the transaction that moves a head (the
  append path, a game's start, a join), records the game in the session; after the commit
  a session hook wakes this process's waiters of that game.  A rolled-back transaction wakes
  nobody.
* **PostgreSQL**: after the commit, the same session hook hands ``GAME:SEQ`` to the
  process's notifier thread, which sends ``pg_notify('pbem_heads', ...)`` for everything
  queued meanwhile in one short transaction of its own connection (asynchronous commit: a
  notification is a hint).  A NOTIFY takes a database-wide lock from its transaction's
  pre-commit through the commit's flush; inside the move's own transaction that lock
  serialised every move's commit (28-43% of commit time spent waiting, bench/ANALYSIS.md),
  while the notifier holds it for microseconds, once for many moves, and a move's commit
  never waits for it.  A rolled-back transaction queues nothing.  Each process holds one
  ``LISTEN`` connection (a daemon thread, opened at the first wait) that fans the
  notifications out to its waiters.  After a (re)connection every waiter is woken once, so
  nothing committed while the listener was away is missed.
* **SQLite, other processes**: SQLite has no notifications, and an in-process signal does not
  reach the other gunicorn workers (nor the Procfile's push process, where every move comes
  from another process).  While someone in a process waits, one watcher thread in that
  process asks SQLite every ``PBEM_PUSH_PROBE`` seconds (0.02) whether another connection
  committed (``PRAGMA data_version`` on its own connection: no read of the database), and
  then reads the heads of the games waited on with one query (at most every 0.1 s, and
  every ``PBEM_PUSH_POLL`` seconds, 0.25, in any case), waking the waiters whose head
  moved.  With no waiter the thread ends: an idle server runs no query.  This is polling,
  but a few microseconds per probe and at most ten cheap indexed queries a second, per
  process, not one request per client.

A wake-up is only a hint: the waiter re-reads the head before it answers, so a spurious or
a lost wake-up costs a query or a wait for the timeout, never a wrong answer.  On PostgreSQL
the hub keeps the heads its waiters read (:meth:`Hub.head`) for as long as its ``LISTEN``
connection stays up: a head read while the listener was up is current until a notification
for its game comes (or the listener drops), so a long poll that renews on a game that did not
move, the common case by far, answers from memory and never checks out a connection; the
waiters of a game that moved share one read.  This is what keeps 5,000 waiters within the push
process's fixed pool of connections (bench/ANALYSIS.md, "Cost at scale").

What a waiter answers is :func:`public_head`: game id, status, seq, head hash, the
seats that owe a move, the result, the number of seats taken: what anyone may read in the
game's summary, never a hand.

Waiters are bounded per process (``PBEM_PUSH_WAITERS``, see :func:`waiter_limit`): under
gunicorn's gthread workers each one holds a thread, and moves must always find one free.
"""

import json
import logging
import os
import queue
import sys
import threading
import time
from collections import OrderedDict
from contextlib import contextmanager

from flask import current_app
from sqlalchemy import bindparam, event, func, select
from sqlalchemy.orm import Session

from ..db import db
from ..db.models import Game, Move, Seat
from ..game import hooks
from ..game.domain import DomainError, NotFound

log = logging.getLogger("pbem.push")

CHANNEL = "pbem_heads"
ANY = None  # subscribe to every game (the notice worker)
# the notifier's one statement for a batch of payloads (psycopg's own placeholders)
_NOTIFY_MANY = "SELECT pg_notify(%s, p) FROM unnest(%s::text[]) AS p"


class Busy(DomainError):
    """Too many waiters in this process: answered 503 with Retry-After."""


def elsewhere(config):
    """The Busy of a process that holds no waiters (the Procfile's ``web`` process): the
    client is told where the push process answers when PBEM_PUSH_URL says so."""
    push_url = config.get("PBEM_PUSH_URL")
    where = (f"ask {push_url} (details.push_url)" if push_url else
             "the front proxy should route /api/games/<id>/wait and /events to the push "
             "process (docs/DEPLOYMENT.md); poll the game meanwhile")
    return Busy("busy", "this process does not hold waiting clients: " + where,
                {"retry_after": 5, "push_url": push_url})


# --- the head everyone may read ------------------------------------------------------------

# a Core statement on the table columns, built once: executed on the session's connection
# it skips the ORM's result layer (the push process reads a head for every waiter it
# answers: the profile in bench/ANALYSIS.md)
_GAMES, _SEATS = Game.__table__, Seat.__table__
_TAKEN = select(func.count()).where(_SEATS.c.game_id == _GAMES.c.id,
                                    _SEATS.c.player_id.is_not(None)) \
    .correlate(_GAMES).scalar_subquery()
_HEAD = select(_GAMES.c.id, _GAMES.c.status, _GAMES.c.head_seq, _GAMES.c.head_hash,
               _GAMES.c.to_act, _GAMES.c.result, _TAKEN.label("taken")) \
    .where(_GAMES.c.id == bindparam("game_id"))


# the SQLite watcher's read: built once (an expanding IN is compiled once and cached)
_HEADS_IN = select(_GAMES.c.id, _GAMES.c.head_seq, _GAMES.c.status) \
    .where(_GAMES.c.id.in_(bindparam("ids", expanding=True)))
# the SQLite watcher reads the heads at most this often, however often SQLite says that
# something was committed
READ_GAP = 0.1
# PostgreSQL: the heads a hub keeps (the games waited on lately; a head is a few hundred bytes)
HEADS_KEPT = 20000


# the same columns for many games at once (the push server's batched reads)
_HEADS = select(*_HEAD.selected_columns).where(
    _GAMES.c.id.in_(bindparam("ids", expanding=True)))
#: the longest game id there is (a longer one is unknown without a query)
MAX_GAME_ID = 16


def _head_of(row):
    return {"game": row.id, "status": row.status, "seq": row.head_seq, "head": row.head_hash,
            "to_act": list(row.to_act or []), "result": row.result, "seats_taken": row.taken}


def unknown_game(game_id):
    return NotFound("unknown_game", f"there is no game {game_id!r}")


def public_head(game_id):
    """The public head of ``game_id`` (one query); raises NotFound."""
    row = db.session.connection().execute(_HEAD, {"game_id": game_id}).first() \
        if len(game_id) <= MAX_GAME_ID else None
    if row is None:
        raise unknown_game(game_id)
    return _head_of(row)


def public_heads(conn, game_ids, chunk=500):
    """{game_id: public head} of those of ``game_ids`` that exist, on the SQLAlchemy
    connection ``conn``: one query per ``chunk`` games."""
    ids = [g for g in game_ids if len(g) <= MAX_GAME_ID]
    heads = {}
    for i in range(0, len(ids), chunk):
        for row in conn.execute(_HEADS, {"ids": ids[i:i + chunk]}):
            heads[row.id] = _head_of(row)
    return heads


def mark(head):
    """What a client knows of ``head``: (seq, status, seats taken), the events' id."""
    return head["seq"], head["status"], head["seats_taken"]


# --- the Server-Sent Events text (the Flask handler and the push server write the same) -------

HEARTBEAT = 15.0   # seconds of quiet before a keep-alive comment
RETRY_AFTER = "5"  # the Retry-After of a 503
SSE_KEEPALIVE = ": keep-alive\n\n"
SSE_END = "event: end\ndata: {}\n\n"
#: the headers of an event stream (besides its type)
SSE_HEADERS = {"Cache-Control": "no-cache",
               "X-Accel-Buffering": "no"}  # nginx: do not buffer the stream


def sse_start(game_id):
    return f"retry: 2000\n: {game_id}\n\n"


def sse_head(head):
    return (f"event: head\nid: {head['seq']}.{head['status']}.{head['seats_taken']}\n"
            f"data: {json.dumps(head, separators=(',', ':'))}\n\n")


def last_event_id(raw):
    """The (seq, status, taken) of an EventSource's Last-Event-ID header, when well formed."""
    parts = (raw or "").split(".")
    if len(parts) == 3 and parts[1] in ("open", "playing", "over"):
        try:
            return int(parts[0]), parts[1], int(parts[2])
        except ValueError:
            pass
    return None


def full():
    """The Busy of a process that holds as many waiters as it may."""
    return Busy("busy", "this server holds as many waiting clients as it can; "
                "retry shortly, or poll", {"retry_after": 5})


def address_full(per_address):
    """The Busy of an address that holds its share of waiters."""
    return Busy("busy", f"your address already has {per_address} waiting "
                "requests on this server; close some, or poll",
                {"retry_after": 5, "per_address": per_address})


def moved(head, after, status=None):
    """Whether ``head`` is news to a client that knows seq ``after`` (and ``status``)."""
    return head["seq"] > after or (status is not None and head["status"] != status)


# --- announcing, inside the transaction that moves a head ---------------------------------

def announce(game_id, seq):
    """Tell waiters of ``game_id`` that its head moves (to ``seq``) when this transaction
    commits.  Call it inside the transaction, before the commit."""
    session = db.session()
    pending = session.info.get("pbem_push")
    if pending is None:
        pending = session.info["pbem_push"] = (hub(), {})
    pending[1][game_id] = seq


@event.listens_for(Session, "after_commit")
def _after_commit(session):
    pending = session.info.pop("pbem_push", None)
    if pending:
        the_hub, games = pending
        for game_id in games:
            the_hub.wake(game_id)
        if the_hub.postgres:
            the_hub.notify(games)


@event.listens_for(Session, "after_rollback")
def _after_rollback(session):
    session.info.pop("pbem_push", None)


# --- the hub ---------------------------------------------------------------------------------

class Waiter:
    """One subscription: ``game_id`` (None: every game), its event, and the head it knows."""

    __slots__ = ("game_id", "event", "known")

    def __init__(self, game_id):
        self.game_id = game_id
        self.event = threading.Event()
        self.known = None  # (seq, status, taken) last read by the waiter

    def wait(self, timeout):
        """Sleep until woken or ``timeout`` seconds passed; True when woken."""
        woken = self.event.wait(max(0.0, timeout))
        self.event.clear()
        return woken


def waiter_limit(config):
    """Waiters one process holds at once.

    ``PBEM_PUSH_WAITERS`` when set.  Else the gunicorn settings that the Procfile's settings
    files exported for this worker.  A ``web`` worker (gunicorn_conf.py) holds none: the
    long polls and streams belong to the ``push`` process (gunicorn_push.py), and a long poll
    that lands on a web worker is answered at once when there is news, else refused with 503
    and a pointer (:func:`wait_for_move`).  A push worker: gevent holds a waiter in a
    greenlet (the worker's connection bound less a reserve); gthread holds it in a thread,
    so a reserve of threads stays free for everything else.  A server started without that
    file under gunicorn gets 2 (a thread-per-request worker must never be filled by
    waiters); the development server (a thread per request) 256.
    """
    if config.get("PBEM_PUSH_WAITERS") not in (None, ""):
        return int(config["PBEM_PUSH_WAITERS"])
    worker = config.get("PBEM_GUNICORN") or {}
    if worker.get("role") == "web":
        return 0  # the Procfile's web process: waiters go to its push process
    kind = worker.get("worker")
    if kind == "gevent":
        return max(1, int(worker.get("connections") or 1000) - 100)
    if kind:
        threads = int(worker.get("threads") or 1)
        return max(0, threads - max(4, threads // 8)) if threads > 4 else threads // 2
    return 2 if "gunicorn" in sys.modules else 256


class Hub:
    def __init__(self, app):
        self.app = app
        self.lock = threading.Lock()
        self.waiters = {}  # game_id (or ANY) -> set of Waiter
        self.count = 0
        url = app.config["SQLALCHEMY_DATABASE_URI"]
        self.postgres = url.startswith("postgresql")
        self.memory = url.startswith("sqlite") and (":memory:" in url or url in (
            "sqlite://", "sqlite:///"))
        self.limit = waiter_limit(app.config)
        # one address may hold at most this many of them (a stranger cannot take them all)
        self.per_address = int(app.config.get("PBEM_PUSH_PER_ADDRESS") or 32)
        self.by_address = {}
        self.poll = float(app.config.get("PBEM_PUSH_POLL") or 0.25)
        self.head_ttl = float(app.config.get("PBEM_PUSH_HEAD_TTL") or 60)
        self.probe = float(app.config.get("PBEM_PUSH_PROBE") or 0.02)
        self.pid = os.getpid()
        self.listening = False     # PostgreSQL: the LISTEN connection is up
        self.epoch = 0             # PostgreSQL: LISTEN connections made so far
        self._listener = None
        self._watcher = None
        self._notifier = None
        self._outgoing = queue.SimpleQueue()  # PostgreSQL: (game_id, seq) to pg_notify
        self._stop = threading.Event()
        self.any_mark = None       # SQLite watcher: what "any game moved" last looked like
        # PostgreSQL: game_id -> [tick, epoch, head, until]; head None: a wake-up's tombstone, so a
        # read that began before it is not kept (see head())
        self._heads = OrderedDict()
        self._tick = 0             # wake-ups so far (under self.lock)
        self._dropped = 0          # the tick of the last entry evicted or of the last wake_all
        self._reading = {}         # game_id -> Event of the read in flight
        self.head_reads = 0        # heads read from the database by head() (tests, bench)

    # waking ------------------------------------------------------------------------------
    def wake(self, game_id):
        with self.lock:
            self._tick += 1
            if self.postgres:
                self._forget(game_id)
            targets = list(self.waiters.get(game_id, ())) + list(self.waiters.get(ANY, ()))
        for w in targets:
            w.event.set()

    def wake_all(self):
        with self.lock:
            self._tick += 1
            self._heads.clear()
            self._dropped = self._tick
            targets = [w for ws in self.waiters.values() for w in ws]
        for w in targets:
            w.event.set()

    # the heads read while the LISTEN connection was up (PostgreSQL) ----------------------
    def _forget(self, game_id):
        """A wake-up of ``game_id`` (under self.lock): its kept head is stale, and a read
        that began before now must not be kept either (a tombstone with this tick)."""
        entry = self._heads.get(game_id)
        if entry is not None:
            entry[0], entry[2] = self._tick, None
            self._heads.move_to_end(game_id)
        elif game_id in self._reading:
            self._keep(game_id, [self._tick, self.epoch, None, 0.0])

    def _keep(self, game_id, entry):
        self._heads[game_id] = entry
        self._heads.move_to_end(game_id)
        while len(self._heads) > HEADS_KEPT:
            self._heads.popitem(last=False)
            self._dropped = self._tick

    def head(self, game_id):
        """The public head of ``game_id``: the one kept when it is current, else read from
        the database (one read for all the waiters of a game that ask at once).  Heads are
        kept only on PostgreSQL with the ``LISTEN`` connection up, where every commit that
        moves a head is followed by a notification that drops the kept one, and for at most
        ``PBEM_PUSH_HEAD_TTL`` seconds (60): a notification lost with a crashed process costs
        a waiter at most that long, as a lost wake-up costs it its timeout."""
        if not self.postgres:
            return public_head(game_id)
        while True:
            with self.lock:
                heard = self.epoch if self.listening else None
                entry = self._heads.get(game_id)
                if heard is not None and entry is not None and entry[2] is not None \
                        and entry[1] == heard and time.monotonic() < entry[3]:
                    self._heads.move_to_end(game_id)
                    return entry[2]
                reading = self._reading.get(game_id)
                if reading is None:
                    mine = self._reading[game_id] = threading.Event()
                    start = self._tick
                    break
            reading.wait(10.0)  # another waiter of this game reads it: take its answer
        head = None
        try:
            self.head_reads += 1
            head = public_head(game_id)
        finally:
            with self.lock:
                del self._reading[game_id]
                entry = self._heads.get(game_id)
                # no wake-up of this game (nor a wake_all, nor an eviction) since the read began
                fresh = entry[0] <= start if entry is not None else self._dropped <= start
                if head is not None and fresh and heard is not None and self.listening \
                        and self.epoch == heard:
                    self._keep(game_id, [start, heard, head, time.monotonic() + self.head_ttl])
            mine.set()
        return head

    # subscribing -------------------------------------------------------------------------
    @contextmanager
    def subscribe(self, game_id, bounded=True, address=None):
        """A Waiter on ``game_id`` (ANY: every game) for the block.  Raises Busy when this
        process holds its limit of waiters (``bounded``), or ``address`` its share."""
        w = Waiter(game_id)
        with self.lock:
            if bounded and not self.limit:
                raise elsewhere(self.app.config)
            if bounded and self.count >= self.limit:
                raise full()
            if address is not None:
                if self.by_address.get(address, 0) >= self.per_address:
                    raise address_full(self.per_address)
                self.by_address[address] = self.by_address.get(address, 0) + 1
            self.waiters.setdefault(game_id, set()).add(w)
            self.count += 1
        try:
            self._start_threads()
            yield w
        finally:
            with self.lock:
                ws = self.waiters.get(game_id)
                ws.discard(w)
                if not ws:
                    del self.waiters[game_id]
                self.count -= 1
                if address is not None:
                    left = self.by_address.pop(address) - 1
                    if left:
                        self.by_address[address] = left

    def _start_threads(self):
        if os.getpid() != self.pid:  # forked after start: threads do not survive a fork
            self.pid, self._listener, self._watcher = os.getpid(), None, None
            self._notifier, self.listening = None, False
        if self.postgres:
            if self._listener is None or not self._listener.is_alive():
                with self.lock:
                    if self._listener is None or not self._listener.is_alive():
                        self._listener = threading.Thread(target=self._listen, daemon=True,
                                                          name="pbem-push-listen")
                        self._listener.start()
        elif not self.memory:
            with self.lock:
                if self._watcher is None or not self._watcher.is_alive():
                    self._watcher = threading.Thread(target=self._watch, daemon=True,
                                                     name="pbem-push-watch")
                    self._watcher.start()

    def close(self):
        """Stop the listener, watcher and notifier threads (tests; a process's end does it
        too)."""
        self._stop.set()
        for t in (self._listener, self._watcher, self._notifier):
            if t is not None:
                t.join(5)

    # PostgreSQL: one LISTEN connection per process ---------------------------------------
    def _psycopg_url(self):
        with self.app.app_context():
            url = db.engine.url.set(drivername="postgresql")
        return url.render_as_string(hide_password=False)

    def _listen(self):
        import psycopg
        url = self._psycopg_url()
        backoff = 0.5
        while not self._stop.is_set():
            try:
                with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.epoch += 1
                    backoff = 0.5
                    # whatever committed before LISTEN took effect; and only then listening,
                    # so that no head read before this wake-up is kept as current
                    self.wake_all()
                    self.listening = True
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=1.0):
                            self.wake(note.payload.split(":", 1)[0])
            except Exception as exc:  # noqa: BLE001 - reconnect; waiters fall back on timeouts
                self.listening = False
                if self._stop.is_set():
                    break
                log.warning("push listener: %s; reconnecting in %.1f s", exc, backoff)
                self._stop.wait(backoff)
                backoff = min(backoff * 2, 10)
        self.listening = False

    # PostgreSQL: one notifier per process, after the commits ------------------------------
    def notify(self, games):
        """Queue ``games`` ({game_id: seq}, committed) for the notifier thread's pg_notify."""
        for item in games.items():
            self._outgoing.put(item)
        if os.getpid() != self.pid or self._notifier is None or not self._notifier.is_alive():
            with self.lock:
                if os.getpid() != self.pid:
                    self.pid, self._listener, self._watcher = os.getpid(), None, None
                    self._notifier, self.listening = None, False
                if self._notifier is None or not self._notifier.is_alive():
                    self._notifier = threading.Thread(target=self._notify_loop, daemon=True,
                                                      name="pbem-push-notify")
                    self._notifier.start()

    def _next_batch(self):
        """Everything queued: the first item waited for (a second at most), then the rest;
        one payload per game, its highest seq.  None when nothing came."""
        try:
            game_id, seq = self._outgoing.get(timeout=1.0)
        except queue.Empty:
            return None
        batch = {game_id: seq}
        while len(batch) < 1000:
            try:
                game_id, seq = self._outgoing.get_nowait()
            except queue.Empty:
                break
            batch[game_id] = max(seq, batch.get(game_id, seq))
        return [f"{g}:{s}" for g, s in batch.items()]

    def _notify_loop(self):
        import psycopg
        url = self._psycopg_url()
        conn, batch = None, None
        while not self._stop.is_set():
            batch = batch or self._next_batch()
            if batch is None:
                continue
            try:
                if conn is None or conn.closed:
                    conn = psycopg.connect(url, autocommit=True, connect_timeout=10)
                    # a notification is a hint (a lost one costs a waiter its timeout):
                    # the notifier's commits need not wait for the WAL's flush
                    conn.execute("SET synchronous_commit = off")
                conn.execute(_NOTIFY_MANY, (CHANNEL, batch))
                batch = None
            except Exception as exc:  # noqa: BLE001 - reconnect and send the batch again
                log.warning("push notifier: %s; reconnecting", exc)
                if conn is not None:
                    conn.close()
                conn = None
                self._stop.wait(0.5)
        if conn is not None:
            conn.close()

    # SQLite: one watcher per process, only while someone waits -----------------------------
    def _watch(self):
        with self.app.app_context():
            engine = db.engine
        box = [None]  # the probe's own connection
        try:
            self._watch_loop(engine, box)
        finally:
            if box[0] is not None:
                box[0].close()

    def _data_version(self, engine, box):
        """SQLite's ``PRAGMA data_version`` on the watcher's own connection: it changes when
        another connection (any process) commits.  None when it cannot be read."""
        try:
            if box[0] is None:
                box[0] = engine.raw_connection()
            return box[0].cursor().execute("PRAGMA data_version").fetchone()[0]
        except Exception as exc:  # noqa: BLE001 - a busy database: read the heads instead
            log.warning("push watcher probe: %s", exc)
            if box[0] is not None:
                box[0].invalidate()
                box[0] = None
            return None

    def _watch_loop(self, engine, box):
        """Every ``probe`` seconds (0.02) a ``PRAGMA data_version`` (a few microseconds, no
        read of the database); the heads waited on are read when it changed, at most every
        ``READ_GAP`` seconds (a busy server changes it at every move), and every ``poll``
        seconds (0.25) in any case."""
        games = Game.__table__
        version, last_read, gap = None, 0.0, min(self.poll, READ_GAP)
        while not self._stop.wait(min(self.probe, self.poll)):
            with self.lock:
                if not self.count:
                    self._watcher = None
                    self.any_mark = None
                    return
            now = time.monotonic()
            if now - last_read < gap:
                continue
            seen = self._data_version(engine, box)
            if seen is not None and seen == version and now - last_read < self.poll:
                continue
            version, last_read = seen, now
            with self.lock:
                by_game = {g: list(ws) for g, ws in self.waiters.items() if g is not ANY}
                anys = list(self.waiters.get(ANY, ()))
            try:
                with engine.connect() as conn:
                    heads = {}
                    ids = list(by_game)
                    for i in range(0, len(ids), 500):
                        heads.update((r.id, (r.head_seq, r.status)) for r in conn.execute(
                            _HEADS_IN, {"ids": ids[i:i + 500]}))
                    mark = None
                    if anys:
                        mark = tuple(conn.execute(select(
                            select(func.max(Move.__table__.c.id)).scalar_subquery(),
                            select(func.count()).select_from(games)
                            .where(games.c.status == "open").scalar_subquery())).one())
            except Exception as exc:  # noqa: BLE001 - a locked or busy database: next round
                log.warning("push watcher: %s", exc)
                version = None
                continue
            for game_id, ws in by_game.items():
                head = heads.get(game_id)
                for w in ws:
                    if head is not None and (w.known is None or w.known[:2] != head):
                        w.event.set()
            if anys and mark != self.any_mark:
                if self.any_mark is not None:
                    for w in anys:
                        w.event.set()
                self.any_mark = mark


def hub(app=None):
    """This process's Hub of ``app`` (the current app by default)."""
    app = app or current_app._get_current_object()
    the_hub = app.extensions.get("pbem_push")
    if the_hub is None:
        with _HUBS_LOCK:
            the_hub = app.extensions.get("pbem_push")
            if the_hub is None:
                the_hub = app.extensions["pbem_push"] = Hub(app)
    return the_hub


_HUBS_LOCK = threading.Lock()


# --- waiting ---------------------------------------------------------------------------------

def _address():
    from flask import has_request_context, request
    return (request.remote_addr or "?") if has_request_context() else None


def wait_for_move(game_id, after, status=None, timeout=25.0):
    """The public head of ``game_id`` once it is news to a client that knows seq ``after``
    (and ``status``), or after ``timeout`` seconds as it then is.  Returns (head, changed).

    Holds no database connection while it sleeps.  Raises NotFound, Busy.  In a process that
    holds no waiters (the Procfile's web process) it answers at once when there is news or
    ``timeout`` is 0, and raises Busy (with the push URL, when configured) otherwise.
    """
    deadline = time.monotonic() + timeout
    the_hub = hub()
    if not the_hub.limit:
        # a process without waiters (the web process): a short poll, never a held thread
        head = public_head(game_id)
        db.session.close()
        if moved(head, after, status) or timeout <= 0:
            return head, moved(head, after, status)
        raise elsewhere(the_hub.app.config)
    with the_hub.subscribe(game_id, address=_address()) as w:
        while True:
            heard = the_hub.listening and the_hub.epoch  # the LISTEN connection read with
            head = the_hub.head(game_id)
            w.known = (head["seq"], head["status"], head["seats_taken"])
            # give the connection back, and drop the session object, while sleeping
            db.session.remove()
            if moved(head, after, status):
                return head, True
            left = deadline - time.monotonic()
            if left <= 0:
                return head, False
            if not w.wait(left) and heard and the_hub.listening and the_hub.epoch == heard:
                # PostgreSQL: timed out with no notification while the same LISTEN connection
                # was up all along, so the head read is still the head (a commit of the last
                # milliseconds, whose notification is on its way, is answered to the next
                # long poll at once); no second read for every waiter whose time runs out
                return head, False


class HeadStream:
    """An iterable of the public heads of ``game_id``: the head now (unless it is ``known``, a
    (seq, status, taken) triple) and each time it changes, for ``lifetime`` seconds; None
    after each ``heartbeat`` seconds of quiet (the caller writes a comment, so a closed
    connection is noticed).

    The subscription is taken at once (Busy is raised here, before an answer starts) and
    given back by ``close()`` (the WSGI server calls it when the answer ends or the client
    goes), even when the stream was never read.
    """

    def __init__(self, game_id, lifetime, known=None, heartbeat=15.0):
        self.app = current_app._get_current_object()
        self.game_id, self.known, self.heartbeat = game_id, known, heartbeat
        self.deadline = time.monotonic() + lifetime
        self._sub = hub(self.app).subscribe(game_id, address=_address())
        self.waiter = self._sub.__enter__()
        self._closed = False

    def _read(self):
        with self.app.app_context():
            head = hub(self.app).head(self.game_id)
            db.session.remove()
        return head

    def __iter__(self):
        last = self.known
        w = self.waiter
        while not self._closed:
            head = self._read()
            mark = (head["seq"], head["status"], head["seats_taken"])
            w.known = mark
            if mark != last:
                last = mark
                yield head
            left = self.deadline - time.monotonic()
            if left <= 0:
                return
            if not w.wait(min(left, self.heartbeat)) and time.monotonic() < self.deadline:
                yield None

    def close(self):
        if not self._closed:
            self._closed = True
            self._sub.__exit__(None, None, None)


def any_move_waiter(app, min_gap=0.25):
    """For a worker loop (server/workers/loop.py): a ``pause(seconds, stop)`` that returns early,
    at most every ``min_gap`` seconds, when any game moves, starts or ends."""
    the_hub = hub(app)
    state = {"sub": None, "w": None}

    def pause(seconds, stop):
        if state["w"] is None:
            state["sub"] = the_hub.subscribe(ANY, bounded=False)
            state["w"] = state["sub"].__enter__()
        w = state["w"]
        if stop.wait(min_gap):
            return
        end = time.monotonic() + max(0.0, seconds - min_gap)
        while not stop.is_set():
            left = end - time.monotonic()
            if left <= 0 or w.wait(min(left, 0.5)):
                return
    return pause


# --- the after-append hook (server/game/hooks.py) ----------------------------------------------

def init_app(app):
    """Register push's after-append hook: waiters of a game wake when its move commits."""
    hooks.after_append(_announce_appended, hooks.IN_TRANSACTION)


def _announce_appended(appended):
    announce(appended.game_id, appended.seq)
