"""The ``simulate`` mode of ``bench/run weigh``: a nova-like scheduler
boots instances one at a time, in-process, and is compared with an ideal
one.  Also the orders compared, and the headers and flavor query that
``cost`` and ``claims`` share."""
import json
import logging
import os
import random
import sqlite3
import statistics
import time
import uuid

import webob

from bench.common import report
from bench.common import web
from bench.common import cloud
from bench.common import scratch
from bench.common import serving
from bench.commands.mix import traffic

from placement.config import conf as placement_conf
from placement.web import deploy

HEADERS = dict(traffic.HEADERS)
FLAVORS = ({'VCPU': 1, 'MEMORY_MB': 2048, 'DISK_GB': 20},
           {'VCPU': 2, 'MEMORY_MB': 4096, 'DISK_GB': 40},
           {'VCPU': 4, 'MEMORY_MB': 8192, 'DISK_GB': 80},
           {'VCPU': 8, 'MEMORY_MB': 16384, 'DISK_GB': 160})
RAM = 'MEMORY_MB'
# (label, [placement] options, nova packs)
ORDERS = (
    ('default', {}, False),
    ('randomize', {'randomize_allocation_candidates': 'true'}, False),
    ('spread', {'candidate_order': 'spread'}, False),
    ('pack', {'candidate_order': 'pack'}, True),
)


def query(flavor):
    return 'resources=' + ','.join('%s:%d' % item for item in flavor.items())


class App:
    """The WSGI application on one SQLite file with extra [placement]
    options, called directly."""

    def __init__(self, path, options):
        workdir = os.path.dirname(path)
        config = serving.write_conf(
            os.path.join(workdir, 'placement-%s.conf' % uuid.uuid4()),
            'sqlite:///' + path, sync=True,
            extra='[placement]\n' + ''.join('%s = %s\n' % item
                                            for item in options.items()))
        self.app = deploy.loadapp(placement_conf.load(config_files=[config]))
        logging.getLogger().setLevel(logging.WARNING)

    def __call__(self, method, url, body=None):
        request = webob.Request.blank(url, method=method, headers=HEADERS)
        if body is not None:
            request.body = json.dumps(body).encode()
        response = request.get_response(self.app)
        return response.status_int, (response.json if response.body
                                     else None)


def make_cloud(workdir, computes):
    """A migrated SQLite file holding the cloud; its path."""
    path = os.path.join(workdir, 'cloud.sqlite')
    app = App(path, {})
    # The standard classes and traits are written on first use.
    app('GET', '/resource_classes')
    app('GET', '/traits?name=startswith:HW_')
    cloud.Cloud(computes, 0.0, 0.0).write('sqlite:///' + path)
    return path


def copy(source, target):
    """A copy of an SQLite database, with what its write-ahead log still
    holds."""
    with sqlite3.connect(source) as old, sqlite3.connect(target) as new:
        old.backup(new)
    old.close()
    new.close()


def nova_pick(body, packing):
    """The candidate nova's RAM weigher puts first (stable on ties, as
    nova's sort is): most free RAM, least when packing."""
    summaries = body['provider_summaries']

    def free_ram(candidate):
        return sum(
            summaries[rp]['resources'][RAM]['capacity']
            - summaries[rp]['resources'][RAM]['used']
            for rp, value in candidate['allocations'].items()
            if RAM in value['resources'])

    candidates = body['allocation_requests']
    if not candidates:
        return None
    return (min if packing else max)(candidates, key=free_ram)


def simulate_order(path, options, packing, flavors, limit):
    """Boot ``flavors`` in turn; ({host uuid: RAM used}, [CPU ms of each
    candidates call], boots that found no candidate)."""
    app = App(path, options)
    project, user = str(uuid.uuid4()), str(uuid.uuid4())
    used = {}
    spent = []
    failed = 0
    for flavor in flavors:
        started = time.process_time()
        status, body = app('GET', '/allocation_candidates?%s&limit=%d' % (
            query(flavor), limit))
        spent.append(1000 * (time.process_time() - started))
        assert status == 200, body
        chosen = nova_pick(body, packing)
        if chosen is None:
            failed += 1
            continue
        status, answer = app('PUT', '/allocations/%s' % uuid.uuid4(), {
            'allocations': chosen['allocations'], 'project_id': project,
            'user_id': user, 'consumer_generation': None,
            'consumer_type': 'INSTANCE'})
        assert status == 204, answer
        for rp, value in chosen['allocations'].items():
            used[rp] = used.get(rp, 0) + value['resources'].get(RAM, 0)
    return used, spent, failed


def ideal(computes, flavors, packing):
    """RAM used per host by a scheduler that sees every host: the most
    free RAM (least when packing) among the hosts the flavor fits."""
    free = [dict(cloud.FLAT) for _ in range(computes)]
    for flavor in flavors:
        fitting = [host for host in range(computes)
                   if all(free[host][rc] >= amount
                          for rc, amount in flavor.items())]
        if not fitting:
            continue
        pick = (min if packing else max)(
            fitting, key=lambda host: free[host][RAM])
        for rc, amount in flavor.items():
            free[pick][rc] -= amount
    return [cloud.FLAT[RAM] - host[RAM] for host in free]


def utilization(used_ram, computes):
    """(standard deviation of RAM utilization in %, computes used)."""
    values = list(used_ram) + [0] * (computes - len(used_ram))
    shares = [100.0 * value / cloud.FLAT[RAM] for value in values]
    return statistics.pstdev(shares), sum(1 for value in values if value)


def simulate(args):
    rng = random.Random(args.seed)
    flavors = [rng.choice(FLAVORS) for _ in range(args.boots)]
    with scratch.directory('weigh-sim-') as workdir:
        cloud = make_cloud(workdir, args.computes)
        rows = []
        for packing in (False, True):
            spread, hosts = utilization(
                ideal(args.computes, flavors, packing), args.computes)
            rows.append(('ideal (%s)' % ('pack' if packing else 'spread'),
                         spread, hosts, None, 0))
        for label, options, packing in ORDERS:
            if args.orders and label not in args.orders:
                continue
            path = os.path.join(workdir, '%s.sqlite' % label)
            copy(cloud, path)
            web.log('%s: %d boots on %d computes, limit=%d' % (
                label, args.boots, args.computes, args.limit))
            used, spent, failed = simulate_order(path, options, packing,
                                                 flavors, args.limit)
            spread, hosts = utilization(used.values(), args.computes)
            rows.append((label, spread, hosts, statistics.median(spent),
                         failed))
    print(report.markdown_head([
        'order', 'RAM utilization std (%)', 'computes used',
        'candidates CPU ms (median)', 'boots without candidates']))
    for label, spread, hosts, cpu, failed in rows:
        print('| %s | %.3f | %d | %s | %d |' % (
            label, spread, hosts, '-' if cpu is None else '%.1f' % cpu,
            failed))
