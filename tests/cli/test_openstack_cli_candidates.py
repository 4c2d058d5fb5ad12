"""``openstack`` CLI: allocation candidates, this project's ``allocation
candidate explain`` and ``capacity show``.
"""
import re
import uuid

import httpx
import pytest
import yaml

from support import openstack_cli_support as support
from support.openstack_cli_support import fails, new_provider


pytestmark = support.pytestmark
# The server and the ``osc`` runner (openstack_cli_support.py).
server = support.server
osc = support.osc


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


def test_capacity_show(osc, server, candidates_cloud):
    """This project's osc command: the list command's options, the whole
    answer of GET /capacity (the total, the providers, per aggregate and
    the space left over) in every output format."""
    c = candidates_cloud
    args = ('capacity', 'show', '--resource', '%s=2' % c['cores'],
            '--required', c['fast'])
    answer = httpx.get(server.url + '/capacity', params={
        'resources': '%s:2' % c['cores'], 'required': c['fast']}, headers={
        'x-auth-token': 'admin',
        'openstack-api-version': 'placement ' + support.LATEST}).json()
    # "a" takes 8 / 2 instances; the tree's fast child 4 / 2; "b" is not
    # fast.
    assert answer['fits'] == 6
    assert [(provider['uuid'], provider['fits'], provider['limited_by'])
            for provider in answer['providers']] == [
        (c['a'], 4, [c['cores']]), (c['root'], 2, [c['cores']])]
    assert answer['aggregates'] == [{'uuid': c['agg'], 'fits': 4}]

    assert osc(*args, '-f', 'json') == answer
    assert yaml.safe_load(osc(*args, '-f', 'yaml')) == answer
    # One line per field, the total first: what a script reads.
    assert osc(*args, '-f', 'value', '-c', 'fits') == '6\n'
    assert osc(*args, '-f', 'value').splitlines()[0] == '6'
    table = osc(*args)
    rows = dict(re.findall(r'^\| (\w+) +\| (.*?) *\|$', table, re.M))
    assert set(rows) >= set(answer)
    assert rows['fits'] == '6'
    assert rows['aggregates'] == 'uuid=%s, fits=4' % c['agg']
    assert rows['providers'].startswith(
        'uuid=%s, name=%s, fits=4, limited_by=%s' % (
            c['a'], answer['providers'][0]['name'], c['cores']))
    for name, free in answer.items():
        if name.startswith('stranded'):
            assert rows[name] == ', '.join(
                '%s=%s' % item for item in free.items())

    # --limit cuts the providers listed, not the count.
    limited = osc(*args, '--limit', '1', '-f', 'json')
    assert [row['uuid'] for row in limited['providers']] == [c['a']]
    assert limited['fits'] == 6
    err = fails(osc, 'capacity', 'show',
                '--resource', '%s=1' % c['cores'], '--required', 'CUSTOM_NOPE')
    assert 'No such trait(s): CUSTOM_NOPE' in err
    assert 'HTTP 400' in err


def test_capacity_show_what_if(osc, server, candidates_cloud):
    """``--without-root``, ``--without-aggregate``, ``--with`` and
    ``--evacuate`` ask POST /capacity about the changed cloud: the
    shape's answer, and where the consumers moved."""
    c = candidates_cloud
    headers = {'x-auth-token': 'admin',
               'openstack-api-version': 'placement ' + support.LATEST}
    consumer = str(uuid.uuid4())
    response = httpx.put(
        server.url + '/allocations/' + consumer, headers=headers, json={
            'allocations': {c['a']: {'resources': {c['cores']: 2}}},
            'consumer_generation': None, 'project_id': str(uuid.uuid4()),
            'user_id': str(uuid.uuid4()), 'consumer_type': 'INSTANCE'})
    assert response.status_code == 204, response.text
    args = ('capacity', 'show', '--resource', '%s=2' % c['cores'],
            '--without-root', c['a'], '--with', '%s=2' % c['root'],
            '--evacuate', '-f', 'json')
    answer = httpx.post(server.url + '/capacity', headers=headers, json={
        'shapes': {'shape': {'resources': '%s:2' % c['cores']}},
        'without': {'roots': [c['a']]},
        'with': [{'like': c['root'], 'count': 2}],
        'evacuate': True}).json()
    shown = osc(*args)
    assert shown == dict(answer['shapes']['shape'],
                         evacuation=answer['evacuation'])
    # "a" is out: its consumer goes to "b" (4 fit there, then 3), the
    # tree and its two copies take 2 each.
    assert shown['evacuation']['consumers'] == {
        consumer: {'to': c['b'], 'by': 'recorded'}}
    assert shown['fits'] == 3 + 2 * 3
    assert {row['uuid'] for row in shown['providers']} >= {
        c['root'] + '#1', c['root'] + '#2'}
    out = osc('capacity', 'show', '--resource', '%s=2' % c['cores'],
              '--without-aggregate', c['agg'], '-f', 'value', '-c', 'fits')
    assert out == '%d\n' % (4 + 2)
    err = fails(osc, 'capacity', 'show', '--resource', '%s=2' % c['cores'],
                '--evacuate')
    assert 'evacuate needs without' in err
    # N+1: "a"'s consumer would go to "b"; over the aggregate only "a"
    # is played, and a tree without room elsewhere fails.
    for extra, survive in ((), 'each_root'), (
            ('--survive-member-of', c['agg']),
            {'each_root': True, 'member_of': c['agg']}):
        shown = osc('capacity', 'show', '--resource', '%s=2' % c['cores'],
                    '--survive', *extra, '-f', 'json')
        answer = httpx.post(server.url + '/capacity', headers=headers, json={
            'shapes': {'shape': {'resources': '%s:2' % c['cores']}},
            'survive': survive}).json()
        assert shown == dict(answer['shapes']['shape'],
                             survive=answer['survive'])
        assert shown['survive'] == {'failing': []}
