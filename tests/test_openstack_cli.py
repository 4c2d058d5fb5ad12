"""The operators' client: the ``openstack`` CLI (python-openstackclient with
osc-placement) against a real server in noauth2 mode.

The CLI is the ``cli`` extra of pyproject.toml (.ci/run installs it); without
it every test here skips and says why.  Commands run in this process through
the same entry point as the ``openstack`` script (a fresh shell each time),
because starting a Python process that imports the client costs seconds per
command; the keystone test runs the real script.  They talk HTTP to the real
server, on SQLite only: what is checked here is the wire format the client
expects, which does not depend on the database.
"""
import contextlib
import importlib.util
import io
import json
import os
import re
import tempfile
import uuid
from unittest import mock

import pytest

import helpers

pytestmark = [
    pytest.mark.skipif(
        importlib.util.find_spec('osc_placement') is None
        or importlib.util.find_spec('openstackclient') is None,
        reason='the openstack CLI is not installed: pip install -e ".[cli]" '
               '(python-openstackclient, osc-placement)'),
    # The client's libraries warn about their own deprecations.
    pytest.mark.filterwarnings('ignore::DeprecationWarning'),
]

LATEST = '1.39'


class CLIError(Exception):
    pass


@pytest.fixture(scope='module')
def server():
    workdir = tempfile.mkdtemp(prefix='placement-cli-')
    helpers.write_config(
        workdir, 'sqlite:///' + os.path.join(workdir, 'placement.sqlite'))
    srv = helpers.Server(workdir)
    yield srv
    srv.stop()


def _forget_clients():
    """Drop the service clients of the previous command.

    The shell keeps each service's client in a descriptor on its
    ClientManager class, made once per process: a second command in the
    same process would reuse the first one's client, endpoint and
    microversion.
    """
    from openstackclient.common import clientmanager
    from osc_lib.clientmanager import ClientCache
    for cls in clientmanager.ClientManager.__mro__:
        for attr in vars(cls).values():
            if isinstance(attr, ClientCache):
                attr._handle = None


def run_cli(argv, env=None):
    """Run ``openstack ARGV``; return (exit status, stdout, stderr)."""
    from openstackclient import shell

    _forget_clients()
    out, err = io.StringIO(), io.StringIO()
    # The client reads OS_* variables; only the given ones may count.
    clean = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    clean.update(env or {})
    with mock.patch.dict(os.environ, clean, clear=True), \
            _keep_logging(), \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = shell.OpenStackShell().run(argv)
        except SystemExit as exc:  # argparse errors
            status = exc.code
    return status, out.getvalue(), err.getvalue()


@contextlib.contextmanager
def _keep_logging():
    """The shell reconfigures the root logger; give pytest's back."""
    import logging
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


@pytest.fixture
def osc(server):
    """``osc(*args, version=...)`` runs one command as the admin and
    returns its parsed ``-f json`` output (its plain output without
    ``-f``, None when it prints nothing); a failing command raises CLIError
    with its stderr."""

    def call(*args, version=LATEST):
        argv = ['--os-auth-type', 'admin_token',
                '--os-endpoint', server.url, '--os-token', 'admin',
                '--os-placement-api-version', version] + list(args)
        status, out, err = run_cli(argv)
        if status != 0:
            raise CLIError(err.strip())
        if not out.strip():
            return None
        return json.loads(out) if '-f' in args else out
    return call


def fails(osc, *args, version=LATEST):
    with pytest.raises(CLIError) as info:
        osc(*args, version=version)
    return str(info.value)


def new_provider(osc, name=None, parent=None, version=LATEST):
    args = ['resource', 'provider', 'create', name or 'rp-' + uuid.uuid4().hex]
    if parent:
        args += ['--parent-provider', parent]
    return osc(*args, '-f', 'json', version=version)


def by_class(rows, key='resource_class'):
    return {row[key]: row for row in rows}


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


@pytest.fixture
def candidates_cloud(osc):
    """Providers offering a class of their own, so that other tests'
    providers cannot show up among the candidates."""
    cores = 'CUSTOM_CLI_CORES_' + uuid.uuid4().hex[:6].upper()
    mem = 'CUSTOM_CLI_MEM_' + uuid.uuid4().hex[:6].upper()
    osc('resource', 'class', 'create', cores)
    osc('resource', 'class', 'create', mem)
    fast = 'CUSTOM_CLI_FAST_' + uuid.uuid4().hex[:6].upper()
    osc('trait', 'create', fast)
    agg = str(uuid.uuid4())
    cloud = {'cores': cores, 'mem': mem, 'fast': fast, 'agg': agg}
    # Two plain hosts: "a" fast and in the aggregate, "b" neither.
    for name in ('a', 'b'):
        rp = new_provider(osc)
        osc('resource', 'provider', 'inventory', 'set', rp['uuid'],
            '--resource', '%s=8' % cores, '--resource', '%s=1024' % mem)
        cloud[name] = rp['uuid']
    osc('resource', 'provider', 'trait', 'set', cloud['a'], '--trait', fast)
    osc('resource', 'provider', 'aggregate', 'set', cloud['a'],
        '--aggregate', agg, '--generation', '2')
    # A tree: memory on the root, cores on a fast child.
    root = new_provider(osc)
    child = new_provider(osc, parent=root['uuid'])
    osc('resource', 'provider', 'inventory', 'set', root['uuid'],
        '--resource', '%s=2048' % mem)
    osc('resource', 'provider', 'inventory', 'set', child['uuid'],
        '--resource', '%s=4' % cores)
    osc('resource', 'provider', 'trait', 'set', child['uuid'],
        '--trait', fast)
    cloud['root'], cloud['child'] = root['uuid'], child['uuid']
    return cloud


def candidate_sets(rows):
    """The providers of each allocation request, by candidate number."""
    sets = {}
    for row in rows:
        sets.setdefault(row['#'], set()).add(row['resource provider'])
    return sorted(sorted(s) for s in sets.values())


def test_allocation_candidates(osc, candidates_cloud):
    c = candidates_cloud
    rows = osc('allocation', 'candidate', 'list',
               '--resource', '%s=2' % c['cores'],
               '--resource', '%s=512' % c['mem'], '-f', 'json')
    assert candidate_sets(rows) == sorted(
        [[c['a']], [c['b']], sorted([c['root'], c['child']])])
    row = next(r for r in rows if r['resource provider'] == c['a'])
    assert row['allocation'] in ('%s=2,%s=512' % (c['cores'], c['mem']),
                                 '%s=512,%s=2' % (c['mem'], c['cores']))
    assert c['fast'] in row['traits']

    rows = osc('allocation', 'candidate', 'list',
               '--resource', '%s=2' % c['cores'], '--required', c['fast'],
               '-f', 'json')
    assert candidate_sets(rows) == sorted([[c['a']], [c['child']]])

    rows = osc('allocation', 'candidate', 'list',
               '--resource', '%s=2' % c['cores'], '--forbidden', c['fast'],
               '-f', 'json')
    assert candidate_sets(rows) == [[c['b']]]

    rows = osc('allocation', 'candidate', 'list',
               '--resource', '%s=2' % c['cores'], '--member-of', c['agg'],
               '-f', 'json')
    assert candidate_sets(rows) == [[c['a']]]

    rows = osc('allocation', 'candidate', 'list',
               '--resource', '%s=2' % c['cores'], '--limit', '1',
               '-f', 'json')
    assert len(candidate_sets(rows)) == 1

    # Granular groups: the fast cores and the memory from different
    # providers of one tree.
    rows = osc('allocation', 'candidate', 'list',
               '--group', '1', '--resource', '%s=1' % c['cores'],
               '--required', c['fast'],
               '--group', '2', '--resource', '%s=1024' % c['mem'],
               '--group-policy', 'isolate', '-f', 'json')
    assert candidate_sets(rows) == [sorted([c['root'], c['child']])]
    rows = osc('allocation', 'candidate', 'list',
               '--group', '1', '--resource', '%s=1' % c['cores'],
               '--required', c['fast'],
               '--group', '2', '--resource', '%s=1024' % c['mem'],
               '--group-policy', 'none', '-f', 'json')
    assert candidate_sets(rows) == sorted(
        [[c['a']], sorted([c['root'], c['child']])])

    err = fails(osc, 'allocation', 'candidate', 'list',
                '--resource', '%s=1' % c['cores'], '--required', 'CUSTOM_NOPE')
    assert 'No such trait(s): CUSTOM_NOPE' in err
    assert 'HTTP 400' in err


def test_allocation_candidate_explain(osc, candidates_cloud):
    """This project's osc command: the list command's options, the
    explanation as a table of steps after the summary."""
    c = candidates_cloud
    args = ('allocation', 'candidate', 'explain',
            '--resource', '%s=6' % c['cores'], '--required', c['fast'])
    rows = osc(*args, '-f', 'json')
    steps = {row['check']: (row['removed'], row['remaining'])
             for row in rows if row['group'] == ''}
    # Only "a" and the child are fast; only "a" has 6 cores free.
    assert steps['required=%s' % c['fast']][1] == 2
    assert steps['resources=%s:6 (capacity)' % c['cores']] == (1, 1)
    assert rows[-1]['group'] == '(trees)'
    assert rows[-1]['remaining'] == 1
    out = osc(*args)
    lines = out.splitlines()
    assert re.match(r'1 of \d+ provider trees can satisfy the request: ',
                    lines[0])
    assert '1 provider lacks capacity for %s (largest free 4, requested ' \
        '6)' % c['cores'] in lines[0]
    assert lines[1] == 'Candidates: 1'
    # The unsuffixed group misses per tree: the child's tree, by its root.
    assert re.match(r"Nearest: rp-\w+ \(%s\) group '': %s: 4 free, 6 "
                    r"requested$" % (c['root'], c['cores']), lines[2])
    assert '| group   | check' in out

    # The list's other options, granular groups included.
    rows = osc('allocation', 'candidate', 'explain',
               '--group', '1', '--resource', '%s=1' % c['cores'],
               '--required', c['fast'], '--member-of', c['agg'],
               '--group', '2', '--resource', '%s=1024' % c['mem'],
               '--forbidden', c['fast'], '--group-policy', 'isolate',
               '--limit', '5', '-f', 'json')
    assert {row['group'] for row in rows} == {'1', '2', '(trees)'}
    assert rows[-1]['remaining'] == 0
    err = fails(osc, 'allocation', 'candidate', 'explain',
                '--resource', '%s=1' % c['cores'], '--required', 'CUSTOM_NOPE')
    assert 'No such trait(s): CUSTOM_NOPE' in err
    assert 'HTTP 400' in err


def test_capacity_show(osc, candidates_cloud):
    """This project's osc command: the list command's options, the root
    providers that can take instances after the total, per aggregate
    and the space left over."""
    c = candidates_cloud
    args = ('capacity', 'show', '--resource', '%s=2' % c['cores'],
            '--required', c['fast'])
    rows = osc(*args, '-f', 'json')
    # "a" takes 8 / 2 instances; the tree's fast child 4 / 2.
    assert [(row['uuid'], row['fits'], row['limited by'])
            for row in rows] == [(c['a'], 4, c['cores']),
                                 (c['root'], 2, c['cores'])]
    lines = osc(*args).splitlines()
    assert lines[:3] == ['Fits: 6', 'Aggregate %s: 4' % c['agg'],
                         # "b" is not fast: its 8 are left.
                         'Stranded: %s=8' % c['cores']]
    rows = osc(*args, '--limit', '1', '-f', 'json')
    assert [row['uuid'] for row in rows] == [c['a']]
    err = fails(osc, 'capacity', 'show',
                '--resource', '%s=1' % c['cores'], '--required', 'CUSTOM_NOPE')
    assert 'No such trait(s): CUSTOM_NOPE' in err
    assert 'HTTP 400' in err
