"""gunicorn settings of the Procfile's ``push`` process: ``gunicorn -c gunicorn_push.py wsgi:app``.

The same app as the ``web`` process (gunicorn_conf.py), serving the waiting clients: long
polls (``/api/games/<id>/wait``) and Server-Sent Events (``/api/games/<id>/events``).  The
front proxy sends those two paths here and everything else to ``web`` (docs/DEPLOYMENT.md,
nginx), so users and clients keep a single URL.  Any other request that reaches this process
is served too (a health check, a game's JSON), only more slowly than on ``web``.

gevent workers: a waiting client is a greenlet asleep on an event (a few kB, no CPU, no
database connection), up to ``worker_connections`` less a reserve of 100 per worker
(server/workers/push.py ``waiter_limit``).  With PostgreSQL each worker holds one more connection,
its ``LISTEN pbem_heads``; on SQLite one watcher thread per worker reads the heads waited on.

Nothing of the app may be imported in this file: gunicorn's gevent worker patches the
standard library before the app loads, and a lock made before the patch would block a whole
worker.  Without gevent installed (or with ``PBEM_PUSH_WORKER_CLASS=gthread``): gthread
workers, where a waiter holds a thread; waiters may take all threads but a reserve, and get
503 with Retry-After past that.
"""

import importlib.util
import os


def _host():
    hops = (os.environ.get("PBEM_PROXY_HOPS") or "0").strip()
    return "0.0.0.0" if hops in ("", "0") else "127.0.0.1"


def _worker_class():
    # find_spec does not import gevent (see above)
    return "gevent" if importlib.util.find_spec("gevent") else "gthread"


# behind a proxy (PBEM_PROXY_HOPS) only the proxy on this machine needs the port: listen on
# loopback, so nobody reaches the app past it (its buffering, its X-Forwarded-For); without
# one, every address.  PBEM_PUSH_BIND overrides both (docs/DEPLOYMENT.md, "Who may reach the
# ports")
bind = os.environ.get("PBEM_PUSH_BIND") or (
    f"{_host()}:{os.environ.get('PBEM_PUSH_PORT', '5001')}")
workers = int(os.environ.get("PBEM_PUSH_WORKERS") or 2)
worker_class = os.environ.get("PBEM_PUSH_WORKER_CLASS") or _worker_class()
# gevent: connections a worker holds at once (waiters: all but 100 of them)
worker_connections = int(os.environ.get("PBEM_WORKER_CONNECTIONS") or 1000)
# gthread only: 288 threads a worker hold 252 waiters and keep 36 for everything else
threads = int(os.environ.get("PBEM_PUSH_THREADS") or 288)
# a long poll lasts at most 60 s and a stream 600 s; a worker's heartbeat does not depend on
# them, so the usual worker timeout stays
timeout = 30
graceful_timeout = 10
keepalive = 5


def post_fork(server, worker):
    """Tell the app (server/workers/push.py) how many waiters this worker can hold."""
    os.environ["PBEM_GUNICORN_ROLE"] = "push"
    os.environ["PBEM_GUNICORN_WORKER"] = worker.cfg.worker_class_str
    os.environ["PBEM_GUNICORN_THREADS"] = str(worker.cfg.threads)
    os.environ["PBEM_GUNICORN_CONNECTIONS"] = str(worker.cfg.worker_connections)
