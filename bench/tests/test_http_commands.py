"""The commands that start servers and talk to them over HTTP."""
import json
import os

import pytest

from bench.tests.conftest import rows

# The mix's schedule, busy enough for every operation in a few seconds.
MIX = ['--computes', '40', '--warmup', '1', '--drain', '5', '--refresh',
       '8', '--creates', '3', '--moves', '0.5', '--deletes', '2']
MIX_OPERATIONS = {'tree', 'inventories', 'traits', 'aggregates', 'sharing',
                  'usages', 'candidates', 'claim', 'move', 'delete'}


# candidates, mix http and provider-list run on SQLite only: the code
# that differs by database server (serving.Database, the server's CPU
# meter) is theirs too, and request-path, bulk and candidates-by-source
# run it on each server.

def test_candidates(bench, tmp_path):
    bench('candidates', '--flat', '10', '--nested', '2', '--repeats', '2',
          '--duration', '0.5', '--claims', '4', '--json', 'out.json')
    results = json.loads((tmp_path / 'out.json').read_text())['results']
    flat, nested = results['flat 10']['ours'], results['nested 2']['ours']
    assert flat['load']['providers'] == 10
    assert nested['load']['providers'] == 14
    for name in ('no limit', 'limit=1000', 'explain'):
        assert flat['latency ' + name]['candidates'] == 10
        assert nested['latency ' + name]['candidates'] == 4
    assert flat['latency limit=10']['candidates'] == 10
    for result in (flat, nested):
        for name in ('no limit', 'limit=1000', 'limit=10'):
            throughput = result['throughput ' + name]
            assert throughput['requests'] > 0
            # At least the run's --duration (minus the threads' start).
            assert throughput['seconds'] > 0.4
            assert throughput['server_cpu_ms'] > 0
            # SQLite's work is inside the placement server.
            assert throughput['db_cpu_ms'] == 0
        # Two trees of two FPGAs hold four claims.
        assert result['claims']['claims'] == 4
        assert result['claims']['failures'] == 0
        assert result['claims']['overcommitted'] == []
        assert result['claims']['usage_matches'] is True


def test_candidates_report_of_saved_runs(bench, tmp_path):
    bench('candidates', '--flat', '5', '--repeats', '1', '--duration',
          '0.2', '--claims', '2', '--throughput-only', '--json', 'a.json')
    table = bench('candidates', '--report', 'a.json', '--markdown')
    names = [row[0] for row in rows(table)]
    assert 'load providers/s' in names
    assert 'no limit database CPU ms/req (conc.)' in names


@pytest.mark.parametrize('source', ['database', 'snapshot'])
def test_mix_http(bench, tmp_path, source):
    out = bench('mix', 'http', '--duration', '3', '--json', 'out.json',
                '--read-source', source, *MIX)
    table = {row.split()[0]: row.split()[1:] for row in out.splitlines()
             if row.split() and row.split()[0] in MIX_OPERATIONS | {'all'}}
    assert set(table) == MIX_OPERATIONS | {'all'}
    # rate, p50, p95, p99, errors (409s may happen).
    assert float(table['all'][0]) > 0
    assert table['all'][-1] == '0', out
    assert 'offered' in out and 'database server CPU' in out
    assert ', %s, ' % source in out
    (run,) = [json.loads(line) for line
              in (tmp_path / 'out.json').read_text().splitlines()]
    schedule = run['result']['_schedule']
    assert schedule['wall_s'] == pytest.approx(3, rel=0.1)
    assert schedule['server_cpu_ms_per_request'] > 0
    assert schedule['db_cpu_s'] == schedule['db_cpu_ms_per_request'] == 0


def test_mix_long(bench):
    out = bench('mix', 'long', '--minutes', '2', '--settle', '1',
                '--minute', '2', *MIX, status=None)
    minutes = [row for row in rows(out) if row[0] in ('0', '1', '2')]
    assert [row[0] for row in minutes] == ['0', '1', '2']
    (header,) = [row for row in rows(out) if row[0] == 'min']
    # SQLite's work is inside the placement server.
    assert {row[header.index('DB CPU s')] for row in minutes} == {'0'}
    assert 'FLAT after minute 1' in out or 'NOT FLAT after minute 1' in out


def test_request_path_http(bench, database):
    # Enough requests for the database server's CPU to pass one clock
    # tick (10 ms): 100 small reads on MariaDB sometimes took less.
    out = bench('request-path', 'http', '--requests', '400', '--round',
                '50', '--reads', 'inventories,traits', '--stalled', '2',
                *database.args)
    table = {row[0]: row for row in rows(out)}
    for read in ('inventories', 'traits'):
        assert table[read][1] == 'yes'
        # 'CPU ms per request (of it system) db CPU ms per request in
        # WALL s'
        server, _, db_label, db, in_label, wall, _ = table[read][2].split()
        assert (db_label, in_label) == ('db', 'in')
        assert float(server) > 0 and float(wall) > 0
        database.check_cpu(float(db))
    assert 'with 2 stalled connections' in out


def test_bulk(bench, database):
    # Enough consumers for the database server's CPU time to reach a
    # clock tick (10 ms).
    out = bench('bulk', '--consumers', '300', *database.args)
    (header,) = [row for row in rows(out) if row[0] == 'server']
    phases = {row[3]: row for row in rows(out) if row[0] == 'ours'}
    database.check_cpu(sum(float(row[header.index('database CPU s')])
                           for row in phases.values()))
    assert set(phases) == {'create', 'replace', 'remove'}
    assert [phases[p][4] for p in ('create', 'replace', 'remove')] == [
        '204', '204', '204']
    assert {row[-1] for row in phases.values()} == {'yes'}


def test_weigh_claims(bench):
    out = bench('weigh', 'claims', '--computes', '10', '--concurrency', '2',
                '--claims', '6')
    runs = [row for row in rows(out) if row[0] == 'sqlite']
    assert {row[2] for row in runs} == {'default', 'spread'}
    for row in runs:
        # claims/s, 409s per 1,000, failures, over-committed
        assert float(row[3]) > 0
        assert row[5:] == ['0', '0'], row


@pytest.mark.parametrize('source', ['database', 'snapshot'])
def test_select_race(bench, source):
    out = bench('select', 'race', '--computes', '10', '--concurrency', '2',
                '--claims', '6', '--read-source', source)
    runs = [row for row in rows(out) if row[0] == 'sqlite']
    assert {row[3] for row in runs} == {'claims', 'get-put'}
    for row in runs:
        assert row[1] == source
        # placements/s, ..., failed, over-committed
        assert float(row[4]) > 0
        assert row[8:] == ['0', '0'], row
    # One call claims: never a 409 to retry.
    claims, = [row for row in runs if row[3] == 'claims']
    assert claims[7] == '0'


def test_select_group(bench):
    out = bench('select', 'group', '--group', '5', '--group-computes', '8',
                '--repeats', '2')
    (row,) = [row for row in rows(out) if row[0] == 'sqlite']
    assert row[1:3] == ['5', '8']
    assert float(row[3]) > 0


@pytest.mark.skipif(not os.path.exists('/usr/sbin/haproxy'),
                    reason='the swap needs haproxy, MariaDB and upstream: '
                    'tests/cluster/test_swap.py runs it')
def test_swap_options(bench):
    # The swap itself runs in tests/cluster/test_swap.py (it needs MariaDB and
    # upstream); here only that the command and its options load.
    assert '--short' in bench('swap', '-h')


def test_provider_list(bench):
    out = bench('provider-list', '--computes', '20', '--repeats', '2',
                '--duration', '0.5')
    table = {cells[0]: cells[1:] for cells in (
        [cell.strip() for cell in line.strip('|').split('|')]
        for line in out.splitlines() if line.startswith('| ')
        and not line.startswith('| |'))}
    assert set(table) >= {'latency all', 'latency in_tree',
                          'throughput all', 'throughput all three'}
    for name, (from_database, from_memory) in table.items():
        if name.startswith('latency'):
            # Both list the same providers: (count) ends each cell.
            assert from_database.rsplit('(')[-1] == \
                from_memory.rsplit('(')[-1], name
    assert 'snapshot:' in out and 'MB per worker' in out


def test_candidates_by_source(bench, database):
    out = bench('candidates-by-source', '--computes', '20', '--repeats',
                '2', '--duration', '0.5', *database.args)
    assert '20 computes (5 of them trees of 3)' in out
    table = {row[0]: row[1:] for row in rows(out)}
    assert table[''] == ['database', 'snapshot']
    # The seed draws 5 trees: a flat compute is one candidate, a tree
    # four (VCPU and MEMORY_MB each from either NUMA node) for the
    # ungrouped query and two (the groups on either node) for the
    # grouped one.
    for query, count in (('flat', '35'), ('flat limit=1000', '35'),
                         ('nested', '10'), ('nested limit=1000', '10')):
        assert table[query + ' candidates'] == [count, count]
        assert all(float(cell) > 0 for cell in
                   table[query + ' median ms'] + table[query + ' p99 ms']
                   + table[query + ' req/s (c=10)'])
        for cell in table[query + ' database CPU ms/req']:
            database.check_cpu(float(cell))
    assert 'MISMATCH' not in out


def test_candidates_by_source_mismatch(bench):
    # The snapshot's server (its configuration names read_source) lists
    # its candidates in random order: same counts, other bytes.
    server = ('grep -q read_source {config_file} && printf '
              '"randomize_allocation_candidates = True\\n" >> {config_file};'
              ' exec placement-api --bind 127.0.0.1:{port} '
              '--workers {workers}')
    out = bench('candidates-by-source', '--computes', '20', '--repeats',
                '1', '--duration', '0.2', '--server-cmd', server, status=1)
    assert ("MISMATCH snapshot flat: body differs from the database's"
            in out)
    table = {row[0]: row[1:] for row in rows(out)}
    assert table['flat candidates'] == ['35', '35']
