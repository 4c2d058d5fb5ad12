"""What is timed: candidate latency and throughput, concurrent claims,
and the checks made after them."""
import concurrent.futures
import math
import statistics
import threading
import time
import uuid

from bench.common import web
from bench.common import report
from bench.common import datasets
from bench.common import meters


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
    """Sequential requests after one warm-up: median / p95 / p99 in ms."""
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
            'p95_ms': percentile(times, 95), 'p99_ms': percentile(times, 99),
            'candidates': count}


def time_throughput(clients, url, concurrency, duration, meter):
    """Requests/s of `concurrency` clients looping for `duration` s, and
    the CPU time per request of the server and of its database server
    (``meter``, a meters.CpuMeter: the clients share the machine, so the
    rate alone understates a fast server)."""
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
    started = meter.read()
    deadline = time.monotonic() + duration
    elapsed = web.run_concurrently(clients, concurrency, worker)
    used = meter.since(started)
    result = {'rps': done[0] / elapsed, 'requests': done[0],
              'seconds': elapsed,
              **meters.per_request_ms(used, done[0])}
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

        elapsed = web.run_concurrently(self.clients,
                                       self.concurrency, worker)
        return {'claims': self.claimed, 'seconds': elapsed,
                'claims_per_s': self.claimed / elapsed,
                'conflicts': self.conflicts,
                'failures': len(self.failures),
                'failure_sample': sorted(set(self.failures))[:3]}


def overcommitted(clients, providers, threads):
    """Providers (of those claimed against) whose usage exceeds capacity."""

    def check(rp_uuid):
        base = '/resource_providers/' + rp_uuid
        inventories = web.request(
            clients, 'GET', base + '/inventories',
            (200,)).json()['inventories']
        usages = web.request(clients, 'GET', base + '/usages',
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


def measure(clients, dataset, args, results, meter):
    if not args.throughput_only:
        for name, limit in datasets.VARIANTS:
            url = candidates_url(dataset, limit)
            report.note(results, 'latency ' + name,
                        time_latency(clients, url, args.repeats))
        # This service's explanation of the same query (no limit); other
        # servers answer 404, shown as an error.
        report.note(results, 'latency explain', time_latency(
            clients, '/allocation_candidates/explain?' + dataset.query(),
            args.repeats, count_of=lambda body: body['candidates']))
    for name, limit in datasets.VARIANTS:
        url = candidates_url(dataset, limit)
        report.note(results, 'throughput ' + name,
                    time_throughput(clients, url, args.concurrency,
                                    args.duration, meter))
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
    report.note(results, 'claims', outcome)
