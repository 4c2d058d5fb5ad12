"""``openstack allocation claim``: POST /claims from the CLI."""
import uuid

from support import openstack_cli_support as support
from support.openstack_cli_support import fails, new_provider

pytestmark = support.pytestmark
# The server and the ``osc`` runner (openstack_cli_support.py).
server = support.server
osc = support.osc

PROJECT = str(uuid.uuid4())
USER = str(uuid.uuid4())


def test_claim_a_group_in_distinct_trees(osc):
    cores = 'CUSTOM_CLI_CLAIM_' + uuid.uuid4().hex[:6].upper()
    osc('resource', 'class', 'create', cores)
    hosts = []
    for _ in range(3):
        rp = new_provider(osc)
        osc('resource', 'provider', 'inventory', 'set', rp['uuid'],
            '--resource', '%s=2' % cores)
        hosts.append(rp['uuid'])
    group = [str(uuid.uuid4()) for _ in range(2)]
    args = ['allocation', 'claim', '--resource', '%s=2' % cores,
            '--project', PROJECT, '--user', USER, '--roots', 'distinct']
    for consumer in group:
        args += ['--consumer', consumer]
    rows = osc(*args, '--alternates', '1', '-f', 'json')
    claimed = [row for row in rows if row['kind'] == 'claimed']
    assert sorted(row['consumer'] for row in claimed) == sorted(group)
    roots = {row['root provider'] for row in claimed}
    assert len(roots) == 2 and roots <= set(hosts)
    (left,) = set(hosts) - roots
    for row in claimed:
        assert row['allocation'] == [{row['root provider']: '%s=2' % cores}]
    alternates = [row for row in rows if row['kind'] == 'alternate']
    assert [row['allocation'] for row in alternates] == [
        [{left: '%s=2' % cores}]] * 2
    shown = osc('resource', 'provider', 'allocation', 'show', group[0],
                '-f', 'json')
    assert [row['resource_provider'] for row in shown] == [
        next(row['root provider'] for row in claimed
             if row['consumer'] == group[0])]

    # One host is left: a distinct pair no longer fits, and nothing of it
    # is written.
    again = [str(uuid.uuid4()) for _ in range(2)]
    err = fails(osc, 'allocation', 'claim', '--resource', '%s=2' % cores,
                '--project', PROJECT, '--user', USER, '--roots', 'distinct',
                '--consumer', again[0], '--consumer', again[1])
    assert 'HTTP 409' in err
    assert '1 of 3 resource providers can satisfy the request' in err
    assert fails(osc, 'allocation', 'claim', '--resource', '%s=1' % cores,
                 '--project', PROJECT, '--user', USER,
                 '--consumer', again[0], version='1.27')


def test_claim_before_consumer_types(osc):
    cores = 'CUSTOM_CLI_OLD_' + uuid.uuid4().hex[:6].upper()
    osc('resource', 'class', 'create', cores)
    rp = new_provider(osc)
    osc('resource', 'provider', 'inventory', 'set', rp['uuid'],
        '--resource', '%s=2' % cores)
    consumer = str(uuid.uuid4())
    rows = osc('allocation', 'claim', '--resource', '%s=1' % cores,
               '--project', PROJECT, '--user', USER, '--consumer', consumer,
               '-f', 'json', version='1.28')
    assert rows == [{'consumer': consumer, 'kind': 'claimed',
                     'root provider': rp['uuid'],
                     'allocation': [{rp['uuid']: '%s=1' % cores}]}]
