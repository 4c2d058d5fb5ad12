"""A rolling swap of upstream placement for this service under live
traffic, and back, and forward again: ``bench/run swap --short``, run as
a program (the tests import no benchmark code), its result read from the
JSON file it writes.

Debian's HAProxy in front of three API nodes on one MariaDB database, all
upstream placement 16.0.0 at the start; the request mix of a 200-compute
cloud runs through HAProxy while each node is drained, stopped and
started as the other kind.  This service's nodes read from memory
(``--read-source snapshot``): while the fleet is mixed their answers are
compared with a server reading the database once upstream's writes are
older than the bound docs/operators.md states.  Needs haproxy, upstream
placement in ``$PLACEMENT_UPSTREAM_VENV`` and ``PLACEMENT_TEST_MYSQL_URL``
(.ci/run provides all three): skips without them, and fails under CI=true.
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

from support import REPO

UPSTREAM_VENV = os.environ.get(
    'PLACEMENT_UPSTREAM_VENV',
    os.path.expanduser('~/.cache/placement-test-upstream-venv'))


def _missing():
    if not shutil.which('haproxy') and not os.path.exists(
            '/usr/sbin/haproxy'):
        return 'haproxy is not installed (.ci/run installs it)'
    if not os.path.exists(os.path.join(UPSTREAM_VENV, 'bin', 'gunicorn')):
        return 'upstream placement is not installed in %s' % UPSTREAM_VENV
    if not os.environ.get('PLACEMENT_TEST_MYSQL_URL'):
        return 'PLACEMENT_TEST_MYSQL_URL is not set'
    return None


@pytest.fixture(scope='module')
def swap(tmp_path_factory):
    reason = _missing()
    if reason:
        if os.environ.get('CI') == 'true':
            pytest.fail(reason)
        pytest.skip(reason)
    result_file = tmp_path_factory.mktemp('swap') / 'result.json'
    # The report it prints is shown with any failure below; its exit
    # status says whether its own audit passed, which the tests below
    # check figure by figure.
    proc = subprocess.run(
        [sys.executable, '-m', 'bench', 'swap', '--short', '--read-source',
         'snapshot', '--json', str(result_file)], cwd=REPO, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    print(proc.stdout)
    assert result_file.exists(), proc.stdout[-3000:]
    return json.loads(result_file.read_text())


def test_both_kinds_served_the_same_database(swap):
    assert len(set(swap['revisions'])) == 1, swap['revisions']
    assert [(s['from'], s['to']) for s in swap['swaps']] == (
        [('upstream', 'ours')] * 3 + [('ours', 'upstream')] * 3
        + [('upstream', 'ours')] * 3)
    writes = swap['acknowledged_writes_by_kind']
    assert writes.get('claim ours') and writes.get('claim upstream'), writes
    assert swap['served_by_kind'].get('unknown', 0) == 0


def test_no_request_failed(swap):
    assert swap['failed'] == []
    assert all(s['graceful'] for s in swap['swaps']), swap['swaps']


def test_acknowledged_writes_kept_and_nothing_else_changed(swap):
    assert swap['acknowledged_live'] > 0
    assert swap['lost'] == []
    assert swap['unacknowledged'] == []
    assert swap['changed_tables'] == []


def test_no_overcommit_from_this_service(swap):
    # Upstream's own claims may over-commit: reported, not asserted.
    assert [item for item in swap['overcommit']
            if item['blame'] == 'ours'] == []


def test_reads_from_memory_within_the_bound(swap):
    reads = swap['snapshot_reads']
    assert reads['compared'] > 0, reads
    # Upstream wrote between the rounds, so the fleet check had work.
    assert any(item['upstream_writes_before'] for item in reads['rounds']), (
        reads['rounds'])
    assert reads['mismatches'] == [], reads['mismatches']
