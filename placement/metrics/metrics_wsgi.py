"""The WSGI side of the metrics: counting every request, and answering
``GET /metrics`` (see docs/metrics.md)."""
import time

from prometheus_client import core
from prometheus_client import exposition
from prometheus_client import multiprocess
import webob
import webob.dec

from placement import console
from placement import errors
from placement.metrics import metrics
from placement.web import environ_keys

PATH = '/metrics'
POLICY = 'placement:metrics'
UNMATCHED = 'unmatched'
# The console's page and files, all under one label.
CONSOLE_ROUTE = console.PREFIX + '/{file}'
# Methods outside this set share one label value: labels stay bounded
# whatever a client sends.
METHODS = frozenset(('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE',
                     'OPTIONS'))


def _is_console(path):
    return path == console.PREFIX or path.startswith(console.PREFIX + '/')


class RequestMetrics:
    """Count every request by method, route and status.

    The route is the template the router matched, the path of the
    endpoint that answered, ``CONSOLE_ROUTE`` for the console's files,
    the ``environ_keys.REFUSED_BY_*`` value of the layer that refused the
    request before routing, or else ``unmatched`` (an unknown URL).
    """

    def __init__(self, application, conf):
        self.application = application
        self.console = conf.api.console
        self.metrics = metrics.configure()
        # (request counter, duration histogram) by (method, route, status),
        # found once: labels() takes a lock and checks its arguments.
        self.series = {}

    def __call__(self, environ, start_response):
        started = time.perf_counter()
        seen = []

        def _start_response(status, headers, exc_info=None):
            seen.append(status)
            return start_response(status, headers, exc_info)

        try:
            return self.application(environ, _start_response)
        finally:
            method = environ.get('REQUEST_METHOD')
            if method not in METHODS:
                method = 'other'
            status = seen[-1].split(None, 1)[0] if seen else '500'
            key = (method, self._route(environ), status)
            series = self.series.get(key)
            if series is None:
                series = self.series[key] = self._series(*key)
            series[0].inc()
            series[1].observe(time.perf_counter() - started)
            if status == '409':
                self.metrics.conflicts.labels(
                    environ.get(environ_keys.CONFLICT_KIND,
                                errors.OTHER_CONFLICT)
                ).inc()

    def _series(self, method, route, status):
        counted = self.metrics
        return (counted.requests.labels(method, route, status),
                counted.duration.labels(method, route))

    def _route(self, environ):
        route = environ.get(environ_keys.ROUTE)
        if route is not None:
            return route
        # The console's app is not ours to label from inside.
        if self.console and _is_console(environ.get('PATH_INFO', '')):
            return CONSOLE_ROUTE
        return UNMATCHED


class MetricsEndpoint:
    """Answer ``GET /metrics``.

    Placed behind the auth middleware when ``[metrics] require_auth`` (the
    caller then needs the ``placement:metrics`` rule), in front of it
    otherwise.  ``collectors`` are reported beside the counters (the
    capacity gauges, which read the database).
    """

    def __init__(self, conf, collectors=()):
        self.require_auth = conf.metrics.require_auth
        self.registry = core.CollectorRegistry(auto_describe=False)
        if metrics.multiprocess_dir():
            multiprocess.MultiProcessCollector(
                self.registry, path=metrics.multiprocess_dir())
        else:
            self.registry.register(_Forward(metrics.configure().registry))
        for collector in collectors:
            self.registry.register(collector)

    def __call__(self, environ, start_response):
        environ[environ_keys.ROUTE] = PATH
        return self._scrape(environ, start_response)

    @webob.dec.wsgify
    def _scrape(self, req):
        if req.method != 'GET':
            raise errors.MethodNotAllowed(
                'The method specified is not allowed for this resource.',
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
