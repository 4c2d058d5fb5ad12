"""The flat and nested clouds, their queries, and the loader that
writes them through the REST API."""
import concurrent.futures
import time
import uuid

from bench.common import web

FLAT_INVENTORY = {
    'VCPU': {'total': 32},
    'MEMORY_MB': {'total': 8192},
    'DISK_GB': {'total': 2000},
}
FLAT_TRAIT = 'HW_CPU_X86_AVX2'
FLAT_QUERY = ('resources=VCPU:1,DISK_GB:10,MEMORY_MB:256'
              '&member_of={aggregate}&required=' + FLAT_TRAIT)

NESTED_QUERY = ('resources=DISK_GB:10&required=COMPUTE_VOLUME_MULTI_ATTACH'
                '&resources_COMPUTE=VCPU:1,MEMORY_MB:256'
                '&required_COMPUTE=CUSTOM_FOO'
                '&resources_FPGA=FPGA:1&group_policy=none'
                '&same_subtree=_COMPUTE,_FPGA')
# One nested tree: (key, parent key, inventories, traits).
NESTED_TREE = (
    ('compute', None, {'DISK_GB': {'total': 2000}},
     ['COMPUTE_VOLUME_MULTI_ATTACH']),
    ('numa0', 'compute',
     {'VCPU': {'total': 16}, 'MEMORY_MB': {'total': 4096}}, ['CUSTOM_FOO']),
    ('numa1', 'compute',
     {'VCPU': {'total': 16}, 'MEMORY_MB': {'total': 4096}}, ['CUSTOM_FOO']),
    ('fpga0', 'numa0', {'FPGA': {'total': 1}}, []),
    ('fpga1', 'numa1', {'FPGA': {'total': 1}}, []),
    ('pgpu0', 'numa0', {'VGPU': {'total': 8}}, []),
    ('pgpu1', 'numa1', {'VGPU': {'total': 8}}, []),
)
CUSTOM_TRAITS = ('CUSTOM_FOO',)

VARIANTS = (('no limit', None), ('limit=1000', 1000), ('limit=10', 10))


def create_provider(clients, name, parent=None):
    rp_uuid = str(uuid.uuid4())
    body = {'name': name, 'uuid': rp_uuid}
    if parent:
        body['parent_provider_uuid'] = parent
    try:
        web.request(clients, 'POST', '/resource_providers',
                    (200, 201), json=body)
    except web.BenchError:
        # A retried POST whose first attempt did commit (the answer was
        # lost) conflicts on the name: the provider is there all the same.
        if clients.get().get('/resource_providers/' + rp_uuid).status_code \
                != 200:
            raise
    # A new provider starts at generation 0.
    return rp_uuid, 0


def put_generational(clients, path, body):
    """PUT a body carrying resource_provider_generation; return the new one.

    On a generation conflict (which only a misbehaving server produces
    here, the loader being the only writer) re-read it and try again.
    """
    for _ in range(web.TRANSIENT_RETRIES):
        resp = web.request(clients, 'PUT', path, (200, 409),
                           json=body)
        if resp.status_code == 200:
            return resp.json()['resource_provider_generation']
        rp = web.request(clients, 'GET', path.rsplit('/', 1)[0],
                         (200,)).json()
        body = dict(body, resource_provider_generation=rp['generation'])
    raise web.BenchError('PUT %s kept conflicting' % path)


def setup_provider(clients, name, inventories, traits, aggregates=(),
                   parent=None):
    rp_uuid, gen = create_provider(clients, name, parent)
    base = '/resource_providers/' + rp_uuid
    if inventories:
        gen = put_generational(clients, base + '/inventories', {
            'resource_provider_generation': gen,
            'inventories': inventories})
    if traits:
        gen = put_generational(clients, base + '/traits', {
            'resource_provider_generation': gen, 'traits': list(traits)})
    if aggregates:
        put_generational(clients, base + '/aggregates', {
            'resource_provider_generation': gen,
            'aggregates': list(aggregates)})
    return rp_uuid


class FlatDataSet:
    """N compute nodes in one aggregate, like upstream's perfload job."""

    kind = 'flat'

    def __init__(self, count):
        self.count = count
        self.aggregate = str(uuid.uuid4())
        self.providers_per_unit = 1

    @property
    def label(self):
        return 'flat %d' % self.count

    def prepare(self, clients):
        pass

    def load_unit(self, clients, index):
        setup_provider(clients, 'cn-%06d' % index, FLAT_INVENTORY,
                       [FLAT_TRAIT], [self.aggregate])

    def query(self):
        return FLAT_QUERY.format(aggregate=self.aggregate)


class NestedDataSet:
    """N trees of 7 providers: compute > 2 NUMA > FPGA + PGPU each."""

    kind = 'nested'

    def __init__(self, count):
        self.count = count
        self.providers_per_unit = len(NESTED_TREE)

    @property
    def label(self):
        return 'nested %d' % self.count

    def prepare(self, clients):
        for trait in CUSTOM_TRAITS:
            web.request(clients, 'PUT', '/traits/' + trait, (201, 204))

    def load_unit(self, clients, index):
        made = {}
        for key, parent, inventories, traits in NESTED_TREE:
            made[key] = setup_provider(
                clients, 'tree-%06d-%s' % (index, key), inventories, traits,
                parent=made.get(parent))

    def query(self):
        return NESTED_QUERY


def load(clients, dataset, threads):
    dataset.prepare(clients)
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        futures = [pool.submit(dataset.load_unit, clients, i)
                   for i in range(dataset.count)]
        for future in concurrent.futures.as_completed(futures):
            future.result()
    elapsed = time.monotonic() - started
    providers = dataset.count * dataset.providers_per_unit
    return {'providers': providers, 'seconds': elapsed,
            'providers_per_s': providers / elapsed,
            'retried_errors': clients.retries}
