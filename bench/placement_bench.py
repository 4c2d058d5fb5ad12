#!/usr/bin/env python3
"""Load a Placement server with a data set and time allocation candidates.

The script drives one or two server commands purely over HTTP:

1. it writes a fresh ``placement.conf`` (noauth2, a fresh database,
   ``sync_on_startup = True`` unless a setup command migrates it first)
   into a temporary directory, exports ``OS_PLACEMENT_CONFIG_DIR`` to it
   and starts the server command;
2. it loads a data set through the REST API (a thread pool of clients);
3. it times ``GET /allocation_candidates`` (median, p95, requests/s at N
   concurrent clients) and ``GET /allocation_candidates/explain`` (median,
   p95), then lets N claimers race each other claiming the
   first candidate and finally checks, over HTTP, that no provider's usage
   exceeds its capacity.

With ``--compare-cmd`` (or ``--upstream-venv``) the same run is repeated
against a second server and the figures are printed side by side.

Only the standard library and httpx are used.  Fresh MariaDB/PostgreSQL
databases for ``--db-url`` are created and dropped with the ``mysql`` /
``psql`` command line clients.
"""
import argparse
import concurrent.futures
import json
import math
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid

import httpx

HEADERS = {
    'x-auth-token': 'admin',
    'openstack-api-version': 'placement latest',
    'accept': 'application/json',
}
PORT_RANGE = (18450, 18499)
STARTUP_TIMEOUT = 90
# A worker that fails to boot stops gunicorn within this time of the
# first answer.
STARTUP_GRACE = 1.5
TRANSIENT_RETRIES = 10

FLAT_INVENTORY = {
    'VCPU': {'total': 32},
    'MEMORY_MB': {'total': 8192},
    'DISK_GB': {'total': 2000},
}
FLAT_TRAIT = 'HW_CPU_X86_AVX2'
FLAT_QUERY = ('resources=VCPU:1,DISK_GB:10,MEMORY_MB:256'
              '&member_of={aggregate}&required=' + FLAT_TRAIT)

NESTED_QUERY = ('resources=DISK_GB:10&required=COMPUTE_VOLUME_MULTI_ATTACH'
                '&resources_COMPUTE=VCPU:1,MEMORY_MB:256'
                '&required_COMPUTE=CUSTOM_FOO'
                '&resources_FPGA=FPGA:1&group_policy=none'
                '&same_subtree=_COMPUTE,_FPGA')
# One nested tree: (key, parent key, inventories, traits).
NESTED_TREE = (
    ('compute', None, {'DISK_GB': {'total': 2000}},
     ['COMPUTE_VOLUME_MULTI_ATTACH']),
    ('numa0', 'compute',
     {'VCPU': {'total': 16}, 'MEMORY_MB': {'total': 4096}}, ['CUSTOM_FOO']),
    ('numa1', 'compute',
     {'VCPU': {'total': 16}, 'MEMORY_MB': {'total': 4096}}, ['CUSTOM_FOO']),
    ('fpga0', 'numa0', {'FPGA': {'total': 1}}, []),
    ('fpga1', 'numa1', {'FPGA': {'total': 1}}, []),
    ('pgpu0', 'numa0', {'VGPU': {'total': 8}}, []),
    ('pgpu1', 'numa1', {'VGPU': {'total': 8}}, []),
)
CUSTOM_TRAITS = ('CUSTOM_FOO',)

VARIANTS = (('no limit', None), ('limit=1000', 1000), ('limit=10', 10))


class BenchError(Exception):
    """A run cannot go on (server did not start, load failed...)."""


# --------------------------------------------------------------------------
# HTTP clients

class Clients:
    """httpx clients aimed at one server: one per loader thread (thread
    local) and a fixed set for the concurrent measurements, created
    before any timing starts (building a client is not free)."""

    def __init__(self, base_url):
        self.base_url = base_url
        self._local = threading.local()
        self._all = []
        self._workers = []
        self._lock = threading.Lock()
        self.retries = 0

    def _new(self):
        # verify=False: plain HTTP, no need to load a CA bundle.
        client = httpx.Client(base_url=self.base_url, headers=HEADERS,
                              timeout=httpx.Timeout(600.0), verify=False)
        with self._lock:
            self._all.append(client)
        return client

    def get(self):
        client = getattr(self._local, 'client', None)
        if client is None:
            client = self._local.client = self._new()
        return client

    def workers(self, count):
        while len(self._workers) < count:
            self._workers.append(self._new())
        return self._workers[:count]

    def count_retry(self):
        with self._lock:
            self.retries += 1

    def close(self):
        with self._lock:
            for client in self._all:
                client.close()
            self._all = []


def run_concurrently(clients, count, target):
    """Run target(client) in `count` threads; return the wall time."""
    threads = [threading.Thread(target=target, args=(client,))
               for client in clients.workers(count)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.monotonic() - started


def request(clients, method, url, expect, **kwargs):
    """Send one set-up request; retry transport errors and 5xx answers.

    SQLite servers in particular can answer 500 ("database is locked")
    under a concurrent load; a benchmark should not die of that, but it
    says so on stderr.
    """
    for attempt in range(TRANSIENT_RETRIES):
        try:
            resp = clients.get().request(method, url, **kwargs)
        except httpx.TransportError as exc:
            last = repr(exc)
        else:
            if resp.status_code in expect:
                return resp
            if resp.status_code < 500:
                raise BenchError('%s %s -> %s: %s' % (
                    method, url, resp.status_code, resp.text[:300]))
            last = '%s %s' % (resp.status_code, resp.text[:300])
        log('    retrying %s %s: %s' % (method, url, last.splitlines()[0]))
        clients.count_retry()
        time.sleep(0.2 * (attempt + 1))
    raise BenchError('%s %s failed: %s' % (method, url, last))


# --------------------------------------------------------------------------
# Data sets

def create_provider(clients, name, parent=None):
    rp_uuid = str(uuid.uuid4())
    body = {'name': name, 'uuid': rp_uuid}
    if parent:
        body['parent_provider_uuid'] = parent
    try:
        request(clients, 'POST', '/resource_providers', (200, 201), json=body)
    except BenchError:
        # A retried POST whose first attempt did commit (the answer was
        # lost) conflicts on the name: the provider is there all the same.
        if clients.get().get('/resource_providers/' + rp_uuid).status_code \
                != 200:
            raise
    # A new provider starts at generation 0.
    return rp_uuid, 0


def put_generational(clients, path, body):
    """PUT a body carrying resource_provider_generation; return the new one.

    On a generation conflict (which only a misbehaving server produces
    here, the loader being the only writer) re-read it and try again.
    """
    for _ in range(TRANSIENT_RETRIES):
        resp = request(clients, 'PUT', path, (200, 409), json=body)
        if resp.status_code == 200:
            return resp.json()['resource_provider_generation']
        rp = request(clients, 'GET', path.rsplit('/', 1)[0], (200,)).json()
        body = dict(body, resource_provider_generation=rp['generation'])
    raise BenchError('PUT %s kept conflicting' % path)


def setup_provider(clients, name, inventories, traits, aggregates=(),
                   parent=None):
    rp_uuid, gen = create_provider(clients, name, parent)
    base = '/resource_providers/' + rp_uuid
    if inventories:
        gen = put_generational(clients, base + '/inventories', {
            'resource_provider_generation': gen,
            'inventories': inventories})
    if traits:
        gen = put_generational(clients, base + '/traits', {
            'resource_provider_generation': gen, 'traits': list(traits)})
    if aggregates:
        put_generational(clients, base + '/aggregates', {
            'resource_provider_generation': gen,
            'aggregates': list(aggregates)})
    return rp_uuid


class FlatDataSet:
    """N compute nodes in one aggregate, like upstream's perfload job."""

    kind = 'flat'

    def __init__(self, count):
        self.count = count
        self.aggregate = str(uuid.uuid4())
        self.providers_per_unit = 1

    @property
    def label(self):
        return 'flat %d' % self.count

    def prepare(self, clients):
        pass

    def load_unit(self, clients, index):
        setup_provider(clients, 'cn-%06d' % index, FLAT_INVENTORY,
                       [FLAT_TRAIT], [self.aggregate])

    def query(self):
        return FLAT_QUERY.format(aggregate=self.aggregate)


class NestedDataSet:
    """N trees of 7 providers: compute > 2 NUMA > FPGA + PGPU each."""

    kind = 'nested'

    def __init__(self, count):
        self.count = count
        self.providers_per_unit = len(NESTED_TREE)

    @property
    def label(self):
        return 'nested %d' % self.count

    def prepare(self, clients):
        for trait in CUSTOM_TRAITS:
            request(clients, 'PUT', '/traits/' + trait, (201, 204))

    def load_unit(self, clients, index):
        made = {}
        for key, parent, inventories, traits in NESTED_TREE:
            made[key] = setup_provider(
                clients, 'tree-%06d-%s' % (index, key), inventories, traits,
                parent=made.get(parent))

    def query(self):
        return NESTED_QUERY


def load(clients, dataset, threads):
    dataset.prepare(clients)
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        futures = [pool.submit(dataset.load_unit, clients, i)
                   for i in range(dataset.count)]
        for future in concurrent.futures.as_completed(futures):
            future.result()
    elapsed = time.monotonic() - started
    providers = dataset.count * dataset.providers_per_unit
    return {'providers': providers, 'seconds': elapsed,
            'providers_per_s': providers / elapsed,
            'retried_errors': clients.retries}


# --------------------------------------------------------------------------
# Measurements

def candidates_url(dataset, limit):
    url = '/allocation_candidates?' + dataset.query()
    if limit:
        url += '&limit=%d' % limit
    return url


def percentile(values, pct):
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100.0 * len(ordered)))
    return ordered[rank - 1]


def time_latency(clients, url, repeats,
                 count_of=lambda body: len(body['allocation_requests'])):
    """Sequential requests after one warm-up: median / p95 in ms."""
    client = clients.get()
    resp = client.get(url)
    if resp.status_code != 200:
        return {'error': 'HTTP %d' % resp.status_code}
    count = count_of(resp.json())
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        resp = client.get(url)
        times.append((time.perf_counter() - started) * 1000.0)
        if resp.status_code != 200:
            return {'error': 'HTTP %d' % resp.status_code}
    return {'median_ms': statistics.median(times),
            'p95_ms': percentile(times, 95), 'candidates': count}


def group_cpu_seconds(pgid):
    """CPU seconds (user + system) used so far by the processes of the
    process group ``pgid`` (the server: master and workers)."""
    return sum(group_cpu_times(pgid))


def group_cpu_times(pgid):
    """(user, system) CPU seconds of the process group ``pgid``."""
    user = system = 0
    for pid in os.listdir('/proc'):
        if not pid.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % pid) as handle:
                fields = handle.read().rsplit(')', 1)[1].split()
        except OSError:
            continue
        # After the command: state, ppid, pgrp, ... utime (12), stime (13).
        if int(fields[2]) == pgid:
            user += int(fields[11])
            system += int(fields[12])
    tick = os.sysconf('SC_CLK_TCK')
    return user / tick, system / tick


def time_throughput(clients, url, concurrency, duration, server_pgid):
    """Requests/s of `concurrency` clients looping for `duration` s, and
    the server's CPU time per request (the clients share the machine, so
    the rate alone understates a fast server)."""
    done = [0]
    errors = []
    lock = threading.Lock()

    def worker(client):
        while time.monotonic() < deadline:
            resp = client.get(url)
            with lock:
                if resp.status_code == 200:
                    done[0] += 1
                else:
                    errors.append(resp.status_code)

    clients.workers(concurrency)
    cpu = group_cpu_seconds(server_pgid)
    deadline = time.monotonic() + duration
    elapsed = run_concurrently(clients, concurrency, worker)
    cpu = group_cpu_seconds(server_pgid) - cpu
    result = {'rps': done[0] / elapsed, 'requests': done[0],
              'server_cpu_ms': 1000 * cpu / done[0] if done[0] else None}
    if errors:
        result['errors'] = len(errors)
    return result


class Claims:
    """Concurrent claimers: candidates with a limit, PUT the first one."""

    def __init__(self, clients, dataset, total, concurrency, limit,
                 max_retries):
        self.clients = clients
        self.url = candidates_url(dataset, limit)
        self.total = total
        self.concurrency = concurrency
        self.max_retries = max_retries
        self.project_id = str(uuid.uuid4())
        self.user_id = str(uuid.uuid4())
        self.lock = threading.Lock()
        self.issued = 0
        self.claimed = 0
        self.conflicts = 0
        self.failures = []
        self.exhausted = False
        self.providers = set()
        self.expected_usage = {}

    def _next(self):
        with self.lock:
            if self.exhausted or self.issued >= self.total:
                return False
            self.issued += 1
            return True

    def _record(self, allocations):
        with self.lock:
            self.claimed += 1
            for rp_uuid, alloc in allocations.items():
                self.providers.add(rp_uuid)
                for rc, amount in alloc['resources'].items():
                    self.expected_usage[rc] = (
                        self.expected_usage.get(rc, 0) + amount)

    def _fail(self, reason):
        with self.lock:
            self.failures.append(reason)

    def claim_one(self, client):
        for _ in range(self.max_retries):
            resp = client.get(self.url)
            if resp.status_code != 200:
                return self._fail('candidates HTTP %d' % resp.status_code)
            requests_ = resp.json()['allocation_requests']
            if not requests_:
                with self.lock:
                    self.exhausted = True
                return self._fail('no candidates left')
            first = requests_[0]
            body = {'allocations': first['allocations'],
                    'project_id': self.project_id,
                    'user_id': self.user_id,
                    'consumer_generation': None,
                    'consumer_type': 'INSTANCE'}
            if 'mappings' in first:
                body['mappings'] = first['mappings']
            resp = client.put('/allocations/%s' % uuid.uuid4(), json=body)
            if resp.status_code == 204:
                return self._record(first['allocations'])
            if resp.status_code != 409:
                return self._fail('PUT HTTP %d: %s' % (
                    resp.status_code, resp.text[:200]))
            with self.lock:
                self.conflicts += 1
        return self._fail('gave up after %d conflicts' % self.max_retries)

    def run(self):
        def worker(client):
            while self._next():
                self.claim_one(client)

        elapsed = run_concurrently(self.clients, self.concurrency, worker)
        return {'claims': self.claimed, 'seconds': elapsed,
                'claims_per_s': self.claimed / elapsed,
                'conflicts': self.conflicts,
                'failures': len(self.failures),
                'failure_sample': sorted(set(self.failures))[:3]}


def overcommitted(clients, providers, threads):
    """Providers (of those claimed against) whose usage exceeds capacity."""

    def check(rp_uuid):
        base = '/resource_providers/' + rp_uuid
        inventories = request(clients, 'GET', base + '/inventories',
                              (200,)).json()['inventories']
        usages = request(clients, 'GET', base + '/usages',
                         (200,)).json()['usages']
        over = []
        for rc, used in usages.items():
            inv = inventories.get(rc)
            capacity = 0 if inv is None else (
                (inv['total'] - inv['reserved']) * inv['allocation_ratio'])
            if used > capacity:
                over.append('%s %s used %s > capacity %s' % (
                    rp_uuid, rc, used, capacity))
        return over

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        found = [line for lines in pool.map(check, sorted(providers))
                 for line in lines]
    return found


def project_usage(clients, project_id):
    # 1.38 groups /usages by consumer type; 1.9 answers plain totals.
    resp = clients.get().get(
        '/usages', params={'project_id': project_id},
        headers={'openstack-api-version': 'placement 1.9'})
    if resp.status_code != 200:
        return None
    return resp.json()['usages']


def note(results, key, value):
    """Keep one measurement and show it on stderr as soon as it is done."""
    results[key] = value
    log('    %-20s %s' % (key, fmt_dict(value)))


def measure(clients, dataset, args, results, server_pgid):
    if not args.throughput_only:
        for name, limit in VARIANTS:
            url = candidates_url(dataset, limit)
            note(results, 'latency ' + name,
                 time_latency(clients, url, args.repeats))
        # This service's explanation of the same query (no limit); other
        # servers answer 404, shown as an error.
        note(results, 'latency explain', time_latency(
            clients, '/allocation_candidates/explain?' + dataset.query(),
            args.repeats, count_of=lambda body: body['candidates']))
    for name, limit in VARIANTS:
        url = candidates_url(dataset, limit)
        note(results, 'throughput ' + name,
             time_throughput(clients, url, args.concurrency, args.duration,
                             server_pgid))
    if args.throughput_only:
        return
    claims = Claims(clients, dataset, args.claims, args.concurrency,
                    args.claim_limit, args.max_retries)
    outcome = claims.run()
    outcome['overcommitted'] = overcommitted(
        clients, claims.providers, args.concurrency)
    usage = project_usage(clients, claims.project_id)
    outcome['usage_matches'] = (
        None if usage is None else usage == claims.expected_usage)
    note(results, 'claims', outcome)


# --------------------------------------------------------------------------
# Databases and servers

class Database:
    """A fresh database per server run: an SQLite file, or a MariaDB /
    PostgreSQL database created and dropped with the CLI clients."""

    def __init__(self, url_template, workdir, tag):
        if not url_template:
            self.url = 'sqlite:///' + os.path.join(workdir, 'placement.sqlite')
            self.parts = None
            return
        parts = urllib.parse.urlsplit(url_template)
        name = parts.path.lstrip('/') or 'placement_bench'
        name = re.sub(r'\W', '_', '%s_%s' % (name, tag))
        self.parts = parts
        self.name = name
        self.url = urllib.parse.urlunsplit(parts._replace(path='/' + name))

    @property
    def backend(self):
        if self.parts is None:
            return 'sqlite'
        return self.parts.scheme.split('+')[0]

    def _run(self, sql):
        parts = self.parts
        env = dict(os.environ)
        if self.backend == 'mysql':
            cmd = ['mysql', '-h', parts.hostname or '127.0.0.1',
                   '-u', urllib.parse.unquote(parts.username or 'root')]
            if parts.port:
                cmd += ['-P', str(parts.port)]
            if parts.password:
                env['MYSQL_PWD'] = urllib.parse.unquote(parts.password)
            cmd += ['-e', sql]
        elif self.backend == 'postgresql':
            cmd = ['psql', '-q', '-v', 'ON_ERROR_STOP=1',
                   '-h', parts.hostname or '127.0.0.1',
                   '-U', urllib.parse.unquote(parts.username or 'postgres'),
                   '-d', 'postgres']
            if parts.port:
                cmd += ['-p', str(parts.port)]
            if parts.password:
                env['PGPASSWORD'] = urllib.parse.unquote(parts.password)
            for statement in sql.split(';'):
                if statement.strip():
                    cmd += ['-c', statement.strip()]
        else:
            raise BenchError('unsupported database URL: %s' % self.url)
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if proc.returncode:
            raise BenchError('%s: %s' % (' '.join(cmd[:1]), proc.stderr))

    def create(self):
        if self.backend == 'mysql':
            self._run('DROP DATABASE IF EXISTS %s; CREATE DATABASE %s '
                      'CHARACTER SET utf8mb4' % (self.name, self.name))
        elif self.backend == 'postgresql':
            self._run('DROP DATABASE IF EXISTS %s WITH (FORCE); '
                      'CREATE DATABASE %s' % (self.name, self.name))

    def drop(self):
        if self.backend == 'mysql':
            self._run('DROP DATABASE IF EXISTS %s' % self.name)
        elif self.backend == 'postgresql':
            self._run('DROP DATABASE IF EXISTS %s WITH (FORCE)' % self.name)


def free_ports(count, low=None, high=None):
    """``count`` distinct ports of low..high (PORT_RANGE by default)
    nobody listens on."""
    low, high = (PORT_RANGE[0] if low is None else low,
                 PORT_RANGE[1] if high is None else high)
    found = []
    for port in range(low, high + 1):
        with socket.socket() as sock:
            try:
                sock.bind(('127.0.0.1', port))
            except OSError:
                continue
        found.append(port)
        if len(found) == count:
            return found
    raise BenchError('not %d free ports in %d-%d' % (count, low, high))


def free_port():
    return free_ports(1)[0]


CONF_TEMPLATE = """[api]
auth_strategy = noauth2

[placement_database]
connection = {url}
sync_on_startup = {sync}
"""


class Server:
    """A server command started in its own process group."""

    def __init__(self, label, cmd, setup_cmd, workers, db, workdir):
        self.label = label
        self.workdir = workdir
        self.config_file = os.path.join(workdir, 'placement.conf')
        with open(self.config_file, 'w') as conf:
            # A setup command (placement-manage db sync) already migrated
            # the database: workers migrating it again at start-up would
            # only race each other for SQLite's lock.
            conf.write(CONF_TEMPLATE.format(url=db.url,
                                            sync=not setup_cmd))
        self.port = free_port()
        self.fmt = {'port': self.port, 'workers': workers,
                    'config_dir': workdir, 'config_file': self.config_file}
        self.cmd = cmd.format(**self.fmt)
        self.setup_cmd = setup_cmd.format(**self.fmt) if setup_cmd else None
        # The commands run in the temp dir so that a server does not import
        # a same-named package from the caller's directory; the bench's own
        # venv comes first on PATH so that `placement-api` is found.
        path = os.pathsep.join([os.path.dirname(sys.executable),
                                os.environ.get('PATH', '')])
        self.env = dict(os.environ, OS_PLACEMENT_CONFIG_DIR=workdir,
                        PATH=path)
        self.log_path = os.path.join(workdir, 'server.log')
        self.proc = None

    @property
    def base_url(self):
        return 'http://127.0.0.1:%d' % self.port

    def log_tail(self, lines=20):
        try:
            with open(self.log_path, errors='replace') as handle:
                return ''.join(handle.readlines()[-lines:])
        except OSError:
            return ''

    def start(self, attempts=3):
        """Start the server and wait until it answers and stays up.

        Upstream's workers each sync the standard traits when they boot;
        on SQLite one can fail on the other's lock ('database is locked'),
        and gunicorn then stops the whole server, just after the other
        worker answered.  Starting again works: the rows are there by then.
        """
        for attempt in range(1, attempts + 1):
            try:
                self._start_once()
            except BenchError:
                if attempt == attempts:
                    raise
                log('    [%s] the server stopped during start-up; starting '
                    'it again' % self.label)
                continue
            return

    def _start_once(self):
        with open(self.log_path, 'ab') as logfile:
            if self.setup_cmd:
                proc = subprocess.run(self.setup_cmd, shell=True, env=self.env,
                                      cwd=self.workdir, stdout=logfile,
                                      stderr=logfile)
                if proc.returncode:
                    raise BenchError('setup command failed (%s):\n%s' % (
                        self.setup_cmd, self.log_tail()))
            self.proc = subprocess.Popen(
                self.cmd, shell=True, env=self.env, cwd=self.workdir,
                stdout=logfile, stderr=logfile, start_new_session=True)
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BenchError('server exited (%s):\n%s' % (
                    self.cmd, self.log_tail()))
            try:
                answered = httpx.get(self.base_url + '/',
                                     timeout=2).status_code == 200
            except httpx.TransportError:
                answered = False
            if answered:
                time.sleep(STARTUP_GRACE)
                if self.proc.poll() is None:
                    return
                raise BenchError('server exited after answering (%s):\n%s'
                                 % (self.cmd, self.log_tail()))
            time.sleep(0.2)
        self.stop()
        raise BenchError('server did not answer GET / in %ds:\n%s' % (
            STARTUP_TIMEOUT, self.log_tail()))

    def stop(self):
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        except ProcessLookupError:
            pass


def run_one(label, cmd, setup_cmd, dataset, args, root):
    workdir = tempfile.mkdtemp(prefix='%s-%s-' % (label, dataset.kind),
                               dir=root)
    db = Database(args.db_url, workdir, '%s_%s' % (label, dataset.kind))
    log('  [%s] %s, database %s' % (label, dataset.label, db.backend))
    db.create()
    server = Server(label, cmd, setup_cmd, args.workers, db, workdir)
    clients = Clients(server.base_url)
    try:
        server.start()
        result = {}
        note(result, 'load', load(clients, dataset, args.load_threads))
        measure(clients, dataset, args, result, server.proc.pid)
        return result
    except BenchError as exc:
        error = str(exc)
        if server.proc is not None and server.proc.poll() is not None:
            error += '\nserver exited with status %s; log tail:\n%s' % (
                server.proc.returncode, server.log_tail())
        log('    FAILED: %s' % error)
        return {'error': error}
    finally:
        clients.close()
        server.stop()
        if not args.keep:
            db.drop()


# --------------------------------------------------------------------------
# Reporting

def log(message):
    print(message, file=sys.stderr, flush=True)


def fmt_dict(values):
    return ', '.join('%s=%s' % (k, fmt(v)) for k, v in values.items())


def fmt(value):
    if isinstance(value, float):
        return '%.1f' % value if value >= 10 else '%.2f' % value
    if isinstance(value, list):
        return str(len(value))
    return str(value)


# (label, path into the results, True when higher is better)
ROWS = [('load providers/s', ('load', 'providers_per_s'), True),
        ('load 5xx/net retries', ('load', 'retried_errors'), None)]
for _name, _ in VARIANTS:
    ROWS += [
        ('%s median ms' % _name, ('latency ' + _name, 'median_ms'), False),
        ('%s p95 ms' % _name, ('latency ' + _name, 'p95_ms'), False),
        ('%s candidates' % _name, ('latency ' + _name, 'candidates'), None),
    ]
ROWS += [
    ('explain median ms', ('latency explain', 'median_ms'), False),
    ('explain p95 ms', ('latency explain', 'p95_ms'), False),
]
for _name, _ in VARIANTS:
    ROWS.append(('%s req/s (conc.)' % _name,
                 ('throughput ' + _name, 'rps'), True))
    ROWS.append(('%s server CPU ms/req (conc.)' % _name,
                 ('throughput ' + _name, 'server_cpu_ms'), False))
ROWS += [
    ('claims/s (conc.)', ('claims', 'claims_per_s'), True),
    ('claims made', ('claims', 'claims'), None),
    ('claim 409 retries', ('claims', 'conflicts'), None),
    ('claim failures', ('claims', 'failures'), None),
    ('over-committed', ('claims', 'overcommitted'), None),
    ('project usage matches', ('claims', 'usage_matches'), None),
]


def lookup(result, path):
    value = result
    for key in path:
        if not isinstance(value, dict):
            return None
        if 'error' in value and key not in value:
            return 'error'
        value = value.get(key)
    return value


def describe(dataset_label, run_args):
    """Table title from a data set label and the options of its run."""
    kind, count = dataset_label.split()
    per_unit = len(NESTED_TREE) if kind == 'nested' else 1
    return '%s (%d providers), %s, %d workers, %d concurrent' % (
        dataset_label, int(count) * per_unit,
        Database(run_args['db_url'], '/', 'x').backend,
        run_args['workers'], run_args['concurrency'])


def report(title, labels, results, markdown):
    headers = ['metric'] + labels
    if len(labels) == 2:
        headers.append('%s vs %s' % tuple(labels))
    rows = []
    for name, path, higher_better in ROWS:
        values = [lookup(results[label], path) for label in labels]
        row = [name] + [fmt(v) if v is not None else '-' for v in values]
        if len(labels) == 2:
            row.append(ratio(values, higher_better))
        rows.append(row)
    widths = [max(len(str(r[i])) for r in rows + [headers])
              for i in range(len(headers))]
    if markdown:
        line = '| %s |'
        sep = ' | '
    else:
        line = '%s'
        sep = '  '
    print()
    print(title)
    if markdown:
        print()
    print(line % sep.join(h.ljust(w) for h, w in zip(headers, widths)))
    print(line % sep.join('-' * w for w in widths))
    for row in rows:
        print(line % sep.join(str(c).ljust(w) for c, w in zip(row, widths)))
    for label in labels:
        if 'error' in results[label]:
            print('%s: %s' % (label, results[label]['error'].strip()))
    sys.stdout.flush()


def ratio(values, higher_better):
    """How many times better the first column is than the second."""
    ours, theirs = values
    if higher_better is None or not all(
            isinstance(v, (int, float)) and v > 0 for v in values):
        return ''
    gain = ours / theirs if higher_better else theirs / ours
    return '%.2fx %s' % (gain if gain >= 1 else 1 / gain,
                         'better' if gain >= 1 else 'worse')


# --------------------------------------------------------------------------

def parse_args(argv):
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog='Command templates may use {port}, {workers}, {config_dir} '
               'and {config_file}; OS_PLACEMENT_CONFIG_DIR is exported to '
               'the directory holding placement.conf.')
    parser.add_argument('--server-cmd',
                        default='placement-api --bind 127.0.0.1:{port} '
                                '--workers {workers}',
                        help='server under test (default: %(default)s)')
    parser.add_argument('--setup-cmd',
                        help='run once before --server-cmd starts')
    parser.add_argument('--label', default='ours')
    parser.add_argument('--compare-cmd',
                        help='second server to compare with')
    parser.add_argument('--compare-setup-cmd',
                        help='run once before --compare-cmd starts, e.g. a '
                             'placement-manage db sync')
    parser.add_argument('--compare-label', default='upstream')
    parser.add_argument('--upstream-venv', metavar='DIR',
                        help='shorthand: compare with openstack-placement '
                             'installed (with gunicorn) in this venv')
    parser.add_argument('--flat', type=int, metavar='N',
                        help='N compute nodes in one aggregate')
    parser.add_argument('--nested', type=int, metavar='N',
                        help='N trees of 7 providers')
    parser.add_argument('--db-url',
                        help='MariaDB/PostgreSQL server URL; the path names '
                             'the database prefix (fresh databases are '
                             'created and dropped). Default: SQLite files')
    parser.add_argument('--workers', type=int, default=2)
    parser.add_argument('--repeats', type=int, default=20,
                        help='timed sequential requests per query')
    parser.add_argument('--concurrency', type=int, default=10,
                        help='concurrent clients and claimers')
    parser.add_argument('--duration', type=float, default=10.0,
                        help='seconds per throughput measurement')
    parser.add_argument('--throughput-only', action='store_true',
                        help='only the --concurrency throughput of each '
                             'query (no latency, explain or claims)')
    parser.add_argument('--claims', type=int, default=200,
                        help='allocations to claim concurrently')
    parser.add_argument('--claim-limit', type=int, default=10,
                        help='limit used by claimers fetching candidates')
    parser.add_argument('--max-retries', type=int, default=50,
                        help='409 retries per claim before giving up')
    parser.add_argument('--load-threads', type=int, default=8)
    parser.add_argument('--port-range', default='%d-%d' % PORT_RANGE,
                        help='ports the servers may use (default '
                             '%(default)s)')
    parser.add_argument('--json', metavar='FILE', help='write raw results')
    parser.add_argument('--markdown', action='store_true',
                        help='print the tables as Markdown')
    parser.add_argument('--keep', action='store_true',
                        help='keep temp dirs (server logs) and databases')
    parser.add_argument('--report', nargs='+', metavar='JSON',
                        help='only print the tables of earlier --json '
                             'files (servers of the same data set side by '
                             'side, e.g. ours and upstream run separately)')
    args = parser.parse_args(argv)
    if not args.flat and not args.nested and not args.report:
        parser.error('give --flat N and/or --nested N')
    if args.upstream_venv:
        command, setup = upstream_commands(args.upstream_venv)
        args.compare_cmd = args.compare_cmd or command
        args.compare_setup_cmd = args.compare_setup_cmd or setup
    return args


def upstream_commands(venv, timeout=600):
    """(server command, setup command) of upstream placement installed
    with gunicorn in ``venv``, in the ``Server`` command format."""
    venv = os.path.abspath(venv)
    return ('%s/bin/gunicorn --bind 127.0.0.1:{port} --workers {workers} '
            '--timeout %d placement.wsgi.api:application' % (venv, timeout),
            '%s/bin/placement-manage --config-file {config_file} db sync'
            % venv)


def set_port_range(text):
    """Let servers use the ports ``text`` ('LOW-HIGH') names."""
    global PORT_RANGE
    PORT_RANGE = tuple(int(port) for port in text.split('-'))


def report_files(paths, markdown):
    """Tables from earlier --json files, servers merged per data set."""
    merged = {}
    for path in paths:
        with open(path) as handle:
            saved = json.load(handle)
        for dataset_label, results in saved['results'].items():
            entry = merged.setdefault(dataset_label, {
                'title': describe(dataset_label, saved['args']),
                'results': {}})
            entry['results'].update(results)
    for entry in merged.values():
        report(entry['title'], list(entry['results']), entry['results'],
               markdown)
    return 0


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.report:
        return report_files(args.report, args.markdown)
    set_port_range(args.port_range)
    servers = [(args.label, args.server_cmd, args.setup_cmd)]
    if args.compare_cmd:
        servers.append((args.compare_label, args.compare_cmd,
                        args.compare_setup_cmd))
    datasets = []
    if args.flat:
        datasets.append(FlatDataSet(args.flat))
    if args.nested:
        datasets.append(NestedDataSet(args.nested))
    root = tempfile.mkdtemp(prefix='placement-bench-')
    everything = {}
    try:
        for dataset in datasets:
            results = {}
            for label, cmd, setup_cmd in servers:
                results[label] = run_one(label, cmd, setup_cmd, dataset,
                                         args, root)
            everything[dataset.label] = results
            report(describe(dataset.label, vars(args)),
                   [s[0] for s in servers], results, args.markdown)
    finally:
        if args.keep:
            log('kept work directories under %s' % root)
        else:
            shutil.rmtree(root, ignore_errors=True)
    if args.json:
        with open(args.json, 'w') as out:
            json.dump({'args': vars(args), 'results': everything}, out,
                      indent=2, default=str)
    return 1 if any('error' in r for res in everything.values()
                    for r in res.values()) else 0


if __name__ == '__main__':
    sys.exit(main())
