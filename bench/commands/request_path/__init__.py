"""Where the CPU time of a small request goes: per WSGI layer in-process,
and per request over HTTP, for several servers.

    bench/run request-path layers [--calls 3000]
    bench/run request-path http [--requests 4000]
        [--server-cmd CMD ...] [--running PORT:PGID ...]
        [--no-keepalive] [--stalled N] [--db-url URL]

``layers`` times every layer of the application alone, on the environ it
receives on a real request (CPU time, interleaved batches); ``http``
measures the CPU time per request of each server's process group and of
the database server (``/proc``), the servers served in turns.  See
bench/README.md.
"""
import copy
import io
import json
import os
import statistics
import tempfile
import time
import uuid

# The metric files of this run, as under placement-api; named before any
# metric exists.
os.environ.setdefault('PROMETHEUS_MULTIPROC_DIR', tempfile.mkdtemp(
    prefix='request-path-bench-'))

from bench.common import report  # noqa: E402
from bench.common import scratch  # noqa: E402
from bench.common import serving  # noqa: E402
from bench.commands.request_path.http import (  # noqa: E402
    DEFAULT_CMD, HEADERS, READS, load_average, over_http, tree_requests)


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
    from placement.config import conf as placement_conf
    from placement.data import db
    from placement.objects import bootstrap
    from placement.web import deploy
    # The access log written as a server writes it.
    path = serving.write_conf(
        os.path.join(workdir, 'placement.conf'),
        'sqlite:///' + os.path.join(workdir, 'placement.sqlite'), sync=True,
        extra='[DEFAULT]\nlog_file = %s\n%s' % (os.path.join(
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
    with scratch.directory('request-path-') as workdir:
        time_layers_in(workdir, args)


def time_layers_in(workdir, args):
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
        print(report.markdown_head(['layer', 'alone and inside (ms)',
                                    'own (ms)']))
        for index, layer in enumerate(chain):
            print('| %s | %.3f | %.3f |' % (
                type(layer).__name__, costs[index] * 1000,
                own[index] * 1000))


def add_arguments(parser):
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
    remote.add_argument('--db-url', help=(
        'MariaDB/PostgreSQL server URL of the started servers (a fresh '
        'database each) and of the running ones (default: SQLite)'))
    remote.add_argument('--stalled', type=int, default=0, help=(
        'then time GET / while this many connections hold half a request'))
    for one in (inproc, remote):
        one.add_argument('--reads', default=','.join(READS),
                         type=lambda text: text.split(','),
                         help='which small reads (default: all)')


def main(args):
    if args.mode == 'layers':
        layers(args)
    else:
        over_http(args)
    return 0
