"""Races made deterministic by a lock the test holds on a connection of
its own: one request stops at a known point, the competing request is
sent and either answered or left waiting for a lock too, and only then
is the first let go.  On SQLite, where writers queue on the database
lock, the requests just run one after the other.

Also here: a read that meets a lock timeout, a deadlock or a lost
connection is run again by the service.
"""
import concurrent.futures
import contextlib
import time
import uuid

import httpx
from prometheus_client import parser as prom_parser
import pytest
import sqlalchemy as sa

from support.concurrency_support import backends
from support import helpers
from support import stress_setup
from placement.data import tables

# Sessions of the test's database waiting for a lock (row or table).
WAITING_SESSIONS = {
    # (A join of the two views loses the transactions' rows on MariaDB
    # 10.11, hence the subquery.)
    'mysql': "SELECT trx_mysql_thread_id FROM information_schema.innodb_trx "
             "WHERE trx_state = 'LOCK WAIT' AND trx_mysql_thread_id IN "
             "(SELECT id FROM information_schema.processlist "
             "WHERE db = DATABASE()) "
             "UNION SELECT id FROM information_schema.processlist "
             "WHERE db = DATABASE() AND state LIKE 'Waiting for table%%'",
    'postgresql': "SELECT pid FROM pg_stat_activity "
                  "WHERE datname = current_database() "
                  "AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'",
}
# How the test locks a whole table, and ends a session of the service.
LOCK_TABLE = {
    'mysql': 'LOCK TABLES %s WRITE',
    'postgresql': 'LOCK TABLE %s IN ACCESS EXCLUSIVE MODE',
}
KILL = {
    'mysql': 'KILL %d',
    'postgresql': 'SELECT pg_terminate_backend(%d)',
}


class Holder:
    """A connection of the test's own to the service's database, in a
    transaction the test ends with ``release`` (a rollback)."""

    def __init__(self, db_url):
        self.engine = sa.create_engine(db_url)
        self.conn = self.engine.connect()
        self.backend = self.conn.dialect.name
        # A second connection watches the first's waiters.
        self.watcher = self.engine.connect().execution_options(
            isolation_level='AUTOCOMMIT')
        if self.backend == 'sqlite':
            self.conn.exec_driver_sql('BEGIN IMMEDIATE')
        else:
            self.conn.begin()

    def execute(self, stmt):
        return self.conn.execute(stmt)

    def waiting(self):
        """Ids of the other sessions that wait for a lock."""
        return set(self.watcher.exec_driver_sql(
            WAITING_SESSIONS[self.backend]).scalars())

    def waiters(self):
        return len(self.waiting())

    def lock_table(self, name):
        self.conn.exec_driver_sql(LOCK_TABLE[self.backend] % name)

    def kill(self, session):
        self.watcher.exec_driver_sql(KILL[self.backend] % session)

    def wait_for(self, count, unless=None, timeout=20):
        """Wait until ``count`` other sessions wait for a lock, or until
        the future ``unless`` is done (a request that did not wait)."""
        if self.backend == 'sqlite':
            time.sleep(0.5)
            return
        deadline = time.monotonic() + timeout
        while self.waiters() < count:
            if unless is not None and unless.done():
                return
            assert time.monotonic() < deadline, 'nobody waits for a lock'
            # MariaDB refreshes innodb_trx only when it was not read for
            # 0.1 s: polling faster would read a frozen copy forever.
            time.sleep(0.15)

    def release(self):
        if self.backend == 'mysql':
            self.conn.exec_driver_sql('UNLOCK TABLES')
        self.conn.rollback()

    def close(self):
        self.conn.close()
        self.watcher.close()
        self.engine.dispose()


@contextlib.contextmanager
def holding(db_url):
    holder = Holder(db_url)
    try:
        yield holder
    finally:
        holder.close()


def _send(pool, url, method, path, body=None):
    def call():
        with httpx.Client(base_url=url, headers=stress_setup.HEADERS,
                          timeout=60) as http:
            return http.request(method, path, json=body)
    return pool.submit(call)


def _rows(db_url, stmt):
    """The rows of ``stmt``, read on a connection of the test's own."""
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            return conn.execute(stmt).all()
    finally:
        engine.dispose()


def _dangling_inventories(db_url):
    """Inventory rows whose resource class no longer exists."""
    inv, rc = tables.inventories, tables.resource_classes
    return _rows(db_url, sa.select(inv.c.id).where(~sa.exists().where(
        rc.c.id == inv.c.resource_class_id)))


@pytest.mark.parametrize('backend,workers', backends())
def test_class_delete_racing_its_first_inventory(backend, workers):
    """DELETE /resource_classes/CUSTOM_X while a PUT of inventories gives
    a provider its first CUSTOM_X inventory: the PUT is held after it
    looked the class up (its insert waits on an uncommitted row of the
    same key), the delete is sent, then the PUT goes on.  One of the two
    must lose: never a deleted class with inventory pointing at it."""
    with stress_setup.service(backend, workers) as svc:
        with httpx.Client(base_url=svc.url, headers=stress_setup.HEADERS,
                          timeout=30) as http:
            stress_setup.expect_ok(http.put('/resource_classes/CUSTOM_RACE'))
            provider = stress_setup.DataSet().provider(http, 'racer')
        with holding(svc.db_url) as holder, \
                concurrent.futures.ThreadPoolExecutor(2) as pool:
            rc, rp = tables.resource_classes, tables.resource_providers
            # Ids read apart: an INSERT ... SELECT would share-lock the
            # rows it reads on MariaDB.
            holder.execute(tables.inventories.insert().values(
                resource_provider_id=holder.execute(sa.select(rp.c.id).where(
                    rp.c.uuid == provider)).scalar(),
                resource_class_id=holder.execute(sa.select(rc.c.id).where(
                    rc.c.name == 'CUSTOM_RACE')).scalar(),
                total=1, reserved=0, min_unit=1, max_unit=1, step_size=1,
                allocation_ratio=1.0))
            put = _send(pool, svc.url, 'PUT',
                        '/resource_providers/%s/inventories' % provider,
                        {'resource_provider_generation': 0,
                         'inventories': {'CUSTOM_RACE': {'total': 4}}})
            holder.wait_for(1)
            delete = _send(pool, svc.url, 'DELETE',
                           '/resource_classes/CUSTOM_RACE')
            holder.wait_for(2, unless=delete)
            holder.release()
            put, delete = put.result(), delete.result()
        outcome = (put.status_code, delete.status_code)
        assert outcome in ((200, 409), (400, 204)), (put.text, delete.text)
        if delete.status_code == 409:
            assert delete.json()['errors'][0]['detail'].strip().endswith(
                'Error in delete resource class: Cannot delete resource '
                'class CUSTOM_RACE. Class is in use in inventory.')
        assert _dangling_inventories(svc.db_url) == []


def _inconsistent_roots(db_url):
    """Providers whose root is not their parent's root (or, for a root,
    not themselves)."""
    rp, parent = tables.resource_providers, tables.resource_providers.alias()
    return _rows(db_url, sa.select(rp.c.name)
                 .select_from(rp.outerjoin(
                     parent, parent.c.id == rp.c.parent_provider_id))
                 .where(sa.func.coalesce(parent.c.root_provider_id, rp.c.id)
                        != rp.c.root_provider_id))


@pytest.mark.parametrize('backend,workers', backends())
def test_reparent_racing_a_child_of_a_descendant(backend, workers):
    """PUT /resource_providers/A moves A (root R, with a child D) under
    another tree while a child is created under D: the create is held
    after it locked D and read D's root (its insert waits on an
    uncommitted provider of the same name), the move is sent, then the
    create goes on.  Both succeed, and the new child ends in the tree A
    moved to."""
    with stress_setup.service(backend, workers) as svc:
        data = stress_setup.DataSet()
        with httpx.Client(base_url=svc.url, headers=stress_setup.HEADERS,
                          timeout=30) as http:
            root = data.provider(http, 'root')
            moved = data.provider(http, 'moved', parent=root)
            below = data.provider(http, 'below', parent=moved)
            target = data.provider(http, 'target')
        child_name = 'child-' + str(uuid.uuid4())
        with holding(svc.db_url) as holder, \
                concurrent.futures.ThreadPoolExecutor(2) as pool:
            holder.execute(tables.resource_providers.insert().values(
                uuid=str(uuid.uuid4()), name=child_name, generation=0))
            create = _send(pool, svc.url, 'POST', '/resource_providers',
                           {'name': child_name,
                            'parent_provider_uuid': below})
            holder.wait_for(1)
            move = _send(pool, svc.url, 'PUT', '/resource_providers/%s'
                         % moved, {'name': 'moved',
                                   'parent_provider_uuid': target})
            holder.wait_for(2, unless=move)
            holder.release()
            create, move = create.result(), move.result()
        assert (create.status_code, move.status_code) == (200, 200), (
            create.text, move.text)
        assert _inconsistent_roots(svc.db_url) == []
        with httpx.Client(base_url=svc.url, headers=stress_setup.HEADERS,
                          timeout=30) as http:
            child = stress_setup.expect_ok(http.get(
                '/resource_providers/%s' % create.json()['uuid'])).json()
        assert child['root_provider_uuid'] == target


def _read_failures():
    """(backend, failure) pairs a read can meet for real."""
    failures = {'mysql': ('lock timeout', 'connection lost'),
                'postgresql': ('deadlock', 'connection lost')}
    return [pytest.param(backend, failure, id='%s-%s' % (
        backend, failure.replace(' ', '-')))
        for backend in helpers.BACKENDS if backend in failures
        for failure in failures[backend]]


def _read_retries(url):
    """{reason: count} of read retries, from GET /metrics."""
    text = stress_setup.expect_ok(httpx.get(
        url + '/metrics', headers=stress_setup.HEADERS)).text
    return {sample.labels['reason']: sample.value
            for family in prom_parser.text_string_to_metric_families(text)
            if family.name == 'placement_read_retries'
            for sample in family.samples if sample.name.endswith('_total')}


@pytest.mark.parametrize('backend,failure', _read_failures())
def test_read_meeting_a_failure_is_run_again(backend, failure):
    """GET /resource_providers/{uuid}/inventories reads the provider with
    its inventory, a table the test holds locked.  While the read waits,
    it is made to fail for real: its lock wait times out (MariaDB, with
    lock_wait_timeout at 1 s), it is chosen as a deadlock's victim
    (PostgreSQL: the test then locks the provider table too, with a
    longer deadlock_timeout than the service's) or its connection is
    killed.  The service runs the read again: 200 once the test lets go,
    never 409 or 503, and the retry is counted."""
    query = ({'init_command': 'SET SESSION lock_wait_timeout = 1'}
             if failure == 'lock timeout' else None)
    reason = ('connection_lost' if failure == 'connection lost'
              else 'deadlock')
    with stress_setup.service(backend, 1, query=query) as svc:
        with httpx.Client(base_url=svc.url, headers=stress_setup.HEADERS,
                          timeout=30) as http:
            provider = stress_setup.DataSet().provider(
                http, 'read', {'VCPU': {'total': 8}})
        with holding(svc.db_url) as holder, \
                concurrent.futures.ThreadPoolExecutor(1) as pool:
            if failure == 'deadlock':
                holder.conn.exec_driver_sql(
                    "SET LOCAL deadlock_timeout = '10s'")
            holder.lock_table('inventories')
            read = _send(pool, svc.url, 'GET',
                         '/resource_providers/%s/inventories' % provider)
            holder.wait_for(1)
            if failure == 'connection lost':
                (victim,) = holder.waiting()
                holder.kill(victim)
                deadline = time.monotonic() + 20
                while holder.waiting() in (set(), {victim}):
                    assert time.monotonic() < deadline, 'no retry waits'
                    time.sleep(0.15)
            elif failure == 'deadlock':
                # Waits until the service's transaction is the victim.
                holder.lock_table('resource_providers')
            else:
                time.sleep(2.5)
            holder.release()
            read = read.result()
        assert read.status_code == 200, read.text
        assert read.json()['inventories']['VCPU']['total'] == 8
        assert _read_retries(svc.url).get(reason, 0) >= 1
