"""Random clouds written through the API to the servers of the reads
from memory tests (tests/memory/conftest.py), and random writes to them:
compute roots with NUMA-like children and PF-like grandchildren,
sharing providers, traits and aggregates at every level, awkward ratios
and units, and consumers (of type INSTANCE or MIGRATION), some filling
providers nearly full; the writes change all of these, move consumers,
change their types (microversion 1.38) and delete them."""
import uuid

from support import helpers

CLASSES = ['VCPU', 'MEMORY_MB', 'DISK_GB', 'CUSTOM_VF', 'SRIOV_NET_VF']
VF_CLASSES = ['CUSTOM_VF', 'SRIOV_NET_VF']
ROOT_TRAITS = ['HW_CPU_X86_AVX', 'HW_CPU_X86_SSE', 'CUSTOM_FAST',
               'COMPUTE_STATUS_DISABLED']
CHILD_TRAITS = ['HW_NUMA_ROOT', 'CUSTOM_FAST', 'CUSTOM_PHYSNET_A',
                'CUSTOM_PHYSNET_B']
TRAITS = sorted(set(ROOT_TRAITS + CHILD_TRAITS))
CUSTOM_NAMES = {'resource_classes': ['CUSTOM_VF'],
                'traits': ['CUSTOM_FAST', 'CUSTOM_PHYSNET_A',
                           'CUSTOM_PHYSNET_B']}
RATIOS = [1.0, 1.0, 0.7, 1.1, 1.5, 16.0]
AGGREGATES = [str(uuid.UUID(int=n)) for n in (11, 12, 13)]
# Per class: (lowest, highest total), step sizes, minimum units, and the
# amounts a request asks for.
SHAPES = {
    'VCPU': ((4, 16), [1, 1, 1, 2], [1, 1, 1, 2], [1, 2, 3, 4]),
    'MEMORY_MB': ((2048, 8192), [1, 1, 256, 512], [1, 1, 256],
                  [256, 512, 1000, 2048]),
    'DISK_GB': ((100, 1000), [1, 1, 10], [1, 1, 10], [10, 15, 100, 250]),
    'CUSTOM_VF': ((2, 8), [1], [1], [1, 2]),
    'SRIOV_NET_VF': ((2, 8), [1, 2], [1], [1, 2, 3]),
}
# Classes by kind of provider (a root without children holds a child's).
HOLDS = {'root': ['DISK_GB'], 'numa': ['VCPU', 'MEMORY_MB'],
         'pf': VF_CLASSES, 'sharing': ['DISK_GB']}


class Cloud:
    """What the writes know of the cloud: providers by kind, their
    parents, consumers."""

    def __init__(self, rng):
        self.rng = rng
        self.kinds = {}
        self.parents = {}
        self.consumers = []

    def of(self, *kinds):
        return [rp for rp, kind in self.kinds.items() if kind in kinds]

    def uuid(self):
        """A uuid drawn from the seed, so that a seed is one sequence."""
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def pick(self, *kinds):
        found = self.of(*kinds)
        return self.rng.choice(found) if found else None


def _generation(client, rp):
    response = client.get('/resource_providers/' + rp)
    return response.json()['generation'] \
        if response.status_code == 200 else 0


def _record(rng, rc):
    (low, high), steps, minimums, _ = SHAPES[rc]
    total = rng.randint(low, high)
    min_unit = rng.choice(minimums)
    return {'total': total, 'reserved': rng.choice([0, 0, total // 8]),
            'min_unit': min_unit, 'max_unit': rng.randint(min_unit, total),
            'step_size': rng.choice(steps),
            'allocation_ratio': rng.choice(RATIOS)}


def _put(client, rp, what, key, value):
    """PUT a provider's ``what`` (inventories, traits, aggregates)."""
    return client.put('/resource_providers/%s/%s' % (rp, what), json={
        'resource_provider_generation': _generation(client, rp),
        key: value})


def _inventories(client, cloud, rp=None):
    rp = rp or cloud.pick('root', 'numa', 'pf', 'sharing')
    kind = cloud.kinds[rp]
    classes = HOLDS[kind]
    if kind == 'root' and rp not in cloud.parents.values():
        classes = classes + HOLDS['numa']
    if kind == 'pf':
        classes = [cloud.rng.choice(VF_CLASSES)]
    _put(client, rp, 'inventories', 'inventories',
         {rc: _record(cloud.rng, rc) for rc in classes
          if kind != 'root' or cloud.rng.random() < 0.8})


def _traits(client, cloud, rp=None):
    rp = rp or cloud.pick('root', 'numa', 'pf', 'sharing')
    kind = cloud.kinds[rp]
    names = ROOT_TRAITS if kind == 'root' else CHILD_TRAITS
    traits = cloud.rng.sample(names, cloud.rng.randint(0, 2))
    if kind == 'sharing':
        traits = ['MISC_SHARES_VIA_AGGREGATE']
    _put(client, rp, 'traits', 'traits', traits)


def _aggregates(client, cloud, rp=None):
    rp = rp or cloud.pick('root', 'numa', 'sharing')
    aggregates = cloud.rng.sample(AGGREGATES, cloud.rng.randint(0, 2))
    if cloud.kinds[rp] == 'sharing':
        aggregates = [cloud.rng.choice(AGGREGATES[:2])]
    _put(client, rp, 'aggregates', 'aggregates', aggregates)


def _provider(client, cloud, kind, parent=None):
    rp = cloud.uuid()
    body = {'name': '%s-%s' % (kind, rp[:8]), 'uuid': rp}
    if parent:
        body['parent_provider_uuid'] = parent
    assert client.post('/resource_providers', json=body).status_code == 200
    cloud.kinds[rp] = kind
    cloud.parents[rp] = parent
    return rp


def _amounts(client, rp, rng):
    """Amounts a consumer may take of ``rp``: mostly small, sometimes
    all that is left but a unit or two."""
    inventories = client.get(
        '/resource_providers/%s/inventories' % rp).json()['inventories']
    usages = client.get('/resource_providers/%s/usages' % rp).json()['usages']
    amounts = {}
    for rc, inv in inventories.items():
        free = int((inv['total'] - inv['reserved']) * inv['allocation_ratio']
                   ) - usages.get(rc, 0)
        wanted = (min(free, inv['max_unit']) - rng.randint(0, 2)
                  if rng.random() < 0.25 else rng.choice(SHAPES[rc][3]))
        wanted -= wanted % inv['step_size']
        if wanted >= inv['min_unit'] and rng.random() < 0.7:
            amounts[rc] = wanted
    return amounts


# Consumer types, a consumer moving off a host (MIGRATION) now and then.
TYPES = ['INSTANCE', 'INSTANCE', 'INSTANCE', 'MIGRATION']


def _allocations(client, cloud):
    """Random allocations {rp: {rc: amount}} on one or two providers (may
    be empty)."""
    allocations = {}
    picked = [cloud.pick('root', 'numa', 'pf', 'sharing') for _ in '12']
    for rp in [rp for rp in dict.fromkeys(picked) if rp]:
        amounts = _amounts(client, rp, cloud.rng)
        if amounts:
            allocations[rp] = amounts
    return allocations


def _allocate(client, cloud):
    allocations = _allocations(client, cloud)
    if not allocations:
        return
    consumer = cloud.uuid()
    if client.put('/allocations/' + consumer, json=helpers.body(
            allocations, consumer_type=cloud.rng.choice(TYPES))
            ).status_code == 204:
        cloud.consumers.append(consumer)


def _held(client, consumer):
    """(allocations {rp: {rc: amount}}, generation) of ``consumer``."""
    found = client.get('/allocations/' + consumer,
                       headers=helpers.version('1.38')).json()
    return ({rp: held['resources']
             for rp, held in found['allocations'].items()},
            found.get('consumer_generation'))


def _move(client, cloud):
    """A consumer's allocations replaced by others (a migration done)."""
    if not cloud.consumers:
        return
    consumer = cloud.rng.choice(cloud.consumers)
    allocations = _allocations(client, cloud)
    if allocations:
        _, generation = _held(client, consumer)
        helpers.put(client, consumer, allocations,
                    consumer_generation=generation,
                    consumer_type=cloud.rng.choice(TYPES))


def _retype(client, cloud):
    """A consumer's type changed and nothing else (1.38), by PUT or
    POST /allocations."""
    if not cloud.consumers:
        return
    consumer = cloud.rng.choice(cloud.consumers)
    allocations, generation = _held(client, consumer)
    body = helpers.body(allocations, consumer_generation=generation,
                        consumer_type=cloud.rng.choice(['INSTANCE',
                                                        'MIGRATION']))
    if cloud.rng.random() < 0.5:
        response = client.put('/allocations/' + consumer, json=body,
                              headers=helpers.version('1.38'))
    else:
        response = client.post('/allocations', json={consumer: body},
                               headers=helpers.version('1.38'))
    assert response.status_code == 204, response.text


def _release(client, cloud):
    if cloud.consumers:
        client.delete('/allocations/' + cloud.consumers.pop(
            cloud.rng.randrange(len(cloud.consumers))))


def _reparent(client, cloud):
    """A PF moved to another NUMA node, or a NUMA node to another root."""
    kind = cloud.rng.choice(['pf', 'numa'])
    rp, parent = cloud.pick(kind), cloud.pick(
        'numa' if kind == 'pf' else 'root')
    if rp and parent and client.put('/resource_providers/' + rp, json={
            'name': '%s-%s' % (kind, rp[:8]),
            'parent_provider_uuid': parent}).status_code == 200:
        cloud.parents[rp] = parent


def _delete(client, cloud):
    rp = cloud.pick('pf', 'numa', 'sharing')
    if rp and client.delete('/resource_providers/' + rp).status_code == 204:
        del cloud.kinds[rp], cloud.parents[rp]


STEPS = [(_inventories, 4), (_allocate, 4), (_release, 2), (_move, 2),
         (_retype, 2), (_traits, 2), (_aggregates, 2), (_reparent, 1),
         (_delete, 1)]


def build(clients, cloud):
    """Roots with 0-2 NUMA children of 0-2 PFs each, 1-2 sharing
    providers, then a few consumers."""
    rng = cloud.rng
    client = clients[0]
    for what, names in CUSTOM_NAMES.items():
        for name in names:
            client.put('/%s/%s' % (what, name))
    for _ in range(rng.randint(3, 4)):
        root = _provider(rng.choice(clients), cloud, 'root')
        for _ in range(rng.randint(0, 2)):
            numa = _provider(rng.choice(clients), cloud, 'numa', root)
            for _ in range(rng.randint(0, 2)):
                _provider(rng.choice(clients), cloud, 'pf', numa)
    for _ in range(rng.randint(1, 2)):
        _provider(rng.choice(clients), cloud, 'sharing')
    for rp in list(cloud.kinds):
        for write in (_inventories, _traits, _aggregates):
            if write is not _aggregates or cloud.kinds[rp] != 'pf':
                write(rng.choice(clients), cloud, rp)
    for _ in range(rng.randint(3, 6)):
        _allocate(rng.choice(clients), cloud)


def tear_down(client, cloud):
    """The seed's consumers and providers gone, so seeds do not add up."""
    for consumer in cloud.consumers:
        client.delete('/allocations/' + consumer)
    left = list(cloud.kinds)
    while left:
        gone = [rp for rp in left if client.delete(
            '/resource_providers/' + rp).status_code in (204, 404)]
        assert gone, left
        left = [rp for rp in left if rp not in gone]
