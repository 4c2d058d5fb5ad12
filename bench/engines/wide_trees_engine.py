"""One engine's answers to one job of ``bench/run wide-trees``, timed in
this process: run under the engine's Python (the repository's .venv for
this service, upstream's venv for upstream), so it imports nothing of
bench/.  Prints one JSON line per request.

    PYTHON engines/wide_trees_engine.py JOB.json
"""
import json
import os
import sys
import time

# The checkout, for this service's engine.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
VERSION = '1.39'


def serve(job_path):
    """Answer the requests of ``args.job`` (a JSON file) and print one
    JSON line per measurement."""
    with open(job_path) as f:
        job = json.load(f)
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


if __name__ == '__main__':
    serve(sys.argv[1])
