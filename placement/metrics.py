"""Prometheus metrics: what is counted, and ``GET /metrics``.

Counters and histograms live in each process.  Under ``placement-api``
(gunicorn) every worker writes them to memory-mapped files in a directory
private to the server instance (``PROMETHEUS_MULTIPROC_DIR``, set before
the workers fork) and a scrape, answered by any worker, sums the files of
all of them; the files of a dead worker stay, so counters never go back
when gunicorn replaces one.  Without that variable (e.g. mod_wsgi) a scrape
reports the answering process only.  Updates take prometheus_client's lock,
so threaded workers are safe too.

Capacity figures are not counted but computed by SQL at scrape time (see
``objects/capacity.py``) and reused for ``[metrics] cache_seconds``.

The hooks below (``count_retry``, ``checkout_waited``, ...) do nothing until
``configure()`` has run, so code that calls them needs no configuration.
"""
import contextlib
import os
import threading
import time

from prometheus_client import core
from prometheus_client import exposition
from prometheus_client import multiprocess
from prometheus_client import values
import prometheus_client as prom
from sqlalchemy import event
import webob
import webob.dec
import webob.exc

from placement import environ_keys
from placement import errors

MULTIPROC_ENV = 'PROMETHEUS_MULTIPROC_DIR'
UNMATCHED = 'unmatched'
PATH = '/metrics'
POLICY = 'placement:metrics'
# Methods outside this set share one label value: labels stay bounded
# whatever a client sends.
METHODS = frozenset(('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE',
                     'OPTIONS'))


class _Metrics:
    """The process's metric objects, in a registry of their own."""

    def __init__(self):
        self.registry = prom.CollectorRegistry(auto_describe=False)
        reg = {'registry': self.registry}
        self.requests = prom.Counter(
            'placement_http_requests', 'HTTP requests answered.',
            ['method', 'route', 'status'], **reg)
        self.duration = prom.Histogram(
            'placement_http_request_duration_seconds',
            'Time from receiving a request to its answer.',
            ['method', 'route'], **reg)
        self.candidates = prom.Histogram(
            'placement_allocation_candidates_returned',
            'Allocation candidates in one answer.',
            buckets=(0, 1, 5, 10, 50, 100, 500, 1000, 5000, 10000,
                     float('inf')), **reg)
        self.candidates_empty = prom.Counter(
            'placement_allocation_candidates_empty',
            'Candidate requests answered with no candidate.', **reg)
        self.candidates_phase = prom.Histogram(
            'placement_allocation_candidates_phase_seconds',
            'Time of a candidate request by phase: SQL (database), '
            'building candidates from the rows (combining) and the JSON '
            'answer (rendering).', ['phase'], **reg)
        self.conflicts = prom.Counter(
            'placement_write_conflicts',
            'Writes answered 409, by cause.', ['kind'], **reg)
        self.retries = {
            'write': prom.Counter(
                'placement_write_retries',
                'Write transactions run again: after a lost race on a '
                'generation (lost_race) or a deadlock or serialization '
                'failure the database reported (deadlock).', ['reason'],
                **reg),
            'read': prom.Counter(
                'placement_read_retries',
                'Read transactions run again: after a deadlock, lock '
                'timeout or serialization failure (deadlock) or a lost '
                'connection (connection_lost).', ['reason'], **reg),
        }
        self.connections = prom.Gauge(
            'placement_db_connections_in_use',
            'Database connections checked out of the pools.',
            multiprocess_mode='livesum', **reg)
        self.checkout_wait = prom.Histogram(
            'placement_db_checkout_wait_seconds',
            'Time to obtain a database connection from the pool.',
            buckets=(.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5,
                     1, 2.5, 5, 10, float('inf')), **reg)


_metrics = None
# Per thread: seconds spent in the driver's execute calls while a
# candidate request is being answered (None when not timing).
_query_clock = threading.local()


def configure():
    """Create the metric objects once per process (before or after fork)."""
    global _metrics
    if _metrics is None:
        if os.environ.get(MULTIPROC_ENV):
            # prometheus_client chooses its value class when it is first
            # imported; the directory may have been named after that.
            values.ValueClass = values.MultiProcessValue()
        _metrics = _Metrics()
    return _metrics


def multiprocess_dir():
    return os.environ.get(MULTIPROC_ENV)


def worker_exited(pid):
    """gunicorn's child_exit: drop the dead worker's live gauges."""
    if multiprocess_dir():
        multiprocess.mark_process_dead(pid)


# -- hooks ------------------------------------------------------------------

def count_retry(kind, reason):
    """A ``kind`` ('read' or 'write') transaction runs again."""
    if _metrics is not None:
        _metrics.retries[kind].labels(reason).inc()


def checkout_waited(seconds):
    if _metrics is not None:
        _metrics.checkout_wait.observe(seconds)


def instrument(engine):
    """Follow ``engine``'s pool and time its statements (for candidates)."""
    metrics = configure()
    event.listen(engine, 'checkout',
                 lambda *args: metrics.connections.inc())
    event.listen(engine, 'checkin',
                 lambda *args: metrics.connections.dec())
    event.listen(engine, 'before_cursor_execute', _before_execute)
    event.listen(engine, 'after_cursor_execute', _after_execute)


def _before_execute(conn, cursor, statement, parameters, context, many):
    if getattr(_query_clock, 'total', None) is not None:
        context.placement_started = time.perf_counter()


def _after_execute(conn, cursor, statement, parameters, context, many):
    started = getattr(context, 'placement_started', None)
    total = getattr(_query_clock, 'total', None)
    if started is not None and total is not None:
        _query_clock.total = total + time.perf_counter() - started


class CandidatePhases:
    """Time the phases of one candidate request.

    ``searching()`` wraps the engine, where SQL and combining interleave:
    its statements are timed as they run and the rest is combining;
    ``rendering()`` wraps building the JSON answer; ``done(count)``
    records the three.
    """

    def __init__(self):
        self.database = self.searched = self.rendered = 0.0

    @contextlib.contextmanager
    def searching(self):
        started = time.perf_counter()
        _query_clock.total = 0.0
        try:
            yield
        finally:
            self.searched = time.perf_counter() - started
            self.database = min(_query_clock.total, self.searched)
            _query_clock.total = None

    @contextlib.contextmanager
    def rendering(self):
        started = time.perf_counter()
        try:
            yield
        finally:
            self.rendered = time.perf_counter() - started

    def done(self, count):
        if _metrics is None:
            return
        phase = _metrics.candidates_phase
        phase.labels('database').observe(self.database)
        phase.labels('combining').observe(self.searched - self.database)
        phase.labels('rendering').observe(self.rendered)
        _metrics.candidates.observe(count)
        if not count:
            _metrics.candidates_empty.inc()


# -- middleware and endpoint -------------------------------------------------

class RequestMetrics:
    """Count every request by method, route template and status."""

    def __init__(self, application):
        self.application = application
        self.metrics = configure()

    def __call__(self, environ, start_response):
        started = time.perf_counter()
        seen = {}

        def _start_response(status, headers, exc_info=None):
            seen['status'] = status.split(None, 1)[0]
            return start_response(status, headers, exc_info)

        try:
            return self.application(environ, _start_response)
        finally:
            method = environ.get('REQUEST_METHOD')
            if method not in METHODS:
                method = 'other'
            route = environ.get(environ_keys.ROUTE, UNMATCHED)
            status = seen.get('status', '500')
            metrics = self.metrics
            metrics.requests.labels(method, route, status).inc()
            metrics.duration.labels(method, route).observe(
                time.perf_counter() - started)
            if status == '409':
                metrics.conflicts.labels(
                    environ.get(environ_keys.CONFLICT_KIND,
                                errors.OTHER_CONFLICT)
                ).inc()


class MetricsEndpoint:
    """Answer ``GET /metrics``; pass every other request on.

    Placed behind the auth middleware when ``[metrics] require_auth`` (the
    caller then needs the ``placement:metrics`` rule), in front of it
    otherwise.  ``read_capacity`` is ``objects.capacity.snapshot``, passed
    in by deploy.py: db.py imports this module, which therefore imports no
    object module.
    """

    def __init__(self, application, database, conf, read_capacity):
        self.application = application
        self.require_auth = conf.metrics.require_auth
        self.registry = core.CollectorRegistry(auto_describe=False)
        if multiprocess_dir():
            multiprocess.MultiProcessCollector(self.registry,
                                               path=multiprocess_dir())
        else:
            self.registry.register(_Forward(configure().registry))
        self.registry.register(
            _CapacityCollector(database, conf.metrics, read_capacity))

    def __call__(self, environ, start_response):
        if environ.get('PATH_INFO') != PATH:
            return self.application(environ, start_response)
        environ[environ_keys.ROUTE] = PATH
        return self._scrape(environ, start_response)

    @webob.dec.wsgify
    def _scrape(self, req):
        if req.method != 'GET':
            raise errors.http_error(webob.exc.HTTPMethodNotAllowed,
                                    headers=[('Allow', 'GET')])
        if self.require_auth:
            # Inside the context middleware: the token was checked.
            req.environ[environ_keys.CONTEXT].can(POLICY)
        return webob.Response(
            body=exposition.generate_latest(self.registry),
            headerlist=[('Content-Type', exposition.CONTENT_TYPE_LATEST)])


class _Forward:
    """This process's own metrics (no multiprocess directory)."""

    def __init__(self, registry):
        self.registry = registry

    def collect(self):
        return self.registry.collect()


class _CapacityCollector:
    """Cloud-wide (and optionally per provider) capacity and usage."""

    def __init__(self, database, conf, read_capacity):
        self.database = database
        self.read_capacity = read_capacity
        self.cache_seconds = conf.cache_seconds
        self.per_provider = conf.per_provider
        self.lock = threading.Lock()
        self.cached = None
        self.expires = 0.0

    def collect(self):
        with self.lock:
            now = time.monotonic()
            if self.cached is None or now >= self.expires:
                self.cached = list(self._families())
                self.expires = now + self.cache_seconds
            return self.cached

    def _families(self):
        totals, providers = self.database.read(self.read_capacity,
                                               self.per_provider)
        cap = core.GaugeMetricFamily(
            'placement_capacity',
            'Capacity of all inventories: (total - reserved) * '
            'allocation_ratio, summed per resource class.',
            labels=['resource_class'])
        usage = core.GaugeMetricFamily(
            'placement_usage', 'Allocated amounts per resource class.',
            labels=['resource_class'])
        for name, (class_capacity, used) in sorted(totals.classes.items()):
            cap.add_metric([name], class_capacity)
            usage.add_metric([name], used)
        yield cap
        yield usage
        yield core.GaugeMetricFamily(
            'placement_resource_providers', 'Resource providers.',
            value=totals.providers)
        yield core.GaugeMetricFamily(
            'placement_consumers', 'Consumers holding allocations.',
            value=totals.consumers)
        if providers is None:
            return
        cap = core.GaugeMetricFamily(
            'placement_provider_capacity',
            'Capacity of one provider per resource class.',
            labels=['provider', 'resource_class'])
        usage = core.GaugeMetricFamily(
            'placement_provider_usage',
            'Allocated amounts of one provider per resource class.',
            labels=['provider', 'resource_class'])
        for (uuid, name), (class_capacity, used) in providers:
            cap.add_metric([uuid, name], class_capacity)
            usage.add_metric([uuid, name], used)
        yield cap
        yield usage
