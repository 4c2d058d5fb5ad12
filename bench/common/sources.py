"""The read sources side by side: this service reading the database,
this service reading its snapshot (``read_source = snapshot``) and,
with ``--upstream-venv``, upstream, started one after another on one
database written once (by SQL, see ``cloud``)."""
import contextlib
import gc
import logging
import re
import tempfile
import threading
import time
import tracemalloc

import sqlalchemy as sa
import webob

from placement.config import conf as placement_conf
from placement.memory import snapshot
from placement.web import deploy

from bench.common import serving
from bench.common import web

SNAPSHOT = '[placement]\nread_source = snapshot\n'
# A request every worker answers from its snapshot (on MySQL a name
# filter is read from the database): one loads the snapshot if the
# worker has not started to.
POKE = '/resource_providers?uuid=00000000-0000-0000-0000-000000000000'
LOADED_TIMEOUT = 600


def add_arguments(parser, port_range):
    """The options every read source benchmark takes."""
    serving.add_server_arguments(parser, port_range)
    parser.add_argument('--computes', type=int, default=10000)
    parser.add_argument('--upstream-venv', metavar='DIR')
    parser.add_argument('--repeats', type=int, default=20)
    parser.add_argument('--concurrency', type=int, default=10)
    parser.add_argument('--duration', type=float, default=10.0)


def make_schema(args, db, root):
    """This service's schema in ``db``, made by starting one server of it
    (the cloud then goes in by SQL)."""
    first = serving.Server('schema', args.server_cmd, None, 1, db,
                           tempfile.mkdtemp(dir=root))
    first.start()
    first.stop()


def runs(args):
    """[(label, server command, setup command, extra configuration)] of
    the servers compared, in the order they run."""
    found = [('database', args.server_cmd, None, ''),
             ('snapshot', args.server_cmd, None, SNAPSHOT)]
    if args.upstream_venv:
        command, setup = serving.upstream_commands(args.upstream_venv)
        found.append(('upstream', command, setup, ''))
    return found


@contextlib.contextmanager
def started(label, cmd, setup, extra, db, args, root):
    """(server, clients) of one of ``runs``, answering; with the snapshot
    configured, once every worker has loaded it."""
    workdir = tempfile.mkdtemp(prefix=label + '-', dir=root)
    server = serving.Server(label, cmd, setup, args.workers, db, workdir)
    serving.write_conf(server.config_file, db.url, sync=not setup,
                       extra=extra)
    clients = web.Clients(server.base_url)
    try:
        server.start()
        if extra == SNAPSHOT:
            wait_loaded(server, clients, args.workers)
        yield server, clients
    finally:
        clients.close()
        server.stop()


def restarted_on_snapshot(server, db, workers):
    """Start ``server`` again reading its workers' snapshots of what
    ``db`` holds now (a cloud written by SQL after it started), and wait
    until every worker has loaded it."""
    server.stop()
    serving.write_conf(server.config_file, db.url,
                       sync=server.setup_cmd is None, extra=SNAPSHOT)
    server.start()
    clients = web.Clients(server.base_url)
    try:
        wait_loaded(server, clients, workers)
    finally:
        clients.close()


def wait_loaded(server, clients, workers):
    """Until every worker logged its snapshot loaded (each starts at its
    first request)."""
    deadline = time.monotonic() + LOADED_TIMEOUT
    while time.monotonic() < deadline:
        clients.get().get(POKE)
        with open(server.log_path, errors='replace') as log:
            loaded = set(re.findall(r' (\d+) INFO \S+ snapshot loaded',
                                    log.read()))
        if len(loaded) >= workers:
            return
        time.sleep(0.2)
    raise web.BenchError('snapshots not loaded:\n' + server.log_tail())


class _Loaded(logging.Handler):
    """Set when an in-process app logs its snapshot loaded."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.event = threading.Event()

    def emit(self, record):
        if record.getMessage().startswith('snapshot loaded'):
            self.event.set()


def snapshot_conf(path, url):
    """The configuration, written to ``path``, of an app reading its
    snapshot of the migrated database ``url``."""
    return placement_conf.load(config_files=[serving.write_conf(
        path, url, sync=False, extra=SNAPSHOT)])


def loaded_app(conf):
    """An in-process app of ``conf`` (reading its snapshot), once the
    snapshot is loaded."""
    loaded = _Loaded()
    log = logging.getLogger('placement.memory.source')
    log.addHandler(loaded)
    level = log.level
    log.setLevel(logging.INFO)
    try:
        app = deploy.loadapp(conf)
        deadline = time.monotonic() + LOADED_TIMEOUT
        # A worker not sure of the change feed at start loads at its
        # first request.
        while not loaded.event.wait(0.2):
            if time.monotonic() > deadline:
                raise web.BenchError('the snapshot was not loaded')
            webob.Request.blank(POKE, headers={
                'x-auth-token': 'admin'}).get_response(app)
    finally:
        log.removeHandler(loaded)
        log.setLevel(level)
    return app


def snapshot_size(db_url):
    """(MB one worker's snapshot of the database holds, MB more once a
    what-if has derived the consumers' providers, seconds a load
    takes), loaded here as a worker loads it."""
    engine = sa.create_engine(db_url)
    with engine.connect() as conn:
        started = time.perf_counter()
        snapshot.load(conn)
        took = time.perf_counter() - started
        gc.collect()
        tracemalloc.start()
        snap = snapshot.load(conn)
        held = tracemalloc.get_traced_memory()[0]
        snap.holders()
        derived = tracemalloc.get_traced_memory()[0] - held
        tracemalloc.stop()
    engine.dispose()
    del snap
    return held / 2 ** 20, derived / 2 ** 20, took
