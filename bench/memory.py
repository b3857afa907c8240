"""Where a server worker's resident memory goes: RSS after each import step.

``python -m bench.memory DATABASE_URL`` prints one JSON line {step: RSS MB}.  Steps follow what
a gunicorn worker does: gunicorn's own modules, then the app (wsgi -> create_app), then a
request, then the game engines a mixed server loads.
"""

import json
import sys


def rss():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main(url):
    import os
    os.environ["PBEM_DATABASE_URL"] = url
    os.environ["PBEM_RATELIMIT"] = "off"
    steps = [("python", rss())]

    def step(label, code):
        exec(code, {})
        steps.append((label, rss()))

    step("gunicorn.workers.gthread", "import gunicorn.workers.gthread")
    step("flask + werkzeug", "import flask")
    step("sqlalchemy + flask_sqlalchemy", "import sqlalchemy.orm, flask_sqlalchemy")
    step("flask_smorest + marshmallow + apispec", "import flask_smorest, marshmallow")
    step("flask_limiter", "import flask_limiter")
    step("PyNaCl ed25519 (libsodium)", "import nacl.signing")
    if url.startswith(("postgres", "postgresql")):
        step("psycopg", "import psycopg")
    step("server package (models, schemas, api)", "import server.api.games, server.api.players, "
         "server.api.mail, server.workers.notify, server.game.append")
    step("wsgi (create_app, as gunicorn loads it)", "import wsgi")
    step("first requests (health, types)", "import wsgi; c = wsgi.app.test_client(); "
         "c.get('/api/health'); c.get('/api/types')")
    steps.append(("(alembic loaded in the worker: " + ("yes" if "alembic" in sys.modules
                                                       else "no") + ")", rss()))
    out = {}
    prev = 0.0
    for label, value in steps:
        out[label] = [round(value, 1), round(value - prev, 1)]
        prev = value
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
