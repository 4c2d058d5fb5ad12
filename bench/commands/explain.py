"""CPU cost of GET /allocation_candidates/explain against the candidates
query itself, in-process.

The data sets and queries are those of ``bench/run candidates`` (flat compute
nodes in one aggregate; trees of 7 providers), written straight into a
fresh SQLite database with SQLAlchemy so that 10,000 providers take
seconds, not the best part of an hour over HTTP.  The WSGI application is
called directly and every request is timed with ``time.process_time()``,
so other load on the machine matters less; the requests of one round are
interleaved (query, explain, ...) so that any drift hits both alike.

Measured per data set:
- ``candidates``: the benchmark query, no limit;
- ``explain``: the same query on the explain route (runs the engine too);
- ``empty``/``empty, not explained``: a query nothing satisfies (VCPU
  beyond every host), with ``[placement] explain_empty_results`` on and
  off: what the log line of an empty answer costs.

Usage: ``bench/run explain --flat 1000 --flat 10000
--nested 1000 [--repeats 10] []``.
"""
import logging
import os
import statistics
import sys
import time
import uuid

import sqlalchemy as sa
import webob

from bench.common import report
from bench.common import web
from bench.common import cloud
from bench.common import datasets
from bench.common import scratch
from bench.common import serving

from placement.config import conf as placement_conf
from placement.web import deploy

HEADERS = dict(web.HEADERS)
EMPTY_VCPU = 'VCPU:100000'


def totals(inventories):
    """{class: total} of the API's inventory bodies."""
    return {name: fields['total'] for name, fields in inventories.items()}


def fill(engine, kind, count):
    """Write the data set; return the benchmark query string."""
    with engine.begin() as conn:
        rows = cloud.Rows(conn)
        if kind == 'flat':
            agg_uuid = str(uuid.uuid4())
            agg = rows.aggregate(agg_uuid)
            for index in range(count):
                rows.provider('cn-%06d' % index,
                              totals(datasets.FLAT_INVENTORY),
                              [datasets.FLAT_TRAIT], aggregates=[agg])
            query = datasets.FLAT_QUERY.format(aggregate=agg_uuid)
        else:
            for index in range(count):
                made = {}
                for key, parent, inventories, traits in \
                        datasets.NESTED_TREE:
                    made[key] = rows.provider(
                        'tree-%06d-%s' % (index, key), totals(inventories),
                        traits, parent=made.get(parent))
            query = datasets.NESTED_QUERY
        rows.flush()
    return query


def empty_query(query):
    """The same query asking for more VCPU than any provider has."""
    return query.replace('VCPU:1', EMPTY_VCPU)


def call(app, url):
    started = time.process_time()
    response = webob.Request.blank(url, headers=HEADERS).get_response(app)
    elapsed = (time.process_time() - started) * 1000.0
    if response.status_int != 200:
        raise SystemExit('%s: %s %s' % (url, response.status,
                                        response.text[:300]))
    return elapsed, response.json


def sqlite_conf(workdir):
    """(path of a placement.conf, its loaded configuration): noauth2 and
    a fresh SQLite database in ``workdir``."""
    path = serving.write_conf(
        os.path.join(workdir, 'placement.conf'),
        'sqlite:///' + os.path.join(workdir, 'placement.sqlite'), sync=True)
    return path, placement_conf.load(config_files=[path])


def run(kind, count, repeats):
    with scratch.directory('explain-bench-') as workdir:
        return measure(workdir, kind, count, repeats)


def measure(workdir, kind, count, repeats):
    _, conf = sqlite_conf(workdir)
    app = deploy.loadapp(conf)
    # The access log would cost the same on every call; keep stderr quiet.
    logging.getLogger().setLevel(logging.WARNING)
    engine = sa.create_engine(conf.placement_database.connection)
    query = fill(engine, kind, count)
    cases = [
        ('candidates', '/allocation_candidates?' + query, True),
        ('explain', '/allocation_candidates/explain?' + query, True),
        ('empty', '/allocation_candidates?' + empty_query(query), True),
        ('empty, not explained',
         '/allocation_candidates?' + empty_query(query), False),
    ]
    times = {name: [] for name, _, _ in cases}
    answers = {}
    for round_ in range(repeats + 1):
        for name, url, explained in cases:
            conf.set_override('explain_empty_results', explained,
                              group='placement')
            elapsed, body = call(app, url)
            if round_:      # the first round warms caches up
                times[name].append(elapsed)
            answers[name] = body
    result = {name: {'median': statistics.median(values),
                     'min': min(values)} for name, values in times.items()}
    result['candidates']['count'] = len(
        answers['candidates']['allocation_requests'])
    result['explain']['count'] = answers['explain']['candidates']
    result['summary'] = answers['explain']['summary']
    return result


def add_arguments(parser):
    parser.add_argument('--flat', type=int, action='append', default=[])
    parser.add_argument('--nested', type=int, action='append', default=[])
    parser.add_argument('--repeats', type=int, default=10)


def main(args):
    sets = [('flat', n) for n in args.flat] + [('nested', n)
                                               for n in args.nested]
    print(report.markdown_head([
        'data set', 'candidates', 'query ms (median / min)',
        'explain ms (median / min)', 'explain / query',
        'empty answer ms, explained / not']))
    for kind, count in sets:
        result = run(kind, count, args.repeats)
        query, explain = result['candidates'], result['explain']
        print('| %s %d | %d (explain: %d) | %.0f / %.0f | %.0f / %.0f | '
              '%.2fx | %.0f / %.0f |' % (
                  kind, count, query['count'], explain['count'],
                  query['median'], query['min'], explain['median'],
                  explain['min'], explain['median'] / query['median'],
                  result['empty']['median'],
                  result['empty, not explained']['median']), flush=True)
        sys.stderr.write('%s %d: %s\n' % (kind, count, result['summary']))
