"""The ``http`` mode of ``bench/run request-path``: servers started (or
already running), the small reads sent to them from threads, and the CPU
time of their process groups and of the database server per request.
Also the requests ``layers`` makes in-process: the headers, the tree
written and the reads timed."""
import http.client
import json
import os
import socket
import tempfile
import threading
import time
import uuid

from bench.common import web
from bench.common import scratch
from bench.common import meters
from bench.common import serving

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
        raise web.BenchError('%d answers were not 200: %s' % (
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
    """A server started elsewhere (``--running PORT:PGID``) on the
    database server of ``db_url`` (None: SQLite)."""

    def __init__(self, text, db_url):
        self.port, self.pgid = (int(part) for part in text.split(':'))
        self.cmd = 'running on port %d, process group %d' % (self.port,
                                                             self.pgid)
        self.meter = meters.CpuMeter(self.pgid, db_url or 'sqlite://')

    def stop(self):
        pass


class Started(serving.Server):
    """A server started here on a fresh database of ``db_url`` (None:
    SQLite), dropped when it stops."""

    def __init__(self, cmd, root, db_url):
        workdir = tempfile.mkdtemp(dir=root)
        self.database = serving.Database(
            db_url, workdir, 'request_path_' + os.path.basename(workdir))
        super().__init__('server', cmd, None, 1, self.database, workdir)
        self.database.create()
        try:
            self.start()
        except web.BenchError:
            self.database.drop()
            raise
        self.pgid = self.proc.pid
        self.meter = meters.CpuMeter(self.pgid, self.database.url)

    def stop(self):
        super().stop()
        self.database.drop()


def fill(server):
    """The tree of ``tree_requests``; its root's uuid."""
    root = str(uuid.uuid4())
    for method, path, body in tree_requests(root):
        status, data = send(server.port, method, path, body)
        if status >= 300:
            raise web.BenchError('%s %s: %s %s' % (
                method, path, status, data[:200]))
    return root


def over_http(args):
    serving.set_port_range(args.port_range)
    with scratch.directory('request-path-http-') as root:
        compare(args, root)


def compare(args, root):
    servers = [Running(text, args.db_url) for text in args.running]
    try:
        for cmd in args.server_cmd or ([] if servers else [DEFAULT_CMD]):
            servers.append(Started(cmd, root, args.db_url))
        roots = [fill(server) for server in servers]
        print('load average before: %s\n' % load_average())
        for number, server in enumerate(servers, 1):
            print('%d. %s' % (number, server.cmd))
        print('\nServer CPU ms per request (of it system), the database '
              'server\'s CPU ms per request and the wall time, in rounds of '
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
                        used[index] = {
                            key: None if more[key] is None
                            else used[index][key] + more[key]
                            for key in more}
                print('| %s | %s | %s |' % (
                    label, 'yes' if keepalive else 'no', ' | '.join(
                        cpu_cell(figures) for figures in used)), flush=True)
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
    """The ``CpuMeter.since`` figures of one round on ``server``, with
    the requests it sent."""
    hammer(server.port, path, args.connections * 5, args.connections,
           keepalive)
    started = server.meter.read()
    sent = hammer(server.port, path, args.round, args.connections,
                  keepalive)
    return dict(server.meter.since(started), requests=sent)


def cpu_cell(used):
    """'server ms (of it system) db ms in wall s', CPU per request."""
    sent = used['requests']
    per_request = meters.per_request_ms(used, sent)
    return '%.3f (%.3f) db %s in %.1f s' % (
        per_request['server_cpu_ms'], 1000 * used['server_system_s'] / sent,
        '-' if per_request['db_cpu_ms'] is None
        else '%.3f' % per_request['db_cpu_ms'], used['wall_s'])
