"""What the Prometheus metrics cost: candidates with and without them, and
one scrape of a large cloud.

    bench/run metrics [--providers 1000]
        [--scrape-providers 10000] [--rounds 30]

Everything runs in this process: the WSGI application is called directly
(no HTTP, no gunicorn), and CPU time (``time.process_time``) is measured
per request, so that other work on the machine does not blur the figures.
The metrics run in their multiprocess mode, as under ``placement-api``.

1. Candidates: an SQLite database of N flat providers (VCPU, MEMORY_MB,
   DISK_GB, one allocation on every tenth), written with bulk inserts; two
   applications on it, metrics enabled and disabled, each with its own
   engine; ``GET /allocation_candidates`` (all N match) alternately on
   each, ``--rounds`` pairs after a warm-up, then the same for a small
   ``GET /traits`` (the fixed cost per request).  Reported: median CPU ms
   of each and the median of the paired differences.
2. Scrape: a database of M providers; ``GET /metrics`` with
   ``cache_seconds = 0`` (every scrape runs the SQL), cloud-wide and with
   ``per_provider = true``.  Reported: median wall and CPU ms.
3. Shapes (``--shapes``): the capacity command's cloud of 10,000 compute
   nodes and its 20 shapes as ``[metrics] capacity_shape`` lines, with
   ``capacity_per_aggregate`` and ``cache_seconds = 600``: the first
   scrape (which counts them), ``--rounds`` scrapes from the cache,
   scrapes for 20 s with ``cache_seconds = 3`` (expired figures answer
   while a thread counts them again) and one POST /capacity of the same
   shapes; ``uptime`` before and after.
"""
import os
import statistics
import subprocess
import tempfile
import time
import uuid

# The metric files of this run; named before any metric exists.
os.environ['PROMETHEUS_MULTIPROC_DIR'] = tempfile.mkdtemp(
    prefix='metrics-bench-')

import sqlalchemy as sa  # noqa: E402
import webob  # noqa: E402

from placement.config import conf as placement_conf  # noqa: E402
from placement.data import db  # noqa: E402
from placement.data import tables  # noqa: E402
from placement.objects import bootstrap  # noqa: E402
from placement.web import deploy  # noqa: E402

from bench.commands import capacity  # noqa: E402
from bench.common import cloud  # noqa: E402
from bench.common import scratch  # noqa: E402
from bench.common import serving  # noqa: E402

QUERY = ('/allocation_candidates?'
         'resources=VCPU:1,MEMORY_MB:256,DISK_GB:10')
HEADERS = {'X-Auth-Token': 'admin',
           'OpenStack-API-Version': 'placement latest'}


def write_conf(workdir, url, metrics):
    """``metrics``: {option: value, or a list of a repeated option's}."""
    path = os.path.join(workdir, 'placement-%d.conf' % len(os.listdir(
        workdir)))
    lines = ['%s = %s\n' % (name, one) for name, value in metrics.items()
             for one in (value if isinstance(value, list) else [value])]
    serving.write_conf(path, url, sync=False,
                       extra='[metrics]\n' + ''.join(lines))
    return placement_conf.load(config_files=[path])


def app_for(conf):
    return deploy.build_app(conf, db.Database(conf))


def fill(url, count):
    """``count`` flat providers and an allocation on every tenth."""
    conf = write_conf(os.path.dirname(url[len('sqlite:///'):]), url,
                      {'enabled': False})
    database = db.Database(conf)
    bootstrap.prepare_database(database, migrate=True)
    with database.engine.begin() as conn:
        conn.execute(tables.projects.insert(), [{'id': 1,
                                                 'external_id': 'p'}])
        conn.execute(tables.users.insert(), [{'id': 1, 'external_id': 'u'}])
        rows = cloud.Rows(conn)
        for rp in range(1, count + 1):
            rp_uuid = str(uuid.uuid4())
            rows.provider(rp_uuid, {'VCPU': 32, 'MEMORY_MB': 8192,
                                    'DISK_GB': 2000}, provider_uuid=rp_uuid)
            if rp % 10 == 0:
                rows.allocation(rp, 'VCPU', rows.consumer(1, 1), 2)
        rows.flush()
    database.engine.dispose()


def call(app, path):
    """(wall s, CPU s, response) of one request."""
    request = webob.Request.blank(path, headers=HEADERS)
    wall, cpu = time.perf_counter(), time.process_time()
    response = request.get_response(app)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    assert response.status_int == 200, response.text[:300]
    return wall, cpu, response


def database(workdir, count):
    """A SQLite cloud of ``count`` providers, filled at its first use
    (the candidates and the scrapes may ask for the same size)."""
    path = os.path.join(workdir, 'p%d.sqlite' % count)
    url = 'sqlite:///' + path
    if not os.path.exists(path):
        fill(url, count)
    return url


def candidates(workdir, count, rounds):
    url = database(workdir, count)
    apps = {'enabled': app_for(write_conf(workdir, url, {})),
            'disabled': app_for(write_conf(workdir, url,
                                           {'enabled': False}))}
    # The candidates path, and a trivial request for the fixed cost.
    for path, label in ((QUERY, 'candidates at %d providers' % count),
                        ('/traits?name=in:HW_CPU_X86_AVX2', 'GET /traits')):
        cpu = {name: [] for name in apps}
        for _ in range(3):
            for app in apps.values():
                call(app, path)
        for _ in range(rounds):
            for name, app in apps.items():
                cpu[name].append(call(app, path)[1])
        on, off = (statistics.median(cpu[n])
                   for n in ('enabled', 'disabled'))
        # Pairs ran back to back: their differences cancel slow drifts.
        paired = statistics.median(
            a - b for a, b in zip(cpu['enabled'], cpu['disabled']))
        print('%s, %d rounds: CPU ms median with metrics %.3f, without '
              '%.3f; median paired difference %+.3f ms (%+.1f%%)'
              % (label, rounds, on * 1000, off * 1000, paired * 1000,
                 paired / off * 100))


def scrape(workdir, count, rounds):
    url = database(workdir, count)
    for options in ({'cache_seconds': 0},
                    {'cache_seconds': 0, 'per_provider': True}):
        app = app_for(write_conf(workdir, url, options))
        call(app, '/metrics')
        times = [call(app, '/metrics')[:2] for _ in range(rounds)]
        size = len(call(app, '/metrics')[2].body)
        print('scrape at %d providers%s: wall ms median %.1f, CPU ms '
              'median %.1f, %d bytes'
              % (count, ', per provider' if options.get('per_provider')
                 else '', statistics.median(t[0] for t in times) * 1000,
                 statistics.median(t[1] for t in times) * 1000, size))


def shape_scrapes(workdir, rounds, computes):
    """The first scrape of 20 configured shapes, then cached ones."""
    url = 'sqlite:///' + os.path.join(workdir, 'shapes.sqlite')
    bootstrap.prepare_database(db.Database(write_conf(
        workdir, url, {'enabled': False})), migrate=True)
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        az_uuids = capacity.Seeder(conn).cloud(computes)
    engine.dispose()
    named = capacity.shapes(az_uuids)
    lines = ['%s %s' % item for item in named.items()]
    conf = write_conf(workdir, url, {
        'cache_seconds': 600, 'capacity_per_aggregate': True,
        'capacity_shape': lines})
    app = app_for(conf)
    print(subprocess.run(['uptime'], capture_output=True,
                         text=True).stdout.strip())
    wall, cpu, response = call(app, '/metrics')
    fits = [line for line in response.text.splitlines()
            if line.startswith('placement_shape_fits{')]
    assert len(fits) == 20, fits
    print('shapes: first scrape, 20 shapes at 10,000 computes: wall %.2f s, '
          'CPU %.2f s, %d bytes' % (wall, cpu, len(response.body)))
    times = [call(app, '/metrics')[:2] for _ in range(rounds)]
    print('shapes: cached scrape, %d rounds: wall ms median %.1f (max '
          '%.1f), CPU ms median %.1f' % (
              rounds, statistics.median(t[0] for t in times) * 1000,
              max(t[0] for t in times) * 1000,
              statistics.median(t[1] for t in times) * 1000))
    # Expired figures: a scrape answers with them while a thread counts
    # again; scraped every half second for 20 s, expiring every 3 s.
    app = app_for(write_conf(workdir, url, {
        'cache_seconds': 3, 'capacity_per_aggregate': True,
        'capacity_shape': lines}))
    call(app, '/metrics')
    times = []
    end = time.monotonic() + 20
    while time.monotonic() < end:
        times.append(call(app, '/metrics')[0])
        time.sleep(0.5)
    print('shapes: scrapes every 0.5 s for 20 s, cache_seconds = 3 (each '
          'expiry counted again in a thread): wall ms median %.1f, max '
          '%.1f (%d scrapes)' % (statistics.median(times) * 1000,
                                 max(times) * 1000, len(times)))
    # The same count asked of the API, for comparison with the first.
    wall, cpu, _ = capacity.call(app, 'POST', '/capacity',
                                 {'shapes': named})
    print('shapes: POST /capacity of the same 20: wall %.2f s, CPU %.2f s'
          % (wall, cpu))
    print(subprocess.run(['uptime'], capture_output=True,
                         text=True).stdout.strip())


def add_arguments(parser):
    parser.add_argument('--providers', type=int, default=1000)
    parser.add_argument('--scrape-providers', type=int, default=10000)
    parser.add_argument('--rounds', type=int, default=30)
    parser.add_argument('--shapes', action='store_true',
                        help='only the scrapes of 20 configured shapes')
    parser.add_argument('--computes', type=int, default=10000,
                        help='compute nodes of the --shapes cloud')


def main(args):
    with scratch.directory('metrics-bench-') as workdir:
        return measure(args, workdir)


def measure(args, workdir):
    if args.shapes:
        shape_scrapes(workdir, args.rounds, args.computes)
        return
    candidates(workdir, args.providers, args.rounds)
    scrape(workdir, args.scrape_providers, max(5, args.rounds // 3))
