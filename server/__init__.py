"""The pbem turn service: a Flask API around the rules library.

``create_app(config)`` builds the app; configuration comes from the
environment (see ``server.config``) and then from ``config``.
"""

import logging
import os

from flask import Flask
from sqlalchemy import event

from shared.games import load_error_lines, register_path

MIGRATIONS = os.path.join(os.path.dirname(__file__), "migrations")


def create_app(config=None):
    from .config import from_env, instance_path
    app = Flask(__name__, instance_relative_config=True, instance_path=instance_path())
    os.makedirs(app.instance_path, exist_ok=True)
    app.config.update(from_env(app.instance_path))
    app.config.update(
        API_TITLE="pbem", API_VERSION="1", OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/api", OPENAPI_JSON_PATH="openapi.json",
        API_SPEC_OPTIONS={"info": {"description": "Play-by-email turn service: append-only "
                                                  "logs of signed moves."}},
        SQLALCHEMY_TRACK_MODIFICATIONS=False,
        JSON_SORT_KEYS=False,
    )
    if config:
        app.config.update(config)
    from .config import normalize_database_url
    url = normalize_database_url(app.config["SQLALCHEMY_DATABASE_URI"])
    app.config["SQLALCHEMY_DATABASE_URI"] = url
    if url.startswith("sqlite"):
        app.config.setdefault("SQLALCHEMY_ENGINE_OPTIONS", {"connect_args": {"timeout": 30}})
    else:
        # no pool_pre_ping (a round trip on every request): a connection idle for a while is
        # pinged when checked out (_ping_if_idle), and none is kept longer than 30 minutes
        options = {"pool_recycle": 1800}
        if (app.config.get("PBEM_GUNICORN") or {}).get("role") == "push":
            # a gunicorn worker that holds waiters (one process for everything, gevent,
            # without the Procfile's push process): hundreds of waiters may read a head at
            # once (their timeouts come due together); they queue for a fixed pool instead of
            # opening and closing an overflow connection (a PostgreSQL backend) each, which
            # the profile of bench/push.py found costing the moves' CPU (bench/ANALYSIS.md)
            options.update(pool_size=int(app.config.get("PBEM_PUSH_POOL") or 10),
                           max_overflow=0)
        app.config.setdefault("SQLALCHEMY_ENGINE_OPTIONS", options)

    for path in filter(None, (p.strip() for p in app.config["PBEM_EXTRA_GAMES"].split(","))):
        register_path(path)

    from .http.errors import install_domain_errors, install_input_guards
    from .http.jsonbody import JSONProvider
    app.json = JSONProvider(app)
    if app.config.get("PBEM_PROXY_HOPS"):
        # the forwarded headers count only from the proxies' own addresses (server/http/proxy.py)
        from .http.proxy import TrustedProxyFix
        hops = int(app.config["PBEM_PROXY_HOPS"])
        app.wsgi_app = TrustedProxyFix(app.wsgi_app, hops,
                                       app.config.get("PBEM_TRUSTED_PROXIES"))

    from .db import db
    from .http.errors import api
    db.init_app(app)
    if app.config.get("PBEM_WITH_MIGRATIONS", True):
        # Alembic (and Mako, Pygments behind it) costs a web worker ~10 MB it never uses:
        # wsgi.py leaves it out; the CLI, tests and the release step keep it.
        from flask_migrate import Migrate
        Migrate(app, db, directory=MIGRATIONS)
    if url.startswith("sqlite"):
        with app.app_context():
            event.listen(db.engine, "connect", _sqlite_pragmas)
    elif not app.config["SQLALCHEMY_ENGINE_OPTIONS"].get("pool_pre_ping"):
        with app.app_context():
            event.listen(db.engine, "checkin", _stamp_checkin)
            event.listen(db.engine, "checkout", _ping_if_idle)
    api.init_app(app)
    from .http.openapi import install as document_request_rules
    document_request_rules(api)  # NUL is refused in every string (server/http/openapi.py)
    if "pbemSignature" not in api.spec.components.security_schemes:
        api.spec.components.security_scheme("pbemSignature", {
            "type": "apiKey", "in": "header", "name": "X-Pbem-Signature",
            "description": "Ed25519 signature (hex) of the request, with X-Pbem-Player, "
                           "X-Pbem-Timestamp and X-Pbem-Nonce; see server/http/auth.py"})
    install_input_guards(app)
    install_domain_errors(app)
    from .http.limits import configure_storage, limiter
    app.config.setdefault("RATELIMIT_HEADERS_ENABLED", True)
    configure_storage(app)
    limiter.init_app(app)
    from .api import (
        check,  # noqa: F401  (adds POST /games/<id>/check to games.blp)
        devices,
        games,
        links,
        mail,
        players,
        push,
        ratings,
    )
    api.register_blueprint(devices.blp)  # device keys
    api.register_blueprint(players.blp)
    api.register_blueprint(games.blp)
    api.register_blueprint(ratings.blp)
    api.register_blueprint(mail.blp)
    api.register_blueprint(links.blp)
    from .api import talk  # table talk and standing orders
    api.register_blueprint(talk.blp)
    api.register_blueprint(push.blp)  # long poll and Server-Sent Events (server/workers/push.py)
    from .api import bots as bot_accounts  # the bot accounts' keys (hand-over)
    api.register_blueprint(bot_accounts.blp)
    from .api import channels  # notice channels, chat ids, Web Push subscriptions
    api.register_blueprint(channels.blp)
    from .api import calendar  # the private calendar feed of a player's deadlines
    api.register_blueprint(calendar.blp)
    from .api import offers  # seats offered to substitutes
    api.register_blueprint(offers.blp)
    from .api import tournaments  # tournaments (server/game/tournaments.py)
    api.register_blueprint(tournaments.blp)
    # the after-append hooks (server/game/hooks.py), in the order they run in the append's
    # transaction: a @handover's seat rows and seat offers, then the standing orders, then
    # the notices of the table's decisions, then push
    from .game import bots as game_bots
    from .game import decisions, orders, substitutes
    from .game import tournaments as tournament_rounds  # the next round when one ends
    from .workers import push as push_waiters
    for hooked in (game_bots, substitutes, orders, decisions, push_waiters, tournament_rounds):
        hooked.init_app(app)
    from .web import init_app as init_pages
    init_pages(app)  # the HTML pages (after the API: it keeps the API's errors JSON)

    @app.get("/api/health")
    def health():
        return {"status": "ok"}

    @app.get("/api/server")
    def server_info():
        """The server's public key (it signs log heads and forced moves) and its clock."""
        from .clock import now_ts
        from .db.keys import server_key
        return {"public_key": server_key()[1], "time": now_ts(), "version": "1"}

    if not app.debug and not app.testing:
        logging.basicConfig(level=logging.INFO)
    for line in load_error_lines():   # a declared game that cannot load is named, never silent
        logging.getLogger("pbem.server").warning(line)
    if app.config.get("PBEM_INBOUND_OPEN") and not app.config.get("PBEM_INBOUND_TOKEN"):
        logging.getLogger("pbem.server").warning(
            "PBEM_INBOUND_OPEN is set and no PBEM_INBOUND_TOKEN: anyone may post mail to "
            "/api/mail/inbound (replies still go only to the players whose keys signed)")
    return app


#: a pooled connection idle longer than this (seconds) is pinged before use
PING_AFTER_IDLE = 10.0


def _stamp_checkin(_dbapi_connection, record):
    import time
    record.info["pbem_idle_since"] = time.monotonic()


def _ping_if_idle(dbapi_connection, record, _proxy):
    """SQLAlchemy's pessimistic disconnect handling, for idle connections only: under load a
    connection is back in use within milliseconds and a ping per request (pool_pre_ping) was
    a round trip on every move.  A connection the server closed (a restart, an idle timeout)
    fails the ping, and the pool replaces it instead of the request failing."""
    import time

    from sqlalchemy import exc
    since = record.info.get("pbem_idle_since")
    if since is None or time.monotonic() - since < PING_AFTER_IDLE:
        return
    try:
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("SELECT 1")
        finally:
            cursor.close()
        dbapi_connection.rollback()
    except Exception as error:  # noqa: BLE001 - any failure: the connection is dead
        raise exc.DisconnectionError(str(error)) from error


def _sqlite_pragmas(dbapi_connection, _record):
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()
