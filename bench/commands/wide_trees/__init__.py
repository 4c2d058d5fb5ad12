"""GET /allocation_candidates in-process, ours against upstream, on wide
provider trees (many single-unit VFs, many granular groups) and on the
flat and nested perfload shapes.

    bench/run wide-trees [--upstream-python PATH]
        [--timeout S] [--repeats N] [--cases NAME,...] [--check]

Each data set is written once straight into a SQLite file (our schema,
which upstream reads too) and copied per engine, or with ``--db-url``
into a database of its own on that server, which both engines read.
Every engine runs (engines/wide_trees_engine.py) in a subprocess of
its own Python (both packages are called ``placement``) with the WSGI
application called directly; the figure is the CPU time
of one request (``time.process_time``), plus on MariaDB or PostgreSQL
(``--db-url``) the CPU time their server threads or backends spent for
the process's connections (from /proc, 10 ms ticks), median over the
repeats.  An
engine that does not answer within ``--timeout`` seconds is reported as
"> S s".  ``--check`` also compares the complete answers of ours and
upstream (sorted, since upstream lists candidates in set order) on small
trees.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from bench.common import report
from bench.commands.wide_trees.cloud import AGGREGATE, build, cases
from bench.common import paths
from bench.common import scratch
from bench.common import serving

ENGINE = os.path.join(paths.ENGINES, 'wide_trees_engine.py')

UPSTREAM = '/work/upstream-venv/bin/python'


# -- orchestration -----------------------------------------------------------

ENGINES = {
    'ours': ('ours', ''),
    'upstream': ('upstream', ''),
    'upstream tuned': ('upstream', '[workarounds]\n'
                       'optimize_for_wide_provider_trees = True\n'
                       '[placement]\nmax_allocation_candidates = 1000\n'),
}


def run(engine, db, params, repeats, timeout, workdir, upstream_python,
        dump=False):
    kind, extra = ENGINES[engine]
    config_dir = tempfile.mkdtemp(dir=workdir)
    copy = db
    if db.startswith('sqlite:///'):
        # Each engine gets a copy; the database servers' data is only read.
        copy = os.path.join(config_dir, 'db.sqlite')
        shutil.copy(db[len('sqlite:///'):], copy)
        copy = 'sqlite:///' + copy
    job = os.path.join(config_dir, 'job.json')
    json.dump({'engine': kind, 'db': copy, 'params': params,
               'repeats': repeats, 'config_dir': config_dir, 'extra': extra,
               'dump': dump}, open(job, 'w'))
    python = sys.executable if kind == 'ours' else upstream_python
    out = os.path.join(config_dir, 'out.jsonl')
    with open(out, 'w') as f:
        proc = subprocess.Popen([python, ENGINE, job], stdout=f,
                                stderr=open(out + ".err", "w"))
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    lines = [json.loads(line) for line in open(out) if line.strip()]
    return lines


def summary(lines, timeout):
    warm = [line['cpu'] for line in lines if line['warm']]
    if not warm:
        if lines:
            # Only the first (cold) request finished in time.
            return '%.0f ms*' % (lines[0]['cpu'] * 1000), lines[0]['count']
        return '> %d s' % timeout, None
    return '%.1f ms' % (statistics.median(warm) * 1000), lines[0]['count']


def add_arguments(parser):
    parser.add_argument('--upstream-python', default=UPSTREAM)
    parser.add_argument('--timeout', type=float, default=60)
    parser.add_argument('--repeats', type=int, default=5)
    parser.add_argument('--engines', default='ours,upstream,upstream tuned')
    parser.add_argument('--cases', help='comma list of case name prefixes')
    parser.add_argument('--check', action='store_true')
    parser.add_argument('--db-url', default='sqlite://',
                        help='a database server to build the data sets in '
                        '(a database per data set, dropped at the end), '
                        'e.g. mysql+pymysql://root@127.0.0.1/?charset=utf8mb4'
                        ' or postgresql+psycopg2://postgres@127.0.0.1/postgres'
                        '; default: SQLite files')
    parser.add_argument('--rss', action='store_true',
                        help='also print the peak RSS of each engine process '
                        'against the size of its last answer')
    parser.add_argument('--keep', action='store_true',
                        help='keep the data sets (files and databases)')


def main(args):
    server = None if args.db_url.startswith('sqlite') else args.db_url
    with scratch.directory('wide-trees-', args.keep) as workdir:
        return measure(args, server, workdir)


def measure(args, server, workdir):
    dbs = {}
    engines = args.engines.split(',')
    print(report.markdown_head(['case', 'candidates'] + engines))
    mismatches = 0
    rss = []
    for name, data, params, timed in cases(args.check):
        if args.cases and not any(name.startswith(prefix) for prefix in
                                  args.cases.split(',')):
            continue
        if data not in dbs:
            # A directory per data set: its own SQLite file.
            dbs[data] = serving.Database(
                server, tempfile.mkdtemp(dir=workdir),
                'wide_' + '_'.join(map(str, data)))
            dbs[data].create()
            build(data, dbs[data].url)
        params = [(key, value.format(agg=AGGREGATE))
                  for key, value in params]
        cells = []
        answers = []
        count = None
        for engine in engines:
            lines = run(engine, dbs[data].url, params,
                        args.repeats if timed else 0, args.timeout, workdir,
                        args.upstream_python, dump=not timed)
            cell, found = summary(lines, args.timeout)
            if args.rss and lines:
                rss.append((name, engine, lines[-1]))
            count = count if count is not None else found
            if not timed:
                answers.append(lines[0]['answer'] if lines else None)
                cell = '%s candidates' % found
            cells.append(cell)
        if not timed:
            same = all(answer == answers[0] for answer in answers)
            mismatches += not same
            cells.append('same answer' if same else '**DIFFERENT**')
        print(report.markdown_row([name, count] + cells), flush=True)
    if not args.keep:
        for db in dbs.values():
            db.drop()
    if args.rss:
        print()
        print(report.markdown_head([
            'case', 'engine', 'answer', 'peak RSS', 'base RSS',
            'peak - base', '(peak - base) / answer']))
        for name, engine, line in rss:
            grown = line['maxrss'] - line['rss_base']
            print('| %s | %s | %.1f MB | %.1f MB | %.1f MB | %.1f MB | %.2f |'
                  % (name, engine, line['bytes'] / 1e6, line['maxrss'] / 1e6,
                     line['rss_base'] / 1e6, grown / 1e6,
                     grown / line['bytes']))
    return 1 if mismatches else 0
