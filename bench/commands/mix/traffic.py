"""The traffic of bench/run mix http: an HTTP client per thread, the
counters, and the schedule of node refreshes and scheduler requests that
a pool of threads sends to the server."""
import collections
import heapq
import http.client
import json
import random
import threading
import time
import uuid

from bench.common import web
from bench.common import scenarios
from bench.common import meters

HEADERS = {'x-auth-token': 'admin', 'accept': 'application/json',
           'content-type': 'application/json',
           'openstack-api-version': 'placement 1.39'}
CANDIDATE_LIMIT = 1000
FLAVOR = {'VCPU': 2, 'MEMORY_MB': 4096, 'DISK_GB': 20}


def add_schedule_arguments(parser, **defaults):
    """The options of the cloud and the schedule a Mix sends, shared by
    mix http and swap; ``defaults`` {option dest: value} are theirs."""
    chosen = dict(refresh=300.0, creates=10.0, moves=1.0, deletes=8.0,
                  drain=15.0, threads=48)
    chosen.update(defaults)
    parser.add_argument('--computes', type=int, default=10000)
    parser.add_argument('--nested', type=float, default=0.2,
                        help='share of nested compute nodes')
    parser.add_argument('--sharing', type=float, default=0.1,
                        help='share of nodes with sharing disk')
    parser.add_argument('--refresh', type=float, default=chosen['refresh'],
                        help='seconds between refreshes of one node '
                        '(default %(default)s)')
    parser.add_argument('--inventory-change', type=float, default=0.02,
                        help='share of refreshes that PUT an inventory')
    parser.add_argument('--creates', type=float, default=chosen['creates'])
    parser.add_argument('--moves', type=float, default=chosen['moves'])
    parser.add_argument('--deletes', type=float, default=chosen['deletes'])
    parser.add_argument('--warmup', type=float, default=10.0)
    parser.add_argument('--drain', type=float, default=chosen['drain'],
                        help='seconds to wait after the end for answers to '
                        'requests already sent (default %(default)s); the '
                        'rest are reported as unanswered')
    parser.add_argument('--threads', type=int, default=chosen['threads'],
                        help='client threads sending the schedule')


# --------------------------------------------------------------------------
# HTTP, one keep-alive connection per thread

class Http:

    def __init__(self, port):
        self.port = port
        self.local = threading.local()
        self.opened = []

    def close(self):
        for conn in self.opened:
            conn.close()

    def __call__(self, method, path, body=None):
        data = json.dumps(body) if body is not None else None
        conn = getattr(self.local, 'conn', None)
        # A kept-alive connection the server closed meanwhile fails at once:
        # one retry on a new connection, as HTTP clients do.
        for fresh in ((False, True) if conn is not None else (True,)):
            if fresh:
                conn = self.local.conn = http.client.HTTPConnection(
                    '127.0.0.1', self.port, timeout=120)
                self.opened.append(conn)
            try:
                conn.request(method, path, body=data, headers=HEADERS)
                response = conn.getresponse()
                self.local.headers = response.headers
                return response.status, response.read()
            except (OSError, http.client.HTTPException):
                conn.close()
        self.local.conn = self.local.headers = None
        return None, None


class Stats:

    def __init__(self):
        self.lock = threading.Lock()
        self.latency = collections.defaultdict(list)
        self.errors = collections.Counter()
        self.conflicts = collections.Counter()
        self.late = []
        # Requests sent before the end and not answered yet; once closed
        # (the drain time is over) answers are no longer counted.
        self.in_flight = 0
        self.closed = False

    def sent(self):
        with self.lock:
            self.in_flight += 1

    def record(self, op, seconds, status):
        with self.lock:
            if self.closed:
                return
            self.in_flight -= 1
            if status is None or status >= 500:
                self.errors[op] += 1
            else:
                self.latency[op].append(seconds)
                if status == 409:
                    self.conflicts[op] += 1

    def table(self, duration):
        out = {}
        for op in sorted(set(self.latency) | set(self.errors)):
            values = sorted(self.latency[op])
            out[op] = {
                'count': len(values), 'per_s': len(values) / duration,
                'p50_ms': (1000 * scenarios.percentile(values, 50)
                           if values else None),
                'p95_ms': (1000 * scenarios.percentile(values, 95)
                           if values else None),
                'p99_ms': (1000 * scenarios.percentile(values, 99)
                           if values else None),
                'errors': self.errors[op], 'conflicts': self.conflicts[op]}
        late = sorted(self.late)
        out['_schedule'] = {
            'late_p50_ms': (1000 * scenarios.percentile(late, 50)
                            if late else 0),
            'late_p99_ms': (1000 * scenarios.percentile(late, 99)
                            if late else 0)}
        return out


class Mix:
    """The schedule of nodes and scheduler, run by a pool of threads."""

    def __init__(self, cloud, http, args, meter):
        # A meters.CpuMeter of the server and its database (None: the
        # caller measures no CPU time).
        self.meter = meter
        self.cloud = cloud
        self.http = http
        self.args = args
        self.stats = Stats()
        self.rng = random.Random(2)
        # [(consumer, allocations, consumer generation)]
        self.instances = []
        self.lock = threading.Lock()
        self.queue = []
        self.cond = threading.Condition()
        self.stop_at = None
        self.project = str(uuid.uuid4())
        self.user = str(uuid.uuid4())

    def call(self, op, method, path, body=None):
        started = time.monotonic()
        counted = self.stop_at is not None and started < self.stop_at
        if counted:
            self.stats.sent()
        status, payload = self.http(method, path, body)
        if counted:
            self.stats.record(op, time.monotonic() - started, status)
        return status, payload

    # -- nova-compute ------------------------------------------------------

    def refresh(self, index):
        root, tree, aggregate = self.cloud.computes[index]
        self.call('tree', 'GET', '/resource_providers?in_tree=' + root)
        for rp in tree:
            base = '/resource_providers/' + rp
            status, payload = self.call('inventories', 'GET',
                                        base + '/inventories')
            self.call('traits', 'GET', base + '/traits')
            self.call('aggregates', 'GET', base + '/aggregates')
        if aggregate:
            self.call('sharing', 'GET', '/resource_providers?member_of=in:'
                      + aggregate + '&required=MISC_SHARES_VIA_AGGREGATE')
        if status == 200 and self.rng.random() < self.args.inventory_change:
            body = json.loads(payload)
            for record in body['inventories'].values():
                self.change_inventory(record)
            self.call('put_inventory', 'PUT', base + '/inventories', body)

    def change_inventory(self, record):
        record['reserved'] = self.rng.randint(0, 1)

    # -- scheduler ---------------------------------------------------------

    def _candidates(self):
        query = ','.join('%s:%d' % item for item in FLAVOR.items())
        status, payload = self.call(
            'candidates', 'GET', '/allocation_candidates?resources=%s'
            '&limit=%d' % (query, CANDIDATE_LIMIT))
        if status != 200:
            return []
        found = json.loads(payload)['allocation_requests']
        return found[:10]

    def _consumer_body(self, allocations, generation):
        return {'allocations': allocations, 'project_id': self.project,
                'user_id': self.user, 'consumer_generation': generation,
                'consumer_type': 'INSTANCE'}

    def create(self):
        self.call('usages', 'GET', '/usages?project_id=' + self.project)
        consumer = str(uuid.uuid4())
        for candidate in self._candidates():
            status, _ = self.call(
                'claim', 'PUT', '/allocations/' + consumer,
                self._consumer_body(candidate['allocations'], None))
            if status == 204:
                with self.lock:
                    self.instances.append(
                        (consumer, candidate['allocations'], 1))
                return

    def _take(self):
        with self.lock:
            if not self.instances:
                return None
            index = self.rng.randrange(len(self.instances))
            self.instances[index], self.instances[-1] = (
                self.instances[-1], self.instances[index])
            return self.instances.pop()

    def move(self):
        taken = self._take()
        if taken is None:
            return
        consumer, allocations, generation = taken
        migration = str(uuid.uuid4())
        for candidate in self._candidates():
            if candidate['allocations'].keys() & allocations.keys():
                continue
            body = {
                migration: dict(self._consumer_body(allocations, None),
                                consumer_type='MIGRATION'),
                consumer: self._consumer_body(candidate['allocations'],
                                              generation)}
            status, _ = self.call('move', 'POST', '/allocations', body)
            if status == 204:
                self.call('delete', 'DELETE', '/allocations/' + migration)
                allocations = candidate['allocations']
                generation += 1
                break
        with self.lock:
            self.instances.append((consumer, allocations, generation))

    def delete(self):
        taken = self._take()
        if taken is not None:
            self.call('delete', 'DELETE', '/allocations/' + taken[0])

    def offered(self):
        """Requests per second the schedule sends when the server keeps
        up (a claim or move taking its first candidate)."""
        args = self.args
        refresh = sum(1 + 3 * len(tree) + bool(aggregate)
                      for _, tree, aggregate in self.cloud.computes)
        return (refresh * (1 + args.inventory_change) / args.refresh
                + 3 * args.creates + 3 * args.moves + args.deletes)

    # -- the schedule ------------------------------------------------------

    def _push(self, due, task):
        with self.cond:
            heapq.heappush(self.queue, (due, id(task), task))
            self.cond.notify()

    def _periodic(self, due, every, func, *args):
        def task():
            func(*args)
        task.next = lambda now: self._periodic(now + every, every, func,
                                               *args)
        self._push(due, task)

    def _worker(self):
        while True:
            with self.cond:
                while True:
                    if not self.queue:
                        self.cond.wait(0.1)
                    elif self.queue[0][0] > time.monotonic():
                        self.cond.wait(self.queue[0][0] - time.monotonic())
                    else:
                        due, _, task = heapq.heappop(self.queue)
                        break
                    if time.monotonic() >= self.end_at:
                        return
            now = time.monotonic()
            if now >= self.end_at:
                return
            if self.stop_at is not None and self.start_at <= due:
                self.stats.late.append(now - due)
            task.next(due)
            try:
                task()
            except Exception as exc:  # a broken answer is an error, go on
                web.log('    %s: %r' % (task.__name__, exc))

    def start(self):
        """Start the schedule: counted from the end of the warm-up until
        ``stop_at``, which ``finish`` may be told later."""
        args = self.args
        now = time.monotonic()
        self.start_at = now + args.warmup
        self.stop_at = self.end_at = self.start_at + args.duration
        # Nodes spread over one refresh interval.
        for index in range(len(self.cloud.computes)):
            self._periodic(now + args.refresh * self.rng.random(),
                           args.refresh, self.refresh, index)
        for rate, func in ((args.creates, self.create),
                           (args.moves, self.move),
                           (args.deletes, self.delete)):
            if rate > 0:
                self._periodic(now + self.rng.random() / rate, 1.0 / rate,
                               func)
        self.threads = [threading.Thread(target=self._worker, daemon=True)
                        for _ in range(args.threads)]
        for thread in self.threads:
            thread.start()

    def finish(self, used, stop_at=None):
        """Stop the schedule at ``stop_at`` (default: the planned end),
        wait for the answers and return the table, with the CPU time
        ``used`` meanwhile (a ``CpuMeter.since``) when not None."""
        if stop_at is not None:
            self.stop_at = self.end_at = stop_at
        # Answers to requests sent before the end are waited for, but
        # only --drain seconds, so that a run takes a bounded time even
        # against a server that fell far behind.
        drained = self.stop_at + self.args.drain
        for thread in self.threads:
            thread.join(max(0, drained - time.monotonic()))
        with self.stats.lock:
            self.stats.closed = True
        table = self.stats.table(self.stop_at - self.start_at)
        table['_schedule']['unanswered_at_end'] = self.stats.in_flight
        served = sum(figures['count'] for op, figures in table.items()
                     if not op.startswith('_'))
        table['_schedule']['offered_per_s'] = self.offered()
        table['_schedule']['overdue_at_end'] = sum(
            1 for due, _, _ in self.queue if due < self.stop_at)
        if used is not None:
            per_request = meters.per_request_ms(used, served)
            table['_schedule'].update(
                wall_s=used['wall_s'], server_cpu_s=used['server_cpu_s'],
                db_cpu_s=used['db_cpu_s'],
                server_cpu_ms_per_request=per_request['server_cpu_ms'],
                db_cpu_ms_per_request=per_request['db_cpu_ms'])
        return table

    def run(self):
        self.start()
        time.sleep(max(0, self.start_at - time.monotonic()))
        started = self.meter.read()
        time.sleep(max(0, self.stop_at - time.monotonic()))
        return self.finish(self.meter.since(started))
