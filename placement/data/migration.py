"""Schema migrations (alembic), shared by placement-manage and start-up."""
import contextlib
import fcntl
import os

from alembic import command
from alembic import config as alembic_config
from alembic import migration
from alembic import script

import migrations

SCRIPT_LOCATION = os.path.dirname(os.path.abspath(migrations.__file__))
# The name (MySQL) and key (PostgreSQL) of the lock one migrator holds.
LOCK_NAME = 'placement_db_sync'
LOCK_KEY = 0x706c6163  # "plac"
LOCK_WAIT_SECONDS = 300


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
        context = migration.MigrationContext.configure(conn)
        return context.get_current_revision()


@contextlib.contextmanager
def _one_migrator(conn):
    """Hold the database-wide migration lock on ``conn``.

    Every worker of a WSGI server may run the migrations at start-up
    (``sync_on_startup``).  MySQL cannot roll DDL back, so two of them
    creating tables at once leave half a schema behind; the second one
    waits here and then finds the schema current.  SQLite has no such
    lock of its own, and its database is a local file: a lock file beside
    it does the same.
    """
    dialect = conn.dialect.name
    if dialect == 'mysql':
        conn.exec_driver_sql('SELECT GET_LOCK(%s, %s)',
                             (LOCK_NAME, LOCK_WAIT_SECONDS))
        try:
            yield
        finally:
            conn.exec_driver_sql('SELECT RELEASE_LOCK(%s)', (LOCK_NAME,))
    elif dialect == 'postgresql':
        # Released when the transaction ends.
        conn.exec_driver_sql('SELECT pg_advisory_xact_lock(%s)', (LOCK_KEY,))
        yield
    elif conn.engine.url.database not in (None, '', ':memory:'):
        with open(conn.engine.url.database + '.migration-lock', 'a') as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield
    else:
        yield


def upgrade(engine, revision='head'):
    with engine.begin() as conn, _one_migrator(conn):
        command.upgrade(_config(conn), revision)


def stamp(engine, revision='head'):
    with engine.begin() as conn:
        command.stamp(_config(conn), revision)
