"""Steps of tools/differential.py that change providers and what hangs
on them: the starting world, providers, inventories, traits, resource
classes and aggregates."""
from differential_common import (AGG, C1, C2, CH, EMPTY, GC, NOPE, RP, RP2,
                                 SCRATCH, Step, alloc_body)


def world():
    yield Step('world', 'PUT', '/resource_classes/CUSTOM_FOO')
    yield Step('world', 'PUT', '/resource_classes/CUSTOM_BAR')
    yield Step('world', 'PUT', '/traits/CUSTOM_T')
    yield Step('world', 'PUT', '/traits/CUSTOM_U')
    for name, uuid, parent in (('rp1', RP, None), ('rp2', RP2, None),
                               ('child', CH, RP), ('grandchild', GC, CH),
                               ('empty', EMPTY, None)):
        body = {'name': name, 'uuid': uuid}
        if parent:
            body['parent_provider_uuid'] = parent
        yield Step('world', 'POST', '/resource_providers', body)
    yield Step('world', 'PUT', '/resource_providers/%s/inventories' % RP, {
        'resource_provider_generation': 0, 'inventories': {
            'VCPU': {'total': 8, 'max_unit': 4, 'step_size': 2,
                     'min_unit': 2},
            'MEMORY_MB': {'total': 1024},
            'CUSTOM_FOO': {'total': 4}}})
    yield Step('world', 'PUT', '/resource_providers/%s/inventories' % CH, {
        'resource_provider_generation': 0, 'inventories': {
            'VCPU': {'total': 4}, 'CUSTOM_BAR': {'total': 2}}})
    yield Step('world', 'PUT', '/resource_providers/%s/inventories' % RP2, {
        'resource_provider_generation': 0, 'inventories': {
            'DISK_GB': {'total': 100}}})
    yield Step('world', 'PUT', '/resource_providers/%s/traits' % RP, {
        'resource_provider_generation': 1, 'traits': ['CUSTOM_T']})
    yield Step('world', 'PUT', '/resource_providers/%s/traits' % RP2, {
        'resource_provider_generation': 1,
        'traits': ['MISC_SHARES_VIA_AGGREGATE']})
    yield Step('world', 'PUT', '/resource_providers/%s/aggregates' % RP, {
        'resource_provider_generation': 2, 'aggregates': [AGG]})
    yield Step('world', 'PUT', '/resource_providers/%s/aggregates' % RP2, {
        'resource_provider_generation': 2, 'aggregates': [AGG]})
    yield Step('world', 'PUT', '/allocations/' + C1,
               alloc_body({'VCPU': 2, 'CUSTOM_FOO': 1}))
    yield Step('world', 'PUT', '/allocations/' + C2,
               alloc_body({'CUSTOM_BAR': 1}, rp=CH))


def provider_writes():
    rp = '/resource_providers/'
    bodies = [
        {}, {'name': 'x'}, {'name': ''}, {'name': 'x' * 200},
        {'name': 'x' * 201}, {'name': 1}, {'name': None}, {'name': 'rp1'},
        {'name': 'x', 'uuid': 'abc'}, {'name': 'x', 'uuid': RP},
        {'name': 'x', 'uuid': 1}, {'name': 'x', 'uuid': None},
        {'name': 'x', 'foo': 1}, {'name': 'x', 'generation': 1},
        {'name': 'x', 'parent_provider_uuid': NOPE},
        {'name': 'x', 'parent_provider_uuid': 'abc'},
        {'name': 'x', 'parent_provider_uuid': None},
        {'name': 'x', 'uuid': NOPE, 'parent_provider_uuid': NOPE},
        {'name': '\u00e9\u4e2d\U0001F600'}, {'name': 'a\x00b'},
        {'name': 'x', 'uuid': RP.upper()},
        {'name': 'x', 'uuid': RP.replace('-', '')},
    ]
    names = iter(range(10 ** 6))
    for body in bodies:
        for version in ('1.0', '1.13', '1.14', '1.19', '1.20', 'latest'):
            if body.get('name') == 'x':
                # A name of its own, so that only the cases meant to
                # clash do.
                body = dict(body, name='x%d' % next(names))
            yield Step('rp create %s' % version, 'POST', rp, body,
                       version=version)
    yield Step('rp cleanup', 'POST', rp, {'name': 'scratch', 'uuid': SCRATCH})
    updates = [
        {}, {'name': 'scratch'}, {'name': 'rp1'}, {'name': ''},
        {'name': 'scratch', 'parent_provider_uuid': SCRATCH},
        {'name': 'scratch', 'parent_provider_uuid': NOPE},
        {'name': 'scratch', 'parent_provider_uuid': 'abc'},
        {'name': 'scratch', 'parent_provider_uuid': None},
        {'name': 'scratch', 'uuid': NOPE}, {'name': 'scratch', 'foo': 1},
        {'name': 'scratch', 'generation': 5},
    ]
    for body in updates:
        for version in ('1.0', '1.13', '1.14', '1.36', 'latest'):
            yield Step('rp update %s' % version, 'PUT', rp + SCRATCH, body,
                       version=version)
    for version in ('1.14', '1.36', '1.37'):
        yield Step('rp reparent %s' % version, 'PUT', rp + CH,
                   {'name': 'child', 'parent_provider_uuid': RP2},
                   version=version)
        yield Step('rp loop %s' % version, 'PUT', rp + RP,
                   {'name': 'rp1', 'parent_provider_uuid': GC},
                   version=version)
        yield Step('rp unparent %s' % version, 'PUT', rp + GC,
                   {'name': 'grandchild', 'parent_provider_uuid': None},
                   version=version)
    yield Step('rp reparent back', 'PUT', rp + CH,
               {'name': 'child', 'parent_provider_uuid': RP})
    yield Step('rp show after', 'GET', rp + CH)
    for path in (rp + RP, rp + CH, rp + SCRATCH, rp + NOPE, rp + 'abc'):
        yield Step('rp delete', 'DELETE', path)
    yield Step('rp list after', 'GET', rp)


def inventory_writes():
    inv = '/resource_providers/%s/inventories' % RP
    inv2 = '/resource_providers/%s/inventories' % EMPTY
    records = [
        {'resource_class': 'DISK_GB', 'total': 8},
        {'resource_class': 'DISK_GB', 'total': 0},
        {'resource_class': 'DISK_GB', 'total': -1},
        {'resource_class': 'DISK_GB', 'total': 2 ** 31},
        {'resource_class': 'DISK_GB', 'total': 10 ** 30},
        {'resource_class': 'DISK_GB', 'total': 8.5},
        {'resource_class': 'DISK_GB', 'total': '8'},
        {'resource_class': 'DISK_GB', 'total': True},
        {'resource_class': 'DISK_GB', 'total': None},
        {'resource_class': 'DISK_GB'},
        {'total': 8},
        {'resource_class': 'CUSTOM_NOPE', 'total': 8},
        {'resource_class': 'disk', 'total': 8},
        {'resource_class': 'DISK_GB', 'total': 8, 'reserved': 9},
        {'resource_class': 'DISK_GB', 'total': 8, 'reserved': 8},
        {'resource_class': 'DISK_GB', 'total': 8, 'min_unit': 9},
        {'resource_class': 'DISK_GB', 'total': 8, 'max_unit': 0},
        {'resource_class': 'DISK_GB', 'total': 8, 'min_unit': 4,
         'max_unit': 2},
        {'resource_class': 'DISK_GB', 'total': 8, 'step_size': 0},
        {'resource_class': 'DISK_GB', 'total': 8, 'allocation_ratio': 0},
        {'resource_class': 'DISK_GB', 'total': 8, 'allocation_ratio': -1},
        {'resource_class': 'DISK_GB', 'total': 8, 'allocation_ratio': '1'},
        {'resource_class': 'DISK_GB', 'total': 8, 'allocation_ratio':
         10 ** 30},
        {'resource_class': 'DISK_GB', 'total': 8, 'foo': 1},
        {'resource_class': 'DISK_GB', 'total': 8,
         'resource_provider_generation': 0},
    ]
    for record in records:
        for version in ('1.0', '1.25', '1.26', 'latest'):
            yield Step('inv create %s' % version, 'POST', inv2, record,
                       version=version)
            yield Step('inv reset', 'DELETE', inv2 + '/DISK_GB')
    yield Step('inv create dup', 'POST', inv, {'resource_class': 'VCPU',
                                               'total': 8})
    yield Step('inv create dup', 'POST', inv, {'resource_class': 'VCPU',
                                               'total': 8}, version='1.0')
    yield Step('inv create unknown rp', 'POST',
               '/resource_providers/%s/inventories' % NOPE,
               {'resource_class': 'VCPU', 'total': 8})
    puts = [
        {}, {'inventories': {}},
        {'resource_provider_generation': 99, 'inventories': {}},
        {'resource_provider_generation': 'x', 'inventories': {}},
        {'resource_provider_generation': 0, 'inventories': []},
        {'resource_provider_generation': 0, 'inventories': {'VCPU': {}}},
        {'resource_provider_generation': 0,
         'inventories': {'VCPU': {'total': 8, 'foo': 1}}},
        {'resource_provider_generation': 0,
         'inventories': {'lower': {'total': 8}}},
        {'resource_provider_generation': 0,
         'inventories': {'CUSTOM_NOPE': {'total': 8}}},
        {'resource_provider_generation': 0,
         'inventories': {'VCPU': {'total': 8, 'reserved': 9}}},
        {'resource_provider_generation': 0,
         'inventories': {'VCPU': {'total': 8, 'min_unit': 9}}},
        {'resource_provider_generation': 0,
         'inventories': {'VCPU': {'total': 8, 'max_unit': 9,
                                  'min_unit': 10}}},
        {'resource_provider_generation': 0, 'inventories': {}, 'foo': 1},
    ]
    for body in puts:
        for version in ('1.0', '1.25', '1.26', 'latest'):
            yield Step('inv replace %s' % version, 'PUT', inv2, body,
                       version=version)
    # In use: these change nothing when they answer as they should.
    generation = 4
    for version in ('1.0', '1.25', 'latest'):
        yield Step('inv replace in use %s' % version, 'PUT', inv, {
            'resource_provider_generation': generation,
            'inventories': {'MEMORY_MB': {'total': 8}}}, version=version)
        yield Step('inv shrink below use %s' % version, 'PUT', inv, {
            'resource_provider_generation': generation,
            'inventories': {'VCPU': {'total': 1, 'min_unit': 1, 'max_unit': 1,
                                     'step_size': 1},
                            'MEMORY_MB': {'total': 1024},
                            'CUSTOM_FOO': {'total': 4}}}, version=version)
        yield Step('inv update below use %s' % version, 'PUT',
                   inv + '/VCPU', {'resource_provider_generation': generation,
                                   'total': 1, 'min_unit': 1, 'max_unit': 1},
                   version=version)
        yield Step('inv update reserved %s' % version, 'PUT',
                   inv + '/VCPU', {'resource_provider_generation': generation,
                                   'total': 8, 'reserved': 8},
                   version=version)
        yield Step('inv delete in use %s' % version, 'DELETE',
                   inv + '/VCPU', version=version)
        yield Step('inv delete all in use %s' % version, 'DELETE', inv,
                   version=version)
    updates = [
        {}, {'total': 8}, {'resource_provider_generation': 99, 'total': 8},
        {'resource_provider_generation': 4},
        {'resource_provider_generation': 4, 'total': 8, 'foo': 1},
        {'resource_provider_generation': 4, 'total': 8,
         'resource_class': 'VCPU'},
        {'resource_provider_generation': 4, 'total': 8,
         'resource_class': 'DISK_GB'},
    ]
    for body in updates:
        for path in (inv + '/VCPU', inv + '/DISK_GB', inv + '/CUSTOM_NOPE',
                     inv + '/lower'):
            yield Step('inv update', 'PUT', path, body)
    for path in (inv + '/DISK_GB', inv + '/CUSTOM_NOPE', inv + '/lower',
                 inv2):
        for version in ('1.0', '1.4', '1.5', 'latest'):
            yield Step('inv delete %s' % version, 'DELETE', path,
                       version=version)


def trait_and_class_writes():
    rpt = '/resource_providers/%s/traits' % EMPTY
    for name in ('CUSTOM_NEW_T', 'BAD', 'CUSTOM_bad', 'CUSTOM_', 'CUSTOM_' +
                 'X' * 255, 'HW_CPU_X86_AVX', 'CUSTOM_%C3%A9', 'custom_x'):
        for version in ('1.5', '1.6', 'latest'):
            yield Step('trait put %s' % version, 'PUT', '/traits/' + name,
                       version=version)
        yield Step('trait delete', 'DELETE', '/traits/' + name)
    for query in ('name=in:CUSTOM_T,CUSTOM_U', 'name=startswith:CUSTOM',
                  'name=foo', 'name=in:', 'name=startswith:',
                  'associated=true', 'associated=false', 'associated=maybe',
                  'associated=',
                  'name=in:CUSTOM_T&associated=true', 'foo=1', 'name='):
        yield Step('traits list', 'GET', '/traits?' + query)
    bodies = [
        {}, {'traits': []}, {'resource_provider_generation': 0},
        {'resource_provider_generation': 0, 'traits': ['CUSTOM_NOPE']},
        {'resource_provider_generation': 0, 'traits': ['lower']},
        {'resource_provider_generation': 0, 'traits': ['CUSTOM_T',
                                                       'CUSTOM_T']},
        {'resource_provider_generation': 0, 'traits': 'CUSTOM_T'},
        {'resource_provider_generation': 99, 'traits': []},
        {'resource_provider_generation': 0, 'traits': [], 'foo': 1},
        {'resource_provider_generation': 0, 'traits': [1]},
        {'resource_provider_generation': 0,
         'traits': ['CUSTOM_NOPE', 'CUSTOM_NOPE2']},
    ]
    for body in bodies:
        for version in ('1.6', 'latest'):
            yield Step('rp traits put %s' % version, 'PUT', rpt, body,
                       version=version)
    yield Step('trait delete in use', 'DELETE', '/traits/CUSTOM_T')
    yield Step('trait delete standard', 'DELETE', '/traits/HW_CPU_X86_AVX')
    classes = [{}, {'name': 'CUSTOM_FOO'}, {'name': 'VCPU'}, {'name': 'bad'},
               {'name': 'CUSTOM_'}, {'name': 'CUSTOM_' + 'X' * 250},
               {'name': 'CUSTOM_NEW', 'foo': 1}, {'name': 1},
               {'name': 'CUSTOM_\u00e9'}]
    for body in classes:
        for version in ('1.1', '1.2', '1.6', '1.7', 'latest'):
            yield Step('rc create %s' % version, 'POST', '/resource_classes',
                       body, version=version)
            yield Step('rc reset', 'DELETE', '/resource_classes/CUSTOM_NEW')
    for name in ('CUSTOM_NEW', 'VCPU', 'bad', 'CUSTOM_FOO', 'CUSTOM_'):
        for version in ('1.2', '1.6', '1.7', 'latest'):
            for body in (None, {'name': 'CUSTOM_BAR'}, {'name': 'CUSTOM_NEW2'},
                         {'name': 'bad'}, {}):
                yield Step('rc put %s' % version, 'PUT',
                           '/resource_classes/' + name, body, version=version)
            yield Step('rc reset', 'DELETE', '/resource_classes/CUSTOM_NEW')
            yield Step('rc reset', 'DELETE', '/resource_classes/CUSTOM_NEW2')
    for name in ('CUSTOM_FOO', 'VCPU', 'CUSTOM_NOPE', 'bad'):
        yield Step('rc delete', 'DELETE', '/resource_classes/' + name)


def aggregate_writes():
    rpa = '/resource_providers/%s/aggregates' % EMPTY
    bodies = [
        [], [AGG], ['abc'], [AGG, AGG], {}, {'aggregates': []},
        {'resource_provider_generation': 0},
        {'resource_provider_generation': 0, 'aggregates': ['abc']},
        {'resource_provider_generation': 0, 'aggregates': [AGG, AGG]},
        {'resource_provider_generation': 99, 'aggregates': []},
        {'resource_provider_generation': 0, 'aggregates': [], 'foo': 1},
        {'resource_provider_generation': 0, 'aggregates': [1]},
        {'resource_provider_generation': 0, 'aggregates': AGG},
        {'resource_provider_generation': None, 'aggregates': []},
    ]
    for body in bodies:
        for version in ('1.1', '1.18', '1.19', 'latest'):
            yield Step('agg put %s' % version, 'PUT', rpa, body,
                       version=version)
