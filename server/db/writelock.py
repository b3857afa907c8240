"""One writer at a time on SQLite: ``write_lock()`` around a write transaction.

PostgreSQL needs no lock of ours (its row locks and conditional updates order the writers):
there ``write_lock()`` is a no-op context.
"""

import os
import threading
from contextlib import nullcontext

try:
    import fcntl
except ImportError:  # Windows has no flock: threads still queue on the thread lock
    fcntl = None

from . import db

_SQLITE_WRITES = threading.Lock()
_lock_files = {}


class _SQLiteWriteLock:
    """SQLite allows one writer at a time.  Writers wait on a thread lock (threads of one
    worker) and an flock on a file beside the database (the other workers), both woken by
    the kernel at once, instead of in SQLite's busy handler, whose sleeping back-off (up to
    100 ms a try) made the tail latency."""

    def __init__(self, path):
        self.path = path

    def __enter__(self):
        _SQLITE_WRITES.acquire()
        try:
            fd = _lock_files.get(self.path)
            if fd is None:
                fd = _lock_files[self.path] = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX)
        except BaseException:
            _SQLITE_WRITES.release()
            raise
        self.fd = fd
        return self

    def __exit__(self, *exc):
        try:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
        finally:
            _SQLITE_WRITES.release()
        return False


def write_lock():
    """The lock a write transaction holds: across threads and processes on a SQLite file,
    across threads on an in-memory SQLite database, none on PostgreSQL."""
    engine = db.engine
    if engine.dialect.name != "sqlite" or fcntl is None:
        return _SQLITE_WRITES if engine.dialect.name == "sqlite" else nullcontext()
    database = engine.url.database
    if not database or database == ":memory:":
        return _SQLITE_WRITES
    return _SQLiteWriteLock(os.path.abspath(database) + ".write-lock")
