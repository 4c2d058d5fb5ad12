"""A full GET /allocation_candidates against its floor, in-process.

The floor of a flat full answer is what no engine can skip: one SQL
read of every inventory with its usage (the providers' uuids and the
classes' names joined in, the driver's rows as they come), building the answer's JSON from those rows in the plainest Python
(one candidate per provider holding every class asked, a summary per
provider) and encoding it with orjson.  The answer is this service's
own, through the WSGI application called directly (no HTTP), reading
the database or its snapshot (loaded before the first call).  The data
set is the flat one of ``bench/run candidates`` (a required trait and
an aggregate every provider passes), in SQLite.  CPU time per call
(``time.process_time``), the median of ``--repeats`` after a warm-up,
so the figures hold on a machine busy with other work.

Usage: ``bench/run answer-floor --flat 1000 [--repeats 20]``.
"""
import logging
import os
import statistics
import time

import orjson
import sqlalchemy as sa
import webob

from bench.commands import explain
from bench.common import report
from bench.common import scratch
from bench.common import sources

from placement.web import deploy
from placement.web import gc_pause

# Usage summed once per (provider, class), joined to every inventory.
_FLOOR = (
    'SELECT rp.uuid, rc.name, inv.total, inv.reserved, '
    'inv.allocation_ratio, usage.used '
    'FROM inventories inv '
    'JOIN resource_providers rp ON rp.id = inv.resource_provider_id '
    'JOIN resource_classes rc ON rc.id = inv.resource_class_id '
    'LEFT JOIN (SELECT resource_provider_id, resource_class_id, '
    '           SUM(used) AS used FROM allocations '
    '           GROUP BY resource_provider_id, resource_class_id) usage '
    '  ON usage.resource_provider_id = inv.resource_provider_id '
    ' AND usage.resource_class_id = inv.resource_class_id '
    'ORDER BY rp.id')


def _asked(query):
    """{class name: amount} of the query's unsuffixed ``resources``."""
    resources = dict(part.split('=', 1) for part in query.split('&'))
    return {name: int(amount) for name, amount in (
        item.split(':') for item in resources['resources'].split(','))}


def floor_answer(engine, asked):
    """The floor's bytes: one read, the plainest build, orjson (the
    collector paused, as the service pauses it for a large answer)."""
    with gc_pause.collection_paused():
        return _floor_answer(engine, asked)


def _floor_answer(engine, asked):
    summaries = {}
    with engine.connect() as conn:
        # The driver's rows as they come: nothing between them and Python.
        for uuid, name, total, reserved, ratio, used in \
                conn.exec_driver_sql(_FLOOR).fetchall():
            summaries.setdefault(uuid, {})[name] = {
                'capacity': int((total - reserved) * ratio),
                'used': used or 0}
    requests = [
        {'allocations': {uuid: {'resources': asked}}, 'mappings': {
            '': [uuid]}}
        for uuid, held in summaries.items() if asked.keys() <= held.keys()]
    return orjson.dumps({
        'allocation_requests': requests,
        'provider_summaries': {
            uuid: {'resources': held, 'traits': [],
                   'parent_provider_uuid': None,
                   'root_provider_uuid': uuid}
            for uuid, held in summaries.items()}})


def _cpu_ms(call, repeats):
    call()
    times = []
    for _ in range(repeats):
        started = time.process_time()
        call()
        times.append((time.process_time() - started) * 1000.0)
    return statistics.median(times)


def add_arguments(parser):
    parser.add_argument('--flat', type=int, default=1000)
    parser.add_argument('--repeats', type=int, default=20)


def main(args):
    with scratch.directory('answer-floor-') as workdir:
        return measure(args, workdir)


def measure(args, workdir):
    path, conf = explain.sqlite_conf(workdir)
    logging.getLogger().setLevel(logging.WARNING)
    apps = {'database': deploy.loadapp(conf)}
    url = conf.placement_database.connection
    engine = sa.create_engine(url)
    query = explain.fill(engine, 'flat', args.flat)
    apps['snapshot'] = sources.loaded_app(sources.snapshot_conf(
        os.path.join(workdir, 'snapshot.conf'), url))
    logging.getLogger().setLevel(logging.WARNING)
    asked = _asked(query)

    def answer(app):
        response = webob.Request.blank(
            '/allocation_candidates?' + query,
            headers=explain.HEADERS).get_response(app)
        assert response.status_int == 200, response.text[:300]
        return response.body
    floor = _cpu_ms(lambda: floor_answer(engine, asked), args.repeats)
    print(report.markdown_head(['flat providers', 'answer', 'CPU ms',
                                'answer / floor']))
    print('| {:,} | floor | {:.1f} | 1.00 |'.format(args.flat, floor))
    for source, app in apps.items():
        spent = _cpu_ms(lambda: answer(app), args.repeats)
        print('| {:,} | {} | {:.1f} | {:.2f} |'.format(
            args.flat, source, spent, spent / floor), flush=True)
    engine.dispose()
    return 0
