"""Schema migrations (alembic), shared by placement-manage and start-up.

Two histories: upstream's (``migrations/``, version table
``alembic_version``, head ``a082b8bb98d0``), which this service never
changes so that an operator can go back to upstream placement, and this
service's own (``migrations/own/``, version table
``placement_own_version``) for the tables only it uses.
"""
import contextlib
import fcntl
import os

from alembic import command
from alembic import config as alembic_config
from alembic import migration
from alembic import script

import migrations

SCRIPT_LOCATION = os.path.dirname(os.path.abspath(migrations.__file__))
OWN_SCRIPT_LOCATION = os.path.join(SCRIPT_LOCATION, 'own')
OWN_VERSION_TABLE = 'placement_own_version'
# The name (MySQL) and key (PostgreSQL) of the lock one migrator holds.
LOCK_NAME = 'placement_db_sync'
LOCK_KEY = 0x706c6163  # "plac"
LOCK_WAIT_SECONDS = 300


def _config(conn, location=SCRIPT_LOCATION):
    cfg = alembic_config.Config()
    cfg.set_main_option('script_location', location)
    cfg.attributes['connection'] = conn
    return cfg


def _head(location):
    return script.ScriptDirectory.from_config(
        _config(None, location)).get_current_head()


def _current(engine, version_table):
    with engine.connect() as conn:
        context = migration.MigrationContext.configure(
            conn, opts={'version_table': version_table})
        return context.get_current_revision()


def head():
    """The newest revision of upstream's history this code knows."""
    return _head(SCRIPT_LOCATION)


def current(engine):
    """The revision of upstream's history the database is at, or None for
    an empty database."""
    return _current(engine, 'alembic_version')


def own_head():
    """The newest revision of this service's own history."""
    return _head(OWN_SCRIPT_LOCATION)


def own_current(engine):
    """The revision of the own history the database is at, or None."""
    return _current(engine, OWN_VERSION_TABLE)


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
    """Upstream's history to ``revision``, then the own history to its
    head, under the one migrator's lock."""
    with engine.begin() as conn, _one_migrator(conn):
        command.upgrade(_config(conn), revision)
        command.upgrade(_config(conn, OWN_SCRIPT_LOCATION), 'head')


def stamp(engine, revision='head'):
    """Upstream's history only: the own one follows with ``upgrade``."""
    with engine.begin() as conn:
        command.stamp(_config(conn), revision)
