"""Reading the change feed: a cursor misses no committed change, whatever
order the writers commit in, and forgets ids that never commit."""
import datetime
import itertools
import time

import pytest
import sqlalchemy as sa

from support import helpers
from placement import errors
from placement.config import conf as placement_conf
from placement.data import db
from placement.data import feed

CHANGES = feed.CHANGES
# Provider ids of the feed's rows need no provider (no foreign key):
# each test takes ids no other test uses.
_provider_ids = itertools.count(10 ** 6)


def concurrent_only(placement_db):
    if placement_db.dialect == 'sqlite':
        pytest.skip('SQLite writers take turns: commits come in id order')


class Writer:
    """A writer transaction on its own connection that recorded one
    provider and has not committed yet; ``change_id``: its feed row's."""

    def __init__(self, placement_db, provider_id):
        self.conn = placement_db.engine.connect()
        if placement_db.dialect != 'sqlite':
            self.conn = self.conn.execution_options(
                isolation_level='READ COMMITTED')
        self.transaction = self.conn.begin()
        feed.touch(self.conn, [provider_id])
        feed.record(self.conn)
        feed.forget(self.conn)
        self.change_id = self.conn.execute(
            sa.select(sa.func.max(CHANGES.c.id))).scalar()

    def end(self, commit=True):
        if self.transaction.is_active:
            if commit:
                self.transaction.commit()
            else:
                self.transaction.rollback()
        self.conn.close()


@pytest.fixture
def writers(placement_db):
    """writers(provider_id) -> a Writer; any left open is rolled back."""
    concurrent_only(placement_db)
    opened = []

    def begin(provider_id):
        opened.append(Writer(placement_db, provider_id))
        return opened[-1]
    yield begin
    for writer in opened:
        writer.end(commit=False)


def started(placement_db, gap_seconds=feed.GAP_SECONDS):
    cursor = feed.Cursor(gap_seconds=gap_seconds)
    placement_db.read_primary(cursor.start)
    return cursor


def write(placement_db, *provider_ids):
    placement_db.write(feed.touch, provider_ids)


def test_poll_sees_what_was_written(placement_db):
    cursor = started(placement_db)
    first, second = next(_provider_ids), next(_provider_ids)
    write(placement_db, first, second)
    assert placement_db.read_primary(cursor.poll) == feed.Changes(
        frozenset({first, second}), False, False)
    assert placement_db.read_primary(cursor.poll) == feed.Changes(
        frozenset(), False, False)


def test_names(placement_db):
    cursor = started(placement_db)
    placement_db.write(feed.touch_names)
    assert placement_db.read_primary(cursor.poll).names


def test_a_write_that_touches_nothing_records_nothing(placement_db):
    before = placement_db.read_primary(
        lambda conn: conn.execute(sa.select(sa.func.count()).select_from(
            CHANGES)).scalar())
    placement_db.write(lambda conn: None)
    assert placement_db.read_primary(
        lambda conn: conn.execute(sa.select(sa.func.count()).select_from(
            CHANGES)).scalar()) == before


def test_a_retried_write_records_only_its_last_attempt(placement_db):
    failed, kept = next(_provider_ids), next(_provider_ids)
    attempts = []

    def touch_then_lose_once(conn):
        attempts.append(conn)
        if len(attempts) == 1:
            feed.touch(conn, [failed])
            raise errors.RetryableConflict('lost')
        feed.touch(conn, [kept])

    cursor = started(placement_db)
    placement_db.write(touch_then_lose_once)
    assert placement_db.read_primary(cursor.poll).providers == {kept}


def test_too_many_rows_ask_for_a_reload(placement_db, monkeypatch):
    monkeypatch.setattr(feed, 'TOO_MANY', 2)
    cursor = started(placement_db)
    write(placement_db, *(next(_provider_ids) for _ in range(3)))
    assert placement_db.read_primary(cursor.poll).reload


def test_a_poll_after_pruning_may_have_missed_rows(placement_db):
    cursor = started(placement_db)
    cursor.polled_at -= feed.RETENTION
    assert placement_db.read_primary(cursor.poll).reload


def test_old_rows_are_pruned(placement_db, monkeypatch):
    old = next(_provider_ids)
    placement_db.write(lambda conn: conn.execute(CHANGES.insert().values(
        provider_id=old, changed_at=datetime.datetime(2000, 1, 1))))
    monkeypatch.setattr(feed, '_last_prune', {'at': float('-inf')})
    write(placement_db, next(_provider_ids))
    assert old not in placement_db.read_primary(
        lambda conn: set(conn.execute(sa.select(CHANGES.c.provider_id))
                         .scalars()))


def test_read_primary_never_reads_the_replica(database, tmp_path):
    replica = 'sqlite:///%s' % (tmp_path / 'replica.sqlite')
    path = helpers.write_config(str(tmp_path), database.url,
                                'slave_connection = %s\n' % replica)
    with_replica = db.Database(placement_conf.load(config_files=[path]))
    try:
        def read_from(conn):
            return conn.engine
        assert with_replica.read(read_from) is with_replica.read_engine
        assert with_replica.read_primary(read_from) is with_replica.engine
        assert with_replica.engine is not with_replica.read_engine
    finally:
        with_replica.dispose()


def test_out_of_order_commits(placement_db, writers):
    cursor = started(placement_db)
    late, early = next(_provider_ids), next(_provider_ids)
    slow = writers(late)            # takes the lower id ...
    writers(early).end()            # ... and commits after this one
    assert slow.change_id > cursor.high
    assert placement_db.read_primary(cursor.poll).providers == {early}
    assert slow.change_id in cursor.gaps
    slow.end()
    assert placement_db.read_primary(cursor.poll).providers == {late}
    assert slow.change_id not in cursor.gaps


def test_a_rolled_back_id_expires(placement_db, writers):
    cursor = started(placement_db, gap_seconds=1)
    rolled_back = writers(next(_provider_ids))
    writers(next(_provider_ids)).end()
    placement_db.read_primary(cursor.poll)
    assert rolled_back.change_id in cursor.gaps
    rolled_back.end(commit=False)
    time.sleep(1.2)
    assert placement_db.read_primary(cursor.poll).providers == set()
    assert rolled_back.change_id not in cursor.gaps


def test_a_cursor_started_while_a_write_is_in_flight_sees_it(
        placement_db, writers):
    in_flight = next(_provider_ids)
    slow = writers(in_flight)
    writers(next(_provider_ids)).end()
    cursor = started(placement_db)
    assert slow.change_id < cursor.high
    slow.end()
    assert placement_db.read_primary(cursor.poll).providers == {in_flight}


def test_a_galera_poll_whose_connection_dies_runs_again(placement_db,
                                                        monkeypatch):
    """On Galera the poll turns causal reads on for its statement and
    back off after it.  When the connection dies in between, the reader
    sees the lost connection (a read runs again on a new one), not the
    failure of turning them off on a dead connection; and the connection
    left with them on never returns to the pool."""
    if placement_db.dialect != 'mysql':
        pytest.skip('causal reads are a Galera (MySQL) setting')
    # Plain MariaDB knows the variable too: a Galera node in all but name.
    monkeypatch.setitem(feed._galera, placement_db.engine, True)
    cursor = started(placement_db)
    written = next(_provider_ids)
    write(placement_db, written)
    sessions = []
    statement = cursor._statement

    def killed_first():
        if len(sessions) == 1:
            with placement_db.engine.connect() as other:
                other.exec_driver_sql('KILL %d' % sessions[0])
        return statement()
    monkeypatch.setattr(cursor, '_statement', killed_first)

    def poll(conn):
        sessions.append(conn.exec_driver_sql(
            'SELECT CONNECTION_ID()').scalar())
        return cursor.poll(conn)
    assert placement_db.read_primary(poll).providers == {written}
    assert len(sessions) == 2
    with placement_db.engine.connect() as conn:
        assert conn.exec_driver_sql(
            'SELECT @@SESSION.wsrep_sync_wait').scalar() == 0


def test_touching_everything_asks_for_a_reload(placement_db):
    """``placement-manage snapshot reload``'s record: providers deleted
    by hand have no id left to touch, so readers load everything."""
    cursor = started(placement_db)
    placement_db.write(feed.touch_everything)
    assert placement_db.read_primary(cursor.poll) == feed.Changes(
        frozenset(), False, True)
    assert placement_db.read_primary(cursor.poll).reload is False
