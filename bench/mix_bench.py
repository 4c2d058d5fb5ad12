#!/usr/bin/env python3
"""The request mix of a cloud against one Placement server, open loop.

A cloud of ``--computes`` nova-compute nodes is written straight into a
fresh database (both this service and upstream use the same schema, and
loading 10,000 nodes over the API would take longer than the run):
flat nodes, nested trees (a root with two NUMA children) and nodes whose
disk comes from a sharing provider in their aggregate.  Then, for
``--duration`` seconds, requests are sent on a schedule, whatever the
server's answer times (open loop):

- every node refreshes its provider tree once per ``--refresh`` seconds,
  as nova-compute does: ``GET /resource_providers?in_tree=``, then for
  each provider of its tree its inventories, traits and aggregates, and
  for nodes in an aggregate the sharing providers there;
  ``--inventory-change`` of the refreshes also PUT a changed inventory;
- the scheduler creates ``--creates`` instances per second
  (``GET /usages?project_id=`` as a quota check,
  ``GET /allocation_candidates?limit=1000``, ``PUT /allocations/{id}``
  with the first candidate and the next ones after a 409), moves
  ``--moves`` per second (candidates, then ``POST /allocations`` swapping
  the instance's allocation to a migration consumer and the instance
  onto the new host) and deletes ``--deletes`` per second.

It reports, per operation, the sustained rate, p50/p95/p99 latency,
errors (5xx or no answer) and 409s, plus how late the schedule ran (a
server that cannot keep up makes the generator fall behind).  Requests
go to 127.0.0.1 only.
"""
import argparse
import collections
import datetime
import json
import os
import random
import sys
import tempfile
import time
import uuid

import sqlalchemy as sa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_http  # noqa: E402
import bench_servers  # noqa: E402
from mix_traffic import Http, Mix  # noqa: E402

FLAT = {'VCPU': 64, 'MEMORY_MB': 262144, 'DISK_GB': 2000}
NUMA = {'VCPU': 32, 'MEMORY_MB': 131072}
SHARED_DISK = 100000
NODES_PER_SHARING = 50


# --------------------------------------------------------------------------
# The cloud, written into the database

class Cloud:
    """Computes: [(root uuid, [tree uuids], aggregate uuid or None)]."""

    def __init__(self, computes, nested, sharing, seed=1):
        rng = random.Random(seed)
        self.kinds = []
        for _ in range(computes):
            pick = rng.random()
            self.kinds.append('nested' if pick < nested else
                              'sharing' if pick < nested + sharing else
                              'flat')
        self.computes = []
        self.aggregates = []

    def write(self, db_url):
        engine = sa.create_engine(db_url)
        meta = sa.MetaData()
        meta.reflect(engine, only=[
            'resource_providers', 'inventories', 'resource_classes',
            'traits', 'resource_provider_traits', 'placement_aggregates',
            'resource_provider_aggregates'])
        t = meta.tables
        with engine.begin() as conn:
            rc = dict(conn.execute(sa.select(
                t['resource_classes'].c.name,
                t['resource_classes'].c.id)).all())
            traits = dict(conn.execute(sa.select(
                t['traits'].c.name, t['traits'].c.id)).all())
            start = (conn.execute(sa.select(sa.func.max(
                t['resource_providers'].c.id))).scalar() or 0) + 1
            agg_start = (conn.execute(sa.select(sa.func.max(
                t['placement_aggregates'].c.id))).scalar() or 0) + 1
            rows = collections.defaultdict(list)
            next_id = [start]
            created = datetime.datetime.now(datetime.timezone.utc).replace(
                tzinfo=None, microsecond=0)

            def provider(name, inventory, root=None, parent=None,
                         trait_names=(), aggregate=None):
                rp = next_id[0]
                next_id[0] += 1
                rp_uuid = str(uuid.uuid4())
                rows['resource_providers'].append({
                    'id': rp, 'uuid': rp_uuid, 'name': name,
                    'generation': 0, 'root_provider_id': root or rp,
                    'parent_provider_id': parent})
                for name_, total in inventory.items():
                    rows['inventories'].append({
                        'resource_provider_id': rp,
                        'resource_class_id': rc[name_], 'total': total,
                        'reserved': 0, 'min_unit': 1, 'max_unit': total,
                        'step_size': 1, 'allocation_ratio': 1.0})
                for trait in trait_names:
                    rows['resource_provider_traits'].append({
                        'resource_provider_id': rp,
                        'trait_id': traits[trait]})
                if aggregate is not None:
                    rows['resource_provider_aggregates'].append({
                        'resource_provider_id': rp,
                        'aggregate_id': aggregate[0]})
                return rp, rp_uuid

            aggregate = None
            sharing_nodes = 0
            for index, kind in enumerate(self.kinds):
                name = 'compute-%06d' % index
                if kind == 'flat':
                    rp, rp_uuid = provider(name, FLAT,
                                           trait_names=['HW_CPU_X86_AVX2'])
                    self.computes.append((rp_uuid, [rp_uuid], None))
                elif kind == 'nested':
                    rp, rp_uuid = provider(name, {'DISK_GB': 2000})
                    tree = [rp_uuid]
                    for numa in range(2):
                        tree.append(provider(
                            '%s-numa%d' % (name, numa), NUMA, root=rp,
                            parent=rp, trait_names=['HW_CPU_X86_AVX2'])[1])
                    self.computes.append((rp_uuid, tree, None))
                else:
                    if sharing_nodes % NODES_PER_SHARING == 0:
                        aggregate = (agg_start + len(self.aggregates),
                                     str(uuid.uuid4()))
                        self.aggregates.append(aggregate)
                        rows['placement_aggregates'].append(
                            {'id': aggregate[0], 'uuid': aggregate[1]})
                        provider('shared-disk-%d' % aggregate[0],
                                 {'DISK_GB': SHARED_DISK},
                                 trait_names=['MISC_SHARES_VIA_AGGREGATE'],
                                 aggregate=aggregate)
                    sharing_nodes += 1
                    inventory = dict(FLAT)
                    del inventory['DISK_GB']
                    rp, rp_uuid = provider(name, inventory,
                                           trait_names=['HW_CPU_X86_AVX2'],
                                           aggregate=aggregate)
                    self.computes.append((rp_uuid, [rp_uuid], aggregate[1]))
            for table in ('placement_aggregates', 'resource_providers',
                          'inventories', 'resource_provider_traits',
                          'resource_provider_aggregates'):
                if rows[table]:
                    # The API shows (and dates its answers by) created_at.
                    conn.execute(t[table].insert().values(
                        created_at=created), rows[table])
        engine.dispose()


# --------------------------------------------------------------------------

def run(label, cmd, setup_cmd, args, root):
    workdir = tempfile.mkdtemp(prefix='mix-%s-' % label, dir=root)
    db = bench_servers.Database(args.db_url, workdir, '%s_mix' % label)
    bench_http.log('[%s] %d computes, database %s' % (label, args.computes,
                                                      db.backend))
    db.create()
    server = bench_servers.Server(label, cmd, setup_cmd, args.workers, db,
                                  workdir)
    try:
        server.start()
        http = Http(server.port)
        # Standard classes and traits are in the tables once a request
        # was served.
        http('GET', '/resource_classes')
        http('GET', '/traits?name=startswith:HW_')
        cloud = Cloud(args.computes, args.nested, args.sharing)
        started = time.monotonic()
        cloud.write(db.url)
        bench_http.log('    cloud written in %.1fs'
                       % (time.monotonic() - started))
        result = Mix(cloud, http, args, server.proc.pid).run()
        result['_server'] = {'cmd': cmd}
        return result
    except bench_http.BenchError as exc:
        bench_http.log('    FAILED: %s' % exc)
        return {'error': str(exc)}
    finally:
        server.stop()
        if not args.keep:
            db.drop()


def print_table(label, result, markdown):
    header = ['operation', 'req/s', 'p50 ms', 'p95 ms', 'p99 ms',
              'errors', '409']
    rows = []
    total = 0
    for op, figures in result.items():
        if op.startswith('_'):
            continue
        total += figures['per_s']
        rows.append([op, '%.1f' % figures['per_s']] + [
            '-' if figures[key] is None else '%.0f' % figures[key]
            for key in ('p50_ms', 'p95_ms', 'p99_ms')] + [
            str(figures['errors']), str(figures['conflicts'])])
    rows.append(['all', '%.1f' % total, '', '', '', str(sum(
        f['errors'] for k, f in result.items() if not k.startswith('_'))),
        ''])
    late = result.get('_schedule', {})
    print('\n%s: offered %.0f req/s; sent late p50 %.0f ms, p99 %.0f ms; '
          '%d schedules overdue and %d requests unanswered at the end; '
          'server CPU %.1f s, %.1f ms per request\n' % (
              label, late['offered_per_s'], late['late_p50_ms'],
              late['late_p99_ms'], late['overdue_at_end'],
              late.get('unanswered_at_end', 0),
              late['server_cpu_s'], late['server_cpu_ms_per_request'] or 0))
    if markdown:
        print('| ' + ' | '.join(header) + ' |')
        print('|' + '---|' * len(header))
        for row in rows:
            print('| ' + ' | '.join(row) + ' |')
    else:
        for row in [header] + rows:
            print('%-14s %8s %8s %8s %8s %7s %6s' % tuple(row))


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--server-cmd', default=(
        'placement-api --bind 127.0.0.1:{port} --workers {workers}'))
    parser.add_argument('--setup-cmd', help='run once before the server '
                        '(e.g. placement-manage --config-file {config_file} '
                        'db sync); the server then does not migrate')
    parser.add_argument('--upstream-venv',
                        help='also run upstream placement from this venv')
    parser.add_argument('--upstream-only', action='store_true')
    parser.add_argument('--label', default='ours')
    parser.add_argument('--db-url', help='MariaDB/PostgreSQL server URL '
                        '(default: SQLite)')
    parser.add_argument('--workers', type=int, default=2)
    parser.add_argument('--computes', type=int, default=10000)
    parser.add_argument('--nested', type=float, default=0.2,
                        help='share of nested compute nodes')
    parser.add_argument('--sharing', type=float, default=0.1,
                        help='share of nodes with sharing disk')
    parser.add_argument('--refresh', type=float, default=300.0,
                        help='seconds between refreshes of one node')
    parser.add_argument('--inventory-change', type=float, default=0.02,
                        help='share of refreshes that PUT an inventory')
    parser.add_argument('--creates', type=float, default=10.0)
    parser.add_argument('--moves', type=float, default=1.0)
    parser.add_argument('--deletes', type=float, default=8.0)
    parser.add_argument('--duration', type=float, default=60.0)
    parser.add_argument('--warmup', type=float, default=10.0)
    parser.add_argument('--drain', type=float, default=15.0,
                        help='seconds to wait after the end for answers to '
                        'requests already sent (default %(default)s); the '
                        'rest are reported as unanswered')
    parser.add_argument('--threads', type=int, default=48,
                        help='client threads sending the schedule')
    parser.add_argument('--port-range', default='20900-20999')
    parser.add_argument('--json', help='append results to this file')
    parser.add_argument('--markdown', action='store_true')
    parser.add_argument('--keep', action='store_true')
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    bench_servers.set_port_range(args.port_range)
    root = tempfile.mkdtemp(prefix='placement-mix-')
    runs = []
    if not args.upstream_only:
        runs.append((args.label, args.server_cmd, args.setup_cmd))
    if args.upstream_venv:
        runs.append(('upstream',
                     *bench_servers.upstream_commands(args.upstream_venv)))
    results = {}
    for label, cmd, setup in runs:
        results[label] = run(label, cmd, setup, args, root)
        title = '%s, %s, %d computes, %d workers, %.0f s' % (
            label, args.db_url and args.db_url.split(':')[0] or 'sqlite',
            args.computes, args.workers, args.duration)
        if 'error' not in results[label]:
            print_table(title, results[label], args.markdown)
        if args.json:
            with open(args.json, 'a') as out:
                out.write(json.dumps({'title': title, 'label': label,
                                      'args': vars(args),
                                      'result': results[label]}) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
