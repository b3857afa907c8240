"""gunicorn settings of the Procfile's web process: ``gunicorn -c gunicorn_conf.py wsgi:app``.

Beside wsgi.py, outside the ``server`` package on purpose: gunicorn reads this file in its
master process, and nothing of the app may be imported there before a gevent worker has
patched the standard library (a lock made before the patch would block a whole worker).

Worker model (docs/DEPLOYMENT.md, "Push"): gevent workers when gevent is installed (it is
a dependency): a waiting client (``/api/games/<id>/wait``, ``/events``) is a greenlet asleep
on an event (a few kB, no CPU, no database connection), up to ``worker_connections`` less a
reserve per worker (server/push.py ``waiter_limit``).  Without gevent (or with
``PBEM_WORKER_CLASS=gthread``): gthread workers, where a waiter holds a thread, the app lets
waiters take all threads but a reserve, so moves always find a free thread, and answers 503
with Retry-After past that.  Command-line flags override these settings (``--threads 8``
...); every value here can also be set from the environment.
"""

import importlib.util
import os


def _worker_class():
    # find_spec does not import gevent: gunicorn's gevent worker patches the standard
    # library before the app loads, and nothing here may import it earlier
    return "gevent" if importlib.util.find_spec("gevent") else "gthread"


bind = os.environ.get("PBEM_BIND") or f"0.0.0.0:{os.environ.get('PORT', '5000')}"
workers = int(os.environ.get("WEB_CONCURRENCY") or 2)
worker_class = os.environ.get("PBEM_WORKER_CLASS") or _worker_class()
# gthread only: 288 threads a worker hold 252 waiters and keep 36 for everything else
threads = int(os.environ.get("PBEM_THREADS") or 288)
# gevent: connections a worker holds at once (waiters: all but 100 of them)
worker_connections = int(os.environ.get("PBEM_WORKER_CONNECTIONS") or 1000)
# a long poll lasts at most 60 s and a stream 600 s; a gthread worker's heartbeat does not
# depend on them, so the usual worker timeout stays
timeout = 30
graceful_timeout = 10
keepalive = 5


def post_fork(server, worker):
    """Tell the app (server/push.py) how many waiters this worker can hold."""
    os.environ["PBEM_GUNICORN_WORKER"] = worker.cfg.worker_class_str
    os.environ["PBEM_GUNICORN_THREADS"] = str(worker.cfg.threads)
    os.environ["PBEM_GUNICORN_CONNECTIONS"] = str(worker.cfg.worker_connections)
