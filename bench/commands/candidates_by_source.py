"""GET /allocation_candidates by read source over HTTP: this service
reading the database, this service reading its snapshot
(``read_source = snapshot``) and, with ``--upstream-venv``, upstream,
one after another on one database written once (flat computes and, a
``--nested`` share of them, trees of a compute and two NUMA nodes: see
``cloud.Cloud``).

Before a server is timed its answers are checked: the snapshot's
bodies must be byte for byte the database's, upstream's candidate
counts the database's.  A difference prints a MISMATCH line and makes
the exit status 1 (the figures are printed all the same)."""
import os

from bench.common import cloud
from bench.common import meters
from bench.common import report
from bench.common import scenarios
from bench.common import scratch
from bench.common import serving
from bench.common import sources
from bench.common import web

FLAT = 'resources=VCPU:1,MEMORY_MB:512,DISK_GB:10'
# Two groups on two providers of one tree: only the NUMA nodes of the
# nested computes answer it.
NESTED = ('resources=DISK_GB:10&resources1=VCPU:1,MEMORY_MB:512'
          '&resources2=VCPU:1,MEMORY_MB:512&group_policy=isolate')
QUERIES = {
    'flat': FLAT,
    'flat limit=1000': FLAT + '&limit=1000',
    'nested': NESTED,
    'nested limit=1000': NESTED + '&limit=1000',
}


def add_arguments(parser):
    sources.add_arguments(parser, '18350-18399')
    parser.add_argument('--nested', type=float, default=0.2,
                        help='the share of computes that are trees '
                        '(default: %(default)s)')


def url(query):
    return '/allocation_candidates?' + query


def answers(clients):
    """{query label: (status, body bytes, candidates)} of one server."""
    found = {}
    for name, query in QUERIES.items():
        resp = clients.get().get(url(query))
        count = (len(resp.json()['allocation_requests'])
                 if resp.status_code == 200 else None)
        found[name] = (resp.status_code, resp.content, count)
    return found


def mismatches(label, found, reference):
    """Lines saying where ``found`` (``answers``) differs from the
    database's ``reference``: the snapshot's bodies must be the same
    bytes, anyone else's candidate counts the same."""
    lines = []
    for name, (status, body, count) in found.items():
        ref_status, ref_body, ref_count = reference[name]
        if status != 200 or ref_status != 200:
            lines.append('MISMATCH %s %s: HTTP %s, database HTTP %s' % (
                label, name, status, ref_status))
        elif label == 'snapshot' and body != ref_body:
            lines.append('MISMATCH snapshot %s: body differs from the '
                         "database's (%d bytes against %d, %s candidates "
                         'against %s)' % (name, len(body), len(ref_body),
                                          count, ref_count))
        elif count != ref_count:
            lines.append('MISMATCH %s %s: %s candidates, database %s' % (
                label, name, count, ref_count))
    return lines


def measure(server, clients, db, args):
    found = {}
    for name, query in QUERIES.items():
        report.note(found, 'latency ' + name, scenarios.time_latency(
            clients, url(query), args.repeats))
    for name, query in QUERIES.items():
        report.note(found, 'throughput ' + name, scenarios.time_throughput(
            clients, url(query), args.concurrency, args.duration,
            meters.CpuMeter(server.proc.pid, db.url)))
    return found


# (row, result key, figure) of each query's rows.
ROWS = (('candidates', 'latency', 'candidates'),
        ('median ms', 'latency', 'median_ms'),
        ('p95 ms', 'latency', 'p95_ms'),
        ('p99 ms', 'latency', 'p99_ms'),
        ('req/s (c=%d)', 'throughput', 'rps'),
        ('server CPU ms/req', 'throughput', 'server_cpu_ms'),
        ('database CPU ms/req', 'throughput', 'db_cpu_ms'))


def table(results, concurrency):
    """The Markdown table: a column per server, then each of ours
    against upstream (ours / upstream: below 1 is faster for times and
    CPU, above 1 more requests/s)."""
    labels = list(results)
    ours = [label for label in labels if label != 'upstream']
    compared = ours if 'upstream' in results else []
    lines = [report.markdown_head(
        [''] + labels + ['%s / upstream' % label for label in compared])]
    for name in QUERIES:
        for row, kind, key in ROWS:
            values = [report.lookup(results[label],
                                    ('%s %s' % (kind, name), key))
                      for label in labels]
            cells = ['-' if value is None else report.fmt(value)
                     for value in values]
            theirs = values[labels.index('upstream')] if compared else None
            for label in compared:
                mine = values[labels.index(label)]
                cells.append('%.2f' % (mine / theirs) if key != 'candidates'
                             and isinstance(mine, (int, float))
                             and isinstance(theirs, (int, float))
                             and theirs else '')
            title = row % concurrency if '%d' in row else row
            lines.append(report.markdown_row(['%s %s' % (name, title)]
                                             + cells))
    return '\n'.join(lines)


def main(args):
    serving.set_port_range(args.port_range)
    mismatched = []
    with scratch.directory('placement-bench-cand-source-', False) as root:
        db = serving.Database(args.db_url, root, 'cand_source')
        db.create()
        try:
            sources.make_schema(args, db, root)
            world = cloud.Cloud(args.computes, nested=args.nested,
                                sharing=0)
            world.write(db.url)
            results = {}
            reference = None
            for label, cmd, setup, extra in sources.runs(args):
                web.log('  [%s]' % label)
                with sources.started(label, cmd, setup, extra, db, args,
                                     root) as (server, clients):
                    found = answers(clients)
                    if reference is None:
                        reference = found
                    else:
                        lines = mismatches(label, found, reference)
                        for line in lines:
                            web.log(line)
                        mismatched += lines
                    results[label] = measure(server, clients, db, args)
        finally:
            db.drop()
    trees = world.kinds.count('nested')
    print('load %.2f %.2f %.2f, %d computes (%d of them trees of 3), '
          '%d workers, %s' % (*os.getloadavg(), args.computes, trees,
                              args.workers, db.backend))
    print(table(results, args.concurrency))
    for line in mismatched:
        print(line)
    return 1 if mismatched else 0
