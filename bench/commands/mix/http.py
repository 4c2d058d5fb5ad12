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
import json
import os
import time


from bench.common import report
from bench.common import web
from bench.common import scratch
from bench.common import meters
from bench.common import serving
from bench.common import sources
from bench.common.cloud import Cloud
from bench.commands.mix import traffic
from bench.commands.mix.traffic import Http, Mix


def run(label, cmd, setup_cmd, args, root):
    workdir = os.path.join(root, label)
    os.mkdir(workdir)
    db = serving.Database(args.db_url, workdir, '%s_mix' % label)
    web.log('[%s] %d computes, database %s' % (label, args.computes,
                                               db.backend))
    db.create()
    server = serving.Server(label, cmd, setup_cmd, args.workers, db,
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
        web.log('    cloud written in %.1fs'
                % (time.monotonic() - started))
        if args.read_source == 'snapshot' and label != 'upstream':
            http.close()
            sources.restarted_on_snapshot(server, db, args.workers)
            http = Http(server.port)
        result = Mix(cloud, http, args, meters.CpuMeter(
            server.proc.pid, db.url)).run()
        result['_server'] = {'cmd': cmd}
        return result
    except web.BenchError as exc:
        web.log('    FAILED: %s' % exc)
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
          'in %.1f s: server CPU %.1f s, %.1f ms per request; database '
          'server CPU %s\n' % (
              label, late['offered_per_s'], late['late_p50_ms'],
              late['late_p99_ms'], late['overdue_at_end'],
              late.get('unanswered_at_end', 0), late['wall_s'],
              late['server_cpu_s'], late['server_cpu_ms_per_request'] or 0,
              'not measured' if late['db_cpu_s'] is None else
              '%.1f s, %.1f ms per request' % (
                  late['db_cpu_s'], late['db_cpu_ms_per_request'] or 0)))
    if markdown:
        print(report.markdown_head(header))
        for row in rows:
            print(report.markdown_row(row))
    else:
        for row in [header] + rows:
            print('%-14s %8s %8s %8s %8s %7s %6s' % tuple(row))


def add_arguments(parser):
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
    parser.add_argument('--read-source', choices=['database', 'snapshot'],
                        default='database',
                        help="this service's [placement] read_source (the "
                        'server starts again once the cloud is written)')
    traffic.add_schedule_arguments(parser)
    parser.add_argument('--duration', type=float, default=60.0)
    parser.add_argument('--port-range', default='20900-20999')
    parser.add_argument('--json', help='append results to this file')
    parser.add_argument('--markdown', action='store_true')
    parser.add_argument('--keep', action='store_true')


def main(args):
    serving.set_port_range(args.port_range)
    runs = []
    if not args.upstream_only:
        runs.append((args.label, args.server_cmd, args.setup_cmd))
    if args.upstream_venv:
        runs.append(('upstream',
                     *serving.upstream_commands(args.upstream_venv)))
    results = {}
    with scratch.directory('placement-mix-', args.keep) as root:
        for label, cmd, setup in runs:
            results[label] = run(label, cmd, setup, args, root)
            title = '%s, %s, %s, %d computes, %d workers, %.0f s' % (
                label, args.db_url and args.db_url.split(':')[0] or 'sqlite',
                'database' if label == 'upstream' else args.read_source,
                args.computes, args.workers, args.duration)
            if 'error' not in results[label]:
                print_table(title, results[label], args.markdown)
            if args.json:
                with open(args.json, 'a') as out:
                    out.write(json.dumps({'title': title, 'label': label,
                                          'args': vars(args),
                                          'result': results[label]}) + '\n')
    return 0
