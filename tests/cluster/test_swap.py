"""A rolling swap of upstream placement for this service under live
traffic, and back, and forward again (bench/swap_bench.py --short).

Debian's HAProxy in front of three API nodes on one MariaDB database, all
upstream placement 16.0.0 at the start; the request mix of a 200-compute
cloud runs through HAProxy while each node is drained, stopped and
started as the other kind.  Needs haproxy, upstream placement in
``$PLACEMENT_UPSTREAM_VENV`` and ``PLACEMENT_TEST_MYSQL_URL`` (.ci/run
provides all three): skips without them, and fails under CI=true.
"""
import os
import shutil
import sys

import pytest

import support

sys.path.insert(0, str(support.REPO / 'bench'))
import swap_audit  # noqa: E402
import swap_bench  # noqa: E402


def _missing():
    if not shutil.which('haproxy') and not os.path.exists(
            '/usr/sbin/haproxy'):
        return 'haproxy is not installed (.ci/run installs it)'
    if not os.path.exists(os.path.join(swap_bench.UPSTREAM_VENV, 'bin',
                                       'gunicorn')):
        return ('upstream placement is not installed in %s'
                % swap_bench.UPSTREAM_VENV)
    if not os.environ.get('PLACEMENT_TEST_MYSQL_URL'):
        return 'PLACEMENT_TEST_MYSQL_URL is not set'
    return None


@pytest.fixture(scope='module')
def swap():
    reason = _missing()
    if reason:
        if os.environ.get('CI') == 'true':
            pytest.fail(reason)
        pytest.skip(reason)
    result = swap_bench.run(swap_bench.parse_args(['--short']))
    # Shown with any failure below.
    print(swap_audit.report(result))
    return result


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
