"""What answering a large GET /allocation_candidates costs a worker in
memory: the growth of its peak RSS for one full answer, against the
size of the JSON it sends.

A fresh process builds the WSGI application, warms it with a small
query, starts its peak RSS over (Linux: /proc/self/clear_refs), then
answers the benchmark query once, with no limit, and reads how far its
peak rose above the RSS it had before.  The data set is the flat one
of ``bench/run candidates``, written straight into SQLite as ``bench/run
explain`` writes it.  With ``--read-source snapshot`` the process loads
its snapshot first (before the peak starts over) and answers from it.

Usage: ``bench/run answer-memory --flat 20000 [--read-source snapshot]``.
"""
import argparse
import json
import os
import subprocess
import sys

import sqlalchemy as sa
import webob

from bench.common import report
from bench.commands import explain
from bench.common import paths
from bench.common import scratch
from bench.common import sources

from placement.config import conf as placement_conf
from placement.web import deploy


def _status_kib(field):
    with open('/proc/self/status') as status:
        for line in status:
            if line.startswith(field + ':'):
                return int(line.split()[1])
    raise SystemExit('no %s in /proc/self/status' % field)


def reset_peak():
    """Start the peak RSS (VmHWM) over from the current RSS (Linux)."""
    with open('/proc/self/clear_refs', 'w') as refs:
        refs.write('5')


def answer(path, query):
    """In this process: (peak growth in KiB, bytes of the answer)."""
    conf = placement_conf.load(config_files=[path])
    app = (sources.loaded_app(conf)
           if conf.placement.read_source == 'snapshot'
           else deploy.loadapp(conf))
    webob.Request.blank('/allocation_candidates?' + query + '&limit=1',
                        headers=explain.HEADERS).get_response(app)
    reset_peak()
    before = _status_kib('VmRSS')
    response = webob.Request.blank(
        '/allocation_candidates?' + query,
        headers=explain.HEADERS).get_response(app)
    return _status_kib('VmHWM') - before, len(response.body)


def add_arguments(parser):
    parser.add_argument('--flat', type=int, default=20000)
    parser.add_argument('--read-source', choices=['database', 'snapshot'],
                        default='database')
    parser.add_argument('--answer', nargs=2, metavar=('CONF', 'QUERY'),
                        help=argparse.SUPPRESS)


def main(args):
    if args.answer:
        print(json.dumps(answer(*args.answer)))
        return 0
    with scratch.directory('answer-memory-') as workdir:
        return measure(args, workdir)


def measure(args, workdir):
    path, conf = explain.sqlite_conf(workdir)
    deploy.loadapp(conf)     # creates the schema and standard names
    url = conf.placement_database.connection
    query = explain.fill(sa.create_engine(url), 'flat', args.flat)
    if args.read_source == 'snapshot':
        path = os.path.join(workdir, 'snapshot.conf')
        sources.snapshot_conf(path, url)
    output = subprocess.run(
        [sys.executable, '-m', 'bench', 'answer-memory', '--answer', path,
         query], cwd=paths.REPOSITORY, check=True, capture_output=True,
        text=True).stdout
    growth, size = json.loads(output.splitlines()[-1])
    print(report.markdown_head(['flat providers', 'read from', 'answer',
                                'peak RSS growth', 'growth / answer']))
    print('| {:,} | {} | {:.1f} MB | {:.1f} MB | {:.2f}x |'.format(
        args.flat, args.read_source, size / 1e6, growth * 1024 / 1e6,
        growth * 1024 / size))
