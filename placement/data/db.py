"""Database engines, transactions and the retry policy.

Every request runs in at most one transaction: ``Database.read`` for reads
and ``Database.write`` for writes, which run an object function in a
``reader()`` or ``writer()`` transaction and run it again when it lost a
race (the one retry loop, ``Database._run``).  On SQLite a writer takes
the database lock up front (``BEGIN IMMEDIATE``) so that concurrent
writers queue instead of failing half-way with "database is locked"; on
MariaDB and PostgreSQL writers lock the provider rows they depend on (see
``objects/base.py``).

With ``[placement_database] slave_connection`` the read-only requests
(``read``) go to that replica, and every write, with the reads it makes,
goes to ``connection``.  A replica's answer may be a little old; that is
harmless because no write trusts anything a client read: every write
re-reads inventory, usage and generations under its locks on the primary,
so a stale candidate or generation costs a 409 and a retry, never an
over-commit (docs/operators.md, "Read replicas").
"""
import contextlib
import logging
import time

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy import exc as sa_exc

from placement import errors
from placement.data import feed
from placement.metrics import metrics

LOG = logging.getLogger(__name__)

# How long an SQLite writer waits for the database lock before giving up.
SQLITE_BUSY_TIMEOUT = 15


def _is_sqlite(url):
    return url.get_backend_name() == 'sqlite'


def _no_tls_configured(url):
    """Whether ``url`` is PyMySQL's and names no TLS setting."""
    return (url.get_driver_name() == 'pymysql'
            and not any(key.startswith('ssl') for key in url.query))


def create_engine(conf, connection=None):
    """An engine for ``connection`` (default: the primary's URL)."""
    dbconf = conf.placement_database
    connection = connection or dbconf.connection
    url = sa.engine.make_url(connection)
    if dbconf.connection_parameters:
        url = sa.engine.make_url(
            connection + ('&' if url.query else '?')
            + dbconf.connection_parameters)
    kwargs = {'future': True}
    if _is_sqlite(url):
        # A file has no server to lose the connection to: no ping before
        # every request.
        kwargs['connect_args'] = {'timeout': SQLITE_BUSY_TIMEOUT,
                                  'check_same_thread': False}
    else:
        kwargs['pool_pre_ping'] = True
        if _no_tls_configured(url):
            # PyMySQL 1.2 otherwise builds a TLS context for every new
            # connection (loading the CA bundle: ~20 ms of CPU) to try TLS
            # in case the server offers it; an operator who wants TLS says
            # so in the URL, as with older PyMySQL releases.
            kwargs['connect_args'] = {'ssl_disabled': True}
        kwargs['pool_recycle'] = dbconf.connection_recycle_time
        if dbconf.max_pool_size:
            kwargs['pool_size'] = dbconf.max_pool_size
        if dbconf.max_overflow is not None:
            kwargs['max_overflow'] = dbconf.max_overflow
        if dbconf.pool_timeout:
            kwargs['pool_timeout'] = dbconf.pool_timeout
    if dbconf.connection_debug >= 100:
        kwargs['echo'] = True
    engine = sa.create_engine(url, **kwargs)
    if _is_sqlite(url):
        _configure_sqlite(engine, dbconf.sqlite_synchronous)
    elif url.get_backend_name() == 'mysql' and dbconf.mysql_sql_mode:
        sql_mode = dbconf.mysql_sql_mode

        @event.listens_for(engine, 'connect')
        def _set_sql_mode(dbapi_conn, record):
            cursor = dbapi_conn.cursor()
            cursor.execute("SET SESSION sql_mode = %s", [sql_mode])
            cursor.close()
    return engine


def _configure_sqlite(engine, synchronous):
    @event.listens_for(engine, 'connect')
    def _on_connect(dbapi_conn, record):
        # Let SQLAlchemy's begin hook below decide how transactions start.
        dbapi_conn.isolation_level = None
        cursor = dbapi_conn.cursor()
        cursor.execute('PRAGMA journal_mode=WAL')
        cursor.execute('PRAGMA foreign_keys=OFF')
        cursor.execute('PRAGMA synchronous=%s'
                       % ('NORMAL' if synchronous else 'OFF'))
        cursor.close()

    @event.listens_for(engine, 'begin')
    def _on_begin(conn):
        if conn.get_execution_options().get('placement_writer'):
            conn.exec_driver_sql('BEGIN IMMEDIATE')
        else:
            # Straight to the driver: SQLAlchemy's statement path costs a
            # small read a tenth of its time here.  A deferred BEGIN takes
            # no lock, so it has no error to translate.
            conn.connection.driver_connection.execute('BEGIN')


class Database:
    """The engines plus the transaction helpers handed to objects.

    ``engine`` is the primary; ``read_engine`` the replica named by
    ``slave_connection``, or the primary when there is none.
    ``feed_on``: whether writers record the providers they change
    (data/feed.py); decided at start-up (``bootstrap.prepare_database``),
    as the feed's table may not have been migrated yet.
    """

    def __init__(self, conf, engine=None, feed_on=False):
        self.conf = conf
        self.engine = engine or create_engine(conf)
        replica = conf.placement_database.slave_connection
        self.read_engine = (create_engine(conf, replica) if replica
                            else self.engine)
        self.retry_count = conf.placement.allocation_conflict_retry_count
        self.feed_on = feed_on

    def dispose(self):
        self.engine.dispose()
        if self.read_engine is not self.engine:
            self.read_engine.dispose()

    @property
    def dialect(self):
        return self.engine.dialect.name

    def reader(self):
        """A read-only transaction, on the replica when there is one.

        Requests read through ``read``, which retries; this is the bare
        transaction it runs in.  All its statements see one snapshot:
        PostgreSQL's default (READ COMMITTED) would give each its own, so
        a read there runs at REPEATABLE READ, which a transaction that
        only reads can never fail to serialize.
        """
        return _read_transaction(self.read_engine)

    def primary_reader(self):
        """As ``reader``, on the primary whatever the replica; on MySQL at
        REPEATABLE READ whatever the server's default, so that a look at
        the change feed and the rows read after it are of one moment
        (memory/source.py)."""
        options = ({'isolation_level': 'REPEATABLE READ'}
                   if self.dialect == 'mysql' else {})
        return _read_transaction(self.engine, options)

    @contextlib.contextmanager
    def writer(self):
        options = {'placement_writer': True}
        if self.dialect != 'sqlite':
            # Writers lock rows first and then read; at READ COMMITTED every
            # read after the lock sees what competing writers committed,
            # whatever isolation level the server defaults to (MariaDB's
            # REPEATABLE-READ would otherwise hand out an older snapshot if
            # a plain read ever slipped in before the lock).
            options['isolation_level'] = 'READ COMMITTED'
        with _translate_db_errors(self.engine):
            with _connect(self.engine).execution_options(
                    **options) as conn:
                # A fresh transaction (a retry too) starts with nothing
                # touched: conn.info outlives it, with the pooled
                # connection.
                feed.forget(conn)
                try:
                    with conn.begin():
                        yield conn
                        # The last statement before commit: the feed's
                        # readers count on a short time from its ids'
                        # allocation to the commit (data/feed.py).
                        if self.feed_on:
                            feed.record(conn)
                finally:
                    feed.forget(conn)

    def write(self, func, *args, **kwargs):
        """Run ``func(conn, *args, **kwargs)`` in one write transaction.

        A deadlock, serialization failure or lost compare-and-swap
        (``errors.RetryableConflict``) rolls the whole transaction back and
        runs it again, a bounded number of times; then the caller sees 409.
        A lost connection is not retried: the commit may have happened.
        """
        try:
            return self._run(self.writer, 'write', _lost_race,
                             func, args, kwargs)
        except errors.RetryableConflict as exc:
            raise errors.Conflict(
                exc.detail, code=errors.CONCURRENT_UPDATE,
                kind=errors.CONCURRENT) from None

    def read(self, func, *args, **kwargs):
        """Run ``func(conn, *args, **kwargs)`` in one read transaction.

        Reads change nothing, so any failure that may not recur runs them
        again: a deadlock, lock timeout or serialization failure (possible
        at stricter isolation levels, under Galera's causality checks or
        DDL's metadata locks) and a connection lost on the way.  A client
        never sees 409 for a read: when the retries run out, it gets 503.
        """
        return self._read(self.reader, func, args, kwargs)

    def read_primary(self, func, *args, **kwargs):
        """As ``read``, always on the primary (``connection``), never the
        replica: for reads that must see every commit, such as the change
        feed's."""
        return self._read(self.primary_reader, func, args, kwargs)

    def _read(self, transaction, func, args, kwargs):
        try:
            return self._run(transaction, 'read', _read_may_recover,
                             func, args, kwargs)
        except errors.RetryableConflict:
            raise errors.ServiceUnavailable(
                'The placement database is busy; try again shortly.'
            ) from None

    def _run(self, transaction, kind, may_retry, func, args, kwargs):
        """The one retry loop: ``func`` in a fresh ``transaction()`` until
        it raises no error that ``may_retry``; after ``retry_count``
        retries the last error goes to the caller.  ``kind`` ('read' or
        'write') labels the metrics."""
        attempt = 0
        while True:
            try:
                with transaction() as conn:
                    return func(conn, *args, **kwargs)
            except errors.PlacementError as exc:
                if not may_retry(exc):
                    raise
                attempt += 1
                if attempt > self.retry_count:
                    raise
                metrics.count_retry(kind, exc.reason)
                LOG.debug('retrying %s after %s (%d): %s',
                          kind, exc.reason, attempt, exc.detail)
                time.sleep(min(0.005 * attempt, 0.05))


def _connect(engine):
    started = time.perf_counter()
    conn = engine.connect()
    metrics.checkout_waited(time.perf_counter() - started)
    return conn


@contextlib.contextmanager
def _read_transaction(engine, options=None):
    with _translate_db_errors(engine):
        with _connect(engine).execution_options(**(options or {})) as conn:
            with conn.begin():
                if engine.dialect.name == 'postgresql':
                    conn.exec_driver_sql(
                        'SET TRANSACTION ISOLATION LEVEL REPEATABLE READ')
                yield conn


def _lost_race(exc):
    return isinstance(exc, errors.RetryableConflict)


def _read_may_recover(exc):
    """A lost race, or a connection the driver reported dead in use
    (SQLAlchemy invalidated it): a fresh one may well work.  A database
    that refuses connections is a 503 at once."""
    return _lost_race(exc) or (isinstance(exc, errors.ServiceUnavailable)
                               and exc.reason == errors.CONNECTION_LOST)


# What a driver error means, by the error code the driver reports (never
# by its message, which varies with versions and locales).
RETRY = 'retry'              # lost a race: run the transaction again
UNAVAILABLE = 'unavailable'  # the database cannot be reached right now

# MySQL and MariaDB error numbers (PyMySQL: the first of ``args``).
_MYSQL_CODES = {
    1213: RETRY,        # ER_LOCK_DEADLOCK, also Galera's failed certification
    1205: RETRY,        # ER_LOCK_WAIT_TIMEOUT
    1020: RETRY,        # ER_CHECKREAD: changed since last read (MariaDB)
    2002: UNAVAILABLE,  # CR_CONNECTION_ERROR
    2003: UNAVAILABLE,  # CR_CONN_HOST_ERROR
    2006: UNAVAILABLE,  # CR_SERVER_GONE_ERROR
    2013: UNAVAILABLE,  # CR_SERVER_LOST
    2055: UNAVAILABLE,  # CR_SERVER_LOST_EXTENDED
    1040: UNAVAILABLE,  # ER_CON_COUNT_ERROR: too many connections
    1053: UNAVAILABLE,  # ER_SERVER_SHUTDOWN
    1927: UNAVAILABLE,  # ER_CONNECTION_KILLED
    # Galera: a node that is joining, donating or outside the primary
    # component refuses queries ...
    1047: UNAVAILABLE,  # ER_UNKNOWN_COM_ERROR ("WSREP has not yet prepared")
    # ... and one that lost the cluster while committing cannot tell
    # whether the transaction committed elsewhere, as with a lost
    # connection.
    1180: UNAVAILABLE,  # ER_ERROR_DURING_COMMIT
}
# PostgreSQL SQLSTATEs; a class of codes by its first characters.
_POSTGRESQL_CODES = {
    '40P01': RETRY,        # deadlock_detected
    '40001': RETRY,        # serialization_failure
    '57P': UNAVAILABLE,    # admin/crash shutdown, cannot connect now
    '08': UNAVAILABLE,     # connection exceptions
    '53300': UNAVAILABLE,  # too_many_connections
}
# SQLite result codes (primary codes: the low byte of the extended one).
_SQLITE_CODES = {
    5: UNAVAILABLE,        # SQLITE_BUSY: locked past the busy timeout
    6: UNAVAILABLE,        # SQLITE_LOCKED
    14: UNAVAILABLE,       # SQLITE_CANTOPEN
}


def classify(dialect, driver_error):
    """RETRY, UNAVAILABLE or None for an error of ``dialect``'s driver."""
    if dialect == 'mysql':
        code = driver_error.args[0] if driver_error.args else None
        if type(driver_error).__name__ == 'InterfaceError':
            # PyMySQL's "the connection is already closed".
            return UNAVAILABLE
        return _MYSQL_CODES.get(code)
    if dialect == 'postgresql':
        code = getattr(driver_error, 'pgcode', None)
        if code is None:
            # psycopg2 reports a broken or refused connection without a
            # SQLSTATE, as an OperationalError or InterfaceError.
            if type(driver_error).__name__ in ('OperationalError',
                                               'InterfaceError'):
                return UNAVAILABLE
            return None
        for prefix in (code, code[:3], code[:2]):
            if prefix in _POSTGRESQL_CODES:
                return _POSTGRESQL_CODES[prefix]
        return None
    if dialect == 'sqlite':
        code = getattr(driver_error, 'sqlite_errorcode', None)
        return None if code is None else _SQLITE_CODES.get(code & 0xff)
    return None


@contextlib.contextmanager
def _translate_db_errors(engine):
    """Driver errors of ``engine`` as the service's errors.

    The driver's own exceptions are caught too: when a connection dies
    while its isolation level is set (after the pool's ping) or reset
    (handed back to the pool), they escape SQLAlchemy's wrapping.  Its
    dialect still tells a lost connection, which a read may run again on
    a fresh one, from a refused one.
    """
    dialect = engine.dialect.name
    try:
        yield
    except sa_exc.DBAPIError as exc:
        _raise_translated(dialect, exc.orig, exc.connection_invalidated)
        raise
    except engine.dialect.loaded_dbapi.Error as exc:
        _raise_translated(dialect, exc,
                          engine.dialect.is_disconnect(exc, None, None))
        raise


def _raise_translated(dialect, driver_error, invalidated):
    meaning = classify(dialect, driver_error)
    if meaning == RETRY:
        raise errors.RetryableConflict(
            'The database reported a conflicting concurrent update.',
            reason=errors.DEADLOCK) from None
    if invalidated or meaning == UNAVAILABLE:
        LOG.warning('database unavailable: %s', driver_error)
        raise errors.ServiceUnavailable(
            'The placement database is unavailable; try again shortly.',
            reason=errors.CONNECTION_LOST if invalidated else None
        ) from None
