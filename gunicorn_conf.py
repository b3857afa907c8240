"""gunicorn settings of the Procfile's ``web`` process: ``gunicorn -c gunicorn_conf.py wsgi:app``.

The deployment has two process types on the same database (docs/DEPLOYMENT.md, "The two
process types"):

* ``web`` (this file): moves, pages and every ordinary request, on **gthread** workers
  (``WEB_CONCURRENCY`` workers x ``PBEM_THREADS`` threads, 2 x 4).  A request holds a thread
  for the few milliseconds it takes; SQLite's write lock, a ``flock`` and a blocking database
  call hold only that thread, never a whole worker (as they hold a gevent worker's loop).
  This process holds **no waiting client**: a long poll that lands here is answered at once
  when the game already moved, else with 503 + Retry-After and a pointer to the push process
  (server/workers/push.py ``waiter_limit``: role ``web`` holds 0 waiters).
* ``push`` (``pbem-server push``, server/http/pushserver.py): the long polls and the
  streams (``/api/games/<id>/wait`` and ``/events``) on one asyncio loop, where an idle
  waiter is a connection and a future of about 10 kB.  The front proxy routes those two paths
  there, so users keep one URL.

Beside wsgi.py, outside the ``server`` package on purpose: gunicorn reads this file in its
master process.  Command-line flags override these settings; every value here can also be
set from the environment.
"""

import ctypes
import ctypes.util
import os


def _host():
    hops = (os.environ.get("PBEM_PROXY_HOPS") or "0").strip()
    return "0.0.0.0" if hops in ("", "0") else "127.0.0.1"


# behind a proxy (PBEM_PROXY_HOPS) only the proxy on this machine needs the port: listen on
# loopback, so nobody reaches the app past it (its buffering, its X-Forwarded-For); without
# one, every address.  PBEM_BIND overrides both (docs/DEPLOYMENT.md, "Who may reach the ports")
bind = os.environ.get("PBEM_BIND") or (
    f"{_host()}:{os.environ.get('PORT', '5000')}")
workers = int(os.environ.get("WEB_CONCURRENCY") or 2)
worker_class = "gthread"
threads = int(os.environ.get("PBEM_THREADS") or 4)
timeout = 30
graceful_timeout = 10
keepalive = 5


def _cap_malloc_arenas(arenas=2):
    """glibc's malloc gives each thread that allocates under contention an arena of its own
    (up to 8 per core), and memory freed in one is not reused by the others: a gthread
    worker's four threads grew its RSS by ~3 MB more over the bench's 1,000-game run than
    with two arenas (bench/ANALYSIS.md, Web worker memory).  CPython allocates under its
    GIL, so the threads hardly contend for malloc's locks anyway.  Set here, in the master,
    so that every worker forked from it inherits it; ``MALLOC_ARENA_MAX`` in the environment
    (read by glibc itself) wins.  Elsewhere than glibc this does nothing."""
    if os.environ.get("MALLOC_ARENA_MAX"):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(-8, arenas)  # M_ARENA_MAX
    except (OSError, AttributeError):
        pass


_cap_malloc_arenas()


def post_fork(server, worker):
    """Tell the app (server/workers/push.py) that this is a web worker: it holds no waiters."""
    os.environ["PBEM_GUNICORN_ROLE"] = "web"
    os.environ["PBEM_GUNICORN_WORKER"] = worker.cfg.worker_class_str
    os.environ["PBEM_GUNICORN_THREADS"] = str(worker.cfg.threads)
    os.environ["PBEM_GUNICORN_CONNECTIONS"] = str(worker.cfg.worker_connections)
