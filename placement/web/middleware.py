"""The WSGI middleware of the service, outermost first in ``deploy.py``.

* ``RequestLog``: request id, one access-log line per request.
* ``FaultWrapper``: every error becomes the upstream JSON error document.
* ``PathDispatch``: the few endpoints in front of the API, by path.
* ``MicroversionMiddleware``: negotiates the version, stamps the response.
* ``BodySizeLimit``: a 413 for a body over ``[api] max_request_body_size``.
* ``ContextMiddleware``: builds the RequestContext from auth headers.

Every layer a request of the API passes is plain WSGI except
``FaultWrapper``: one webob request and response per request is enough.
"""
import functools
import io
import logging
import time
import uuid

import webob
import webob.exc

from placement import errors
from placement.config import context as placement_context
from placement.data import uuids
from placement.web import environ_keys
from placement.web import negotiation

LOG = logging.getLogger('placement.access')
ERROR_LOG = logging.getLogger(__name__)
# The request id headers RequestLog sets, whatever the layers inside set.
REQUEST_ID_HEADERS = ('openstack-request-id', 'x-openstack-request-id')


def error_response(req, exc):
    """Render a PlacementError, or a webob HTTP exception raised by a
    library, as the service's error response.  A conflict's kind is left
    in the environ for the metrics."""
    if isinstance(exc, errors.PlacementError):
        kind = getattr(exc, 'kind', None)
        if kind is not None:
            req.environ[environ_keys.CONFLICT_KIND] = kind
        exc = exc.to_http()
    elif not isinstance(exc.json_formatter, functools.partial):
        exc = errors.http_error(type(exc), exc.detail,
                                headers=list(exc.headers.items()))
    return req.get_response(exc)


class RequestLog:
    """Assign the request id and log one line per request (unless
    ``[api] access_log`` is off)."""

    def __init__(self, application, access_log=True):
        self.application = application
        self.access_log = access_log

    def __call__(self, environ, start_response):
        request_id = 'req-' + str(uuid.uuid4())
        environ[environ_keys.REQUEST_ID] = request_id
        global_id = environ.get('HTTP_X_OPENSTACK_REQUEST_ID')
        if (global_id and global_id.startswith('req-')
                and uuids.is_uuid(global_id[4:])):
            environ[environ_keys.GLOBAL_REQUEST_ID] = global_id
        seen = []

        def _start_response(status, headers, exc_info=None):
            headers = [h for h in headers
                       if h[0].lower() not in REQUEST_ID_HEADERS]
            headers.append(('openstack-request-id', request_id))
            headers.append(('x-openstack-request-id', request_id))
            seen.append(status)
            return start_response(status, headers, exc_info)

        if not (self.access_log and LOG.isEnabledFor(logging.INFO)):
            return self.application(environ, _start_response)
        started = time.monotonic()
        try:
            return self.application(environ, _start_response)
        finally:
            path = environ.get('SCRIPT_NAME', '') + \
                environ.get('PATH_INFO', '')
            if environ.get('QUERY_STRING'):
                path += '?' + environ['QUERY_STRING']
            LOG.info('%s "%s %s" status: %s microversion: %s '
                     'request_id: %s time: %.1fms',
                     environ.get('REMOTE_ADDR', '-'),
                     environ.get('REQUEST_METHOD'), path,
                     seen[-1].split(None, 1)[0] if seen else '-',
                     environ.get(environ_keys.MICROVERSION, '-'),
                     request_id, (time.monotonic() - started) * 1000)


def prefer_json_errors(environ):
    """webob renders errors as HTML, JSON or text by Accept; anything but
    an explicit preference for another type (an empty header states none)
    gets JSON."""
    if environ.get('HTTP_ACCEPT', '*/*') in ('*/*', ''):
        environ['HTTP_ACCEPT'] = 'application/json'


class FaultWrapper:
    """Turn every exception into an upstream-format error response."""

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        prefer_json_errors(environ)
        req = webob.Request(environ)
        try:
            # The answer is collected (status and headers) before it is
            # passed on, so that an error raised on the way still gets
            # its error response.
            status, headers, body = req.call_application(self.application)
        except (errors.PlacementError, webob.exc.HTTPException) as exc:
            return error_response(req, exc)(environ, start_response)
        except Exception:  # noqa: BLE001 - the last line of defence
            ERROR_LOG.exception('unexpected error handling %s %s',
                                req.method, req.path)
            return error_response(req, errors.PlacementError(
                'An unexpected error occurred; see the service log.'))(
                    environ, start_response)
        start_response(status, headers)
        return body


class PathDispatch:
    """Send a request to the endpoint that serves its path, or else to
    ``application`` (the API): one dictionary look-up instead of a
    layer per endpoint that passes every other request on.

    ``endpoints`` maps a path to its app; ``prefixes`` a prefix to the
    app serving it and everything under ``prefix/``.
    """

    def __init__(self, application, endpoints, prefixes=None):
        self.application = application
        self.endpoints = dict(endpoints)
        self.prefixes = dict(prefixes or {})

    def __call__(self, environ, start_response):
        path = environ.get('PATH_INFO', '')
        app = self.endpoints.get(path)
        if app is None and self.prefixes:
            # By the first segment: '/console' of '/console/app.js'.
            end = path.find('/', 1)
            app = self.prefixes.get(path if end < 0 else path[:end])
        return (app or self.application)(environ, start_response)


class MicroversionMiddleware:
    """Negotiate the microversion and stamp it on every response."""

    # Parsed versions by header value: clients send the same few values
    # again and again.  Bounded, whatever they send.
    KNOWN_VALUES = 64

    def __init__(self, application):
        self.application = application
        self.versions = {}

    def negotiate(self, environ):
        value = environ.get('HTTP_OPENSTACK_API_VERSION')
        version = self.versions.get(value)
        if version is None:
            version = negotiation.parse(
                {} if value is None else {negotiation.HEADER: value})
            if len(self.versions) < self.KNOWN_VALUES:
                self.versions[value] = version
        return version

    def __call__(self, environ, start_response):
        try:
            version = self.negotiate(environ)
        except errors.PlacementError as exc:
            environ[environ_keys.ROUTE] = (
                environ_keys.REFUSED_BY_MICROVERSION)
            return error_response(webob.Request(environ), exc)(
                environ, start_response)
        environ[environ_keys.MICROVERSION] = version
        stamp = '%s %s' % (negotiation.SERVICE_TYPE, version)

        def _start_response(status, headers, exc_info=None):
            return start_response(status, _stamped(headers, stamp),
                                  exc_info)

        try:
            return self.application(environ, _start_response)
        except (errors.PlacementError, webob.exc.HTTPException) as exc:
            return error_response(webob.Request(environ), exc)(
                environ, _start_response)


def _stamped(headers, stamp):
    """``headers`` with the version header and ``Vary`` naming it, both
    last, as webob's header and ``vary`` setters leave them."""
    kept = []
    vary = None
    for name, value in headers:
        lower = name.lower()
        if lower == 'vary':
            if vary is None:
                vary = value
        elif lower != negotiation.HEADER:
            kept.append((name, value))
    kept.append((negotiation.HEADER, stamp))
    kept.append(('Vary', ', '.join(_add_vary(
        [v.strip() for v in (vary or '').split(',') if v.strip()],
        negotiation.HEADER))))
    return kept


class BodySizeLimit:
    """Refuse a body larger than ``limit`` bytes (413) before anything
    reads it: by its Content-Length, or, for a chunked body that declares
    none, by reading at most one byte past the limit."""

    def __init__(self, application, limit):
        self.application = application
        self.limit = limit

    def __call__(self, environ, start_response):
        length = _content_length(environ)
        if length is not None:
            if length > self.limit:
                self._refuse(environ)
        elif 'chunked' in environ.get('HTTP_TRANSFER_ENCODING', '').lower():
            body = environ['wsgi.input'].read(self.limit + 1)
            if len(body) > self.limit:
                self._refuse(environ)
            # What was read, now with its length, for the layers after.
            environ['wsgi.input'] = io.BytesIO(body)
            environ['CONTENT_LENGTH'] = str(len(body))
            del environ['HTTP_TRANSFER_ENCODING']
        return self.application(environ, start_response)

    def _refuse(self, environ):
        environ[environ_keys.ROUTE] = environ_keys.REFUSED_BY_BODY_SIZE
        raise errors.RequestTooLarge(
            'The request body is larger than the %d bytes this service '
            'accepts.' % self.limit)


def _content_length(environ):
    """The declared length, as webob reads it (None if absent or not a
    number)."""
    value = environ.get('CONTENT_LENGTH')
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        return None


def _add_vary(vary, header):
    vary = list(vary or ())
    if header not in vary:
        vary.append(header)
    return vary


class ContextMiddleware:
    """Build the RequestContext from the identity headers."""

    def __init__(self, application, database, enforcer, conf, memory=None):
        self.application = application
        self.database = database
        self.enforcer = enforcer
        self.conf = conf
        self.memory = memory

    def __call__(self, environ, start_response):
        ctx = placement_context.RequestContext.from_environ(
            environ,
            request_id=environ.get(environ_keys.REQUEST_ID),
            global_request_id=environ.get(environ_keys.GLOBAL_REQUEST_ID),
            database=self.database, enforcer=self.enforcer, config=self.conf,
            memory=self.memory)
        environ[environ_keys.CONTEXT] = ctx
        return self.application(environ, start_response)
