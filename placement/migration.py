"""Schema migrations (alembic), shared by placement-manage and start-up."""
import os

from alembic import command
from alembic import config as alembic_config
from alembic import migration
from alembic import script

import migrations

SCRIPT_LOCATION = os.path.dirname(os.path.abspath(migrations.__file__))


def _config(conn):
    cfg = alembic_config.Config()
    cfg.set_main_option('script_location', SCRIPT_LOCATION)
    cfg.attributes['connection'] = conn
    return cfg


def head():
    """The newest revision this code knows."""
    return script.ScriptDirectory.from_config(_config(None)).get_current_head()


def current(engine):
    """The revision the database is at, or None for an empty database."""
    with engine.connect() as conn:
        return migration.MigrationContext.configure(conn).get_current_revision()


def upgrade(engine, revision='head'):
    with engine.begin() as conn:
        command.upgrade(_config(conn), revision)


def stamp(engine, revision='head'):
    with engine.begin() as conn:
        command.stamp(_config(conn), revision)
