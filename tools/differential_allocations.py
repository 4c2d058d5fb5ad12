"""Steps of tools/differential.py about consumers: allocations, usages,
the reshaper and policy, and two probes of consumer and provider
generations."""
from differential_common import (C1, C3, EMPTY, INCOMPLETE, MEMBER, NOPE,
                                 PROBE, PROJECT, RP, SERVICE, USER, Step,
                                 alloc_body)


def allocation_writes():
    path = '/allocations/'
    fresh = iter(range(1, 10 ** 6))

    def consumer():
        return 'd1ff0000-0000-4000-8000-0000001%05d' % next(fresh)

    resources = [
        {'VCPU': 2}, {'VCPU': 0}, {'VCPU': -2}, {'VCPU': 1}, {'VCPU': 3},
        {'VCPU': 6}, {'VCPU': 2.0}, {'VCPU': '2'}, {'VCPU': 10 ** 30},
        {'MEMORY_MB': 4096}, {'DISK_GB': 1}, {'CUSTOM_NOPE': 1},
        {'lower': 1}, {}, {'VCPU': 2, 'MEMORY_MB': 4096},
    ]
    for res in resources:
        for version in ('1.0', '1.8', '1.12', '1.28', '1.33', '1.37',
                        'latest'):
            body = alloc_body(res)
            if version == '1.0':
                body = {'allocations': [{'resource_provider': {'uuid': RP},
                                         'resources': res}]}
            yield Step('alloc put %s' % version, 'PUT', path + consumer(),
                       body, version=version)
    odd = [
        {}, {'allocations': {}}, {'allocations': []},
        alloc_body({'VCPU': 2}, rp='abc'), alloc_body({'VCPU': 2}, rp=NOPE),
        alloc_body({'VCPU': 2}, gen=3), alloc_body({'VCPU': 2}, gen='x'),
        alloc_body({'VCPU': 2}, project_id=''), alloc_body({'VCPU': 2},
                                                           user_id=1),
        alloc_body({'VCPU': 2}, consumer_type='bad!'),
        alloc_body({'VCPU': 2}, consumer_type=''),
        alloc_body({'VCPU': 2}, mappings={}),
        alloc_body({'VCPU': 2}, mappings={'a': []}),
        alloc_body({'VCPU': 2}, mappings={'a': ['abc']}),
        alloc_body({'VCPU': 2}, mappings={'a': [NOPE]}),
        alloc_body({'VCPU': 2}, foo=1),
        {'allocations': {RP: {'resources': {'VCPU': 2}, 'generation': 0}},
         'project_id': PROJECT, 'user_id': USER, 'consumer_generation': None,
         'consumer_type': 'INSTANCE'},
        {'allocations': {RP: {}}, 'project_id': PROJECT, 'user_id': USER,
         'consumer_generation': None, 'consumer_type': 'INSTANCE'},
        {'allocations': {RP: {'resources': {'VCPU': 2}}},
         'consumer_generation': None, 'consumer_type': 'INSTANCE'},
    ]
    for body in odd:
        for version in ('1.8', '1.12', '1.28', '1.37', 'latest'):
            yield Step('alloc put odd %s' % version, 'PUT',
                       path + consumer(), body, version=version)
    for version in ('1.0', '1.12', '1.28', 'latest'):
        yield Step('alloc put existing %s' % version, 'PUT', path + C1,
                   alloc_body({'VCPU': 2, 'CUSTOM_FOO': 1}, gen=99),
                   version=version)
        yield Step('alloc put existing null %s' % version, 'PUT', path + C1,
                   alloc_body({'VCPU': 2, 'CUSTOM_FOO': 1}),
                   version=version)
        yield Step('alloc put bad uuid %s' % version, 'PUT', path + 'abc',
                   alloc_body({'VCPU': 2}), version=version)
        yield Step('alloc delete unknown %s' % version, 'DELETE',
                   path + NOPE, version=version)
        yield Step('alloc delete bad %s' % version, 'DELETE', path + 'abc',
                   version=version)
    posts = [
        {}, [], {consumer(): alloc_body({'VCPU': 2})},
        {consumer(): alloc_body({'VCPU': 2}, rp=NOPE)},
        {consumer(): alloc_body({'MEMORY_MB': 4096})},
        {consumer(): alloc_body({'CUSTOM_NOPE': 1})},
        {consumer(): alloc_body({'DISK_GB': 1})},
        {C1: alloc_body({'VCPU': 2}, gen=7)},
        {'abc': alloc_body({'VCPU': 2})},
        {consumer(): {'allocations': {}, 'project_id': PROJECT,
                      'user_id': USER, 'consumer_generation': None,
                      'consumer_type': 'INSTANCE'}},
        {consumer(): {'allocations': {RP: {'resources': {'VCPU': 2}}}}},
        {consumer(): alloc_body({'VCPU': 2}, gen=5)},
    ]
    for body in posts:
        for version in ('1.13', '1.28', '1.33', '1.37', 'latest'):
            yield Step('alloc post %s' % version, 'POST', '/allocations',
                       body, version=version)
    for version in ('1.0', '1.8', '1.12', '1.28', '1.37', '1.38', 'latest'):
        yield Step('alloc get %s' % version, 'GET', path + C1,
                   version=version)
        yield Step('usages %s' % version, 'GET',
                   '/usages?project_id=' + PROJECT, version=version)
        yield Step('usages %s' % version, 'GET',
                   '/usages?project_id=%s&user_id=%s' % (PROJECT, USER),
                   version=version)
        yield Step('usages %s' % version, 'GET',
                   '/usages?project_id=%s&consumer_type=INSTANCE' % PROJECT,
                   version=version)
        yield Step('usages %s' % version, 'GET',
                   '/usages?project_id=%s&consumer_type=all' % PROJECT,
                   version=version)
        yield Step('usages %s' % version, 'GET',
                   '/usages?project_id=%s&consumer_type=unknown' % PROJECT,
                   version=version)
        yield Step('usages %s' % version, 'GET',
                   '/usages?user_id=' + USER, version=version)
        yield Step('usages %s' % version, 'GET', '/usages?project_id=',
                   version=version)
        yield Step('usages %s' % version, 'GET',
                   '/usages?project_id=a&project_id=b', version=version)
        yield Step('rp allocs %s' % version, 'GET',
                   '/resource_providers/%s/allocations' % RP,
                   version=version)


def reshaper():
    rs = '/reshaper'
    bodies = [
        {}, {'inventories': {}}, {'allocations': {}},
        {'inventories': {}, 'allocations': {}},
        {'inventories': {}, 'allocations': {}, 'foo': 1},
        {'inventories': {'abc': {'resource_provider_generation': 0,
                                 'inventories': {}}}, 'allocations': {}},
        {'inventories': {NOPE: {'resource_provider_generation': 0,
                                'inventories': {}}}, 'allocations': {}},
        {'inventories': {EMPTY: {'resource_provider_generation': 99,
                                 'inventories': {}}}, 'allocations': {}},
        {'inventories': {EMPTY: {'inventories': {}}}, 'allocations': {}},
        {'inventories': {RP: {'resource_provider_generation': 4,
                              'inventories': {'MEMORY_MB': {'total': 8}}}},
         'allocations': {}},
        {'inventories': {}, 'allocations': {C1: alloc_body(
            {'VCPU': 2}, gen=99)}},
        {'inventories': {}, 'allocations': {NOPE: alloc_body(
            {'VCPU': 2}, rp=NOPE)}},
        {'inventories': {}, 'allocations': {NOPE: alloc_body(
            {'MEMORY_MB': 4096})}},
        {'inventories': {}, 'allocations': {NOPE: alloc_body(
            {'VCPU': 2}, gen=3)}},
        {'inventories': {}, 'allocations': {'abc': alloc_body(
            {'VCPU': 2})}},
    ]
    for body in bodies:
        for version in ('1.29', '1.30', '1.34', '1.38', 'latest'):
            yield Step('reshape %s' % version, 'POST', rs, body,
                       version=version, headers=SERVICE)
    yield Step('reshape member', 'POST', rs,
               {'inventories': {}, 'allocations': {}}, headers=MEMBER)
    for path in ('/resource_providers', '/resource_classes', '/traits',
                 '/usages?project_id=' + PROJECT,
                 '/allocation_candidates?resources=VCPU:1'):
        yield Step('member read', 'GET', path, headers=MEMBER)
        yield Step('no token', 'GET', path, headers={'x-auth-token': ''})


def _probe_provider(label, inventories):
    """Create PROBE with ``inventories`` (its generation is then 1)."""
    yield Step(label, 'POST', '/resource_providers',
               {'name': 'probe', 'uuid': PROBE})
    yield Step(label, 'PUT', '/resource_providers/%s/inventories' % PROBE,
               {'resource_provider_generation': 0,
                'inventories': inventories})


def owner_reset():
    """A write before 1.8 (no owner in the body) to an existing consumer:
    which owner, and which generation, GET shows afterwards."""
    label = 'owner reset'
    path = '/allocations/' + C3
    yield from _probe_provider(label, {'DISK_GB': {'total': 100}})
    yield Step(label, 'PUT', path, alloc_body({'DISK_GB': 10}, rp=PROBE))
    yield Step(label, 'PUT', path, {'allocations': [
        {'resource_provider': {'uuid': PROBE},
         'resources': {'DISK_GB': 20}}]}, version='1.7')
    for version in ('1.12', '1.28', 'latest'):
        yield Step(label, 'GET', path, version=version)
    yield Step(label, 'GET', '/usages?project_id=' + INCOMPLETE,
               version='1.9')
    yield Step(label, 'PUT', path, alloc_body({'DISK_GB': 30}, rp=PROBE,
                                              gen=2))
    yield Step(label, 'GET', path)
    yield Step(label, 'DELETE', path)
    yield Step(label, 'DELETE', '/resource_providers/' + PROBE)


def reshape_empty_inventories():
    """A reshape that lists a provider with empty inventories: how far
    its generation moves."""
    label = 'reshape empty inventories'
    yield from _probe_provider(label, {'DISK_GB': {'total': 100}})
    for given in (1, 2):
        # The second time the provider has no inventory left.
        yield Step(label, 'POST', '/reshaper', {
            'inventories': {PROBE: {'resource_provider_generation': given,
                                    'inventories': {}}},
            'allocations': {}}, headers=SERVICE)
        yield Step(label, 'GET', '/resource_providers/' + PROBE)
    yield Step(label, 'DELETE', '/resource_providers/' + PROBE)
