"""One POST /allocations naming many consumers, over HTTP.

For each server (ours, and upstream's with ``--upstream-venv``) it starts
the server on a fresh database with one worker, creates one provider
(VCPU and MEMORY_MB, enough for every consumer) and then sends three
requests, each naming ``--consumers`` consumers at microversion 1.38:

1. create: every consumer is new (``consumer_generation`` null) and
   claims ``VCPU`` 1 and ``MEMORY_MB`` 64 of the provider;
2. replace: every consumer (generation 1) claims ``VCPU`` 2 and
   ``MEMORY_MB`` 128 instead;
3. remove: every consumer (generation 2) sends empty allocations, which
   deletes its allocations and the consumer.

Per request it prints the status, the wall time, the CPU time the
server's processes and the database server used (``/proc``, user +
system) and the consumers per wall-clock second; after each request the
provider's usages are checked.  Give upstream a smaller
``--upstream-consumers``: it takes minutes for a few thousand.
"""
import functools
import http.client
import json
import os
import uuid

from bench.common import report
from bench.common import web
from bench.common import scratch
from bench.common import meters
from bench.common import serving

HEADERS = {'x-auth-token': 'admin', 'accept': 'application/json',
           'content-type': 'application/json',
           'openstack-api-version': 'placement 1.38'}
PHASES = (
    # name, generation sent, resources per consumer
    ('create', None, {'VCPU': 1, 'MEMORY_MB': 64}),
    ('replace', 1, {'VCPU': 2, 'MEMORY_MB': 128}),
    ('remove', 2, {}),
)


def call(port, method, path, data=None):
    """(status, body) of one request; the timeout allows a slow server
    its whole worker timeout."""
    conn = http.client.HTTPConnection('127.0.0.1', port, timeout=1800)
    try:
        conn.request(method, path, headers=HEADERS, body=None if data is None
                     else json.dumps(data))
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def body(provider, consumers, generation, resources):
    project, user = str(uuid.uuid4()), str(uuid.uuid4())
    allocations = {provider: {'resources': resources}} if resources else {}
    return {consumer: {'allocations': allocations,
                       'consumer_generation': generation,
                       'project_id': project, 'user_id': user,
                       'consumer_type': 'INSTANCE'}
            for consumer in consumers}


def run(label, cmd, setup_cmd, count, args, root):
    workdir = os.path.join(root, label)
    os.mkdir(workdir)
    db = serving.Database(args.db_url, workdir, '%s_bulk' % label)
    db.create()
    server = serving.Server(label, cmd, setup_cmd, 1, db, workdir)
    results = []
    try:
        server.start()
        meter = meters.CpuMeter(server.proc.pid, db.url)
        http = functools.partial(call, server.port)
        provider = str(uuid.uuid4())
        status, _ = http('POST', '/resource_providers',
                         {'uuid': provider, 'name': 'bulk'})
        if status not in (200, 201):
            raise web.BenchError('creating the provider: %s' % status)
        status, _ = http('PUT', '/resource_providers/%s/inventories'
                         % provider, {
                             'resource_provider_generation': 0,
                             'inventories': {
                                 'VCPU': {'total': 2 * count},
                                 'MEMORY_MB': {'total': 128 * count}}})
        if status != 200:
            raise web.BenchError('writing the inventory: %s' % status)
        consumers = [str(uuid.uuid4()) for _ in range(count)]
        for phase, generation, resources in PHASES:
            data = body(provider, consumers, generation, resources)
            started = meter.read()
            status, answer = http('POST', '/allocations', data)
            used = meter.since(started)
            wall, cpu = used['wall_s'], used['server_cpu_s']
            _, usages = http('GET', '/resource_providers/%s/usages'
                             % provider)
            expected = {rc: amount * count
                        for rc, amount in resources.items()}
            got = {rc: used for rc, used in
                   json.loads(usages or b'{}').get('usages', {}).items()
                   if used}
            results.append({'phase': phase, 'status': status,
                            'wall_s': wall, 'cpu_s': cpu,
                            'db_cpu_s': used['db_cpu_s'],
                            'usages_ok': got == expected})
            web.log('[%s] %s: %s in %.1f s wall, %.1f s CPU%s' % (
                label, phase, status, wall, cpu,
                '' if status == 204 else ' ' + repr(answer)[:200]))
            if status != 204:
                break
    except web.BenchError as exc:
        web.log('[%s] FAILED: %s\n%s' % (label, exc, server.log_tail()))
    finally:
        server.stop()
        if not args.keep:
            db.drop()
    return results


def add_arguments(parser):
    parser.add_argument('--consumers', type=int, default=20000)
    parser.add_argument('--server-cmd', default=(
        'placement-api --bind 127.0.0.1:{port} --workers {workers}'))
    parser.add_argument('--upstream-venv',
                        help='also run upstream placement from this venv')
    parser.add_argument('--upstream-consumers', type=int, default=2000)
    parser.add_argument('--upstream-only', action='store_true')
    parser.add_argument('--db-url', help='MariaDB/PostgreSQL server URL '
                        '(default: SQLite)')
    parser.add_argument('--port-range', default='20900-20999')
    parser.add_argument('--keep', action='store_true')


def main(args):
    serving.set_port_range(args.port_range)
    runs = []
    if not args.upstream_only:
        runs.append(('ours', args.server_cmd, None, args.consumers))
    if args.upstream_venv:
        runs.append(('upstream',
                     *serving.upstream_commands(args.upstream_venv,
                                                timeout=900),
                     args.upstream_consumers))
    database = args.db_url and args.db_url.split(':')[0] or 'sqlite'
    print(report.markdown_head([
        'server', 'database', 'consumers', 'request', 'status', 'wall s',
        'server CPU s', 'database CPU s', 'consumers/s (wall)',
        'consumers/s (CPU)', 'usages right']))
    with scratch.directory('placement-bulk-', args.keep) as root:
        for label, cmd, setup, count in runs:
            for row in run(label, cmd, setup, count, args, root):
                print('| %s | %s | %d | %s | %s | %.1f | %.1f | %s | %.0f '
                      '| %.0f | %s |' % (
                          label, database, count, row['phase'],
                          row['status'], row['wall_s'], row['cpu_s'],
                          '-' if row['db_cpu_s'] is None
                          else '%.2f' % row['db_cpu_s'],
                          count / row['wall_s'],
                          count / max(row['cpu_s'], 0.01),
                          'yes' if row['usages_ok'] else 'NO'), flush=True)
    return 0
