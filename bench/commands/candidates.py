"""Load a Placement server with a data set and time allocation candidates.

The script drives one or two server commands purely over HTTP:

1. it writes a fresh ``placement.conf`` (noauth2, a fresh database,
   ``sync_on_startup = True`` unless a setup command migrates it first)
   into a temporary directory, exports ``OS_PLACEMENT_CONFIG_DIR`` to it
   and starts the server command;
2. it loads a data set through the REST API (a thread pool of clients);
3. it times ``GET /allocation_candidates`` (median, p95, requests/s at N
   concurrent clients) and ``GET /allocation_candidates/explain`` (median,
   p95), then lets N claimers race each other claiming the
   first candidate and finally checks, over HTTP, that no provider's usage
   exceeds its capacity.

With ``--compare-cmd`` (or ``--upstream-venv``) the same run is repeated
against a second server and the figures are printed side by side.

Only the standard library and httpx are used.  Fresh MariaDB/PostgreSQL
databases for ``--db-url`` are created and dropped with the ``mysql`` /
``psql`` command line clients.
"""
import json
import tempfile

from bench.common import web
from bench.common import report
from bench.common import scenarios
from bench.common import datasets
from bench.common import scratch
from bench.common import meters
from bench.common import serving


def run_one(label, cmd, setup_cmd, dataset, args, root):
    workdir = tempfile.mkdtemp(prefix='%s-%s-' % (label, dataset.kind),
                               dir=root)
    db = serving.Database(args.db_url, workdir,
                          '%s_%s' % (label, dataset.kind))
    web.log('  [%s] %s, database %s' % (label, dataset.label,
                                        db.backend))
    db.create()
    server = serving.Server(label, cmd, setup_cmd, args.workers, db,
                            workdir)
    clients = web.Clients(server.base_url)
    try:
        server.start()
        result = {}
        report.note(result, 'load', datasets.load(
            clients, dataset, args.load_threads))
        scenarios.measure(clients, dataset, args, result,
                          meters.CpuMeter(server.proc.pid, db.url))
        return result
    except web.BenchError as exc:
        error = str(exc)
        if server.proc is not None and server.proc.poll() is not None:
            error += '\nserver exited with status %s; log tail:\n%s' % (
                server.proc.returncode, server.log_tail())
        web.log('    FAILED: %s' % error)
        return {'error': error}
    finally:
        clients.close()
        server.stop()
        if not args.keep:
            db.drop()


def add_arguments(parser):
    parser.epilog = (
        'Command templates may use {port}, {workers}, {config_dir} and '
        '{config_file}; OS_PLACEMENT_CONFIG_DIR is exported to the '
        'directory holding placement.conf.')
    parser.add_argument('--server-cmd',
                        default='placement-api --bind 127.0.0.1:{port} '
                                '--workers {workers}',
                        help='server under test (default: %(default)s)')
    parser.add_argument('--setup-cmd',
                        help='run once before --server-cmd starts')
    parser.add_argument('--label', default='ours')
    parser.add_argument('--compare-cmd',
                        help='second server to compare with')
    parser.add_argument('--compare-setup-cmd',
                        help='run once before --compare-cmd starts, e.g. a '
                             'placement-manage db sync')
    parser.add_argument('--compare-label', default='upstream')
    parser.add_argument('--upstream-venv', metavar='DIR',
                        help='shorthand: compare with openstack-placement '
                             'installed (with gunicorn) in this venv')
    parser.add_argument('--flat', type=int, metavar='N',
                        help='N compute nodes in one aggregate')
    parser.add_argument('--nested', type=int, metavar='N',
                        help='N trees of 7 providers')
    parser.add_argument('--db-url',
                        help='MariaDB/PostgreSQL server URL; the path names '
                             'the database prefix (fresh databases are '
                             'created and dropped). Default: SQLite files')
    parser.add_argument('--workers', type=int, default=2)
    parser.add_argument('--repeats', type=int, default=20,
                        help='timed sequential requests per query')
    parser.add_argument('--concurrency', type=int, default=10,
                        help='concurrent clients and claimers')
    parser.add_argument('--duration', type=float, default=10.0,
                        help='seconds per throughput measurement')
    parser.add_argument('--throughput-only', action='store_true',
                        help='only the --concurrency throughput of each '
                             'query (no latency, explain or claims)')
    parser.add_argument('--claims', type=int, default=200,
                        help='allocations to claim concurrently')
    parser.add_argument('--claim-limit', type=int, default=10,
                        help='limit used by claimers fetching candidates')
    parser.add_argument('--max-retries', type=int, default=50,
                        help='409 retries per claim before giving up')
    parser.add_argument('--load-threads', type=int, default=8)
    parser.add_argument('--port-range',
                        default='%d-%d' % serving.PORT_RANGE,
                        help='ports the servers may use (default '
                             '%(default)s)')
    parser.add_argument('--json', metavar='FILE', help='write raw results')
    parser.add_argument('--markdown', action='store_true',
                        help='print the tables as Markdown')
    parser.add_argument('--keep', action='store_true',
                        help='keep temp dirs (server logs) and databases')
    parser.add_argument('--report', nargs='+', metavar='JSON',
                        help='only print the tables of earlier --json '
                             'files (servers of the same data set side by '
                             'side, e.g. ours and upstream run separately)')


def main(args):
    if not args.flat and not args.nested and not args.report:
        raise SystemExit('give --flat N and/or --nested N')
    if args.upstream_venv:
        command, setup = serving.upstream_commands(args.upstream_venv)
        args.compare_cmd = args.compare_cmd or command
        args.compare_setup_cmd = args.compare_setup_cmd or setup
    if args.report:
        return report.report_files(args.report, args.markdown)
    serving.set_port_range(args.port_range)
    servers = [(args.label, args.server_cmd, args.setup_cmd)]
    if args.compare_cmd:
        servers.append((args.compare_label, args.compare_cmd,
                        args.compare_setup_cmd))
    data_sets = []
    if args.flat:
        data_sets.append(datasets.FlatDataSet(args.flat))
    if args.nested:
        data_sets.append(datasets.NestedDataSet(args.nested))
    everything = {}
    with scratch.directory('placement-bench-', args.keep) as root:
        for dataset in data_sets:
            results = {}
            for label, cmd, setup_cmd in servers:
                results[label] = run_one(label, cmd, setup_cmd, dataset,
                                         args, root)
            everything[dataset.label] = results
            report.report(
                report.describe(dataset.label, vars(args)),
                [s[0] for s in servers], results, args.markdown)
    if args.json:
        with open(args.json, 'w') as out:
            json.dump({'args': vars(args), 'results': everything}, out,
                      indent=2, default=str)
    return 1 if any('error' in r for res in everything.values()
                    for r in res.values()) else 0
