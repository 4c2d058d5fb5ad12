"""GET /resource_providers with its filters over HTTP: this service
reading the database, this service reading its snapshot
(``read_source = snapshot``) and, with ``--upstream-venv``, upstream,
one after another on one database written once (the mix's cloud, see
``cloud.Cloud``)."""
import os

from bench.common import cloud
from bench.common import meters
from bench.common import scenarios
from bench.common import scratch
from bench.common import serving
from bench.common import sources


def add_arguments(parser):
    sources.add_arguments(parser, '18400-18449')


def queries(world):
    """{label: path} of the listings timed."""
    root, tree, _ = world.computes[-1]
    aggregate = world.aggregates[0][1] if world.aggregates else root
    return {
        'all': '/resource_providers',
        'resources': '/resource_providers?resources=VCPU:8,MEMORY_MB:4096',
        'required': '/resource_providers?required=HW_CPU_X86_AVX2',
        'member_of': '/resource_providers?member_of=' + aggregate,
        'in_tree': '/resource_providers?in_tree=' + tree[-1],
        'all three': ('/resource_providers?resources=VCPU:8&required='
                      'HW_CPU_X86_AVX2&member_of=in:' + aggregate),
    }


def _measure(server, clients, db, args, world):
    # The floor under the small lists: the version document, answered
    # with no database read and no policy check.
    found = {'latency GET /': scenarios.time_latency(
        clients, '/', args.repeats, count_of=lambda body: len(
            body['versions']))}
    for name, path in queries(world).items():
        found['latency ' + name] = scenarios.time_latency(
            clients, path, args.repeats,
            count_of=lambda body: len(body['resource_providers']))
    for name in ('all', 'all three'):
        found['throughput ' + name] = scenarios.time_throughput(
            clients, queries(world)[name], args.concurrency,
            args.duration, meters.CpuMeter(server.proc.pid, db.url))
    return found


def main(args):
    serving.set_port_range(args.port_range)
    with scratch.directory('placement-bench-list-', False) as root:
        db = serving.Database(args.db_url, root, 'list')
        db.create()
        try:
            sources.make_schema(args, db, root)
            world = cloud.Cloud(args.computes, nested=0.3, sharing=0.2)
            world.write(db.url)
            size, _, took = sources.snapshot_size(db.url)
            results = {}
            for label, cmd, setup, extra in sources.runs(args):
                with sources.started(label, cmd, setup, extra, db, args,
                                     root) as (server, clients):
                    results[label] = _measure(server, clients, db, args,
                                              world)
        finally:
            db.drop()
    print('load %.2f %.2f %.2f, %d computes, %d workers, %s' % (
        *os.getloadavg(), args.computes, args.workers, db.backend))
    print('snapshot: %.1f MB per worker, loaded in %.2f s' % (size, took))
    labels = list(results)
    print('| | ' + ' | '.join(labels) + ' |')
    print('|---' * (len(labels) + 1) + '|')
    for key in results[labels[0]]:
        cells = []
        for label in labels:
            value = results[label][key]
            cells.append('error' if 'error' in value else (
                '%.1f / %.1f ms (%d)' % (value['median_ms'], value['p95_ms'],
                                         value['candidates'])
                if 'median_ms' in value else
                '%.0f/s, %.2f + %.2f ms CPU' % (
                    value['rps'], value['server_cpu_ms'] or 0,
                    value.get('db_cpu_ms') or 0)))
        print('| %s | %s |' % (key, ' | '.join(cells)))
    return 0
