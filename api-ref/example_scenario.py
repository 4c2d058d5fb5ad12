"""The story generate_examples.py records, one step per API area.

The steps share one database and build on each other, so they run in
the order ``scenario`` gives.
"""
from example_recording import UUID_RE, named_uuid

COMPUTE = named_uuid('compute')
NUMA0 = named_uuid('numa0')
NUMA1 = named_uuid('numa1')
SHARED = named_uuid('shared-storage')
SCRATCH = named_uuid('scratch')
AGGREGATE = named_uuid('aggregate')
INSTANCE1 = named_uuid('instance-1')
INSTANCE2 = named_uuid('instance-2')
MIGRATION = named_uuid('migration')
CLAIMED1 = named_uuid('claimed-1')
CLAIMED2 = named_uuid('claimed-2')
PROJECT = named_uuid('project').replace('-', '')
USER = named_uuid('user').replace('-', '')
SERVICE = {'x-auth-token': 'nova', 'x-roles': 'service'}
RP = '/resource_providers/'


def named_uuids():
    """The UUIDs named above, for the recorder to keep as they are."""
    return {value for name, value in globals().items()
            if name.isupper() and isinstance(value, str)
            and UUID_RE.fullmatch(value)}


def provider(name, uuid_, parent=None):
    body = {'name': name, 'uuid': uuid_}
    if parent:
        body['parent_provider_uuid'] = parent
    return body


def consumer(allocations, generation=None, consumer_type='INSTANCE'):
    return {'allocations': allocations, 'project_id': PROJECT,
            'user_id': USER, 'consumer_generation': generation,
            'consumer_type': consumer_type}


def scenario(rec):
    """The walk through the API; each call writes one example."""
    for step in (versions, resource_classes, traits, resource_providers,
                 inventories, aggregates, provider_traits,
                 allocation_candidates, allocations, usages, capacity,
                 reshaper, provider_deletion, claims):
        step(rec)


def versions(rec):
    """Versions and microversion negotiation."""
    rec('root-get', 'GET', '/', 200, version=None)
    rec('root-version-not-acceptable', 'GET', '/', 406, version='1.40')


def resource_classes(rec):
    """Resource classes."""
    rec('resource_classes-list', 'GET', '/resource_classes', 200)
    rec('resource_classes-create', 'POST', '/resource_classes', 201,
        body={'name': 'CUSTOM_FPGA'})
    rec('resource_classes-show', 'GET', '/resource_classes/CUSTOM_FPGA', 200)
    rec('resource_classes-update-create', 'PUT',
        '/resource_classes/CUSTOM_GOLD', 201)
    rec('resource_classes-update-exists', 'PUT',
        '/resource_classes/CUSTOM_GOLD', 204)
    rec('resource_classes-create-duplicate', 'POST', '/resource_classes',
        409, body={'name': 'CUSTOM_FPGA'})
    rec('resource_classes-rename-1.6', 'PUT', '/resource_classes/CUSTOM_GOLD',
        200, body={'name': 'CUSTOM_SILVER'}, version='1.6')
    rec('resource_classes-delete', 'DELETE',
        '/resource_classes/CUSTOM_SILVER', 204)
    rec('resource_classes-delete-standard', 'DELETE',
        '/resource_classes/VCPU', 400)


def traits(rec):
    """Traits."""
    rec('traits-create', 'PUT', '/traits/CUSTOM_RAID', 201)
    rec('traits-create-exists', 'PUT', '/traits/CUSTOM_RAID', 204)
    rec('traits-create-bad-name', 'PUT', '/traits/RAID', 400)
    rec('traits-show', 'GET', '/traits/CUSTOM_RAID', 204)
    rec('traits-list-filtered', 'GET',
        '/traits?name=startswith:HW_CPU_X86_AVX', 200)
    rec('traits-list-in', 'GET',
        '/traits?name=in:CUSTOM_RAID,COMPUTE_VOLUME_MULTI_ATTACH', 200)
    rec('traits-create-unused', 'PUT', '/traits/CUSTOM_UNUSED', 201)
    rec('traits-delete', 'DELETE', '/traits/CUSTOM_UNUSED', 204)


def resource_providers(rec):
    """Resource providers: a compute node with two NUMA children and a
    sharing storage provider.
    """
    rec('resource_providers-create', 'POST', '/resource_providers', 200,
        body=provider('compute-1', COMPUTE))
    rec('resource_providers-create-1.19', 'POST', '/resource_providers', 201,
        body=provider('compute-1-numa0', NUMA0, COMPUTE), version='1.19')
    rec('resource_providers-create-child', 'POST', '/resource_providers', 200,
        body=provider('compute-1-numa1', NUMA1, COMPUTE))
    rec('resource_providers-create-duplicate', 'POST', '/resource_providers',
        409, body={'name': 'compute-1'})
    rec('resource_providers-create-bad-body', 'POST', '/resource_providers',
        400, body={'name': 'x', 'colour': 'red'})
    rec('resource_providers-create-shared', 'POST', '/resource_providers',
        200, body=provider('shared-storage', SHARED))
    rec('resource_providers-show', 'GET', RP + COMPUTE, 200)
    rec('resource_providers-show-1.0', 'GET', RP + COMPUTE, 200,
        version='1.0')
    rec('resource_providers-show-unknown', 'GET', RP + SCRATCH, 404)
    rec('resource_providers-update', 'PUT', RP + SHARED, 200,
        body={'name': 'shared-storage-1'})
    rec('resource_providers-list-in-tree', 'GET',
        '/resource_providers?in_tree=' + NUMA1, 200)


def inventories(rec):
    """Inventories."""
    gen = rec.generation
    rec('inventories-put', 'PUT', RP + COMPUTE + '/inventories', 200, body={
        'resource_provider_generation': gen(COMPUTE),
        'inventories': {
            'MEMORY_MB': {'total': 65536, 'reserved': 512, 'min_unit': 256,
                          'max_unit': 65536, 'step_size': 256,
                          'allocation_ratio': 1.5},
            'VCPU': {'total': 32, 'allocation_ratio': 4.0}}})
    rec('inventories-put-stale-generation', 'PUT',
        RP + COMPUTE + '/inventories', 409, body={
            'resource_provider_generation': gen(COMPUTE) - 1,
            'inventories': {'VCPU': {'total': 64}}})
    rec('inventories-list', 'GET', RP + COMPUTE + '/inventories', 200)
    rec('inventories-create', 'POST', RP + SHARED + '/inventories', 201,
        body={'resource_class': 'DISK_GB', 'total': 2048, 'reserved': 100,
              'min_unit': 10, 'max_unit': 1024, 'step_size': 10})
    rec('inventories-show', 'GET', RP + SHARED + '/inventories/DISK_GB', 200)
    rec('inventories-update', 'PUT', RP + SHARED + '/inventories/DISK_GB',
        200, body={'resource_provider_generation': gen(SHARED), 'total': 4096,
                   'max_unit': 2048, 'step_size': 10, 'min_unit': 10})
    rec('inventories-create-fpga', 'POST', RP + NUMA0 + '/inventories', 201,
        body={'resource_class': 'CUSTOM_FPGA', 'total': 2})
    rec('inventories-delete', 'DELETE',
        RP + NUMA0 + '/inventories/CUSTOM_FPGA', 204)
    rec('inventories-put-numa', 'PUT', RP + NUMA0 + '/inventories', 200,
        body={'resource_provider_generation': gen(NUMA0),
              'inventories': {'CUSTOM_FPGA': {'total': 2}}})
    rec('inventories-put-bad-reserved', 'PUT', RP + NUMA1 + '/inventories',
        400, body={'resource_provider_generation': gen(NUMA1),
                   'inventories': {'CUSTOM_FPGA': {'total': 2,
                                                   'reserved': 3}}})


def aggregates(rec):
    """Aggregates (and sharing: the storage shares its disk with the
    compute node's aggregate).
    """
    gen = rec.generation
    rec('aggregates-put', 'PUT', RP + COMPUTE + '/aggregates', 200, body={
        'aggregates': [AGGREGATE], 'resource_provider_generation':
        gen(COMPUTE)})
    rec('aggregates-put-1.1', 'PUT', RP + SHARED + '/aggregates', 200,
        body=[AGGREGATE], version='1.1')
    rec('aggregates-get', 'GET', RP + SHARED + '/aggregates', 200)
    rec('aggregates-get-1.1', 'GET', RP + SHARED + '/aggregates', 200,
        version='1.1')
    rec('aggregates-put-stale-generation', 'PUT', RP + COMPUTE +
        '/aggregates', 409, body={'aggregates': [],
                                  'resource_provider_generation':
                                  gen(COMPUTE) - 1})


def provider_traits(rec):
    """Provider traits, and listing providers by trait and aggregate."""
    gen = rec.generation
    rec('resource_provider_traits-put', 'PUT', RP + SHARED + '/traits', 200,
        body={'traits': ['MISC_SHARES_VIA_AGGREGATE', 'CUSTOM_RAID'],
              'resource_provider_generation': gen(SHARED)})
    rec('resource_provider_traits-put-compute', 'PUT', RP + COMPUTE +
        '/traits', 200, body={'traits': ['HW_CPU_X86_AVX2'],
                              'resource_provider_generation':
                              gen(COMPUTE)})
    rec('resource_provider_traits-get', 'GET', RP + SHARED + '/traits', 200)
    rec('resource_provider_traits-put-unknown', 'PUT', RP + SHARED +
        '/traits', 400, body={'traits': ['CUSTOM_NOPE'],
                              'resource_provider_generation': gen(SHARED)})
    rec('resource_provider_traits-delete', 'DELETE', RP + NUMA1 + '/traits',
        204)
    rec('resource_providers-list-required', 'GET',
        '/resource_providers?required=HW_CPU_X86_AVX2&resources=VCPU:2', 200)
    rec('resource_providers-list-member-of', 'GET',
        '/resource_providers?member_of=in:' + AGGREGATE, 200)


def allocation_candidates(rec):
    """Allocation candidates before anything is allocated."""
    rec('allocation_candidates-get', 'GET',
        '/allocation_candidates?resources=VCPU:2,MEMORY_MB:1024,DISK_GB:20'
        '&required=HW_CPU_X86_AVX2', 200)
    rec('allocation_candidates-get-granular', 'GET',
        '/allocation_candidates?resources_CPU=VCPU:2'
        '&resources_ACCEL=CUSTOM_FPGA:1&group_policy=none'
        '&same_subtree=_CPU,_ACCEL', 200)
    rec('allocation_candidates-get-1.10', 'GET',
        '/allocation_candidates?resources=VCPU:1,MEMORY_MB:512', 200,
        version='1.10')
    rec('allocation_candidates-get-no-groups', 'GET',
        '/allocation_candidates?limit=1', 400)
    rec('allocation_candidates-explain', 'GET',
        '/allocation_candidates/explain?resources=VCPU:1000,MEMORY_MB:1024'
        '&required=HW_CPU_X86_AVX2', 200)


def allocations(rec):
    """Allocations."""
    rec('allocations-put', 'PUT', '/allocations/' + INSTANCE1, 204,
        body=consumer({COMPUTE: {'resources': {'VCPU': 2,
                                               'MEMORY_MB': 1024}},
                       SHARED: {'resources': {'DISK_GB': 20}}}))
    rec('allocations-get', 'GET', '/allocations/' + INSTANCE1, 200)
    rec('allocations-get-1.0', 'GET', '/allocations/' + INSTANCE1, 200,
        version='1.0')
    rec('allocations-put-1.0', 'PUT', '/allocations/' + INSTANCE2, 204,
        version='1.0', body={'allocations': [
            {'resource_provider': {'uuid': COMPUTE},
             'resources': {'VCPU': 1}}]})
    rec('allocations-put-stale-generation', 'PUT', '/allocations/' +
        INSTANCE1, 409, body=consumer({COMPUTE: {'resources': {'VCPU': 4}}},
                                      generation=0))
    rec('allocations-put-over-capacity', 'PUT', '/allocations/' + MIGRATION,
        409, body=consumer({COMPUTE: {'resources': {'VCPU': 1000}}},
                           consumer_type='MIGRATION'))
    rec('allocations-post', 'POST', '/allocations', 204, body={
        INSTANCE2: consumer({COMPUTE: {'resources': {'VCPU': 2,
                                                     'MEMORY_MB': 2048}}},
                            generation=rec.consumer_generation(INSTANCE2)),
        MIGRATION: consumer({COMPUTE: {'resources': {'VCPU': 1}}},
                            consumer_type='MIGRATION')})
    rec('resource_provider_allocations-get', 'GET',
        RP + COMPUTE + '/allocations', 200)
    rec('allocations-delete', 'DELETE', '/allocations/' + MIGRATION, 204)
    rec('allocations-delete-unknown', 'DELETE', '/allocations/' + MIGRATION,
        404)


def usages(rec):
    """Usages."""
    rec('resource_provider_usages-get', 'GET', RP + COMPUTE + '/usages', 200)
    rec('usages-get', 'GET', '/usages?project_id=' + PROJECT, 200)
    rec('usages-get-1.9', 'GET', '/usages?project_id=%s&user_id=%s'
        % (PROJECT, USER), 200, version='1.9')
    rec('usages-get-no-project', 'GET', '/usages', 400)


def capacity(rec):
    """Capacity: how many more of a shape fit, and the space left over."""
    rec('capacity-get', 'GET', '/capacity?resources=VCPU:2,MEMORY_MB:4096,'
        'DISK_GB:20', 200)
    rec('capacity-post', 'POST', '/capacity', 200, body={'shapes': {
        'm1.small': 'resources=VCPU:1,MEMORY_MB:2048,DISK_GB:20',
        'm1.large': {'resources': 'VCPU:4,MEMORY_MB:8192,DISK_GB:80',
                     'member_of': 'in:' + AGGREGATE}}})
    rec('capacity-post-bad-shape', 'POST', '/capacity', 400, body={
        'shapes': {'m1.tiny': 'resources=VCPU:0'}})
    rec('capacity-post-what-if', 'POST', '/capacity', 200, body={
        'shapes': {'m1.small': 'resources=VCPU:1,MEMORY_MB:2048,DISK_GB:20'},
        'without': {'roots': [COMPUTE]},
        'with': [{'like': COMPUTE, 'count': 1}],
        'evacuate': True})


def reshaper(rec):
    """Reshaper: VCPU moves from the compute node to its first NUMA node,
    together with the allocations against it.
    """
    gen = rec.generation
    generations = {uuid_: gen(uuid_) for uuid_ in (COMPUTE, NUMA0)}
    rec('reshaper-post', 'POST', '/reshaper', 204, headers=SERVICE, body={
        'inventories': {
            COMPUTE: {'resource_provider_generation': generations[COMPUTE],
                      'inventories': {'MEMORY_MB': {
                          'total': 65536, 'reserved': 512, 'min_unit': 256,
                          'max_unit': 65536, 'step_size': 256,
                          'allocation_ratio': 1.5}}},
            NUMA0: {'resource_provider_generation': generations[NUMA0],
                    'inventories': {
                        'CUSTOM_FPGA': {'total': 2},
                        'VCPU': {'total': 32, 'allocation_ratio': 4.0}}}},
        'allocations': {
            INSTANCE1: consumer({
                NUMA0: {'resources': {'VCPU': 2}},
                COMPUTE: {'resources': {'MEMORY_MB': 1024}},
                SHARED: {'resources': {'DISK_GB': 20}}},
                generation=rec.consumer_generation(INSTANCE1)),
            INSTANCE2: consumer({
                NUMA0: {'resources': {'VCPU': 2}},
                COMPUTE: {'resources': {'MEMORY_MB': 2048}}},
                generation=rec.consumer_generation(INSTANCE2))}})
    rec('reshaper-post-stale-generation', 'POST', '/reshaper', 409,
        headers=SERVICE, body={
            'inventories': {COMPUTE: {
                'resource_provider_generation': generations[COMPUTE],
                'inventories': {}}},
            'allocations': {}})
    rec('resource_provider_usages-get-after-reshape', 'GET',
        RP + NUMA0 + '/usages', 200)


def provider_deletion(rec):
    """Listing and deleting providers."""
    gen = rec.generation
    rec('resource_providers-list', 'GET', '/resource_providers', 200)
    rec('resource_providers-delete-in-use', 'DELETE', RP + NUMA0, 409)
    rec('resource_providers-delete-parent', 'DELETE', RP + COMPUTE, 409)
    rec('resource_providers-create-scratch', 'POST', '/resource_providers',
        200, body=provider('scratch', SCRATCH))
    rec('inventories-put-scratch', 'PUT', RP + SCRATCH + '/inventories', 200,
        body={'resource_provider_generation': gen(SCRATCH),
              'inventories': {'DISK_GB': {'total': 100}}})
    rec('inventories-delete-all', 'DELETE', RP + SCRATCH + '/inventories',
        204)
    rec('resource_providers-delete', 'DELETE', RP + SCRATCH, 204)
    rec('method-not-allowed', 'PATCH', RP + COMPUTE, 405)


def claims(rec):
    """Claims: a scheduler's choice and write in one call, for a group."""
    owner = {'project_id': PROJECT, 'user_id': USER,
             'consumer_generation': None, 'consumer_type': 'INSTANCE'}
    group = {CLAIMED1: owner, CLAIMED2: owner}
    rec('claims-post-no-fit', 'POST', '/claims', 409, headers=SERVICE,
        body={'shape': 'resources=VCPU:2,MEMORY_MB:1024,DISK_GB:10',
              'consumers': group, 'roots': 'distinct'})
    rec('claims-post', 'POST', '/claims', 200, headers=SERVICE, body={
        'shape': {'resources': 'VCPU:2,MEMORY_MB:1024,DISK_GB:10'},
        'consumers': group, 'roots': 'same', 'alternates': 1})
