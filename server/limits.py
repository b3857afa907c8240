"""Rate limits (Flask-Limiter): per address and per key, visible in response headers.

Storage: ``PBEM_RATELIMIT_STORAGE`` (default ``memory://``, right for the
single-process ``pbem-server run``).  With several gunicorn workers or
machines, point it at shared storage such as ``redis://127.0.0.1:6379`` so
the counters are shared.  A request whose signature fails (401) never
counts against the player it claims to be, so nobody can spend another
player's allowance by forging their name.
"""

import json
import os

from flask import request
from flask_limiter import Limit, Limiter


def address_key():
    return "addr:" + (request.remote_addr or "?")


def player_key():
    name = request.headers.get("X-Pbem-Player")
    if name:
        return "player:" + name[:64]
    if request.path.endswith("/moves") and request.method == "POST":
        try:
            body = json.loads(request.get_data(cache=True) or b"{}")
            env = json.loads(body.get("envelope", "{}"))
            return f"seat:{str(env.get('game'))[:16]}:{str(env.get('seat'))[:32]}"
        except (ValueError, AttributeError, TypeError):
            pass
    return address_key()


def _authentic(response):
    return response.status_code != 401


def limit(name, default):
    return os.environ.get(f"PBEM_LIMIT_{name}", default)


limiter = Limiter(
    key_func=address_key,
    default_limits=[
        Limit(lambda: limit("ADDRESS", "1200/minute")),
        Limit(lambda: limit("KEY", "600/minute"), key_function=player_key,
              deduct_when=_authentic),
    ],
    headers_enabled=True,
)


def registration_limit():
    return limiter.limit(lambda: limit("REGISTER", "20/hour"), key_func=address_key,
                         methods=["POST"])


def move_limit():
    return limiter.limit(lambda: limit("MOVES", "120/minute"), key_func=player_key,
                         deduct_when=_authentic, methods=["POST"])
