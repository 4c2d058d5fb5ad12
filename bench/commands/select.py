"""POST /claims (choose and claim in one call) against the scheduler's
GET + PUT, with many schedulers at once.

``race``: per number of concurrent callers (``--concurrency``, 10 and
50 by default), a fresh server on a fresh cloud of ``--computes`` flat
compute nodes (the weigh command's cloud), then ``--claims`` placements
of one flavor, each by one of:

- ``claims``: this service's POST /claims, one consumer per call;
- ``get-put``: this service's GET /allocation_candidates
  (``limit=--limit``) and PUT /allocations of the first candidate,
  retried after a 409, as nova's scheduler claims;
- ``upstream``: the same GET + PUT against upstream placement
  (``--upstream-venv``).

It prints placements/s, each call's median and p99 (one placement, a
409 retry included), 409s per 1,000 placements, failed placements and
over-committed providers.  With ``--read-source snapshot`` this
service's server is started again once the cloud is written, reading
its workers' snapshots (loaded before the first placement).

``group``: one POST /claims of ``--group`` consumers with ``roots:
distinct`` into ``--group-computes`` compute nodes whose inventories are
90 % reserved (each has room for one instance of the flavor), timed
over ``--repeats`` calls (the consumers of one call deleted before the
next).

    bench/run select race --computes 10000 --upstream-venv DIR \\
        [--db-url URL] [--read-source snapshot]
    bench/run select group --group 100 --group-computes 1000 [--db-url URL]
"""
import os
import statistics
import time
import uuid

import sqlalchemy as sa

from bench.common import cloud
from bench.common import report
from bench.common import scenarios
from bench.common import scratch
from bench.common import serving
from bench.common import sources
from bench.common import web
from bench.commands.mix import traffic

# A compute node of the group run: 90 % of it reserved leaves room for
# one instance of the flavor.
GROUP_NODE = {rc: (amount * 10, 1.0, amount * 9)
              for rc, amount in traffic.FLAVOR.items()}


def flavor_query():
    return 'resources=' + ','.join(
        '%s:%d' % item for item in sorted(traffic.FLAVOR.items()))


class Flavor:
    """The flavor as the candidates command's claimers take a data set."""
    kind = 'flat'

    @staticmethod
    def query():
        return flavor_query()


class TimedClaims(scenarios.Claims):
    """The GET + PUT claimers, each placement's time recorded."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.times = []

    def claim_one(self, client):
        started = time.perf_counter()
        super().claim_one(client)
        with self.lock:
            self.times.append(time.perf_counter() - started)


class SelectClaims(TimedClaims):
    """One POST /claims per placement: no 409 to retry; a no-fit answer
    ends the run (the cloud is full)."""

    def claim_one(self, client):
        started = time.perf_counter()
        consumer = str(uuid.uuid4())
        resp = client.post('/claims', json={
            'shape': flavor_query(),
            'consumers': {consumer: {'project_id': self.project_id,
                                     'user_id': self.user_id,
                                     'consumer_generation': None,
                                     'consumer_type': 'INSTANCE'}}})
        with self.lock:
            self.times.append(time.perf_counter() - started)
        if resp.status_code == 200:
            return self._record(
                resp.json()['allocations'][consumer]['allocations'])
        if resp.status_code == 409 and 'no_fit' in resp.text:
            with self.lock:
                self.exhausted = True
            return self._fail('no fit left')
        return self._fail('POST HTTP %d: %s' % (resp.status_code,
                                                resp.text[:200]))


def _server(args, label, root, upstream):
    """(database, server) of one run, fresh."""
    workdir = os.path.join(root, label)
    os.mkdir(workdir)
    db = serving.Database(args.db_url, workdir, 'select_' + label)
    db.create()
    if upstream:
        cmd, setup = serving.upstream_commands(args.upstream_venv)
    else:
        cmd, setup = args.server_cmd, None
    return db, serving.Server(label, cmd, setup, args.workers, db, workdir)


def race_run(args, method, concurrency, root):
    label = '%s-%d' % (method, concurrency)
    db, server = _server(args, label, root, method == 'upstream')
    clients = web.Clients(server.base_url)
    try:
        server.start()
        web.request(clients, 'GET', '/resource_classes', (200,))
        cloud.Cloud(args.computes, 0.0, 0.0).write(db.url)
        if args.read_source == 'snapshot' and method != 'upstream':
            sources.restarted_on_snapshot(server, db, args.workers)
        kind = SelectClaims if method == 'claims' else TimedClaims
        claims = kind(clients, Flavor(), args.claims, concurrency,
                      args.limit, args.max_retries)
        outcome = claims.run()
        outcome['overcommitted'] = len(scenarios.overcommitted(
            clients, claims.providers, concurrency))
        times = [1000 * value for value in claims.times]
        outcome['median_ms'] = statistics.median(times)
        outcome['p99_ms'] = scenarios.percentile(times, 99)
        return outcome
    finally:
        clients.close()
        server.stop()
        db.drop()


def race(args, root):
    methods = [method for method in args.methods
               if method != 'upstream' or args.upstream_venv]
    backend = args.db_url.split(':')[0] if args.db_url else 'sqlite'
    print(report.markdown_head([
        'database', 'read from', 'callers', 'method', 'placements/s',
        'median ms', 'p99 ms', '409s per 1,000', 'failed',
        'over-committed']))
    for concurrency in args.concurrency:
        for method in methods:
            web.log('%s, %d callers, %s' % (backend, concurrency, method))
            found = race_run(args, method, concurrency, root)
            web.log('    %s' % report.fmt_dict(found))
            if found['failures']:
                web.log('    failed: %s' % found['failure_sample'])
            source = 'database' if method == 'upstream' \
                else args.read_source
            print('| %s | %s | %d | %s | %.1f | %.1f | %.1f | %.0f | %d '
                  '| %d |' % (
                      backend, source, concurrency, method,
                      found['claims_per_s'], found['median_ms'],
                      found['p99_ms'],
                      1000.0 * found['conflicts'] / max(found['claims'], 1),
                      found['failures'], found['overcommitted']), flush=True)


def group(args, root):
    db, server = _server(args, 'group', root, False)
    clients = web.Clients(server.base_url)
    try:
        server.start()
        web.request(clients, 'GET', '/resource_classes', (200,))
        engine = sa.create_engine(db.url)
        with engine.begin() as conn:
            rows = cloud.Rows(conn)
            for index in range(args.group_computes):
                rows.provider('node-%06d' % index, GROUP_NODE)
            rows.flush()
        engine.dispose()
        times = []
        for _ in range(args.repeats):
            consumers = {str(uuid.uuid4()): {
                'project_id': 'p', 'user_id': 'u',
                'consumer_generation': None, 'consumer_type': 'INSTANCE'}
                for _ in range(args.group)}
            started = time.perf_counter()
            web.request(clients, 'POST', '/claims', (200,), json={
                'shape': flavor_query(), 'consumers': consumers,
                'roots': 'distinct'})
            times.append(time.perf_counter() - started)
            for consumer in consumers:
                web.request(clients, 'DELETE', '/allocations/' + consumer,
                            (204,))
        backend = args.db_url.split(':')[0] if args.db_url else 'sqlite'
        print(report.markdown_head(['database', 'consumers', 'computes',
                                    'median s', 'max s']))
        print('| %s | %d | %d | %.3f | %.3f |' % (
            backend, args.group, args.group_computes,
            statistics.median(times), max(times)), flush=True)
    finally:
        clients.close()
        server.stop()
        db.drop()


def add_arguments(parser):
    commands = parser.add_subparsers(dest='command', required=True)
    for name in ('race', 'group'):
        serving.add_server_arguments(commands.add_parser(name),
                                     '21100-21149')
    race_ = commands.choices['race']
    serving.add_race_arguments(race_)
    race_.add_argument('--methods', nargs='*',
                       default=['claims', 'get-put', 'upstream'],
                       help='of claims, get-put and upstream (which needs '
                       '--upstream-venv)')
    race_.add_argument('--upstream-venv',
                       help='also race upstream placement from this venv')
    race_.add_argument('--read-source', choices=['database', 'snapshot'],
                       default='database',
                       help="this service's [placement] read_source")
    group_ = commands.choices['group']
    group_.add_argument('--group', type=int, default=100)
    group_.add_argument('--group-computes', type=int, default=1000)
    group_.add_argument('--repeats', type=int, default=5)


def main(args):
    serving.set_port_range(args.port_range)
    with scratch.directory('select-') as root:
        if args.command == 'race':
            args.concurrency = args.concurrency or [10, 50]
            race(args, root)
        else:
            group(args, root)
