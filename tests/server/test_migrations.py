"""The migrations build the schema the models describe: after `db upgrade` on an empty
database, Alembic's comparison of the database with the models finds nothing to change (on
SQLite and on PostgreSQL). A model changed without its migration fails here."""

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext


def test_the_migrations_make_the_models_schema(app):
    from server.db import db
    with app.app_context(), db.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), db.metadata)
    assert diff == []


def test_the_migrations_have_one_head():
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from server import MIGRATIONS
    config = Config()
    config.set_main_option("script_location", MIGRATIONS)
    assert len(ScriptDirectory.from_config(config).get_heads()) == 1
