"""The commands that call the WSGI application in their own process."""
import re

import pytest

from bench.tests.conftest import rows


def test_explain(bench):
    out = bench('explain', '--flat', '20', '--nested', '2', '--repeats', '1')
    table = {row[0]: row for row in rows(out)}
    assert table['flat 20'][1] == '20 (explain: 20)'
    assert table['nested 2'][1] == '4 (explain: 4)'
    assert table['flat 20'][4].endswith('x')


@pytest.mark.parametrize('source', ['database', 'snapshot'])
def test_answer_memory(bench, source):
    (row,) = [row for row in rows(bench('answer-memory', '--flat', '100',
                                        '--read-source', source))
              if row[0] == '100']
    assert row[1] == source
    assert row[2].endswith(' MB') and row[4].endswith('x')


def test_answer_floor(bench):
    found = {row[1]: row for row in rows(bench(
        'answer-floor', '--flat', '50', '--repeats', '2')) if row[0] == '50'}
    assert set(found) == {'floor', 'database', 'snapshot'}
    assert found['floor'][3] == '1.00'
    assert all(float(row[2]) > 0 for row in found.values())


def _fits(out):
    return re.findall(r'^  (\S+) +fits +(\d+) +on +(\d+) providers$', out,
                      flags=re.M)


def test_capacity(bench):
    out = bench('capacity', '--computes', '40', '--repeats', '1',
                '--sample', '5')
    fits = _fits(out)
    assert len(fits) == 20
    # The cloud's usage is drawn with a fixed seed: the same every run.
    assert dict((name, int(count)) for name, count, _ in fits)[
        'c1-m512-d1'] > 0
    assert 'os-capacity method:' in out and 'stranded' in out


def test_capacity_from_the_snapshot(bench):
    counted = {source: bench('capacity', '--computes', '40', '--repeats',
                             '1', '--capacity-only', '--read-source', source)
               for source in ('database', 'snapshot')}
    assert 'read from the snapshot' in counted['snapshot']
    assert len(_fits(counted['snapshot'])) == 20
    assert _fits(counted['snapshot']) == _fits(counted['database'])


def test_capacity_of_a_new_version_each_call(bench):
    counted = [bench('capacity', '--computes', '40', '--repeats', '2',
                     '--capacity-only', '--read-source', 'snapshot', *more)
               for more in ((), ('--new-version',))]
    assert 'a new version each call' in counted[1]
    assert len(_fits(counted[1])) == 20
    assert _fits(counted[1]) == _fits(counted[0])


def test_capacity_what_if(bench, tmp_path):
    # One cloud for both: its uuids are drawn anew each time one is made.
    cloud = 'sqlite:///%s' % (tmp_path / 'cloud.sqlite')
    counted = {source: bench('capacity', '--computes', '100', '--repeats',
                             '1', '--capacity-only', '--what-if',
                             '--read-source', source, '--database', cloud)
               for source in ('database', 'snapshot')}
    moved, nowhere = map(int, re.search(
        r'^  evacuation: (\d+) moved, (\d+) nowhere, 0 dropped$',
        counted['snapshot'], flags=re.M).groups())
    assert moved + nowhere == 400
    assert re.search(r'^snapshot: [\d.]+ MB per worker', counted['snapshot'],
                     flags=re.M)
    md5 = {source: re.search(r'answer md5 (\w+)', out).group(1)
           for source, out in counted.items()}
    assert md5['snapshot'] == md5['database']


def test_metrics(bench):
    out = bench('metrics', '--providers', '20', '--scrape-providers', '20',
                '--rounds', '2')
    assert 'candidates at 20 providers, 2 rounds' in out
    assert 'scrape at 20 providers' in out


def test_summary(bench):
    out = bench('summary', '--providers', '40', '--rounds', '2')
    assert re.search(r'^sqlite, 40 providers: GET /summary median [\d.]+ ms',
                     out, flags=re.M), out


def test_mix_inprocess(bench, tmp_path):
    bench('mix', 'inprocess', 'cloud.sqlite', '--make', '--computes', '20')
    out = bench('mix', 'inprocess', 'cloud.sqlite', '--repeats', '2')
    labels = [line[:30].strip() for line in out.splitlines()]
    assert labels == [
        'GET /resource_providers (all)', 'tree (in_tree)', 'inventories',
        'traits', 'aggregates', 'usages (project)', 'provider usages',
        'candidates limit=1000']


def test_request_path_layers(bench):
    out = bench('request-path', 'layers', '--calls', '50', '--reads',
                'traits')
    layers = [row[0] for row in rows(out)]
    assert 'Router' in layers and 'NoAuthMiddleware' in layers


def test_wide_trees_check(bench):
    out = bench('wide-trees', '--engines', 'ours', '--check', '--cases',
                'check 1x4x1,check 1x3x2', '--repeats', '1')
    table = {row[0]: row for row in rows(out)}
    assert table['check 1x4x1, 3 groups, none'][1] == '24'
    assert table['check 1x4x1, 5 groups, none'][1] == '0'
    assert table['check 1x3x2, 3 groups, isolate'][1] == '120'
    assert {row[-1] for name, row in table.items()
            if name.startswith('check')} == {'same answer'}


def test_weigh_simulate(bench):
    out = bench('weigh', 'simulate', '--computes', '20', '--boots', '10',
                '--limit', '5')
    orders = {row[0]: row for row in rows(out)}
    assert {'default', 'randomize', 'spread', 'pack'} <= set(orders)


def test_weigh_cost(bench):
    out = bench('weigh', 'cost', '--flat', '20', '--repeats', '1')
    orders = {row[2]: row for row in rows(out) if row[0] == 'sqlite'}
    assert set(orders) == {'default', 'spread', 'pack'}


def test_usage(bench):
    out = bench(status=2)
    for command in ('candidates', 'mix', 'swap', 'wide-trees',
                    'request-path', 'weigh', 'capacity'):
        assert '\n  %s ' % command in out
