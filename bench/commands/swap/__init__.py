"""A rolling swap of upstream placement for this service, under the mix.

Three API nodes behind HAProxy (fleet.py) serve one MariaDB
database, all upstream placement 16.0.0 at the start; the schema is made
by upstream's ``placement-manage db sync``, then this service's (which
must leave it at the same revision).  The mix's cloud is
written into it and its request mix runs through HAProxy the whole time,
while the nodes are replaced one by one by this service (drain, wait for
the node's requests, SIGTERM, start the other kind, wait healthy,
enable), then rolled back to upstream the same way, then forward again.

Measured: requests that failed as the clients saw them (5xx or no
answer), acknowledged writes missing or different at the end, writes
nobody acknowledged in the database, over-commit on the providers with
the kind of node that served the write that crossed capacity, and the
rest of the database against a copy taken before the mix.  With
``--read-source snapshot`` this service's nodes read from memory, and
while the fleet is mixed their answers are compared with the
database's past the fleet check's bound (reads.py).

    bench/run swap --computes 10000 --node-hold 60

``--short`` is the CI test's setting (tests/cluster/test_swap.py runs
``bench/run swap --short --json FILE``): 200 computes, a few seconds per
node.
"""
import json
import os
import shutil
import subprocess
import sys
import time

import sqlalchemy as sa

from bench.common import web
from bench.common import scratch
from bench.common import serving
from bench.common.cloud import Cloud
from bench.commands.mix import traffic
from bench.commands.swap import audit
from bench.commands.swap import reads
from bench.commands.swap.fleet import Fleet, environ
from bench.common import sources

UPSTREAM_VENV = os.environ.get(
    'PLACEMENT_UPSTREAM_VENV',
    os.path.expanduser('~/.cache/placement-test-upstream-venv'))
PHASES = (('forward', 'ours'), ('back', 'upstream'), ('forward again', 'ours'))
WRITES = {'claim', 'move', 'delete', 'put_inventory'}


class SwapMix(traffic.Mix):
    """The mix, with every call logged: (op, status, node, sent,
    answered, method, path, body) - body only for writes."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.calls = []
        # Held while reads from memory are compared (reads.py).
        self.writes = reads.WriteGate()

    def change_inventory(self, record):
        # Reserved amounts are left alone: raising one over allocations
        # already made is an over-commit both services allow on purpose,
        # which would hide the ones claims cause.
        total = record['total']
        record['max_unit'] = total if record['max_unit'] != total else max(
            1, total // 2)

    def call(self, op, method, path, body=None):
        if op not in WRITES:
            return self._logged(op, method, path, body)
        with self.writes.passing():
            return self._logged(op, method, path, body)

    def _logged(self, op, method, path, body):
        sent = time.monotonic()
        status, payload = super().call(op, method, path, body)
        headers = self.http.local.headers
        self.calls.append((op, status, headers and headers['x-served-by'],
                           sent, time.monotonic(), method, path,
                           body if op in WRITES else None))
        return status, payload


def create_schema(db_url, workdir, config_file):
    """Upstream's db sync, then this service's: the revision must stay."""
    revisions = []
    for kind, manage in (
            ('upstream', os.path.join(UPSTREAM_VENV, 'bin',
                                      'placement-manage')),
            ('ours', os.path.join(os.path.dirname(sys.executable),
                                  'placement-manage'))):
        proc = subprocess.run([manage, '--config-file', config_file, 'db',
                               'sync'], cwd=workdir,
                              env=environ(kind, workdir),
                              capture_output=True, text=True)
        if proc.returncode:
            raise web.BenchError('%s db sync: %s'
                                 % (manage, proc.stderr))
        engine = sa.create_engine(db_url)
        with engine.connect() as conn:
            revisions.append(conn.exec_driver_sql(
                'SELECT version_num FROM alembic_version').scalar())
        engine.dispose()
    return revisions


def sample_load():
    with open('/proc/loadavg') as f:
        return f.read().split()[:3]


def run(args, workdir):
    """The whole swap; the result as a dict (see audit.report)."""
    db = serving.Database(args.db_url, workdir, str(os.getpid()))
    if db.backend == 'sqlite':
        raise web.BenchError(
            'the swap needs a database server (--db-url)')
    # Upstream's nodes read the same file and ignore read_source.
    config_file = serving.write_conf(
        os.path.join(workdir, 'placement.conf'), db.url, sync=False,
        extra=sources.SNAPSHOT if args.read_source == 'snapshot' else '')
    low, high = (int(p) for p in args.port_range.split('-'))
    ports = serving.free_ports(5, low, high)
    fleet = Fleet(workdir, config_file, UPSTREAM_VENV, args.workers,
                  ports[:4], args.haproxy)
    result = {'load_start': sample_load(), 'computes': args.computes,
              'read_source': args.read_source}
    comparison = None
    began = time.monotonic()
    db.create()
    try:
        result['revisions'] = create_schema(db.url, workdir, config_file)
        cloud = Cloud(args.computes, args.nested, args.sharing)
        cloud.write(db.url)
        engine = sa.create_engine(db.url)
        before = audit.snapshot(engine)
        web.log('  schema and cloud ready in %.0f s'
                % (time.monotonic() - began))
        fleet.start('upstream')
        web.log('  three upstream nodes up in %.0f s'
                % (time.monotonic() - began))
        mix = SwapMix(cloud, traffic.Http(fleet.haproxy.port), args, None)
        if args.read_source == 'snapshot':
            comparison = reads.Comparison(workdir, db.url, ports[4], fleet,
                                          mix, WRITES)
            comparison.start()
        result.update(drive(fleet, mix, args, comparison))
        if comparison is not None:
            comparison.stop()
            result['snapshot_reads'] = comparison.result(workdir)
        result['load_end'] = sample_load()
        result['haproxy'] = {
            name: {key: row[key] for key in ('wretr', 'wredis', 'econ',
                                             'eresp', 'hrsp_5xx', 'stot')}
            for name, row in fleet.haproxy.stats().items()
            if name != 'FRONTEND'}
        fleet.stop()
        result.update(audit.audit(engine, before, mix, fleet))
        engine.dispose()
        return result
    finally:
        fleet.stop()
        for node in fleet.nodes:
            node.kill()
        if comparison is not None:
            comparison.reference.kill()
        if args.keep:
            web.log('kept database %s' % db.name)
        else:
            db.drop()


def drive(fleet, mix, args, comparison):
    """The mix through HAProxy while the phases swap the nodes; with a
    ``comparison``, a round of it at the end of each hold of a mixed
    fleet."""
    mix.start()
    started = time.monotonic()
    phases = []
    try:
        time.sleep(args.warmup + args.node_hold)
        for label, kind in PHASES:
            phase = {'phase': label, 'to': kind, 'start': time.monotonic(),
                     'load': sample_load()}
            for node in fleet.nodes:
                fleet.swap(node, kind)
                web.log('  %s: %s is %s (%s)' % (
                    label, node.name, kind, '/'.join(fleet.kinds())))
                time.sleep(args.node_hold)
                if comparison is not None and comparison.mixed():
                    comparison.round()
            phase['end'] = time.monotonic()
            phases.append(phase)
    finally:
        stop_at = time.monotonic()
        # The mix's table counts from the end of its warm-up; failures
        # are counted by swap_audit over every call.
        table = mix.finish(None, stop_at)
        mix.http.close()
    return {'table': table, 'phases': phases, 'swaps': fleet.swaps,
            'wall_s': stop_at - started}


def add_arguments(parser):
    parser.add_argument('--short', action='store_true',
                        help="the CI test's setting: 200 computes, 3 s per "
                        'node, a busier schedule')
    parser.add_argument('--db-url', default=os.environ.get(
        'PLACEMENT_TEST_MYSQL_URL', 'mysql+pymysql://root@127.0.0.1/')
        .rstrip('/') + '/placement_swap?charset=utf8mb4')
    parser.add_argument('--haproxy', default=shutil.which('haproxy')
                        or '/usr/sbin/haproxy')
    parser.add_argument('--workers', type=int, default=2,
                        help='worker processes per node')
    parser.add_argument('--read-source', choices=('database', 'snapshot'),
                        default='database',
                        help="this service's [placement] read_source; with "
                        'snapshot, its answers under the mixed fleet are '
                        'compared with the database\'s (reads.py)')
    # Upstream cannot serve the 300 s refresh of the mix at 10,000
    # computes on 2 cores.
    traffic.add_schedule_arguments(
        parser, refresh=1800.0, creates=0.5, moves=0.05, deletes=0.4,
        drain=60.0, threads=32)
    parser.add_argument('--node-hold', type=float, default=60.0,
                        help='seconds each swapped node serves before the '
                        'next swap (also before the first)')
    parser.add_argument('--port-range', default='20850-20899')
    parser.add_argument('--json', help='write the result here')
    parser.add_argument('--keep', action='store_true')


def main(args):
    if args.short:
        args.computes, args.refresh, args.node_hold = 200, 20.0, 1.0
        args.creates, args.moves, args.deletes = 6.0, 0.5, 4.0
        args.warmup, args.drain = 2.0, 30.0
        args.inventory_change = 0.2
    # Until drive() tells the mix when it ended.
    args.duration = 1e9
    with scratch.directory('placement-swap-', args.keep) as workdir:
        result = run(args, workdir)
    print(audit.report(result))
    if args.json:
        with open(args.json, 'w') as out:
            json.dump(result, out, indent=1, default=str)
    return 0 if audit.passed(result) else 1
