"""CPU time per request of the mix's read calls, in-process, for this
service or upstream, on one SQLite database (made by ``--make``).

    bench/run mix inprocess --make DB --computes 10000
    bench/run mix inprocess DB                     # this service
    bench/run mix inprocess DB --python /work/upstream-venv/bin/python

The WSGI application is called directly (no HTTP, no other process) by
engines/mix_calls.py run under ``--python``, and ``time.process_time()``
is taken around each call, so the figures hold on a machine busy with
other work.  The same database file serves both (copy it first: both
servers write their standard classes and traits).
"""
import os
import subprocess
import sys

from placement.config import conf as placement_conf
from placement.data import db
from placement.objects import bootstrap

from bench.common import paths
from bench.common import scratch
from bench.common.cloud import Cloud

ENGINE = os.path.join(paths.ENGINES, 'mix_calls.py')


def make(path, computes):
    with scratch.directory('mix-make-') as confdir:
        with open(os.path.join(confdir, 'placement.conf'), 'w') as out:
            out.write('[placement_database]\nconnection = sqlite:///%s\n'
                      % path)
        conf = placement_conf.load(
            config_files=[os.path.join(confdir, 'placement.conf')])
    bootstrap.prepare_database(db.Database(conf), migrate=True)
    Cloud(computes, 0.2, 0.1).write('sqlite:///' + path)


def add_arguments(parser):
    parser.add_argument('db')
    parser.add_argument('--make', action='store_true',
                        help='write the cloud into DB (a new file)')
    parser.add_argument('--computes', type=int, default=10000)
    parser.add_argument('--python', default=sys.executable,
                        help="the Python whose placement answers "
                        "(upstream's venv's for upstream)")
    parser.add_argument('--repeats', type=int, default=30)
    parser.add_argument('--only', default='',
                        help='comma-separated label prefixes to time')


def main(args):
    if args.make:
        make(os.path.abspath(args.db), args.computes)
        return 0
    # The engine runs from its own directory (not the checkout), so
    # upstream's Python imports upstream's placement.
    return subprocess.run([args.python, ENGINE, os.path.abspath(args.db),
                           '--repeats', str(args.repeats),
                           '--only', args.only],
                          cwd=os.path.dirname(ENGINE)).returncode
