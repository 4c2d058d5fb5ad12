"""What GET /summary costs on a large cloud, per database.

    bench/run summary [--providers 10000]
        [--rounds 20] [--db-url URL ...] [--explain]

Each ``--db-url`` names a database server (``mysql+pymysql://root@127.0.0.1/``,
``postgresql+psycopg2://postgres@127.0.0.1/postgres``); a fresh database is
created on it and dropped afterwards.  SQLite (a file) is always measured.
The database gets N providers in N/4 trees (a root and three children),
VCPU, MEMORY_MB and DISK_GB on each root, PCPU on each child, a
consumer on every second provider (500 projects, two consumer types,
some without a type) and every fiftieth provider without inventory,
written with bulk inserts.  The WSGI application is called in this
process (no HTTP): reported are the median, least and greatest wall
time of the request, the server time a client waits for (on a shared
machine the least shows what the queries cost, the median what the
neighbours let them have).  ``--explain`` prints the
plan of each statement on MariaDB and PostgreSQL.
"""
import os
import statistics
import time
import uuid

import sqlalchemy as sa
import webob

from placement.config import conf as placement_conf
from placement.data import db
from placement.data import tables
from placement.objects import bootstrap
from placement.objects import summary
from placement.web import deploy

from bench.common import cloud
from bench.common import scratch
from bench.common import serving

HEADERS = {'X-Auth-Token': 'admin',
           'OpenStack-API-Version': 'placement latest'}
ROOT_CLASSES = (('VCPU', 64, 4.0), ('MEMORY_MB', 262144, 1.0),
                ('DISK_GB', 4000, 1.0))


def fill(database, count):
    with database.engine.begin() as conn:
        conn.execute(tables.projects.insert(), [
            {'id': p, 'external_id': 'project-%03d' % p}
            for p in range(1, 501)])
        conn.execute(tables.users.insert(), [{'id': 1, 'external_id': 'u'}])
        conn.execute(tables.consumer_types.insert(), [
            {'id': 1, 'name': 'INSTANCE'}, {'id': 2, 'name': 'MIGRATION'}])
        rows = cloud.Rows(conn)
        for rp in range(1, count + 1):
            root = rp - (rp - 1) % 4
            if rp % 50 == 0:
                classes = ()
            elif rp == root:
                classes = ROOT_CLASSES
            else:
                classes = (('PCPU', 16, 1.0),)
            rows.provider('rp-%06d' % rp, {
                name: (total, ratio, rp % 3)
                for name, total, ratio in classes},
                parent=None if rp == root else root)
            if classes and rp % 2:
                rows.allocation(rp, classes[0][0], rows.consumer(
                    rp % 500 + 1, 1, (None, 1, 2)[rp % 3]), rp % 13 + 1)
        rows.flush()
    with database.engine.connect() as conn:
        cloud.analyze(conn)


def explain(database):
    """The plan of every statement GET /summary runs."""
    plans = []

    def capture(conn, cursor, statement, parameters, context, many):
        if statement.lstrip().upper().startswith('SELECT'):
            plans.append((statement, parameters))
    sa.event.listen(database.engine, 'before_cursor_execute', capture)
    with database.engine.connect() as conn:
        summary.read(conn)
    sa.event.remove(database.engine, 'before_cursor_execute', capture)
    with database.engine.connect() as conn:
        for statement, parameters in plans:
            print('--', ' '.join(statement.split())[:160])
            for row in conn.exec_driver_sql('EXPLAIN ' + statement,
                                            parameters):
                print('   ', ' | '.join(str(v) for v in row))


def measure(server_url, count, rounds, with_plans):
    with scratch.directory('summary-bench-') as workdir:
        measure_in(workdir, server_url, count, rounds, with_plans)


def measure_in(workdir, server_url, count, rounds, with_plans):
    fresh = serving.Database(server_url, workdir,
                             'summary_' + uuid.uuid4().hex[:10],
                             charset='utf8mb4')
    fresh.create()
    conf = placement_conf.load(config_files=[serving.write_conf(
        os.path.join(workdir, 'placement.conf'), fresh.url, sync=False)])
    database = db.Database(conf)
    try:
        bootstrap.prepare_database(database, migrate=True)
        fill(database, count)
        app = deploy.build_app(conf, database)
        times = []
        for _ in range(rounds + 2):
            request = webob.Request.blank('/summary', headers=HEADERS)
            started = time.perf_counter()
            response = request.get_response(app)
            times.append(time.perf_counter() - started)
            assert response.status_int == 200, response.text[:300]
        times = sorted(times[2:])
        print('%s, %d providers: GET /summary median %.1f ms, min %.1f ms, '
              'max %.1f ms, %d bytes'
              % (database.engine.dialect.name, count,
                 statistics.median(times) * 1000, times[0] * 1000,
                 times[-1] * 1000, len(response.body)))
        if with_plans and database.engine.dialect.name != 'sqlite':
            explain(database)
    finally:
        database.engine.dispose()
        fresh.drop()


def add_arguments(parser):
    parser.add_argument('--providers', type=int, default=10000)
    parser.add_argument('--rounds', type=int, default=20)
    parser.add_argument('--db-url', action='append', default=[])
    parser.add_argument('--explain', action='store_true')


def main(args):
    for server_url in [None] + args.db_url:
        measure(server_url, args.providers, args.rounds, args.explain)
