"""GET /allocation_candidates in-process, ours against upstream, on wide
provider trees (many single-unit VFs, many granular groups) and on the
flat and nested perfload shapes.

    .venv/bin/python bench/wide_trees.py [--upstream-python PATH]
        [--timeout S] [--repeats N] [--cases NAME,...] [--check]

Each data set is written once straight into a SQLite file (our schema,
which upstream reads too) and copied per engine, or with ``--db-url``
into a database of its own on that server, which both engines read.  Every engine runs in
a subprocess of its own Python (both packages are called ``placement``)
with the WSGI application called directly; the figure is the CPU time
of one request (``time.process_time``), plus on MariaDB or PostgreSQL
(``--db-url``) the CPU time their server threads or backends spent for
the process's connections (from /proc, 10 ms ticks), median over the
repeats.  An
engine that does not answer within ``--timeout`` seconds is reported as
"> S s".  ``--check`` also compares the complete answers of ours and
upstream (sorted, since upstream lists candidates in set order) on small
trees.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from wide_trees_cloud import AGGREGATE, ROOT, build, cases

UPSTREAM = '/work/upstream-venv/bin/python'
VERSION = '1.39'


# -- one engine (runs under that engine's Python) ----------------------------

def serve(args):
    """Answer the requests of ``args.job`` (a JSON file) and print one
    JSON line per measurement."""
    job = json.load(open(args.job))
    with open(os.path.join(job['config_dir'], 'placement.conf'), 'w') as f:
        f.write('[DEFAULT]\ndebug = False\n[api]\nauth_strategy = noauth2\n'
                '[placement_database]\nconnection = %s\n'
                % job['db'])
        f.write(job.get('extra', ''))
    os.environ['OS_PLACEMENT_CONFIG_DIR'] = job['config_dir']
    if job['engine'] == 'ours':
        sys.path.insert(0, ROOT)
        from placement import wsgi
        app = wsgi.application
    else:
        from placement.wsgi import init_application
        app = init_application()
    import logging
    logging.disable(logging.CRITICAL)
    server_cpu = _server_cpu_meter(job['db'])
    from urllib.parse import urlencode
    query = urlencode([tuple(pair) for pair in job['params']])
    environ = {
        'REQUEST_METHOD': 'GET', 'PATH_INFO': '/allocation_candidates',
        'QUERY_STRING': query, 'SERVER_NAME': 'bench', 'SERVER_PORT': '80',
        'wsgi.url_scheme': 'http', 'SERVER_PROTOCOL': 'HTTP/1.1',
        'HTTP_X_AUTH_TOKEN': 'admin',
        'HTTP_OPENSTACK_API_VERSION': 'placement ' + VERSION,
        'wsgi.input': None, 'wsgi.errors': sys.stderr,
        'wsgi.multithread': False, 'wsgi.multiprocess': False,
        'wsgi.run_once': False, 'wsgi.version': (1, 0)}
    import io

    def call():
        env = dict(environ, **{'wsgi.input': io.BytesIO()})
        status = []
        body = b''.join(app(env, lambda s, h, e=None: status.append(s)))
        assert status[0].startswith('200'), (status, body[:300])
        return body

    # The resident set before the first request: the fixed base that the
    # peak (see _peak_rss) is compared with.
    with open('/proc/self/statm') as statm:
        base = int(statm.read().split()[1]) * os.sysconf('SC_PAGE_SIZE')
    for repeat in range(job['repeats'] + 1):
        server = server_cpu()
        cpu = time.process_time()
        wall = time.perf_counter()
        body = call()
        cpu = time.process_time() - cpu
        server = server_cpu() - server
        wall = time.perf_counter() - wall
        answer = json.loads(body)
        line = {'cpu': cpu + server, 'server': server, 'wall': wall,
                'warm': repeat > 0,
                'count': len(answer['allocation_requests']),
                'bytes': len(body), 'rss_base': base, 'maxrss': _peak_rss()}
        if job.get('dump') and repeat == 0:
            line['answer'] = canonical(answer)
        print(json.dumps(line), flush=True)


def _peak_rss():
    """This process's peak resident set in bytes.  Not ru_maxrss: after
    fork and exec that starts from the parent's resident size, which
    here holds the whole data set just built."""
    with open('/proc/self/status') as status:
        for line in status:
            if line.startswith('VmHWM:'):
                return int(line.split()[1]) * 1024


def _server_cpu_meter(url):
    """A function giving the CPU seconds used so far by the database
    server on behalf of this process's connections (0 for SQLite, which
    works inside the process): the MariaDB threads or PostgreSQL backends
    of every connection opened, read from /proc (same host)."""
    if url.startswith('sqlite'):
        return lambda: 0.0
    import sqlalchemy
    mysql = url.startswith('mysql')
    stats = []

    @sqlalchemy.event.listens_for(sqlalchemy.pool.Pool, 'connect')
    def note(dbapi_connection, record):
        cursor = dbapi_connection.cursor()
        cursor.execute('SELECT tid FROM information_schema.processlist '
                       'WHERE id = connection_id()' if mysql
                       else 'SELECT pg_backend_pid()')
        stats.append('/proc/%d/stat' % cursor.fetchone()[0])
        cursor.close()

    tick = os.sysconf('SC_CLK_TCK')

    def used():
        total = 0
        for path in stats:
            try:
                with open(path) as stat:
                    fields = stat.read().rsplit(')', 1)[1].split()
            except OSError:
                continue   # a connection closed since
            total += int(fields[11]) + int(fields[12])
        return total / tick
    return used


def canonical(answer):
    """The answer with candidates sorted (upstream lists them in set
    order); summaries are a dict already."""
    requests = sorted(json.dumps(r, sort_keys=True)
                      for r in answer['allocation_requests'])
    return {'allocation_requests': requests,
            'provider_summaries': json.dumps(answer['provider_summaries'],
                                             sort_keys=True)}


# -- orchestration -----------------------------------------------------------

ENGINES = {
    'ours': ('ours', ''),
    'upstream': ('upstream', ''),
    'upstream tuned': ('upstream', '[workarounds]\n'
                       'optimize_for_wide_provider_trees = True\n'
                       '[placement]\nmax_allocation_candidates = 1000\n'),
}


def run(engine, db, params, repeats, timeout, workdir, dump=False):
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
    python = sys.executable if kind == 'ours' else ARGS.upstream_python
    out = os.path.join(config_dir, 'out.jsonl')
    with open(out, 'w') as f:
        proc = subprocess.Popen([python, __file__, '--job', job], stdout=f,
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--job', help=argparse.SUPPRESS)
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
    global ARGS
    ARGS = args = parser.parse_args()
    if args.job:
        return serve(args)
    # Imported here: upstream's Python, which runs serve(), has no httpx.
    import bench_servers
    server = None if args.db_url.startswith('sqlite') else args.db_url
    workdir = tempfile.mkdtemp(prefix='wide-trees-')
    dbs = {}
    engines = args.engines.split(',')
    print('| case | candidates | ' + ' | '.join(engines) + ' |')
    print('|---|---|' + '---|' * len(engines))
    mismatches = 0
    rss = []
    for name, data, params, timed in cases(args.check):
        if args.cases and not any(name.startswith(prefix) for prefix in
                                  args.cases.split(',')):
            continue
        if data not in dbs:
            # A directory per data set: its own SQLite file.
            dbs[data] = bench_servers.Database(
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
                        dump=not timed)
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
        print('| %s | %s | %s |' % (name, count, ' | '.join(cells)),
              flush=True)
    if not os.environ.get('WIDE_TREES_KEEP'):
        shutil.rmtree(workdir, ignore_errors=True)
        for db in dbs.values():
            db.drop()
    if args.rss:
        print()
        print('| case | engine | answer | peak RSS | base RSS |'
              ' peak - base | (peak - base) / answer |')
        print('|---|---|---|---|---|---|---|')
        for name, engine, line in rss:
            grown = line['maxrss'] - line['rss_base']
            print('| %s | %s | %.1f MB | %.1f MB | %.1f MB | %.1f MB | %.2f |'
                  % (name, engine, line['bytes'] / 1e6, line['maxrss'] / 1e6,
                     line['rss_base'] / 1e6, grown / 1e6,
                     grown / line['bytes']))
    return 1 if mismatches else 0


if __name__ == '__main__':
    sys.exit(main())
