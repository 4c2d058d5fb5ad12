"""``openstack`` CLI: version negotiation, providers and trees,
inventories, resource classes, traits and aggregates.
"""
import json
import uuid

from support import openstack_cli_support as support
from support.openstack_cli_support import (by_class, fails, new_provider,
                                           run_cli)


pytestmark = support.pytestmark
# The server and the ``osc`` runner (openstack_cli_support.py).
server = support.server
osc = support.osc


def test_version_negotiation_without_microversion(server):
    # No --os-placement-api-version: the client negotiates from GET /.
    status, out, err = run_cli(
        ['--os-auth-type', 'admin_token', '--os-endpoint', server.url,
         '--os-token', 'admin', 'resource', 'provider', 'list', '-f', 'json'])
    assert status == 0, err
    assert isinstance(json.loads(out), list)


def test_providers_with_parents(osc):
    root = new_provider(osc, version='1.14')
    assert root['generation'] == 0
    assert root['root_provider_uuid'] == root['uuid']
    assert root['parent_provider_uuid'] is None
    child = new_provider(osc, parent=root['uuid'], version='1.14')
    assert child['parent_provider_uuid'] == root['uuid']
    assert child['root_provider_uuid'] == root['uuid']

    tree = osc('resource', 'provider', 'list', '--in-tree', child['uuid'],
               '-f', 'json', version='1.14')
    assert {p['uuid'] for p in tree} == {root['uuid'], child['uuid']}

    renamed = osc('resource', 'provider', 'set', child['uuid'],
                  '--name', 'renamed-' + child['uuid'],
                  '--parent-provider', root['uuid'], '-f', 'json',
                  version='1.14')
    assert renamed['name'] == 'renamed-' + child['uuid']
    assert renamed['generation'] == 0
    shown = osc('resource', 'provider', 'show', child['uuid'], '-f', 'json',
                version='1.14')
    assert shown['name'] == 'renamed-' + child['uuid']
    assert shown['parent_provider_uuid'] == root['uuid']
    listed = osc('resource', 'provider', 'list', '--name',
                 'renamed-' + child['uuid'], '-f', 'json')
    assert [p['uuid'] for p in listed] == [child['uuid']]

    err = fails(osc, 'resource', 'provider', 'delete', root['uuid'])
    assert 'Unable to delete parent resource provider' in err
    assert 'HTTP 409' in err
    osc('resource', 'provider', 'delete', child['uuid'])
    osc('resource', 'provider', 'delete', root['uuid'])
    err = fails(osc, 'resource', 'provider', 'show', root['uuid'])
    assert 'No resource provider with uuid %s found' % root['uuid'] in err
    assert 'HTTP 404' in err


def test_inventories(osc):
    rp = new_provider(osc)
    rows = osc('resource', 'provider', 'inventory', 'set', rp['uuid'],
               '--resource', 'VCPU=8',
               '--resource', 'VCPU:allocation_ratio=16',
               '--resource', 'MEMORY_MB=4096',
               '--resource', 'MEMORY_MB:step_size=128',
               '--resource', 'MEMORY_MB:reserved=512', '-f', 'json')
    inv = by_class(rows)
    assert set(inv) == {'VCPU', 'MEMORY_MB'}
    assert inv['VCPU']['total'] == 8
    assert inv['VCPU']['allocation_ratio'] == 16.0
    assert inv['VCPU']['max_unit'] == 2147483647
    assert inv['MEMORY_MB']['step_size'] == 128
    assert inv['MEMORY_MB']['reserved'] == 512

    # --amend sends the whole current inventory back with the addition.
    rows = osc('resource', 'provider', 'inventory', 'set', rp['uuid'],
               '--amend', '--resource', 'DISK_GB=100',
               '--resource', 'VCPU=12', '-f', 'json')
    inv = by_class(rows)
    assert set(inv) == {'VCPU', 'MEMORY_MB', 'DISK_GB'}
    assert inv['VCPU']['total'] == 12
    assert inv['VCPU']['allocation_ratio'] == 16.0
    assert inv['MEMORY_MB']['reserved'] == 512

    shown = osc('resource', 'provider', 'inventory', 'show', rp['uuid'],
                'MEMORY_MB', '-f', 'json')
    assert shown['total'] == 4096
    assert shown['step_size'] == 128
    assert shown['used'] == 0

    one = osc('resource', 'provider', 'inventory', 'class', 'set', rp['uuid'],
              'DISK_GB', '--total', '200', '--max_unit', '50', '-f', 'json')
    assert one['total'] == 200 and one['max_unit'] == 50

    osc('resource', 'provider', 'inventory', 'delete', rp['uuid'],
        '--resource-class', 'DISK_GB')
    rows = osc('resource', 'provider', 'inventory', 'list', rp['uuid'],
               '-f', 'json')
    assert set(by_class(rows)) == {'VCPU', 'MEMORY_MB'}
    err = fails(osc, 'resource', 'provider', 'inventory', 'show', rp['uuid'],
                'DISK_GB')
    assert 'HTTP 404' in err

    err = fails(osc, 'resource', 'provider', 'inventory', 'set', rp['uuid'],
                '--resource', 'CUSTOM_NOT_THERE=1')
    assert 'HTTP 400' in err
    # The client prints the last line of the detail.
    err = fails(osc, 'resource', 'provider', 'inventory', 'set', rp['uuid'],
                '--resource', 'VCPU=0')
    assert err.startswith('JSON does not validate: 0 is less than the '
                          'minimum of 1')
    assert err.endswith('(HTTP 400)')


def test_inventory_set_by_aggregate(osc):
    agg = str(uuid.uuid4())
    members = [new_provider(osc) for _ in range(2)]
    for rp in members:
        osc('resource', 'provider', 'aggregate', 'set', rp['uuid'],
            '--aggregate', agg, '--generation', str(rp['generation']),
            '-f', 'json')
    rows = osc('resource', 'provider', 'inventory', 'set', agg, '--aggregate',
               '--resource', 'DISK_GB=77', '-f', 'json')
    assert {row['resource_provider'] for row in rows} == {
        rp['uuid'] for rp in members}
    assert all(row['total'] == 77 for row in rows)


def test_resource_classes(osc):
    name = 'CUSTOM_CLI_' + uuid.uuid4().hex[:8].upper()
    assert osc('resource', 'class', 'create', name, version='1.2') is None
    assert osc('resource', 'class', 'show', name, '-f', 'json') == {
        'name': name}
    names = {row['name'] for row in osc('resource', 'class', 'list',
                                        '-f', 'json')}
    assert {name, 'VCPU', 'MEMORY_MB'} <= names
    # 1.7: PUT creates or confirms.
    osc('resource', 'class', 'set', name, version='1.7')
    osc('resource', 'class', 'delete', name)
    err = fails(osc, 'resource', 'class', 'show', name)
    assert 'No such resource class %s' % name in err
    assert 'HTTP 404' in err
    err = fails(osc, 'resource', 'class', 'create', 'NOT_CUSTOM')
    assert 'HTTP 400' in err


def test_traits_and_provider_traits(osc):
    trait = 'CUSTOM_CLI_' + uuid.uuid4().hex[:8].upper()
    osc('trait', 'create', trait, version='1.6')
    assert osc('trait', 'show', trait, '-f', 'json') == {'name': trait}
    listed = osc('trait', 'list', '--name', 'startswith:CUSTOM_CLI_',
                 '-f', 'json')
    assert trait in {row['name'] for row in listed}

    rp = new_provider(osc)
    rows = osc('resource', 'provider', 'trait', 'set', rp['uuid'],
               '--trait', trait, '--trait', 'HW_CPU_X86_AVX', '-f', 'json')
    assert {row['name'] for row in rows} == {trait, 'HW_CPU_X86_AVX'}
    rows = osc('resource', 'provider', 'trait', 'list', rp['uuid'],
               '-f', 'json')
    assert {row['name'] for row in rows} == {trait, 'HW_CPU_X86_AVX'}
    # --associated sends associated=True (capital T).
    associated = osc('trait', 'list', '--associated', '-f', 'json')
    assert trait in {row['name'] for row in associated}

    err = fails(osc, 'trait', 'delete', trait)
    assert 'The trait %s is in use by a resource provider.' % trait in err
    assert 'HTTP 409' in err
    err = fails(osc, 'resource', 'provider', 'trait', 'set', rp['uuid'],
                '--trait', 'CUSTOM_NO_SUCH_TRAIT_X')
    assert 'No such trait CUSTOM_NO_SUCH_TRAIT_X' in err

    osc('resource', 'provider', 'trait', 'delete', rp['uuid'])
    assert osc('resource', 'provider', 'trait', 'list', rp['uuid'],
               '-f', 'json') == []
    osc('trait', 'delete', trait)
    err = fails(osc, 'trait', 'show', trait)
    assert 'HTTP 404' in err


def test_aggregates_with_generations(osc):
    rp = new_provider(osc)
    a, b = str(uuid.uuid4()), str(uuid.uuid4())
    rows = osc('resource', 'provider', 'aggregate', 'set', rp['uuid'],
               '--aggregate', a, '--aggregate', b,
               '--generation', str(rp['generation']), '-f', 'json')
    assert {row['uuid'] for row in rows} == {a, b}
    rows = osc('resource', 'provider', 'aggregate', 'list', rp['uuid'],
               '-f', 'json')
    assert {row['uuid'] for row in rows} == {a, b}
    generation = osc('resource', 'provider', 'show', rp['uuid'],
                     '-f', 'json')['generation']
    assert generation == rp['generation'] + 1

    # A stale generation is refused with the client's retry hint.
    err = fails(osc, 'resource', 'provider', 'aggregate', 'set', rp['uuid'],
                '--aggregate', a, '--generation', str(rp['generation']))
    assert 'Please update the generation and try again.' in err
    assert 'HTTP 409' in err

    # Before 1.19 no generation is sent or needed.
    rows = osc('resource', 'provider', 'aggregate', 'set', rp['uuid'],
               '--aggregate', a, '-f', 'json', version='1.1')
    assert [row['uuid'] for row in rows] == [a]
    listed = osc('resource', 'provider', 'list', '--member-of', a,
                 '-f', 'json', version='1.3')
    assert rp['uuid'] in {p['uuid'] for p in listed}
