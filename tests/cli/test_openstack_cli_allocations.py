"""``openstack`` CLI: allocations, their conflicts, and usages by provider,
project and consumer type.
"""
import uuid

import pytest

from support import openstack_cli_support as support
from support.openstack_cli_support import by_class, fails, new_provider


pytestmark = support.pytestmark
# The server and the ``osc`` runner (openstack_cli_support.py).
server = support.server
osc = support.osc


@pytest.fixture
def host(osc):
    rp = new_provider(osc)
    osc('resource', 'provider', 'inventory', 'set', rp['uuid'],
        '--resource', 'VCPU=8', '--resource', 'MEMORY_MB=4096',
        '--resource', 'MEMORY_MB:step_size=128', '--resource', 'DISK_GB=100')
    return rp['uuid']


def test_allocations_and_usages(osc, host):
    consumer, project, user = (str(uuid.uuid4()) for _ in range(3))
    # 1.28 sends consumer_generation null for the new consumer.
    rows = osc('resource', 'provider', 'allocation', 'set', consumer,
               '--allocation', 'rp=%s,VCPU=2,MEMORY_MB=512' % host,
               '--project-id', project, '--user-id', user, '-f', 'json',
               version='1.28')
    assert len(rows) == 1
    assert rows[0]['resource_provider'] == host
    assert rows[0]['resources'] == {'VCPU': 2, 'MEMORY_MB': 512}
    assert rows[0]['project_id'] == project
    assert rows[0]['user_id'] == user

    shown = osc('resource', 'provider', 'allocation', 'show', consumer,
                '-f', 'json')
    assert [(r['resource_provider'], r['resources']) for r in shown] == [
        (host, {'VCPU': 2, 'MEMORY_MB': 512})]
    provider = osc('resource', 'provider', 'show', host, '--allocations',
                   '-f', 'json')
    assert list(provider['allocations']) == [consumer]
    assert provider['allocations'][consumer]['resources'] == {
        'VCPU': 2, 'MEMORY_MB': 512}

    usage = by_class(osc('resource', 'provider', 'usage', 'show', host,
                         '-f', 'json'))
    # Every class with inventory is listed, 0 when unused.
    assert {k: v['usage'] for k, v in usage.items()} == {
        'VCPU': 2, 'MEMORY_MB': 512, 'DISK_GB': 0}
    inv = osc('resource', 'provider', 'inventory', 'show', host, 'VCPU',
              '-f', 'json')
    assert inv['used'] == 2

    usage = by_class(osc('resource', 'usage', 'show', project, '-f', 'json',
                         version='1.9'))
    assert {k: v['usage'] for k, v in usage.items()} == {
        'VCPU': 2, 'MEMORY_MB': 512}
    usage = osc('resource', 'usage', 'show', project, '--user-id',
                str(uuid.uuid4()), '-f', 'json', version='1.9')
    assert usage == []

    # unset sends back the GET body without one class (generations inside).
    rows = osc('resource', 'provider', 'allocation', 'unset', consumer,
               '--provider', host, '--resource-class', 'MEMORY_MB',
               '-f', 'json', version='1.28')
    assert [r['resources'] for r in rows] == [{'VCPU': 2}]
    # Removing the last class sends "allocations": {} (1.28).
    osc('resource', 'provider', 'allocation', 'unset', consumer,
        '--provider', host, version='1.28')
    assert osc('resource', 'provider', 'allocation', 'show', consumer,
               '-f', 'json') == []

    osc('resource', 'provider', 'allocation', 'set', consumer,
        '--allocation', 'rp=%s,DISK_GB=10' % host,
        '--project-id', project, '--user-id', user, version='1.12')
    assert osc('resource', 'provider', 'allocation', 'show', consumer,
               '-f', 'json')[0]['resources'] == {'DISK_GB': 10}
    osc('resource', 'provider', 'allocation', 'delete', consumer)
    assert osc('resource', 'provider', 'allocation', 'show', consumer,
               '-f', 'json') == []
    usage = by_class(osc('resource', 'provider', 'usage', 'show', host,
                         '-f', 'json'))
    assert {k: v['usage'] for k, v in usage.items()} == {
        'VCPU': 0, 'MEMORY_MB': 0, 'DISK_GB': 0}


def test_allocation_conflicts(osc, host):
    consumer = str(uuid.uuid4())
    args = ('--project-id', str(uuid.uuid4()), '--user-id', str(uuid.uuid4()),
            '--consumer-type', 'INSTANCE')
    # step_size broken, and a class without inventory: 409 both.
    err = fails(osc, 'resource', 'provider', 'allocation', 'set', consumer,
                '--allocation', 'rp=%s,MEMORY_MB=100' % host, *args)
    assert 'HTTP 409' in err
    err = fails(osc, 'resource', 'provider', 'allocation', 'set', consumer,
                '--allocation', 'rp=%s,VGPU=1' % host, *args)
    assert 'HTTP 409' in err
    err = fails(osc, 'resource', 'provider', 'allocation', 'set', consumer,
                '--allocation', 'rp=%s,VCPU=1000' % host, *args)
    assert 'HTTP 409' in err
    err = fails(osc, 'resource', 'provider', 'allocation', 'set', consumer,
                '--allocation', 'rp=%s,VCPU=0' % host, *args)
    assert err.startswith('JSON does not validate')
    assert osc('resource', 'provider', 'allocation', 'show', consumer,
               '-f', 'json') == []


def test_project_usages_by_consumer_type(osc, host):
    project, user = str(uuid.uuid4()), str(uuid.uuid4())
    for ctype, vcpus in (('INSTANCE', 1), ('MIGRATION', 2)):
        osc('resource', 'provider', 'allocation', 'set', str(uuid.uuid4()),
            '--allocation', 'rp=%s,VCPU=%d' % (host, vcpus),
            '--project-id', project, '--user-id', user,
            '--consumer-type', ctype, version='1.38')
    # From 1.38 the answer is grouped by consumer type; the client shows
    # each group as one row ("resource_class" is then the type).
    rows = osc('resource', 'usage', 'show', project, '-f', 'json',
               version='1.38')
    assert {r['resource_class']: r['usage'] for r in rows} == {
        'INSTANCE': {'VCPU': 1, 'consumer_count': 1},
        'MIGRATION': {'VCPU': 2, 'consumer_count': 1}}
