"""A rate-limit storage in the service's database, shared by every worker and machine.

``limits`` (behind Flask-Limiter) ships memory, Redis, Memcached and MongoDB storages.  The
memory one counts per process: with the Procfile's two gunicorn workers every limit held
twice over (the registration limit measured 40 an hour instead of 20).  This storage, the
default when no ``PBEM_RATELIMIT_STORAGE`` is set, keeps the fixed-window counters in a
table of the database the service already needs, so the limits hold across workers
without another server:

* PostgreSQL: the table ``pbem_rate_limits`` in the service's database;
* SQLite: the same table in a file beside the database (``<database>-ratelimits``), so
  counting never waits on the game log's write lock; writers of the file queue on an
  ``flock`` (the workers) and a thread lock (the threads), as the log's writers do.

Each count is one atomic ``INSERT ... ON CONFLICT DO UPDATE ... RETURNING`` (PostgreSQL
9.5+, SQLite 3.35+).  Registered with ``limits`` as the scheme ``pbemdb://``; the database
URL comes in the storage option ``url``.
"""

import hashlib
import os
import random
import threading
import time
from contextlib import contextmanager

from limits.storage import Storage
from sqlalchemy import create_engine, event, text
from sqlalchemy.exc import SQLAlchemyError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

TABLE = "pbem_rate_limits"
_DDL = (f"CREATE TABLE IF NOT EXISTS {TABLE} (key TEXT PRIMARY KEY, "
        "count INTEGER NOT NULL, expires_at DOUBLE PRECISION NOT NULL)")
_INCR = text(
    f"INSERT INTO {TABLE} (key, count, expires_at) VALUES (:key, :amount, :new_expiry) "
    f"ON CONFLICT (key) DO UPDATE SET "
    f"count = CASE WHEN {TABLE}.expires_at <= :now THEN :amount "
    f"ELSE {TABLE}.count + :amount END, "
    f"expires_at = CASE WHEN {TABLE}.expires_at <= :now THEN :new_expiry "
    f"ELSE {TABLE}.expires_at END "
    f"RETURNING count")


def _safe(key):
    """Keys hold names a request claims: no NUL (PostgreSQL text refuses it), bounded."""
    key = key.replace("\x00", "\\x00")
    return key if len(key) <= 400 else key[:340] + ":" + hashlib.sha256(key.encode()).hexdigest()


def storage_url(database_url):
    """The URL the limit counters live at, for the service's database URL."""
    if database_url.startswith("sqlite"):
        path = database_url.split(":///", 1)[1] if ":///" in database_url else ""
        if not path or path == ":memory:":
            return None  # one process only: nothing to share, memory:// does
        return f"sqlite:///{path}-ratelimits"
    return database_url


class DatabaseStorage(Storage):
    """Fixed-window counters in a SQL table (see the module's docstring)."""

    STORAGE_SCHEME = ["pbemdb"]

    def __init__(self, uri=None, wrap_exceptions=False, url=None, **options):
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        if not url:
            raise ValueError("the pbemdb:// rate-limit storage needs the option url")
        self.url = url
        self._engine = None
        self._init_lock = threading.Lock()
        self._thread_lock = threading.Lock()
        self._lock_fd = None

    @property
    def base_exceptions(self):
        return SQLAlchemyError

    # --- plumbing ---------------------------------------------------------------------

    @property
    def engine(self):
        if self._engine is None:
            with self._init_lock:
                if self._engine is None:
                    self._engine = self._make_engine()
        return self._engine

    def _make_engine(self):
        if self.url.startswith("sqlite"):
            engine = create_engine(self.url, connect_args={"timeout": 30})

            @event.listens_for(engine, "connect")
            def _pragmas(dbapi_connection, _record):
                cursor = dbapi_connection.cursor()
                cursor.execute("PRAGMA journal_mode=WAL")
                cursor.execute("PRAGMA synchronous=OFF")  # counters, not records
                cursor.execute("PRAGMA busy_timeout=30000")
                cursor.close()
            path = self.url.split(":///", 1)[1] if ":///" in self.url else ""
            if path and fcntl is not None:
                self._lock_fd = os.open(path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        else:
            engine = create_engine(self.url, pool_size=2, max_overflow=4, pool_pre_ping=True)
        for attempt in range(3):  # two workers may create the table at once
            try:
                with engine.begin() as conn:
                    conn.execute(text(_DDL))
                break
            except SQLAlchemyError:
                if attempt == 2:
                    raise
                time.sleep(0.05)
        return engine

    @contextmanager
    def _writing(self):
        """A transaction; on SQLite, writers queue on locks instead of SQLite's busy sleep."""
        if self._lock_fd is None and not self.url.startswith("sqlite"):
            with self.engine.begin() as conn:
                yield conn
            return
        engine = self.engine
        with self._thread_lock:
            if self._lock_fd is not None:
                fcntl.flock(self._lock_fd, fcntl.LOCK_EX)
            try:
                with engine.begin() as conn:
                    yield conn
            finally:
                if self._lock_fd is not None:
                    fcntl.flock(self._lock_fd, fcntl.LOCK_UN)

    # --- the Storage interface -----------------------------------------------------------

    def incr(self, key, expiry, amount=1):
        key = _safe(key)
        now = time.time()
        with self._writing() as conn:
            count = conn.execute(_INCR, {"key": key, "amount": amount, "now": now,
                                         "new_expiry": now + expiry}).scalar_one()
            if random.random() < 0.01:  # now and then, forget windows long over
                conn.execute(text(f"DELETE FROM {TABLE} WHERE expires_at < :cutoff"),
                             {"cutoff": now - 3600})
        return int(count)

    def get(self, key):
        key = _safe(key)
        with self.engine.connect() as conn:
            count = conn.execute(text(f"SELECT count FROM {TABLE} WHERE key = :key AND "
                                      "expires_at > :now"),
                                 {"key": key, "now": time.time()}).scalar_one_or_none()
        return int(count or 0)

    def get_expiry(self, key):
        key = _safe(key)
        with self.engine.connect() as conn:
            expiry = conn.execute(text(f"SELECT expires_at FROM {TABLE} WHERE key = :key"),
                                  {"key": key}).scalar_one_or_none()
        return float(expiry) if expiry is not None else time.time()

    def check(self):
        try:
            with self.engine.connect() as conn:
                conn.execute(text("SELECT 1"))
            return True
        except SQLAlchemyError:
            return False

    def reset(self):
        with self._writing() as conn:
            return conn.execute(text(f"DELETE FROM {TABLE}")).rowcount

    def clear(self, key):
        key = _safe(key)
        with self._writing() as conn:
            conn.execute(text(f"DELETE FROM {TABLE} WHERE key = :key"), {"key": key})

    def dispose(self):
        if self._engine is not None:
            self._engine.dispose()
