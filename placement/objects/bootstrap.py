"""Start-up work on the database: migrate if asked, then sync the standard
resource classes (os-resource-classes) and traits (os-traits)."""
import logging

import os_resource_classes
import os_traits
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from placement import errors
from placement.data import feed
from placement.data import migration
from placement.data import tables

LOG = logging.getLogger(__name__)


class SchemaNotReady(Exception):
    pass


def prepare_database(database, migrate=False):
    """Migrate both histories if ``migrate``; refuse a database behind
    upstream's head; set ``database.feed_on`` (and return it): whether
    the own history, and so the change feed's table, is at its head."""
    engine = database.engine
    if migrate:
        _with_retry(lambda: migration.upgrade(engine))
    revision = migration.current(engine)
    if revision != migration.head():
        raise SchemaNotReady(
            'database schema is at %s, this service needs %s; run '
            '"placement-manage db sync"' % (revision, migration.head()))
    if not feed_ready(database):
        # Upstream's schema is enough to serve; only the snapshot reads
        # need the feed.
        LOG.warning('own schema history is at %s, this service needs %s: '
                    'the change feed is off, and so are snapshot reads; '
                    'run "placement-manage db sync"',
                    migration.own_current(engine), migration.own_head())
    _with_retry(lambda: sync_standard_names(database))
    return database.feed_on


def feed_ready(database):
    """Set ``database.feed_on`` (and return it): whether the own history,
    and so the change feed's table, is at its head."""
    database.feed_on = (migration.own_current(database.engine)
                        == migration.own_head())
    return database.feed_on


def _with_retry(func, attempts=5):
    """Several workers may start at once; a loser of a race just retries."""
    for attempt in range(attempts):
        try:
            return func()
        except (sa_exc.IntegrityError, sa_exc.OperationalError,
                errors.RetryableConflict):
            if attempt == attempts - 1:
                raise
            LOG.debug('start-up database work raced; retrying')


def sync_standard_names(database):
    """Insert missing standard classes (id = position) and traits.

    A writer transaction, as for any write: on SQLite it takes the write
    lock up front, so workers starting at once wait for each other instead
    of failing with "database is locked"."""
    with database.writer() as conn:
        present = dict(conn.execute(
            sa.select(tables.resource_classes.c.name,
                      tables.resource_classes.c.id)).all())
        missing = [{'id': index, 'name': name}
                   for index, name in enumerate(os_resource_classes.STANDARDS)
                   if name not in present]
        if missing:
            _insert_with_explicit_ids(conn, tables.resource_classes, missing)
            feed.touch_names(conn)
        present_traits = set(conn.execute(
            sa.select(tables.traits.c.name)).scalars())
        missing_traits = [{'name': name}
                          for name in os_traits.get_traits()
                          if name not in present_traits]
        if missing_traits:
            conn.execute(tables.traits.insert(), missing_traits)
            feed.touch_names(conn)


def _insert_with_explicit_ids(conn, table, rows):
    """Insert ``rows`` keeping their ids, including VCPU's id 0.

    MySQL takes an explicit 0 in an AUTO_INCREMENT column as "next id"
    unless the session's sql_mode has NO_AUTO_VALUE_ON_ZERO.
    """
    if conn.dialect.name != 'mysql':
        conn.execute(table.insert(), rows)
        return
    mode = conn.exec_driver_sql('SELECT @@SESSION.sql_mode').scalar()
    conn.exec_driver_sql(
        "SET SESSION sql_mode = CONCAT_WS(',', @@SESSION.sql_mode, "
        "'NO_AUTO_VALUE_ON_ZERO')")
    try:
        conn.execute(table.insert(), rows)
    finally:
        conn.exec_driver_sql('SET SESSION sql_mode = %s', (mode,))
