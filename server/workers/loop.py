"""Background workers: one loop for every periodic job (the notice worker, the bot worker).

A pass runs ``work()`` inside an app context; a failing pass is rolled back and logged, and the
loop goes on after ``interval`` seconds until ``stop`` is set (or sooner: ``pause(interval,
stop)``, when given, may return early, e.g. on a move: server/workers/push.py ``any_move_waiter``).
"""

import logging
import threading

from ..db import db


def run_forever(app, work, interval, name, stop=None, pause=None):
    """Run ``work()`` every ``interval`` seconds until ``stop`` (a threading.Event) is set."""
    log = logging.getLogger(f"pbem.{name}")
    stop = stop or threading.Event()
    while not stop.is_set():
        more = False
        with app.app_context():
            try:
                result = work()
                # a pass that stopped with work left (a long outbox): the next one at once
                more = isinstance(result, dict) and result.get("more") is True
            except Exception:  # the worker outlives a bad pass; the error is logged
                db.session.rollback()
                log.exception("%s worker pass failed", name)
            finally:
                db.session.remove()
        if more:
            continue
        pause(interval, stop) if pause else stop.wait(interval)


def start_background(app, work, interval, name, pause=None):
    """:func:`run_forever` in a daemon thread; returns the Event that stops it."""
    stop = threading.Event()
    thread = threading.Thread(target=run_forever, args=(app, work, interval, name, stop, pause),
                              name=f"pbem-{name}", daemon=True)
    thread.start()
    return stop
