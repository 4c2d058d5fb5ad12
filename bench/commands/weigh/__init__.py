"""[placement] candidate_order against nova's scheduler: where instances
land, what the order costs, and how often concurrent schedulers collide.

``simulate`` (in-process, SQLite): a cloud of ``--computes`` flat
compute nodes (the mix's shape) written straight into a database, then
``--boots`` boots, one at a time, by a nova-like scheduler: candidates
with ``limit=--limit``, weighed by free RAM as nova's RAM weigher does
(multiplier 1.0: most free first; ``pack``: -1.0), the best claimed
with PUT /allocations.  Flavors are drawn from FLAVORS with one seed, so
every order boots the same instances.  Once per order: ``default``,
``default`` with ``randomize_allocation_candidates``, ``spread`` and
``pack`` (nova packing), against an ideal scheduler that sees every host.
It prints the standard deviation of RAM utilization across computes
(spreading) or the computes used (packing), and the CPU time of the
candidates calls (``time.process_time``, so other load matters less).

``cost`` (in-process, SQLite or ``--db-url``): what an order costs,
on the explain command's data sets (``--flat N``: flat computes in one
aggregate; ``--nested N``: trees of 7 providers, same_subtree) and
queries: GET /allocation_candidates with ``limit=--limit`` per order,
the orders interleaved round after round, in CPU ms
(``time.process_time``: the database server's own CPU is not in it for
MariaDB/PostgreSQL) and wall ms, with the load average.

``claims`` (HTTP, SQLite or ``--db-url``): per order and concurrency,
a fresh server on a fresh cloud of ``--computes``, then
the candidates command's claimers: ``--concurrency`` schedulers each asking
candidates (``limit=--limit``) and claiming the first, retrying after a
409, until ``--claims`` succeeded.  It prints claims/s and 409s per
1,000 claims, and checks that nothing is over-committed.

    bench/run weigh simulate --computes 2000 \\
        --boots 1000 --limit 200
    bench/run weigh cost --flat 10000 \\
        --nested 2000 [--db-url URL]
    bench/run weigh claims --computes 10000 \\
        --concurrency 10 --concurrency 50 [--db-url URL]
"""
import json
import logging
import os
import random
import statistics
import time
import uuid

import sqlalchemy as sa
import webob

from bench.common import web
from bench.common import report
from bench.common import scenarios
from bench.common import scratch
from bench.common import serving
from bench.commands import explain
from bench.common import cloud
from bench.commands.mix import traffic
from bench.commands.weigh.simulate import HEADERS, ORDERS, query, simulate

from placement.config import conf as placement_conf
from placement.data import tables
from placement.web import deploy


# -- cost: CPU per request and order, in-process ----------------------------

def cost_run(args, kind, count):
    """{order: ([CPU ms], [wall ms]) per request} on a fresh data set."""
    with scratch.directory('weigh-cost-') as workdir:
        db = serving.Database(args.db_url, workdir, 'weigh_cost')
        db.create()
        try:
            conf = placement_conf.load(config_files=[serving.write_conf(
                os.path.join(workdir, 'placement.conf'), db.url,
                sync=True)])
            app = deploy.loadapp(conf)
            logging.getLogger().setLevel(logging.WARNING)
            engine = sa.create_engine(db.url)
            url = '/allocation_candidates?%s&limit=%d' % (
                explain.fill(engine, kind, count), args.limit)
            with engine.connect() as conn:
                hosts = conn.execute(disk_holders()).scalars().all()
            engine.dispose()
            times = {order: ([], []) for order in args.orders}
            for round_ in range(args.repeats + 1):
                for order in args.orders:
                    conf.set_override('candidate_order', order,
                                      group='placement')
                    if args.claim_between:
                        claim_one(app, random.choice(hosts))
                    started = time.perf_counter()
                    elapsed, _ = explain.call(app, url)
                    if round_:      # the first round warms caches up
                        times[order][0].append(elapsed)
                        times[order][1].append(
                            (time.perf_counter() - started) * 1000.0)
            return times
        finally:
            db.drop()


def disk_holders():
    """The UUIDs of the providers with DISK_GB inventory."""
    inv = tables.inventories
    rc = tables.resource_classes
    return sa.select(tables.resource_providers.c.uuid).where(
        tables.resource_providers.c.id.in_(
            sa.select(inv.c.resource_provider_id).join(
                rc, rc.c.id == inv.c.resource_class_id)
            .where(rc.c.name == 'DISK_GB')))


def claim_one(app, host):
    """A new consumer claims 1 DISK_GB of ``host`` (its CPU time is not
    counted)."""
    response = webob.Request.blank(
        '/allocations/%s' % uuid.uuid4(), method='PUT', headers=HEADERS,
        body=json.dumps({
            'allocations': {host: {'resources': {'DISK_GB': 1}}},
            'project_id': str(uuid.uuid4()), 'user_id': str(uuid.uuid4()),
            'consumer_generation': None,
            'consumer_type': 'INSTANCE'}).encode()).get_response(app)
    if response.status_int != 204:
        raise SystemExit('claim: %s %s' % (response.status,
                                           response.text[:300]))


def cost(args):
    backend = args.db_url.split(':')[0] if args.db_url else 'sqlite'
    sets = [('flat', n) for n in args.flat] + [('nested', n)
                                               for n in args.nested]
    print(report.markdown_head([
        'database', 'data set', 'order', 'limit', 'CPU ms median',
        'CPU ms fastest', 'CPU against default', 'wall ms median',
        'wall against default', 'load']))
    for kind, count in sets:
        load = os.getloadavg()[0]
        times = cost_run(args, kind, count)
        base = [statistics.median(values)
                for values in times[args.orders[0]]]
        for order, (cpu, wall) in times.items():
            median = statistics.median(cpu)
            clock = statistics.median(wall)
            print('| %s | %s %d | %s | %d | %.1f | %.1f | %.2fx | %.1f | '
                  '%.2fx | %.1f |' % (
                      backend, kind, count, order, args.limit, median,
                      min(cpu), median / base[0], clock, clock / base[1],
                      load), flush=True)


# -- claims: concurrent first-pick schedulers over HTTP ---------------------

class Flavor:
    """The one flavor the claimers ask for, as the candidates command's
    claimers take a data set."""
    kind = 'flat'

    @staticmethod
    def query():
        return query(traffic.FLAVOR)


def claims_run(args, label, options, concurrency, root):
    workdir = os.path.join(root, '%s-%d' % (label, concurrency))
    os.mkdir(workdir)
    db = serving.Database(args.db_url, workdir,
                          'weigh_%s_%d' % (label, concurrency))
    db.create()
    server = serving.Server(label, args.server_cmd, None, args.workers,
                            db, workdir)
    with open(server.config_file, 'a') as conf:
        conf.write('[placement]\n' + ''.join(
            '%s = %s\n' % item for item in options.items()))
    clients = web.Clients(server.base_url)
    try:
        server.start()
        web.request(clients, 'GET', '/resource_classes', (200,))
        web.request(clients, 'GET', '/traits?name=startswith:HW_',
                    (200,))
        cloud.Cloud(args.computes, 0.0, 0.0).write(db.url)
        claims = scenarios.Claims(clients, Flavor(), args.claims,
                                  concurrency, args.limit,
                                  args.max_retries)
        outcome = claims.run()
        outcome['overcommitted'] = len(scenarios.overcommitted(
            clients, claims.providers, concurrency))
        return outcome
    finally:
        clients.close()
        server.stop()
        db.drop()


def claims(args):
    serving.set_port_range(args.port_range)
    backend = args.db_url.split(':')[0] if args.db_url else 'sqlite'
    print(report.markdown_head([
        'database', 'schedulers', 'order', 'claims/s',
        '409s per 1,000 claims', 'failed claims', 'over-committed']))
    with scratch.directory('weigh-claims-') as root:
        for concurrency in args.concurrency:
            for label, options, _ in ORDERS:
                if label not in args.orders:
                    continue
                web.log('%s, %d schedulers, %s' % (
                    backend, concurrency, label))
                found = claims_run(args, label, options, concurrency, root)
                web.log('    %s' % report.fmt_dict(found))
                print('| %s | %d | %s | %.1f | %.0f | %d | %d |' % (
                    backend, concurrency, label, found['claims_per_s'],
                    1000.0 * found['conflicts'] / max(found['claims'], 1),
                    found['failures'], found['overcommitted']), flush=True)


def add_arguments(parser):
    commands = parser.add_subparsers(dest='command', required=True)
    sim = commands.add_parser('simulate')
    sim.add_argument('--computes', type=int, default=10000)
    sim.add_argument('--boots', type=int, default=5000)
    sim.add_argument('--limit', type=int, default=1000)
    sim.add_argument('--seed', type=int, default=1)
    sim.add_argument('--orders', nargs='*',
                     help='only these of default, randomize, spread, pack')
    price = commands.add_parser('cost')
    price.add_argument('--flat', type=int, action='append', default=[])
    price.add_argument('--nested', type=int, action='append', default=[])
    price.add_argument('--limit', type=int, default=1000)
    price.add_argument('--repeats', type=int, default=6)
    price.add_argument('--orders', nargs='*',
                       default=['default', 'spread', 'pack'])
    price.add_argument('--db-url', help='MariaDB/PostgreSQL server URL '
                       '(default: SQLite)')
    price.add_argument('--claim-between', action='store_true',
                       help='one claim on a random provider before every '
                       'request, as when each follows a scheduler\'s claim')
    race = commands.add_parser('claims')
    serving.add_race_arguments(race)
    race.add_argument('--orders', nargs='*', default=['default', 'spread'])
    serving.add_server_arguments(race, '21050-21099')


def main(args):
    if args.command == 'simulate':
        simulate(args)
    elif args.command == 'cost':
        cost(args)
    else:
        args.concurrency = args.concurrency or [10, 50]
        claims(args)
