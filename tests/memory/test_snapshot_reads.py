"""Reads from memory answer as reads from the database.

Two real servers on one database: ``database`` reads SQL, ``snapshot``
(two workers) reads its workers' snapshots.  Random sequences of writes,
each sent to either server, are followed by the same provider listings
on both, which must match byte for byte: so a write through one worker
or server is seen by the next read on any other.  A change made by SQL
behind the service's back shows that the answers come from memory, and
that the documented reload brings it in.
"""
import datetime
import random
import time
import uuid

import pytest
import sqlalchemy as sa

from support import helpers
from support import snapshot_pair

CLASSES = ['VCPU', 'MEMORY_MB', 'DISK_GB', 'CUSTOM_GOLD']
TRAITS = ['HW_CPU_X86_AVX', 'HW_CPU_X86_SSE', 'CUSTOM_FAST', 'CUSTOM_SLOW']
RATIOS = [1.0, 1.5, 0.7, 1.1, 16.0]
AGGREGATES = [str(uuid.UUID(int=n)) for n in (1, 2, 3)]


class Cloud:
    """What the random writes know of the cloud so far."""

    def __init__(self, rng):
        self.rng = rng
        self.providers = []
        self.consumers = []

    def provider(self):
        return self.rng.choice(self.providers) if self.providers else None


def _generation(client, rp):
    response = client.get('/resource_providers/' + rp)
    return response.json()['generation'] \
        if response.status_code == 200 else 0


def _create(client, cloud):
    rp = str(uuid.uuid4())
    body = {'name': 'rp-%s' % rp[:8], 'uuid': rp}
    parent = cloud.provider()
    if parent and cloud.rng.random() < 0.4:
        body['parent_provider_uuid'] = parent
    if client.post('/resource_providers', json=body).status_code == 200:
        cloud.providers.append(rp)


def _inventories(client, cloud):
    rp = cloud.provider()
    rng = cloud.rng
    inventories = {}
    for rc in rng.sample(CLASSES, rng.randint(0, 3)):
        total = rng.randint(1, 16)
        inventories[rc] = {
            'total': total, 'reserved': rng.randint(0, 2),
            'min_unit': 1, 'max_unit': rng.randint(1, total),
            'step_size': rng.choice([1, 1, 2]),
            'allocation_ratio': rng.choice(RATIOS)}
    client.put('/resource_providers/%s/inventories' % rp, json={
        'resource_provider_generation': _generation(client, rp),
        'inventories': inventories})


def _traits(client, cloud):
    rp = cloud.provider()
    client.put('/resource_providers/%s/traits' % rp, json={
        'resource_provider_generation': _generation(client, rp),
        'traits': cloud.rng.sample(TRAITS, cloud.rng.randint(0, 3))})


def _aggregates(client, cloud):
    rp = cloud.provider()
    client.put('/resource_providers/%s/aggregates' % rp, json={
        'resource_provider_generation': _generation(client, rp),
        'aggregates': cloud.rng.sample(AGGREGATES, cloud.rng.randint(0, 2))})


def _allocate(client, cloud):
    rp = cloud.provider()
    consumer = str(uuid.uuid4())
    response = client.put('/allocations/' + consumer, json=helpers.body(
        {rp: {cloud.rng.choice(CLASSES[:3]): cloud.rng.randint(1, 4)}}))
    if response.status_code == 204:
        cloud.consumers.append(consumer)


def _release(client, cloud):
    if cloud.consumers:
        consumer = cloud.consumers.pop(cloud.rng.randrange(
            len(cloud.consumers)))
        client.delete('/allocations/' + consumer)


def _rename(client, cloud):
    rp = cloud.provider()
    client.put('/resource_providers/' + rp,
               json={'name': 'renamed-%s' % uuid.uuid4().hex[:8]})


def _reparent(client, cloud):
    rp, parent = cloud.provider(), cloud.provider()
    body = {'name': 'moved-%s' % uuid.uuid4().hex[:8],
            'parent_provider_uuid': (None if cloud.rng.random() < 0.3
                                     else parent)}
    client.put('/resource_providers/' + rp, json=body)


def _delete(client, cloud):
    rp = cloud.provider()
    if client.delete('/resource_providers/' + rp).status_code == 204:
        cloud.providers.remove(rp)


def _names(client, cloud):
    client.put('/resource_classes/CUSTOM_GOLD')
    client.put('/traits/' + cloud.rng.choice(['CUSTOM_FAST', 'CUSTOM_SLOW']))


STEPS = [(_create, 4), (_inventories, 4), (_traits, 2), (_aggregates, 2),
         (_allocate, 4), (_release, 2), (_rename, 1), (_reparent, 1),
         (_delete, 1), (_names, 1)]


def _listings(cloud):
    """The provider listings to compare after a step."""
    rp = cloud.provider() or str(uuid.uuid4())
    queries = [
        '', 'in_tree=' + rp, 'uuid=' + rp, 'resources=VCPU:1',
        'resources=VCPU:2,MEMORY_MB:3', 'resources=CUSTOM_GOLD:1',
        'resources=DISK_GB:7', 'required=HW_CPU_X86_AVX',
        'required=!CUSTOM_FAST', 'required=in:CUSTOM_FAST,HW_CPU_X86_SSE',
        'member_of=' + AGGREGATES[0],
        'member_of=in:%s,%s' % tuple(AGGREGATES[1:]),
        'member_of=!' + AGGREGATES[2],
        'required=HW_CPU_X86_AVX&resources=VCPU:1&member_of=' + AGGREGATES[1],
    ]
    names = [p for p in cloud.providers[:1]]
    queries += ['name=rp-%s' % p[:8] for p in names]
    return [(q, '1.39') for q in queries] + [('', '1.14'), ('', '1.0')]


def _same(left, right, query, version):
    one, other = snapshot_pair.same(
        left, right, '/resource_providers?' + query, version)
    if one.status_code == 200 and one.json()['resource_providers']:
        # (An empty list is dated by the clock.)
        assert other.headers.get('last-modified') == one.headers.get(
            'last-modified'), query


@pytest.mark.parametrize(**helpers.seeded([1, 2, 3]))
def test_random_writes_read_alike_from_memory(pair, seed):
    left, right, server = pair
    rng = random.Random(seed)
    cloud = Cloud(rng)
    kinds = [step for step, weight in STEPS for _ in range(weight)]
    for _ in range(3):
        _create(left, cloud)
    for number in range(40):
        step = rng.choice(kinds)
        step(rng.choice([left, right]), cloud)
        for query, version in _listings(cloud):
            _same(left, right, query, version)
    # Every change came through the feed: no worker had to reload.
    assert 'without a record in the change feed' not in snapshot_pair.log(
        server)


def test_a_write_is_read_at_once_on_every_worker(pair):
    left, right, _ = pair
    for number in range(20):
        rp = helpers.new_provider(left if number % 2 else right)
        for _ in range(2):
            listed = right.get('/resource_providers?uuid=' + rp).json()
            assert [p['uuid'] for p in listed['resource_providers']] == [rp]


def test_unknown_names_are_the_same_400(pair):
    left, right, _ = pair
    for query in ('resources=CUSTOM_NOPE:1', 'required=CUSTOM_NOPE'):
        _same(left, right, query, '1.39')


def _names(client, rp):
    listed = client.get('/resource_providers?uuid=' + rp).json()
    return [p['name'] for p in listed['resource_providers']]


def test_answers_come_from_memory_until_reloaded(pair, database):
    """A rename by SQL by hand that moves none of the figures the
    snapshot compares (same length, no timestamp) is not seen until
    ``placement-manage snapshot reload``: so answers come from memory."""
    left, right, server = pair
    rp = helpers.new_provider(left)
    # Seen by the worker ``right``'s connection is served by.
    assert _names(right, rp) == ['rp-' + rp]
    with database.engine().begin() as conn:
        conn.execute(sa.text(
            "UPDATE resource_providers SET name = :name WHERE uuid = :uuid"),
            {'uuid': rp, 'name': 'by-' + rp})
    assert _names(left, rp) == ['by-' + rp]
    for _ in range(4):
        assert _names(right, rp) == ['rp-' + rp]
    snapshot_pair.reload_snapshots(server)
    for _ in range(4):
        assert _names(right, rp) == ['by-' + rp]


def test_a_write_without_the_feed_is_seen_within_the_bound(pair, database):
    """A write as upstream placement makes it (a generation bumped, the
    row's timestamp), which records no change: every worker loads its
    snapshot again within about a second (source.FLEET_CHECK_SECONDS)."""
    left, right, server = pair
    rp = helpers.new_provider(left)
    assert _names(right, rp) == ['rp-' + rp]
    with database.engine().begin() as conn:
        conn.execute(sa.text(
            "UPDATE resource_providers SET name = 'upstream-wrote', "
            "generation = generation + 1, updated_at = :now "
            "WHERE uuid = :uuid"),
            {'uuid': rp, 'now': datetime.datetime.utcnow()})
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        if all(_names(right, rp) == ['upstream-wrote'] for _ in range(4)):
            break
        time.sleep(0.1)
    for _ in range(4):
        _same(left, right, 'uuid=' + rp, '1.39')
    assert 'without a record in the change feed' in snapshot_pair.log(server)


# The other sessions on the test's database, and how one is ended.
SESSIONS = {
    'mysql': "SELECT id FROM information_schema.processlist "
             "WHERE db = DATABASE() AND id <> CONNECTION_ID()",
    'postgresql': "SELECT pid FROM pg_stat_activity WHERE datname = "
                  "current_database() AND pid <> pg_backend_pid()",
}
END_SESSION = {
    'mysql': 'KILL %d',
    'postgresql': 'SELECT pg_terminate_backend(%d)',
}


def test_dropped_connections_cost_no_stale_answer(pair, database):
    """Every connection of both servers ended under them: the look at the
    feed runs again on a new one, and a write acknowledged after it is
    in the next read."""
    if database.backend == 'sqlite':
        pytest.skip('SQLite has no connections to drop')
    left, right, _ = pair
    engine = database.engine()
    try:
        for _ in range(3):
            rp = helpers.new_provider(right)
            assert _names(right, rp) == ['rp-' + rp]
            with engine.connect() as conn:
                for session in conn.exec_driver_sql(
                        SESSIONS[database.backend]).scalars().all():
                    try:
                        conn.exec_driver_sql(
                            END_SESSION[database.backend] % session)
                    except sa.exc.DBAPIError:
                        pass  # ended meanwhile
            rp = helpers.new_provider(left)
            for _ in range(4):
                assert _names(right, rp) == ['rp-' + rp]
                _same(left, right, '', '1.39')
    finally:
        engine.dispose()
