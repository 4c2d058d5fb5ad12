"""POST /capacity with 20 shapes over a 10,000-compute cloud, against
what os-capacity's method costs, in-process.

The cloud (written straight into the tables, as
tests/engine/test_query_plans.py seeds): 6,000 flat compute nodes, 2,000 trees
of a compute node with two NUMA children (VCPU and memory on the children, disk
on the node), and 2,000 compute nodes without local disk drawing DISK_GB from
20 sharing providers (one aggregate each); every compute node in one of four
availability zones (aggregates); a third of the flat nodes with
HW_CPU_X86_AVX2; existing usage drawn at random (fixed seed).

Measured, after one warm-up call:
- ``capacity``: one POST /capacity naming the 20 shapes;
- ``os-capacity``: its method, one unlimited GET /allocation_candidates
  per shape, then per root provider of the answers a read of its usages
  and one of its aggregates (timed on a sample of providers and scaled to
  all of them).

Wall time and CPU time of this process (the database server's CPU is
not in the latter on MariaDB and PostgreSQL).  With ``--read-source
snapshot`` the count and its what-ifs read the app's snapshot, loaded
once the cloud is written; the snapshot's size is printed.

With ``--new-version`` each timed call comes after a write that changes
nothing the count reads (a flat node's traits put again: its generation
moves), so that, from the snapshot, every call counts a version none
counted before, as a worker's first count after a write does.

With ``--what-if``, the POST /capacity measured also takes 40 flat
compute nodes out (their usage made of 10 consumers each, of 2 VCPU,
2 GB and 20 GB) and moves their consumers first (``without`` and
``evacuate``).  With ``--n-plus-one`` it also plays the loss of each of
1,000 flat nodes (an aggregate of their own, each holding 10 such
consumers): ``survive`` over that aggregate.

Usage: ``bench/run capacity [--db-url URL] [--repeats 3] [--sample 500]
[--what-if] [--n-plus-one] [--read-source snapshot] [--new-version]``; a
server URL (as
the tests' PLACEMENT_TEST_*_URL) gets a throw-away database of its own.  To
compare two versions of the code on one cloud, ``--database URL`` uses
that database as it is (seeding it when it has no provider) and keeps
it, and ``--capacity-only`` skips os-capacity's method; the md5 of the
answer is printed.
"""
import hashlib
import json
import logging
import os
import random
import statistics
import time
import uuid

import sqlalchemy as sa
import webob

from placement.config import conf as placement_conf
from placement.data import tables
from placement.web import deploy

from bench.common import serving
from bench.common import cloud
from bench.common import scratch
from bench.common import sources

HEADERS = {'x-auth-token': 'admin', 'accept': 'application/json',
           'content-type': 'application/json',
           'openstack-api-version': 'placement 1.39'}
RP = tables.resource_providers
AZS = 4
# Compute nodes per sharing disk pool.
POOL_SIZE = 500
SHARING = 'MISC_SHARES_VIA_AGGREGATE'
AVX2 = 'HW_CPU_X86_AVX2'


def shapes(az_uuids):
    """The 20 shapes: flavors, some with a trait, an availability zone,
    or a NUMA layout."""
    found = {}
    for vcpu, ram, disk in ((1, 512, 1), (1, 2048, 20), (2, 4096, 40),
                            (4, 8192, 80), (8, 16384, 160),
                            (16, 32768, 320), (2, 16384, 40),
                            (8, 8192, 20)):
        name = 'c%d-m%d-d%d' % (vcpu, ram, disk)
        found[name] = 'resources=VCPU:%d,MEMORY_MB:%d,DISK_GB:%d' % (
            vcpu, ram, disk)
    for vcpu, ram in ((2, 4096), (8, 16384), (32, 65536)):
        found['avx2-c%d' % vcpu] = (
            'resources=VCPU:%d,MEMORY_MB:%d,DISK_GB:20&required=%s'
            % (vcpu, ram, AVX2))
    for index, az in enumerate(az_uuids):
        found['az%d-c4' % index] = (
            'resources=VCPU:4,MEMORY_MB:8192,DISK_GB:40&member_of=' + az)
        found['az%d-c16' % index] = (
            'resources=VCPU:16,MEMORY_MB:32768,DISK_GB:40&member_of=' + az)
    found['numa-2x4'] = ('resources=DISK_GB:40&resources1=VCPU:4,'
                         'MEMORY_MB:8192&resources2=VCPU:4,MEMORY_MB:8192'
                         '&group_policy=isolate')
    assert len(found) == 20, len(found)
    return found


class Seeder:
    """The cloud's rows, with usage drawn at random (fixed seed)."""

    def __init__(self, conn):
        self.conn = conn
        self.rows = cloud.Rows(conn)
        self.random = random.Random(42)

    def provider(self, name, inventory, **kwargs):
        rp = self.rows.provider(name, inventory, **kwargs)
        for rc, (total, ratio, reserved) in inventory.items():
            used = int(self.random.random() * 0.8 * (total - reserved)
                       * ratio)
            if used:
                self.rows.allocation(rp, rc, str(uuid.uuid4()), used)
        return rp

    def cloud(self, computes=10000):
        """Write the cloud (six tenths flat, two nested, two disk-less);
        the availability zones' uuids."""
        flat, nested = computes * 6 // 10, computes // 5
        shared = computes - flat - nested
        az_uuids = [str(uuid.uuid4()) for _ in range(AZS)]
        azs = [self.rows.aggregate(az) for az in az_uuids]
        pools = [self.rows.aggregate()
                 for _ in range(max(1, computes // POOL_SIZE))]
        compute = {'VCPU': (64, 4.0, 0), 'MEMORY_MB': (262144, 1.0, 4096)}
        for index in range(flat):
            self.provider('flat-%05d' % index,
                          dict(compute, DISK_GB=(2000, 1.0, 0)),
                          traits=[AVX2] if index % 3 == 0 else [],
                          aggregates=[azs[index % AZS]])
        numa = {'VCPU': (32, 4.0, 0), 'MEMORY_MB': (131072, 1.0, 2048)}
        for index in range(nested):
            root = self.provider('nested-%05d' % index,
                                 {'DISK_GB': (2000, 1.0, 0)},
                                 aggregates=[azs[index % AZS]])
            for node in range(2):
                self.provider('nested-%05d-numa%d' % (index, node), numa,
                              parent=root, root=root)
        for index, pool in enumerate(pools):
            self.provider('pool-%02d' % index,
                          {'DISK_GB': (100000, 1.0, 0)}, traits=[SHARING],
                          aggregates=[pool])
        for index in range(shared):
            self.provider('diskless-%05d' % index, compute,
                          aggregates=[azs[index % AZS],
                                      pools[index % len(pools)]])
        self.rows.flush()
        cloud.analyze(self.conn)
        return az_uuids


# What --what-if drains: this many flat nodes, each holding this many
# consumers more, of these amounts.
DRAINED = 40
CONSUMERS_EACH = 10
HELD = {'VCPU': 2, 'MEMORY_MB': 2048, 'DISK_GB': 20}


def drained(conn):
    """The uuids of the first DRAINED flat nodes, each holding
    CONSUMERS_EACH consumers (``held_by_consumers``)."""
    return [node.uuid for node in held_by_consumers(
        conn, _flat().order_by(RP.c.id).limit(DRAINED))]


# What --n-plus-one plays: the loss of each of the last RACK flat nodes,
# an aggregate of their own, each holding CONSUMERS_EACH consumers.
RACK = 1000


def rack(conn):
    """The uuid of the aggregate of the last RACK flat nodes (made once),
    each holding CONSUMERS_EACH consumers."""
    nodes = held_by_consumers(
        conn, _flat().order_by(RP.c.id.desc()).limit(RACK))
    rpa = tables.resource_provider_aggregates
    found = conn.execute(sa.select(rpa.c.aggregate_id).where(
        rpa.c.resource_provider_id == nodes[0].id).order_by(
            rpa.c.aggregate_id.desc())).scalars().first()
    if conn.execute(sa.select(sa.func.count()).select_from(rpa).where(
            rpa.c.aggregate_id == found)).scalar() != RACK:
        rows = cloud.Rows(conn)
        found = rows.aggregate()
        rows.flush()
        conn.execute(rpa.insert(), [
            {'resource_provider_id': node.id, 'aggregate_id': found}
            for node in nodes])
    return conn.execute(sa.select(tables.placement_aggregates.c.uuid).where(
        tables.placement_aggregates.c.id == found)).scalar()


def _flat():
    return sa.select(RP.c.id, RP.c.uuid).where(RP.c.name.like('flat-%'))


def held_by_consumers(conn, nodes):
    """The rows (id, uuid) of ``nodes`` (a statement), their seeded usage
    replaced by CONSUMERS_EACH consumers of HELD each (once: a database
    kept by --database is not changed again)."""
    allocations = tables.allocations
    found = conn.execute(nodes).all()
    held = conn.execute(sa.select(sa.func.count()).select_from(
        allocations).where(allocations.c.resource_provider_id
                           == found[0].id)).scalar()
    if held != CONSUMERS_EACH * len(HELD):
        conn.execute(allocations.delete().where(
            allocations.c.resource_provider_id.in_(
                [node.id for node in found])))
        rows = cloud.Rows(conn)
        for node in found:
            for _ in range(CONSUMERS_EACH):
                consumer = str(uuid.uuid4())
                for rc, amount in HELD.items():
                    rows.allocation(node.id, rc, consumer, amount)
        rows.flush()
    return found


def call(app, method, url, body=None):
    """(wall s, CPU s, JSON answer)."""
    request = webob.Request.blank(url, headers=HEADERS, method=method)
    if body is not None:
        request.body = json.dumps(body).encode()
    wall, cpu = time.perf_counter(), time.process_time()
    response = request.get_response(app)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if response.status_int != 200:
        raise SystemExit('%s %s: %s %s' % (method, url, response.status,
                                           response.text[:300]))
    return wall, cpu, response.json


def rewrite(app, uuid):
    """Put the traits of provider ``uuid`` again: its generation moves,
    nothing a count reads does."""
    url = '/resource_providers/%s/traits' % uuid
    _, _, held = call(app, 'GET', url)
    call(app, 'PUT', url, held)


def os_capacity(app, named, sample):
    """(wall s, CPU s) of os-capacity's method: the candidates of every
    shape, then two reads per root provider they name (a sample timed,
    scaled to all)."""
    wall = cpu = 0.0
    roots = set()
    for query in named.values():
        spent_wall, spent_cpu, body = call(
            app, 'GET', '/allocation_candidates?' + query)
        wall += spent_wall
        cpu += spent_cpu
        roots.update(summary['root_provider_uuid'] for summary in
                     body['provider_summaries'].values())
    timed = sorted(roots)[:sample]
    per_wall = per_cpu = 0.0
    for rp in timed:
        for what in ('usages', 'aggregates'):
            spent_wall, spent_cpu, _ = call(
                app, 'GET', '/resource_providers/%s/%s' % (rp, what))
            per_wall += spent_wall
            per_cpu += spent_cpu
    scale = len(roots) / max(len(timed), 1)
    return wall + per_wall * scale, cpu + per_cpu * scale, len(roots)


def add_arguments(parser):
    parser.add_argument('--db-url')
    parser.add_argument('--computes', type=int, default=10000)
    parser.add_argument('--repeats', type=int, default=3)
    parser.add_argument('--sample', type=int, default=500)
    parser.add_argument('--database')
    parser.add_argument('--capacity-only', action='store_true')
    parser.add_argument('--what-if', action='store_true')
    parser.add_argument('--n-plus-one', action='store_true')
    parser.add_argument('--read-source', choices=['database', 'snapshot'],
                        default='database')
    parser.add_argument('--new-version', action='store_true')


def main(args):
    with scratch.directory('capacity-bench-') as workdir:
        return measure(args, workdir)


def measure(args, workdir):
    fresh = serving.Database(args.db_url, workdir,
                             'capacity_' + uuid.uuid4().hex[:8],
                             charset='utf8mb4')
    url = args.database or fresh.url
    if not args.database:
        fresh.create()
    try:
        conf = placement_conf.load(config_files=[serving.write_conf(
            os.path.join(workdir, 'placement.conf'), url, sync=True)])
        app = deploy.loadapp(conf)
        logging.getLogger().setLevel(logging.WARNING)
        engine = sa.create_engine(url)
        with engine.begin() as conn:
            if conn.execute(sa.select(tables.resource_providers.c.id)
                            .limit(1)).first():
                az_uuids = list(conn.execute(
                    sa.select(tables.placement_aggregates.c.uuid)
                    .order_by(tables.placement_aggregates.c.id)
                    .limit(AZS)).scalars())
            else:
                az_uuids = Seeder(conn).cloud(args.computes)
            out = drained(conn) if args.what_if else None
            lost = rack(conn) if args.n_plus_one else None
            rewritten = conn.execute(_flat().order_by(RP.c.id).limit(
                1)).first().uuid if args.new_version else None
        engine.dispose()
        if args.read_source == 'snapshot':
            # A new app: its workers' snapshot loads the cloud as written.
            app = sources.loaded_app(sources.snapshot_conf(
                os.path.join(workdir, 'snapshot.conf'), url))
            logging.getLogger().setLevel(logging.WARNING)
            print('snapshot: %.1f MB per worker (%.1f MB more once a '
                  'what-if ran), loaded in %.2f s'
                  % sources.snapshot_size(url))
        named = shapes(az_uuids)
        body = {'shapes': named}
        if out is not None:
            body.update(without={'roots': out}, evacuate=True)
        if lost is not None:
            body.update(survive={'each_root': True, 'member_of': lost})
        call(app, 'POST', '/capacity', body)
        runs = []
        for _ in range(args.repeats):
            if rewritten is not None:
                rewrite(app, rewritten)
            # Only the last answer is kept: a server keeps none, and the
            # collector would walk the others' objects in every count.
            answer = None
            wall, cpu, answer = call(app, 'POST', '/capacity', body)
            runs.append((wall, cpu))
        print('backend: %s, read from the %s%s' % (
            sa.engine.make_url(url).get_backend_name(), args.read_source,
            ', a new version each call' if rewritten else ''))
        print('capacity, 20 shapes: wall %.2f s (min %.2f), CPU %.2f s' % (
            statistics.median(run[0] for run in runs),
            min(run[0] for run in runs),
            statistics.median(run[1] for run in runs)))
        print('  runs (wall, CPU): %s; answer md5 %s; load %.1f' % (
            ', '.join('%.2f, %.2f s' % run for run in runs),
            hashlib.md5(json.dumps(answer).encode()).hexdigest(),
            os.getloadavg()[0]))
        if not args.capacity_only:
            wall, cpu, roots = os_capacity(app, named, args.sample)
            print('os-capacity method: wall %.1f s, CPU %.1f s (%d root '
                  'providers read, %d timed)' % (wall, cpu, roots,
                                                 min(args.sample, roots)))
        for name, shape in answer['shapes'].items():
            print('  %-16s fits %7d  on %5d providers' % (
                name, shape['fits'], len(shape['providers'])))
        print('  stranded (all 20 shapes): %s' % answer['stranded'])
        if out is not None:
            moved = answer['evacuation']
            print('  evacuation: %d moved, %d nowhere, %d dropped' % (
                moved['moved'], moved['nowhere'], moved['dropped']))
        if lost is not None:
            print('  N+1 over %d nodes: %d failing' % (
                RACK, len(answer['survive']['failing'])))
    finally:
        if not args.database:
            fresh.drop()
