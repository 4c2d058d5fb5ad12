"""Prometheus metrics: what is counted, and the hooks that count it.

Counters and histograms live in each process.  Under ``placement-api``
(gunicorn) every worker writes them to memory-mapped files in a directory
private to the server instance (``PROMETHEUS_MULTIPROC_DIR``, set before
the workers fork) and a scrape, answered by any worker, sums the files of
all of them; the files of a dead worker stay, so counters never go back
when gunicorn replaces one.  Without that variable (e.g. mod_wsgi) a scrape
reports the answering process only.  Updates take prometheus_client's lock,
so threaded workers are safe too.

The hooks below (``count_retry``, ``checkout_waited``, ...) do nothing until
``configure()`` has run, so code that calls them needs no configuration.
This module reads no database (``db.py`` imports it): the request
middleware and ``GET /metrics`` are in ``metrics_wsgi.py``, the capacity
figures in ``capacity_gauges.py``.
"""
import contextlib
import os
import threading
import time

from prometheus_client import multiprocess
from prometheus_client import values
import prometheus_client as prom
from sqlalchemy import event

from placement import errors

MULTIPROC_ENV = 'PROMETHEUS_MULTIPROC_DIR'
# The label values of the counters, each series created up front: a
# scrape shows every one of them, at zero until it happens.
RETRY_REASONS = {
    'write': (errors.LOST_RACE, errors.DEADLOCK, errors.ROOM_TAKEN),
    'read': (errors.DEADLOCK, errors.CONNECTION_LOST),
}
PHASES = ('database', 'combining', 'rendering')


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
        for kind in errors.CONFLICT_KINDS:
            self.conflicts.labels(kind)
        for kind, reasons in RETRY_REASONS.items():
            for reason in reasons:
                self.retries[kind].labels(reason)
        for phase in PHASES:
            self.candidates_phase.labels(phase)


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
