"""Several API processes on a MariaDB Galera cluster, and read replicas.

The cluster (three nodes) and the PostgreSQL primary with its streaming
replica are private servers built for this module on loopback ports
(``galera_servers``, ``db_servers``); they are skipped when the packages
are not installed, and fail under CI.

* Each Galera node serves its own API process, and the claim load of
  ``test_concurrency_claims`` is spread over the three: the claims race
  through different nodes, so nothing but certification at commit orders
  them.
* One node is SIGKILLed mid-load: its API process answers 503 until the
  node rejoins, the other two keep serving.  With read_source = snapshot
  too, where a ``stress_fresh.FreshReads`` client writes through one
  node's API process and reads the write back through all three: a node
  applies other nodes' writes a little later, but the snapshots' polls
  wait for them (causal reads), so no answer is stale.
* Candidates come from a replica whose replay is paused mid-load while the
  claims go to the primary: stale candidates cost 409s, never over-commit.

Each run prints a ``[stress]`` line with its figures.  The module takes a
few minutes, so it runs only with ``PLACEMENT_TEST_CLUSTER=1`` (or under
CI).
"""
import collections
import contextlib
import os
import threading
import time
import uuid

import httpx
import pytest
import sqlalchemy as sa

from support import db_servers
from support import stress_check
from support import stress_fresh
from support import stress_load
from support import stress_setup

pytestmark = pytest.mark.skipif(
    not (os.environ.get('PLACEMENT_TEST_CLUSTER') == '1'
         or os.environ.get('CI') == 'true'),
    reason='cluster tests run with PLACEMENT_TEST_CLUSTER=1')

# API processes per node (gunicorn workers each).
WORKERS = 2
# How long after its node rejoined the API process there must answer 200.
RECOVERY_SECONDS = 20


@pytest.fixture(scope='module')
def pg_replica():
    db_servers.require(db_servers.PrivatePostgreSQL)
    primary = db_servers.PrivatePostgreSQL()
    replica = None
    try:
        primary.start()
        replica = db_servers.PostgreSQLReplica(primary)
        replica.start()
        yield replica
    finally:
        if replica is not None:
            replica.stop()
            replica.cleanup()
        primary.stop()
        primary.cleanup()


def _on_cluster(galera, **kwargs):
    first, *others = galera.nodes
    return stress_setup.service('mysql', WORKERS, server_url=first.url,
                                nodes=[node.url for node in others],
                                **kwargs)


def _synced_url(db_url):
    """``db_url`` with every read waiting until the node applied all the
    cluster committed before it (the checker must see the final state)."""
    return sa.engine.make_url(db_url).update_query_dict(
        {'init_command': 'SET SESSION wsrep_sync_wait=1'}).render_as_string(
            hide_password=False)


def _build(url, data):
    with httpx.Client(base_url=url, headers=stress_setup.HEADERS,
                      timeout=30) as http:
        data.build(http)


def _certification(galera, *snapshots):
    """The " cert_failures=N bf_aborts=M" figures since ``snapshots[0]``."""
    grown = galera.conflicts(*snapshots, galera.counters())
    return ' cert_failures=%d bf_aborts=%d' % (
        grown['wsrep_local_cert_failures'], grown['wsrep_local_bf_aborts'])


@pytest.mark.parametrize('dataset', list(stress_setup.DATA_SETS))
def test_galera_multi_writer_no_over_commit(galera, dataset, capsys):
    with _on_cluster(galera) as svc:
        data = stress_setup.DATA_SETS[dataset]()
        _build(svc.url, data)
        before = galera.counters()
        load = stress_load.Load(svc.urls, data, clients=15, ops=8,
                                duration=60.0, operator=True).run()
        conflicts = _certification(galera, before)
        check = stress_check.check_database(_synced_url(svc.db_url),
                                            load.ledger)
    with capsys.disabled():
        print('\n' + stress_check.summary(
            'galera 3 nodes/3 API processes/%s' % dataset, load, check)
            + conflicts)
    # No 503 either: every node stays up.
    stress_check.assert_sound(load, check, svc.log)
    figures = load.figures()
    assert figures['no_answer'] == 0
    assert figures['refused_409'] + figures['no_candidates'] > 0


def test_galera_post_claims_take_exactly_the_free_slots(galera):
    """Callers claim one slot each through POST /claims, spread over the
    three nodes' API processes: certification orders them, and exactly
    the free slots are granted, the others refused as no-fit."""
    slots = (3, 3, 2, 1, 1)
    with _on_cluster(galera) as svc:
        data = stress_setup.DataSet()
        with httpx.Client(base_url=svc.url, headers=stress_setup.HEADERS,
                          timeout=30) as http:
            for index, free in enumerate(slots):
                data.provider(http, 'cn%d' % index, {'VCPU': {'total': free}})
        consumers = [str(uuid.uuid4()) for _ in range(24)]
        barrier = threading.Barrier(len(consumers))
        answers = {}

        def claim(index, consumer):
            with httpx.Client(base_url=svc.urls[index % len(svc.urls)],
                              headers=stress_setup.HEADERS,
                              timeout=120) as http:
                barrier.wait()
                answers[consumer] = http.post('/claims', json={
                    'shape': 'resources=VCPU:1', 'consumers': {consumer: {
                        'project_id': stress_setup.PROJECT,
                        'user_id': stress_setup.USER,
                        'consumer_generation': None,
                        'consumer_type': 'INSTANCE'}}})

        threads = [threading.Thread(target=claim, args=item)
                   for item in enumerate(consumers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        ledger = stress_load.Ledger()
        for consumer, response in answers.items():
            if response.status_code == 200:
                ledger.certain(consumer, stress_load.state_of(
                    response.json()['allocations'][consumer]['allocations']))
            else:
                ledger.certain(consumer, stress_load.EMPTY)
        check = stress_check.check_database(_synced_url(svc.db_url), ledger)
    assert check.ok, (check.over_committed, check.wrong)
    statuses = collections.Counter(r.status_code for r in answers.values())
    assert statuses == {200: sum(slots), 409: len(consumers) - sum(slots)}, (
        [r.text for r in answers.values() if r.status_code not in (200, 409)])
    assert all(r.json()['errors'][0]['code'] == 'placement.claims.no_fit'
               for r in answers.values() if r.status_code == 409)


@pytest.mark.parametrize('source', ['database', 'snapshot'])
def test_galera_node_killed_mid_load(galera, source, capsys):
    victim = galera.nodes[-1]
    # Reads from the database on another node than the write's may lag
    # (docs/operators.md, read-your-writes): only snapshots promise it.
    fresh = [stress_fresh.FreshReads] if source == 'snapshot' else []
    with _on_cluster(galera, source=source) as svc:
        data = stress_setup.Flat()
        _build(svc.url, data)
        if source == 'snapshot':
            svc.wait_loaded(WORKERS)
        probes = [stress_load.Probe(url) for url in svc.urls]
        for probe in probes:
            probe.start()
        before = galera.counters()
        load = stress_load.Load(svc.urls, data, clients=15, ops=None,
                                duration=90.0, companions=fresh).start()
        try:
            time.sleep(2)
            at_kill = galera.counters()
            killed = time.monotonic()
            victim.kill()
            time.sleep(5)
            restarting = time.monotonic()
            victim.restart_after_crash()
            synced = time.monotonic()
            back = probes[-1].first_ok_after(synced, RECOVERY_SECONDS)
            time.sleep(1)
        finally:
            load.stop()
            for probe in probes:
                probe.stop()
        load.wait()
        conflicts = _certification(galera, before, at_kill)
        check = stress_check.check_database(_synced_url(svc.db_url),
                                            load.ledger)
    with capsys.disabled():
        print('\n' + stress_check.summary(
            'galera node killed/3 API processes/flat/%s down=%.1fs '
            'rejoined_in=%.1fs recovered_after=%s' % (
                source, restarting - killed, synced - restarting,
                '%.1fs' % (back - synced) if back else 'never'),
            load, check) + conflicts)

    assert back is not None, 'the API process on the rejoined node is down'
    # The API processes on the surviving nodes never failed a request.
    survivors = set(svc.urls[:-1])
    survivor_outcomes = [o for c in load.clients if c.url in survivors
                         for o in c.outcomes]
    survivor_outcomes += [o for p in probes[:-1] for o in p.outcomes]
    assert not [o for o in survivor_outcomes
                if o.status is None or o.status >= 500], (
        [o for o in survivor_outcomes if o.status is None
         or o.status >= 500][:5], svc.log[-3000:])
    # The one on the dead node said so, in the upstream error format.
    dead = [o for o in probes[-1].outcomes
            if killed <= o.started and o.ended <= restarting]
    assert dead and all(o.status == 503 and o.clear for o in dead), [
        o for o in dead if o.status != 503 or not o.clear][:5]
    assert load.figures()['no_answer'] == 0
    stress_check.assert_sound(load, check, svc.log, allow_503=True)
    if fresh:
        assert stress_fresh.checked(load) > 0


# Rounds of the class delete / inventory write race, and how far apart
# their starts are swept: from the delete leading by RACE_SPREAD seconds
# to the write leading by as much.  Started at the same instant the delete
# won up to 19 rounds in 20 (the write has more to do), so every round
# could go its way; the orders cross a few milliseconds from zero, where
# the outcomes still mix.
RACE_ROUNDS = 40
RACE_SPREAD = 0.02


def _race(delete_url, write_url, name, provider, write_lead):
    """DELETE class ``name`` through one API process while another gives
    ``provider`` its first inventory of it, the write starting
    ``write_lead`` seconds before the delete (after it when negative):
    (delete status, write status)."""
    barrier = threading.Barrier(2)
    answers = {}

    def send(key, url, method, path, body=None, delay=0.0):
        with httpx.Client(base_url=url, headers=stress_setup.HEADERS,
                          timeout=30) as http:
            barrier.wait()
            time.sleep(delay)
            answers[key] = http.request(method, path, json=body).status_code
    threads = [
        threading.Thread(target=send, args=(
            'delete', delete_url, 'DELETE', '/resource_classes/' + name),
            kwargs={'delay': max(write_lead, 0.0)}),
        threading.Thread(target=send, args=(
            'write', write_url, 'PUT',
            '/resource_providers/%s/inventories' % provider,
            {'resource_provider_generation': 0,
             'inventories': {name: {'total': 1}}}),
            kwargs={'delay': max(-write_lead, 0.0)})]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers['delete'], answers['write']


def _write_lead(index):
    """Round ``index``'s start offset, from -RACE_SPREAD to RACE_SPREAD."""
    return RACE_SPREAD * (2 * index / (RACE_ROUNDS - 1) - 1)


def test_galera_class_delete_and_inventory_write_are_ordered(galera, capsys):
    # The delete goes through one node, the first inventory of the class
    # through another, at nearly the same moment.  Either the delete wins (the
    # write finds no such class, 400) or the write does (the class is in
    # use, 409); both succeeding would leave inventory of a deleted class.
    with _on_cluster(galera) as svc:
        delete_url, write_url = svc.urls[:2]
        with httpx.Client(base_url=delete_url, headers=stress_setup.HEADERS,
                          timeout=30) as http:
            providers = []
            for index in range(RACE_ROUNDS):
                rp = str(uuid.uuid4())
                stress_setup.expect_ok(http.post('/resource_providers', json={
                    'name': 'race-%d' % index, 'uuid': rp}))
                providers.append(rp)
                stress_setup.expect_ok(http.put(
                    '/resource_classes/CUSTOM_RACE_%d' % index))
        engine = sa.create_engine(_synced_url(svc.db_url))
        try:
            # Every class and provider is on the writing node first.
            with engine.connect() as conn:
                conn.execute(sa.text('SELECT COUNT(*) FROM resource_classes'))
            before = galera.counters()
            outcomes = [_race(delete_url, write_url, 'CUSTOM_RACE_%d' % index,
                              rp, _write_lead(index))
                        for index, rp in enumerate(providers)]
            conflicts = _certification(galera, before)
            with engine.connect() as conn:
                orphans = conn.execute(sa.text(
                    'SELECT COUNT(*) FROM inventories WHERE resource_class_id '
                    'NOT IN (SELECT id FROM resource_classes)')).scalar()
        finally:
            engine.dispose()
    tally = collections.Counter(outcomes)
    with capsys.disabled():
        print('\n[race] class delete vs first inventory through two nodes, '
              '%d rounds: %s orphans=%d%s' % (
                  RACE_ROUNDS, dict(tally), orphans, conflicts))
    assert orphans == 0, tally
    assert tally[204, 200] == 0, tally
    assert set(tally) <= {(204, 400), (409, 200)}, (tally, svc.log[-3000:])
    # Both orders happened: the two did race.
    assert tally[204, 400] and tally[409, 200], tally


class _Replica:
    """A primary and a replica to read from, with ``lagging()`` to stop
    the replica applying changes for a while."""

    def __init__(self, backend, primary_url, url, lagging):
        self.backend = backend
        self.primary_url = primary_url
        self.url = url
        self.lagging = lagging


@contextlib.contextmanager
def _paused_replay(replica):
    replica.pause_replay()
    try:
        yield
    finally:
        replica.resume_replay()


@contextlib.contextmanager
def _read_locked(node):
    """A Galera node under FLUSH TABLES WITH READ LOCK: it leaves flow
    control (desyncs) and applies nothing until unlocked; reads go on."""
    engine = sa.create_engine(node.url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql('FLUSH TABLES WITH READ LOCK')
            try:
                yield
            finally:
                conn.exec_driver_sql('UNLOCK TABLES')
    finally:
        engine.dispose()


@pytest.fixture(params=['postgresql', 'galera'])
def replica(request):
    """A PostgreSQL streaming replica, or a Galera node read from while
    another one is written to."""
    if request.param == 'postgresql':
        standby = request.getfixturevalue('pg_replica')
        return _Replica('postgresql', standby.primary.url, standby.url,
                        lambda: _paused_replay(standby))
    cluster = request.getfixturevalue('galera')
    node = cluster.nodes[-1]
    return _Replica('mysql', cluster.nodes[0].url, node.url,
                    lambda: _read_locked(node))


def test_reads_go_to_the_replica(replica):
    with stress_setup.service(replica.backend, 1,
                              server_url=replica.primary_url,
                              replica_url=replica.url) as svc:
        with httpx.Client(base_url=svc.url, headers=stress_setup.HEADERS,
                          timeout=30) as http:
            with replica.lagging():
                data = stress_setup.DataSet()
                rp = data.provider(http, 'unseen')
                # Written on the primary, not yet applied on the replica.
                assert http.get('/resource_providers/%s' % rp
                                ).status_code == 404
            deadline = time.monotonic() + 20
            while http.get('/resource_providers/%s' % rp).status_code != 200:
                assert time.monotonic() < deadline, 'replica never caught up'
                time.sleep(0.1)


def test_lagging_replica_no_over_commit(replica, capsys):
    with stress_setup.service(replica.backend, WORKERS,
                              server_url=replica.primary_url,
                              replica_url=replica.url) as svc:
        data = stress_setup.Flat()
        _build(svc.url, data)
        load = stress_load.Load(svc.url, data, clients=16, ops=None,
                                duration=60.0, operator=True).start()
        try:
            time.sleep(2)
            paused = time.monotonic()
            with replica.lagging():
                time.sleep(4)
            resumed = time.monotonic()
            time.sleep(2)
        finally:
            load.stop()
        load.wait()
        check = stress_check.check_database(svc.db_url, load.ledger)
    claims = [o for o in load.outcomes if o.op == 'claim']
    during = [o for o in claims if paused <= o.started < resumed]
    outside = [o for o in claims if not paused <= o.started < resumed]

    def rate(outcomes):
        return '%d/%d' % (sum(o.status == 409 for o in outcomes),
                          len(outcomes))

    with capsys.disabled():
        print('\n' + stress_check.summary(
            '%s replica lagging %.1fs/flat: claim 409 while lagging %s, '
            'otherwise %s, stale reads %d' % (
                replica.backend, resumed - paused, rate(during),
                rate(outside), len(load.read_mismatches)), load, check))
    assert check.ok, (check.over_committed, check.wrong[:5])
    # Reads from the replica may be stale (so a client's own write may
    # not show yet); answers are otherwise those of a single server.
    assert not load.unexpected(), load.unexpected()[:5]
    assert not [o for o in load.outcomes if o.status == 503]
    assert load.figures()['acknowledged'] > 0
