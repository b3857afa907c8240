"""``pbem-server``: run the service, manage its database.

    pbem-server run [--host 127.0.0.1] [--port 5000]   # creates/upgrades the database first
    pbem-server db upgrade                              # Flask-Migrate (Alembic) migrations
"""

import click
from flask.cli import FlaskGroup

from . import create_app


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
    upgrade()
    click.echo(f"pbem server on http://{host}:{port}/ "
               f"(database {app.config['SQLALCHEMY_DATABASE_URI'].split('@')[-1]})", err=True)
    run_simple(host, port, app, threaded=True, use_reloader=False)


def _register_db():
    from flask_migrate.cli import db
    main.add_command(db)


_register_db()
