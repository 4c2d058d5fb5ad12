#!/usr/bin/env python3
"""Where the CPU time of a small request goes: per WSGI layer in-process,
and per request over HTTP, for several servers.

    .venv/bin/python bench/request_path.py layers [--calls 3000]
    .venv/bin/python bench/request_path.py http [--requests 4000]
        [--server-cmd CMD ...] [--running PORT:PGID ...]
        [--no-keepalive] [--stalled N]

``layers`` times every layer of the application alone, on the environ it
receives on a real request (CPU time, interleaved batches); ``http``
measures the CPU time per request of each server's process group
(``/proc``), the servers served in turns.  See bench/README.md.
"""
import argparse
import copy
import http.client
import io
import json
import os
import socket
import statistics
import sys
import tempfile
import threading
import time
import uuid

# The metric files of this run, as under placement-api; named before any
# metric exists.
os.environ.setdefault('PROMETHEUS_MULTIPROC_DIR', tempfile.mkdtemp(
    prefix='request-path-bench-'))

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_http  # noqa: E402
import bench_servers  # noqa: E402

HEADERS = {'x-auth-token': 'admin', 'accept': 'application/json',
           'openstack-api-version': 'placement 1.39'}
# The small refresh reads of a compute node, by label.
READS = {
    'inventories': '/resource_providers/{uuid}/inventories',
    'traits': '/resource_providers/{uuid}/traits',
    'aggregates': '/resource_providers/{uuid}/aggregates',
    'usages': '/resource_providers/{uuid}/usages',
    'tree': '/resource_providers?in_tree={uuid}',
}
TRAITS = ['HW_CPU_X86_AVX2', 'COMPUTE_VOLUME_MULTI_ATTACH']
DEFAULT_CMD = 'placement-api --bind 127.0.0.1:{port} --workers 1'


def tree_requests(root):
    """(method, path, body) that make a compute node with one child."""
    child = str(uuid.uuid4())
    inventories = {name: {'total': total} for name, total in
                   (('VCPU', 64), ('MEMORY_MB', 262144), ('DISK_GB', 2000))}
    return [
        ('POST', '/resource_providers', {'name': root, 'uuid': root}),
        ('POST', '/resource_providers',
         {'name': child, 'uuid': child, 'parent_provider_uuid': root}),
        ('PUT', '/resource_providers/%s/inventories' % root,
         {'resource_provider_generation': 0, 'inventories': inventories}),
        ('PUT', '/resource_providers/%s/traits' % root,
         {'resource_provider_generation': 1, 'traits': TRAITS}),
        ('PUT', '/resource_providers/%s/aggregates' % root,
         {'resource_provider_generation': 2,
          'aggregates': [str(uuid.uuid4())]}),
    ]


def load_average():
    return '%.2f %.2f %.2f' % os.getloadavg()


# --------------------------------------------------------------------------
# In-process, layer by layer

def _attribute(layer):
    """The attribute holding the app a layer passes requests on to."""
    for name in ('application', '_app'):
        if getattr(layer, name, None) is not None:
            return name
    return None


def layer_chain(app):
    chain = [app]
    while _attribute(chain[-1]):
        chain.append(getattr(chain[-1], _attribute(chain[-1])))
    return chain


def recorded_environs(chain, environ):
    """The environ every layer of ``chain`` receives on one real call."""
    seen = {}

    def recorder(index, app):
        def record(environ, start_response):
            seen[index] = fresh(environ)
            return app(environ, start_response)
        return record

    for index, layer in enumerate(chain[:-1]):
        setattr(layer, _attribute(layer),
                recorder(index + 1, chain[index + 1]))
    try:
        call(chain[0], fresh(environ))
    finally:
        for index, layer in enumerate(chain[:-1]):
            setattr(layer, _attribute(layer), chain[index + 1])
    seen[0] = fresh(environ)
    return [seen[index] for index in range(len(chain))]


def fresh(environ):
    """A copy of ``environ`` without what webob cached in it."""
    environ = {key: value for key, value in environ.items()
               if not key.startswith('webob.')
               and key != 'wsgiorg.routing_args'}
    environ['wsgi.input'] = io.BytesIO(b'')
    return environ


def call(app, environ):
    status = []

    def start_response(line, headers, exc_info=None):
        status.append(line)

    body = app(environ, start_response)
    try:
        for _chunk in body:
            pass
    finally:
        if hasattr(body, 'close'):
            body.close()
    return status[0]


def time_layers(chain, environs, calls, batch=50):
    """CPU seconds per call of each layer called alone, and of its own
    work: the medians over rounds of a batch per layer, back to back, and
    of the difference to the layer inside it in the same round."""
    samples = [[] for _ in chain]
    for _round in range(max(1, calls // batch)):
        for index, layer in enumerate(chain):
            prepared = [copy.copy(environs[index]) for _ in range(batch)]
            for environ in prepared:
                environ['wsgi.input'] = io.BytesIO(b'')
            started = time.process_time()
            for environ in prepared:
                call(layer, environ)
            samples[index].append((time.process_time() - started) / batch)
    own = [[a - b for a, b in zip(samples[index], samples[index + 1])]
           for index in range(len(chain) - 1)] + [samples[-1]]
    return ([statistics.median(s) for s in samples],
            [statistics.median(s) for s in own])


def in_process_app(workdir, options=''):
    from placement import conf as placement_conf
    from placement import db
    from placement import deploy
    from placement.objects import bootstrap
    path = os.path.join(workdir, 'placement.conf')
    with open(path, 'w') as out:
        out.write(bench_servers.CONF_TEMPLATE.format(
            url='sqlite:///' + os.path.join(workdir, 'placement.sqlite'),
            sync=True))
        # The access log written as a server writes it.
        out.write('[DEFAULT]\nlog_file = %s\n%s' % (os.path.join(
            workdir, 'placement.log'), options.replace('\\n', '\n')))
    conf = placement_conf.load(config_files=[path])
    deploy.setup_logging(conf)
    database = db.Database(conf)
    bootstrap.prepare_database(database, migrate=True)
    return deploy.build_app(conf, database)


def blank_environ(method, path, body=None):
    import webob
    request = webob.Request.blank(path, method=method, headers=HEADERS)
    if body is not None:
        request.content_type = 'application/json'
        request.body = json.dumps(body).encode()
    return request.environ


def layers(args):
    workdir = tempfile.mkdtemp(prefix='request-path-')
    app = in_process_app(workdir, args.options)
    root = str(uuid.uuid4())
    for method, path, body in tree_requests(root):
        status = call(app, blank_environ(method, path, body))
        assert status[0] == '2', (path, status)
    chain = layer_chain(app)
    print('load average %s' % load_average())
    for label in args.reads:
        environ = blank_environ('GET', READS[label].format(uuid=root))
        assert call(app, fresh(environ)).startswith('200')
        environs = recorded_environs(chain, environ)
        costs, own = time_layers(chain, environs, args.calls)
        print('\nGET %s: %.3f ms CPU in-process, by layer (outermost '
              'first)\n' % (label, costs[0] * 1000))
        print('| layer | alone and inside (ms) | own (ms) |')
        print('|---|---:|---:|')
        for index, layer in enumerate(chain):
            print('| %s | %.3f | %.3f |' % (
                type(layer).__name__, costs[index] * 1000,
                own[index] * 1000))


# --------------------------------------------------------------------------
# Over HTTP

def send(port, method, path, body=None, keepalive=None):
    """(status, body) on a connection of its own (or ``keepalive``)."""
    conn = keepalive or http.client.HTTPConnection('127.0.0.1', port)
    headers = dict(HEADERS)
    if body is not None:
        headers['content-type'] = 'application/json'
        body = json.dumps(body)
    if keepalive is None:
        headers['connection'] = 'close'
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    data = response.read()
    if keepalive is None:
        conn.close()
    return response.status, data


def hammer(port, path, requests, connections, keepalive):
    """Send ``requests`` GETs of ``path`` from ``connections`` threads."""
    errors = []

    def client(count):
        conn = (http.client.HTTPConnection('127.0.0.1', port)
                if keepalive else None)
        try:
            for _ in range(count):
                status, _data = send(port, 'GET', path, keepalive=conn)
                if status != 200:
                    errors.append(status)
        except OSError as exc:
            errors.append(repr(exc))
        finally:
            if conn is not None:
                conn.close()

    share = requests // connections
    threads = [threading.Thread(target=client, args=(share,))
               for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise bench_http.BenchError('%d answers were not 200: %s' % (
            len(errors), sorted(set(map(str, errors)))))
    return share * connections


# What a stalled client has sent: nothing, half a head, half a body.
STALLS = (b'', b'GET / HTTP/1.1\r\nHost: x\r\n',
          b'POST /resource_providers HTTP/1.1\r\nHost: x\r\n'
          b'X-Auth-Token: admin\r\nContent-Type: application/json\r\n'
          b'Content-Length: 100\r\n\r\n{"name": ')


def stall_probe(port, stalled, probes=5):
    """(the slowest, the statuses) of ``probes`` complete requests (each
    on a connection of its own) while ``stalled`` connections hold part
    of a request (a third each of ``STALLS``)."""
    holders = []
    try:
        for index in range(stalled):
            sock = socket.create_connection(('127.0.0.1', port))
            data = STALLS[index % len(STALLS)]
            if data:
                sock.sendall(data)
            holders.append(sock)
        time.sleep(0.5)
        slowest, statuses = 0.0, []
        for _ in range(probes):
            started = time.monotonic()
            statuses.append(send(port, 'GET', '/')[0])
            slowest = max(slowest, time.monotonic() - started)
        return slowest, statuses
    finally:
        for sock in holders:
            sock.close()


class Running:
    """A server started elsewhere (``--running PORT:PGID``)."""

    def __init__(self, text):
        self.port, self.pgid = (int(part) for part in text.split(':'))
        self.cmd = 'running on port %d, process group %d' % (self.port,
                                                              self.pgid)

    def stop(self):
        pass


def start_server(cmd):
    workdir = tempfile.mkdtemp(prefix='request-path-http-')
    database = bench_servers.Database(None, workdir, 'request_path')
    server = bench_servers.Server('server', cmd, None, 1, database, workdir)
    server.start()
    server.pgid = server.proc.pid
    return server


def fill(server):
    """The tree of ``tree_requests``; its root's uuid."""
    root = str(uuid.uuid4())
    for method, path, body in tree_requests(root):
        status, data = send(server.port, method, path, body)
        if status >= 300:
            raise bench_http.BenchError('%s %s: %s %s' % (
                method, path, status, data[:200]))
    return root


def over_http(args):
    bench_servers.set_port_range(args.port_range)
    servers = [Running(text) for text in args.running]
    try:
        for cmd in args.server_cmd or ([] if servers else [DEFAULT_CMD]):
            servers.append(start_server(cmd))
        roots = [fill(server) for server in servers]
        print('load average before: %s\n' % load_average())
        for number, server in enumerate(servers, 1):
            print('%d. %s' % (number, server.cmd))
        print('\nServer CPU ms per request (of it system), in rounds of '
              '%d requests per server in turn:\n' % args.round)
        print('| read | keep-alive | %s |' % ' | '.join(
            str(number) for number in range(1, len(servers) + 1)))
        print('|---|---|%s' % ('---:|' * len(servers)))
        modes = [True] + ([False] if args.no_keepalive else [])
        for keepalive in modes:
            for label in args.reads:
                used = [measure(server, READS[label].format(uuid=root), args,
                                keepalive)
                        for server, root in zip(servers, roots)]
                rounds = max(1, args.requests // args.round)
                for _ in range(rounds - 1):
                    for index, (server, root) in enumerate(
                            zip(servers, roots)):
                        more = measure(server, READS[label].format(
                            uuid=root), args, keepalive)
                        used[index] = [a + b for a, b in zip(used[index],
                                                               more)]
                print('| %s | %s | %s |' % (
                    label, 'yes' if keepalive else 'no', ' | '.join(
                        '%.3f (%.3f)' % ((user + system) / sent * 1000,
                                         system / sent * 1000)
                        for user, system, sent in used)), flush=True)
        for number, server in enumerate(servers, 1):
            if args.stalled:
                print('\n%d: slowest of 5 GET / with %d stalled connections:'
                      ' %.3f s, answers %s' % ((number, args.stalled)
                                               + stall_probe(server.port,
                                                             args.stalled)))
        print('\nload average after: %s' % load_average())
    finally:
        for server in servers:
            server.stop()


def measure(server, path, args, keepalive):
    """(user s, system s, requests) of one round on ``server``."""
    hammer(server.port, path, args.connections * 5, args.connections,
           keepalive)
    user, system = bench_servers.group_cpu_times(server.pgid)
    sent = hammer(server.port, path, args.round, args.connections,
                  keepalive)
    after = bench_servers.group_cpu_times(server.pgid)
    return after[0] - user, after[1] - system, sent


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = parser.add_subparsers(dest='mode', required=True)
    inproc = sub.add_parser('layers', help='in-process, layer by layer')
    inproc.add_argument('--calls', type=int, default=3000)
    inproc.add_argument('--options', default='', help=(
        'more placement.conf lines, e.g. "[api]\\naccess_log = false"'))
    remote = sub.add_parser('http', help='server CPU per request')
    remote.add_argument('--requests', type=int, default=4000)
    remote.add_argument('--connections', type=int, default=4)
    remote.add_argument('--server-cmd', action='append', help=(
        'a server to start (repeatable; default: %s)' % DEFAULT_CMD))
    remote.add_argument('--running', action='append', default=[],
                        metavar='PORT:PGID', help=(
                            'a server already running (repeatable)'))
    remote.add_argument('--round', type=int, default=1000,
                        help='requests per server in turn')
    remote.add_argument('--no-keepalive', action='store_true',
                        help='also measure a new connection per request')
    remote.add_argument('--port-range', default='18700-18749')
    remote.add_argument('--stalled', type=int, default=0, help=(
        'then time GET / while this many connections hold half a request'))
    for one in (inproc, remote):
        one.add_argument('--reads', default=','.join(READS),
                         type=lambda text: text.split(','),
                         help='which small reads (default: all)')
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.mode == 'layers':
        layers(args)
    else:
        over_http(args)
    return 0


if __name__ == '__main__':
    sys.exit(main())
