"""Candidates and claims per second: one MariaDB server against a
three-node MariaDB Galera cluster, with one and with three API processes.

It builds private servers on loopback with the test suite's harness
(tests/support/galera_servers.py and db_servers.py: temporary data directories,
ports 20600-20799, the shared servers untouched), so it needs the same
packages as tests/cluster/test_cluster.py (mariadb-server, galera-4, rsync).
For every topology it starts the API processes (one per Galera node, or
all on the single server), loads ``--providers`` flat compute nodes and
measures:

* candidates: ``--clients`` clients spread over the API processes run
  ``GET /allocation_candidates?resources=VCPU:1,MEMORY_MB:256,DISK_GB:10
  &limit=10`` for ``--duration`` seconds; completed requests per second;
* claims: the same clients each fetch candidates and claim the first one
  (``PUT /allocations/<new consumer>``), again after a 409, for
  ``--duration`` seconds; acknowledged claims per second, the 409s, and
  Galera's certification failures and brute-force aborts meanwhile;

then checks from the tables that no provider is over-committed.  Prints
a Markdown table.

    bench/run cluster --providers 200 --duration 15
"""
import sys
import threading
import time
import uuid

import httpx

from bench.common import report
from bench.common import paths

sys.path.insert(0, paths.TESTS)
from support import db_servers  # noqa: E402
from support import galera_servers  # noqa: E402
from support import stress_check  # noqa: E402
from support import stress_load  # noqa: E402
from support import stress_setup  # noqa: E402

QUERY = {'resources': 'VCPU:1,MEMORY_MB:256,DISK_GB:10', 'limit': 10}
INVENTORY = {'VCPU': {'total': 32}, 'MEMORY_MB': {'total': 8192},
             'DISK_GB': {'total': 2000}}


def load_providers(url, count, threads=8):
    data = stress_setup.DataSet()

    def work(index):
        with httpx.Client(base_url=url, headers=stress_setup.HEADERS,
                          timeout=60) as http:
            for i in range(index, count, threads):
                data.provider(http, 'cn%d' % i, INVENTORY)

    pool = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()


def run_clients(urls, clients, duration, body):
    """``body(http, counts)`` in a loop from each client until
    ``duration`` is over; the summed counts and the wall time."""
    counts = {}
    lock = threading.Lock()
    deadline = time.monotonic() + duration

    def client(index):
        mine = {}
        with httpx.Client(base_url=urls[index % len(urls)],
                          headers=stress_setup.HEADERS, timeout=60) as http:
            while time.monotonic() < deadline:
                body(http, mine)
        with lock:
            for key, value in mine.items():
                counts[key] = counts.get(key, 0) + value

    started = time.monotonic()
    pool = [threading.Thread(target=client, args=(i,))
            for i in range(clients)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return counts, time.monotonic() - started


def _count(counts, key):
    counts[key] = counts.get(key, 0) + 1


def candidates(http, counts):
    response = http.get('/allocation_candidates', params=QUERY)
    _count(counts, 'ok' if response.status_code == 200
           else str(response.status_code))


def claim(ledger):
    def body(http, counts):
        consumer = str(uuid.uuid4())
        for _attempt in range(5):
            response = http.get('/allocation_candidates', params=QUERY)
            if response.status_code != 200:
                _count(counts, str(response.status_code))
                return
            requests = response.json()['allocation_requests']
            if not requests:
                _count(counts, 'no_candidates')
                return
            allocations = requests[0]['allocations']
            response = http.put('/allocations/%s' % consumer, json={
                'allocations': allocations, 'project_id': stress_setup.PROJECT,
                'user_id': stress_setup.USER, 'consumer_generation': None,
                'consumer_type': 'INSTANCE'})
            if response.status_code == 204:
                ledger.certain(consumer, stress_load.state_of(allocations))
                _count(counts, 'ok')
                return
            _count(counts, str(response.status_code))
            if response.status_code != 409:
                ledger.uncertain(consumer, stress_load.state_of(allocations))
                return
    return body


def measure(label, backend_urls, api_processes, args, counters=None):
    """One topology: ``api_processes`` API processes over the database
    servers ``backend_urls`` (round robin)."""
    nodes = [backend_urls[i % len(backend_urls)]
             for i in range(1, api_processes)]
    with stress_setup.service('mysql', args.workers,
                              server_url=backend_urls[0],
                              nodes=nodes) as svc:
        load_providers(svc.url, args.providers)
        cand, cand_wall = run_clients(svc.urls, args.clients, args.duration,
                                      candidates)
        before = counters() if counters else None
        ledger = stress_load.Ledger()
        claims, claim_wall = run_clients(svc.urls, args.clients,
                                         args.duration, claim(ledger))
        after = counters() if counters else None
        check = stress_check.check_database(svc.db_url, ledger)
    row = {
        'topology': label, 'api': api_processes,
        'candidates/s': cand.get('ok', 0) / cand_wall,
        'candidates errors': sum(v for k, v in cand.items() if k != 'ok'),
        'claims/s': claims.get('ok', 0) / claim_wall,
        '409': claims.get('409', 0),
        'other errors': sum(v for k, v in claims.items()
                            if k not in ('ok', '409')),
        'over-committed': len(check.over_committed),
        'wrong': len(check.wrong),
    }
    if before is not None:
        grown = galera_servers.GaleraCluster.conflicts(before, after)
        row['cert failures'] = grown['wsrep_local_cert_failures']
        row['bf aborts'] = grown['wsrep_local_bf_aborts']
    print(row, file=sys.stderr, flush=True)
    return row


def table(rows):
    columns = ['topology', 'api', 'candidates/s', 'claims/s', '409',
               'cert failures', 'bf aborts', 'candidates errors',
               'other errors', 'over-committed', 'wrong']
    lines = [report.markdown_head(columns)]
    for row in rows:
        cells = []
        for column in columns:
            value = row.get(column, '-')
            cells.append('%.1f' % value if isinstance(value, float)
                         else str(value))
        lines.append(report.markdown_row(cells))
    return '\n'.join(lines)


def add_arguments(parser):
    parser.add_argument('--providers', type=int, default=200)
    parser.add_argument('--clients', type=int, default=12)
    parser.add_argument('--duration', type=float, default=15.0)
    parser.add_argument('--workers', type=int, default=2,
                        help='gunicorn workers per API process')


def main(args):
    rows = []
    single = db_servers.PrivateMariaDB()
    try:
        single.start()
        for api in (1, 3):
            rows.append(measure('single MariaDB', [single.url], api, args))
    finally:
        single.stop()
        single.cleanup()
    cluster = galera_servers.GaleraCluster()
    try:
        cluster.start()
        urls = [node.url for node in cluster.nodes]
        for api in (1, 3):
            rows.append(measure('Galera, 3 nodes', urls, api, args,
                                counters=cluster.counters))
    finally:
        cluster.stop()
        cluster.cleanup()
    print(table(rows))
