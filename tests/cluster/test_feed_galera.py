"""The change feed on a three-node Galera cluster: writes on some nodes,
a cursor polling on another sees every one of them, though each node
hands out ids of its own (``auto_increment_offset``), which leaves holes
that never fill, and though commits land out of id order.

Runs only with ``PLACEMENT_TEST_CLUSTER=1`` (or under CI).
"""
import itertools
import os

import pytest
import sqlalchemy as sa

from placement.data import feed
from placement.data import migration

pytestmark = pytest.mark.skipif(
    not (os.environ.get('PLACEMENT_TEST_CLUSTER') == '1'
         or os.environ.get('CI') == 'true'),
    reason='cluster tests run with PLACEMENT_TEST_CLUSTER=1')

DATABASE = 'feed_galera'
_provider_ids = itertools.count(1)


@pytest.fixture(scope='module')
def engines(galera):
    """An engine per node on one database with the feed's table."""
    first = galera.nodes[0]
    server = sa.create_engine(first.url, isolation_level='AUTOCOMMIT')
    with server.connect() as conn:
        conn.exec_driver_sql('CREATE DATABASE %s' % DATABASE)
    server.dispose()
    engines = [sa.create_engine(sa.engine.make_url(node.url).set(
        database=DATABASE)) for node in galera.nodes]
    migration.upgrade(engines[0])
    yield engines
    for engine in engines:
        engine.dispose()


def begin_write(engine, provider_id):
    """A write transaction that recorded ``provider_id``, uncommitted."""
    conn = engine.connect().execution_options(
        isolation_level='READ COMMITTED')
    transaction = conn.begin()
    feed.touch(conn, [provider_id])
    feed.record(conn)
    feed.forget(conn)
    return conn, transaction


def commit(write):
    conn, transaction = write
    transaction.commit()
    conn.close()


def poll(engine, cursor):
    with engine.begin() as conn:
        return cursor.poll(conn)


def test_writes_on_other_nodes_are_all_seen(engines):
    reader, *writers = engines
    cursor = feed.Cursor()
    with reader.begin() as conn:
        cursor.start(conn)
    written, seen = set(), set()
    for round_ in range(10):
        for writer in writers:
            provider_id = next(_provider_ids)
            commit(begin_write(writer, provider_id))
            written.add(provider_id)
            # Causal reads: what the other node acknowledged is there.
            changes = poll(reader, cursor)
            assert changes.providers == {provider_id}
            seen |= changes.providers
    assert seen == written
    # The other nodes' offsets leave holes for good: gaps, never filled.
    assert cursor.gaps


def test_out_of_order_commits_across_nodes(engines):
    reader, first, second = engines
    cursor = feed.Cursor()
    with reader.begin() as conn:
        cursor.start(conn)
    late, early = next(_provider_ids), next(_provider_ids)
    slow = begin_write(first, late)
    commit(begin_write(second, early))
    seen = set(poll(reader, cursor).providers)
    commit(slow)
    seen |= poll(reader, cursor).providers
    assert seen == {late, early}


def test_poll_restores_the_sessions_sync_wait(engines):
    reader = engines[0]
    cursor = feed.Cursor()
    with reader.begin() as conn:
        cursor.start(conn)
        before = conn.exec_driver_sql(
            'SELECT @@SESSION.wsrep_sync_wait').scalar()
        cursor.poll(conn)
        assert conn.exec_driver_sql(
            'SELECT @@SESSION.wsrep_sync_wait').scalar() == before
