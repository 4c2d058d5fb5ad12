"""Database errors are told apart by the codes the drivers report, not by
their messages: real errors raised by real databases, with messages that
say nothing, are retried (a lost race) or answered 503 (no database)."""
import sqlite3
import uuid

import pytest
import sqlalchemy as sa

from placement import errors
from placement.data import db
from placement.data import tables
import support


WORDLESS = 'no words here'


def raise_on(conn, code):
    """Make the database itself raise the error ``code`` on ``conn``."""
    dialect = conn.dialect.name
    if dialect == 'mysql':
        conn.exec_driver_sql(
            "SIGNAL SQLSTATE 'HY000' SET MYSQL_ERRNO = %d, "
            "MESSAGE_TEXT = '%s'" % (code, WORDLESS))
    else:
        conn.exec_driver_sql(
            "DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = '%s', "
            "MESSAGE = '%s'; END $$" % (code, WORDLESS))


@pytest.fixture(scope='module')
def server_db(placement_db):
    if placement_db.dialect == 'sqlite':
        pytest.skip('SQLite cannot raise an error code on demand; '
                    'see test_sqlite_busy_is_unavailable')
    return placement_db


# What each kind of error is called by each database, and what the
# service makes of it (None: neither a race nor an outage, so a bug, left
# for the fault middleware's 500).
KINDS = {
    'deadlock': (1213, '40P01', errors.RetryableConflict),
    'lost race': (1205, '40001', errors.RetryableConflict),
    'connection lost': (2013, '08006', errors.ServiceUnavailable),
    'shutting down': (1053, '57P01', errors.ServiceUnavailable),
    'duplicate key': (1062, '23505', None),
}


def _code(server_db, kind):
    """The error code of ``kind`` in ``server_db``'s dialect."""
    mysql_code, postgresql_code, _ = KINDS[kind]
    return mysql_code if server_db.dialect == 'mysql' else postgresql_code


@pytest.mark.parametrize('kind', sorted(KINDS))
def test_codes_decide(server_db, kind):
    expected = KINDS[kind][2]
    with pytest.raises(Exception) as caught:
        with server_db.reader() as conn:
            raise_on(conn, _code(server_db, kind))
    if expected is None:
        assert not isinstance(caught.value, errors.PlacementError)
    else:
        assert type(caught.value) is expected


@pytest.mark.parametrize('run, kind', [
    ('write', 'deadlock'), ('read', 'deadlock'), ('read', 'lost race')])
def test_transaction_that_lost_a_race_is_run_again(server_db, run, kind):
    attempts = []

    def transaction(conn):
        attempts.append(1)
        if len(attempts) == 1:
            raise_on(conn, _code(server_db, kind))
        return 'done'

    assert getattr(server_db, run)(transaction) == 'done'
    assert len(attempts) == 2


def test_read_that_keeps_losing_is_unavailable_never_a_conflict(server_db):
    with pytest.raises(errors.ServiceUnavailable):
        server_db.read(raise_on, _code(server_db, 'deadlock'))


def test_read_whose_connection_ends_as_it_begins_runs_again(server_db):
    """A pooled connection the server ends after the pool's ping, while
    the read sets its isolation level (MySQL's reads on the primary): the
    driver's error escapes SQLAlchemy's wrapping, and yet, a connection
    lost, the read runs again on a fresh one."""
    if server_db.dialect != 'mysql':
        pytest.skip('only MySQL sets an isolation level as a read begins')
    admin = sa.create_engine(server_db.engine.url,
                             isolation_level='AUTOCOMMIT')
    ended = []

    def end_the_first(conn):
        if not ended:
            ended.append(conn.connection.dbapi_connection.thread_id())
            with admin.connect() as other:
                other.exec_driver_sql('KILL %d' % ended[0])

    sa.event.listen(server_db.engine, 'engine_connect', end_the_first)
    try:
        assert server_db.read_primary(
            lambda conn: conn.exec_driver_sql('SELECT 1').scalar()) == 1
    finally:
        sa.event.remove(server_db.engine, 'engine_connect', end_the_first)
        admin.dispose()
    assert ended


def test_sqlite_busy_is_unavailable(tmp_path):
    path = str(tmp_path / 'busy.sqlite')
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute('CREATE TABLE t (x INTEGER)')
    holder.execute('BEGIN IMMEDIATE')
    waiter = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        with pytest.raises(sqlite3.OperationalError) as caught:
            waiter.execute('BEGIN IMMEDIATE')
    finally:
        waiter.close()
        holder.close()
    assert db.classify('sqlite', caught.value) == db.UNAVAILABLE


def test_requests_go_through_the_retry_loop():
    """Request handlers (and the metrics scrape) never open a bare
    transaction: they read and write through Database.read/write, which
    retry."""
    package = support.REPO / 'placement'
    sources = [*package.joinpath('handlers').glob('*.py'),
               *package.joinpath('metrics').glob('*.py')]
    bare = [path.name for path in sources
            if '.reader()' in path.read_text()
            or '.writer()' in path.read_text()]
    assert bare == []


def test_a_read_sees_one_snapshot(placement_db):
    """A read's later statements do not see what was committed after its
    first (GET /usages counts consumers, then sums their usages)."""
    traits = tables.traits
    count = sa.select(sa.func.count()).select_from(traits)
    with placement_db.reader() as conn:
        before = conn.execute(count).scalar()
        with placement_db.writer() as other:
            other.execute(traits.insert().values(
                name='CUSTOM_SNAPSHOT_%s' % uuid.uuid4().hex.upper()))
        assert conn.execute(count).scalar() == before
    with placement_db.reader() as conn:
        assert conn.execute(count).scalar() == before + 1
