"""The HTTP side of the benchmarks: clients aimed at one server and
set-up requests that survive transient errors."""
import sys
import threading
import time

import httpx

HEADERS = {
    'x-auth-token': 'admin',
    'openstack-api-version': 'placement latest',
    'accept': 'application/json',
}
TRANSIENT_RETRIES = 10


class BenchError(Exception):
    """A run cannot go on (server did not start, load failed...)."""


def log(message):
    print(message, file=sys.stderr, flush=True)


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
