"""``pbem-server``: run the service, manage its database.

    pbem-server run [--host 127.0.0.1] [--port 5000]   # creates/upgrades the database first
    pbem-server db upgrade                              # Flask-Migrate (Alembic) migrations
    pbem-server bots [--once] [--interval 1]            # the bot worker (server/game/bots.py)
    pbem-server push [--bind HOST:PORT]                 # the waiting clients (http/pushserver)
"""

import ipaddress
import sys

import click
from flask.cli import FlaskGroup

from . import create_app
from .config import limit_loopback


def _app():
    return create_app()


@click.group(cls=FlaskGroup, create_app=_app, add_default_commands=False,
             add_version_option=False, load_dotenv=False)
def main():
    """The pbem turn service."""


@main.command("run")
@click.option("--host", default="127.0.0.1", show_default=True, help="address to listen on")
@click.option("--port", default=5000, show_default=True, type=click.IntRange(0, 65535),
              help="port to listen on")
def run(host, port):
    """Upgrade the database schema, then serve the API.

    Example: pbem-server run --port 8000
    """
    from flask import current_app
    from flask_migrate import upgrade
    from werkzeug.serving import run_simple
    app = current_app._get_current_object()
    if spare_loopback_default(host):
        app.config["PBEM_LIMIT_LOOPBACK_SPARED"] = True
        click.echo("rate limits spare callers on loopback (a development server; "
                   "PBEM_LIMIT_LOOPBACK=limit keeps them)", err=True)
    upgrade()
    if app.config["PBEM_NOTIFY_INTERVAL"] > 0:
        from .workers.notify import start_background
        start_background(app, app.config["PBEM_NOTIFY_INTERVAL"])
    try:
        setting = app.config.get("PBEM_BOT_INTERVAL")
        bot_interval = float(setting.strip() or 0) if isinstance(setting, str) else \
            float(1 if setting is None else setting)
    except ValueError:
        raise click.UsageError("PBEM_BOT_INTERVAL is seconds between passes of the bot "
                               "worker (0: off), like 1 or 0.5") from None
    if bot_interval > 0:
        from .workers.bots import start_background as start_bots
        start_bots(app, bot_interval)
    click.echo(f"pbem server on http://{host}:{port}/ "
               f"(database {app.config['SQLALCHEMY_DATABASE_URI'].split('@')[-1]})", err=True)
    run_simple(host, port, app, threaded=True, use_reloader=False)


def spare_loopback_default(host, setting=None):
    """Whether ``pbem-server run --host HOST`` spares loopback callers from the rate limits.

    Bound to a loopback address, the server is one person's development server: twenty
    ``pbem register`` for a local four-player test must not hit the sign-up limit.
    ``PBEM_LIMIT_LOOPBACK=limit`` keeps the limits; ``spare`` spares loopback on any host.
    """
    if setting is None:
        setting = limit_loopback()
    if setting == "limit":
        return False
    if setting == "spare":
        return True
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@main.command("notify")
@click.option("--once", is_flag=True, help="drain what is due now, then exit")
@click.option("--interval", default=5.0, show_default=True, help="seconds between passes")
def notify_command(once, interval):
    """Send notices, reminders and digests; play forced moves for missed deadlines.

    Run it as a separate process beside gunicorn workers (several may run: each
    notice is sent once).  Example: pbem-server notify --once
    """
    from flask import current_app

    from .workers.notify import run_forever, tick
    if once:
        counts = tick()
        while counts.pop("more", False):  # a long outbox: passes until nothing is due
            sent = counts["sent"]
            counts = tick()
            counts["sent"] += sent
        counts.pop("more", None)
        click.echo(", ".join(f"{k}: {v}" for k, v in counts.items()))
        return
    run_forever(current_app._get_current_object(), interval)


@main.command("bots")
@click.option("--once", is_flag=True, help="play what the bots owe now, then exit")
@click.option("--interval", default=1.0, show_default=True, type=click.FloatRange(0.05),
              help="seconds between passes")
def bots_command(once, interval):
    """Play the bot seats: every bot seat that owes a move plays it (server/game/bots.py).

    Run it beside the web workers and pbem-server notify (several may run: the log's
    seq check lets one of them append each move).  Example: pbem-server bots --once
    """
    from flask import current_app

    from .workers.bots import play_due, run_forever
    if once:
        click.echo(f"bot moves: {play_due()}")
        return
    run_forever(current_app._get_current_object(), interval)


@main.command("push")
@click.option("--bind", default=None, metavar="HOST:PORT",
              help="address to listen on (default: PBEM_PUSH_BIND, else PBEM_PUSH_PORT 5001 "
                   "on loopback behind a proxy, on every address without one)")
def push_command(bind):
    """Serve the waiting clients: long polls (/api/games/<id>/wait) and Server-Sent Events
    (/api/games/<id>/events), the Procfile's push process (docs/DEPLOYMENT.md, "Push").

    Example: pbem-server push --bind 127.0.0.1:5001
    """
    from flask import current_app

    from .http.pushserver import bind_address, serve
    if bind:
        host, _, port = bind.rpartition(":")
        if not port.isdigit() or not 0 <= int(port) <= 65535:
            raise click.UsageError(f"--bind takes HOST:PORT, like 127.0.0.1:5001, not {bind!r}")
        host, port = host.strip("[]") or "0.0.0.0", int(port)
    else:
        try:
            host, port = bind_address()
        except ValueError:
            raise click.UsageError("PBEM_PUSH_BIND takes HOST:PORT and PBEM_PUSH_PORT a "
                                   "port, like 127.0.0.1:5001 and 5001") from None
    app = current_app._get_current_object()
    click.echo(f"pbem push server on http://{host}:{port}/", err=True)
    serve(app, host, port)


@main.command("mail-in")
def mail_in():
    """Read one raw email on standard input and append every signed move in it.

    Example (from a mail server's pipe): pbem-server mail-in < message.eml
    """
    from .workers.mailin import process
    raw = sys.stdin.buffer.read()
    if not raw.strip():
        raise click.UsageError("no message on standard input")
    outcome = process(raw)
    from flask import current_app
    database = database_label(current_app.config["SQLALCHEMY_DATABASE_URI"])
    for r in outcome["results"]:
        if r["status"] == "refused" and r.get("code") is None \
                and r["reason"] == "there is no such game":
            # the block names a game this database has not: say which database was read (an
            # environment naming another one is the usual cause)
            click.echo(f"game {r['game']}: refused: there is no such game in the database "
                       f"{database} (PBEM_DATABASE_URL names the database)")
        elif r["status"] == "refused":
            click.echo(f"game {r['game']}: refused: {r['reason']}")
        else:
            click.echo(f"game {r['game']} move {r['seq']} ({r['seat']}: {r['move']}): "
                       f"{r['status']}")
    for e in outcome.get("undecodable", []):
        click.echo(f"{e}: could not be read")
    if not outcome["results"]:
        click.echo("no signed move found in the message")
    if not outcome["results"] or any(r["status"] == "refused" for r in outcome["results"]):
        raise SystemExit(1)


def database_label(uri):
    """The database ``uri`` names, for people to read: without its password (a SQLite file as
    its path)."""
    from sqlalchemy.engine import URL, make_url
    from sqlalchemy.exc import ArgumentError
    try:
        url = make_url(uri)
    except ArgumentError:
        return "(an unreadable database URL)"
    bare = URL.create(url.drivername, username=url.username, host=url.host, port=url.port,
                      database=url.database)  # no password, no query (it may hold one too)
    return bare.render_as_string(hide_password=False)


def _register_db():
    from flask_migrate.cli import db
    main.add_command(db)


_register_db()
