"""Time the mix's read calls in this process, under whichever Python runs
this file: the repository's (this service) or upstream's venv (its
``placement`` package).  Started by ``bench/run mix inprocess``; it
imports nothing of bench/, so that upstream's Python can run it.

    PYTHON engines/mix_calls.py DB [--repeats N] [--only PREFIX,...]
"""
import argparse
import importlib
import os
import random
import sqlite3
import sys
import tempfile
import time

import webob

HEADERS = {'x-auth-token': 'admin', 'accept': 'application/json',
           'openstack-api-version': 'placement 1.39'}


def application(path, confdir):
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
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('db')
    parser.add_argument('--repeats', type=int, default=30)
    parser.add_argument('--only', default='')
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix='mix-calls-') as confdir:
        time_calls(application(os.path.abspath(args.db), confdir), args)


def time_calls(app, args):
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
