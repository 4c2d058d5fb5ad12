#!/usr/bin/env python3
"""CPU time per request of the mix's read calls, in-process, for this
service or upstream, on one SQLite database (made by ``--make``).

    .venv/bin/python bench/mix_inprocess.py --make DB --computes 10000
    .venv/bin/python bench/mix_inprocess.py DB            # this service
    /work/upstream-venv/bin/python bench/mix_inprocess.py DB   # upstream

The WSGI application is called directly (no HTTP, no other process), and
``time.process_time()`` is taken around each call, so the figures hold on
a machine busy with other work.  The same database file serves both
(copy it first: both servers write their standard classes and traits).
"""
import argparse
import importlib
import os
import random
import sys
import tempfile
import time

HEADERS = {'x-auth-token': 'admin', 'accept': 'application/json',
           'openstack-api-version': 'placement 1.39'}


def make(path, computes):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import mix_bench
    from placement.config import conf as placement_conf
    from placement.data import db
    from placement.objects import bootstrap
    confdir = tempfile.mkdtemp()
    with open(os.path.join(confdir, 'placement.conf'), 'w') as out:
        out.write('[placement_database]\nconnection = sqlite:///%s\n' % path)
    conf = placement_conf.load(
        config_files=[os.path.join(confdir, 'placement.conf')])
    bootstrap.prepare_database(db.Database(conf), migrate=True)
    mix_bench.Cloud(computes, 0.2, 0.1).write('sqlite:///' + path)


def application(path):
    confdir = tempfile.mkdtemp()
    with open(os.path.join(confdir, 'placement.conf'), 'w') as out:
        out.write('[api]\nauth_strategy = noauth2\n'
                  '[placement_database]\nconnection = sqlite:///%s\n' % path)
    os.environ['OS_PLACEMENT_CONFIG_DIR'] = confdir
    sys.argv = sys.argv[:1]
    try:
        return importlib.import_module('placement.wsgi.api').application
    except ImportError:
        return importlib.import_module('placement.wsgi').application


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('db')
    parser.add_argument('--make', action='store_true')
    parser.add_argument('--computes', type=int, default=10000)
    parser.add_argument('--repeats', type=int, default=30)
    parser.add_argument('--only', default='',
                        help='comma-separated label prefixes to time')
    args = parser.parse_args()
    if args.make:
        make(os.path.abspath(args.db), args.computes)
        return
    import sqlite3
    import webob
    app = application(os.path.abspath(args.db))
    with sqlite3.connect(args.db) as conn:
        rows = conn.execute(
            'SELECT p.uuid, (SELECT count(*) FROM resource_providers c '
            'WHERE c.root_provider_id = p.id) FROM resource_providers p '
            "WHERE p.name LIKE 'compute-%' AND p.parent_provider_id IS NULL"
        ).fetchall()
    rng = random.Random(1)
    flat = [u for u, n in rows if n == 1]
    nested = [u for u, n in rows if n > 1]
    cases = {
        'GET /resource_providers (all)': lambda: '/resource_providers',
        'tree (in_tree)': lambda: ('/resource_providers?in_tree='
                                   + rng.choice(nested)),
        'inventories': lambda: ('/resource_providers/%s/inventories'
                                % rng.choice(flat)),
        'traits': lambda: '/resource_providers/%s/traits' % rng.choice(flat),
        'aggregates': lambda: ('/resource_providers/%s/aggregates'
                               % rng.choice(flat)),
        'usages (project)': lambda: '/usages?project_id=%032x' % 7,
        'provider usages': lambda: ('/resource_providers/%s/usages'
                                    % rng.choice(flat)),
        'candidates limit=1000': lambda: (
            '/allocation_candidates?resources=VCPU:2,MEMORY_MB:4096,'
            'DISK_GB:20&limit=1000'),
    }
    wanted = [w for w in args.only.split(',') if w]
    for label, url in cases.items():
        if wanted and not any(label.startswith(w) for w in wanted):
            continue
        times = []
        for attempt in range(args.repeats + 1):
            request = webob.Request.blank(url(), headers=HEADERS)
            started = time.process_time()
            response = request.get_response(app)
            spent = time.process_time() - started
            assert response.status_int == 200, (label, response.body[:300])
            if attempt:
                times.append(spent)
        times.sort()
        print('%-30s min %8.2f ms  median %8.2f ms' % (
            label, 1000 * times[0], 1000 * times[len(times) // 2]),
            flush=True)


if __name__ == '__main__':
    main()
