"""Error codes and the one exception type of the service.

Every layer (parsers, objects, handlers, middleware) raises a
``PlacementError`` subclass that already carries the final HTTP status,
error ``code`` and detail text; nothing above re-words it.  The fault
middleware renders it as the upstream error document
``{"errors": [{status, title, detail, code, request_id}]}`` (JSON unless
the client explicitly prefers another type).
"""
import collections
import copy
import functools

import webob.exc

from placement import microversions
from placement.web import environ_keys

DEFAULT = 'placement.undefined_code'
INVENTORY_INUSE = 'placement.inventory.inuse'
CONCURRENT_UPDATE = 'placement.concurrent_update'
DUPLICATE_NAME = 'placement.duplicate_name'
PROVIDER_IN_USE = 'placement.resource_provider.inuse'
PROVIDER_CANNOT_DELETE_PARENT = (
    'placement.resource_provider.cannot_delete_parent')
RESOURCE_PROVIDER_NOT_FOUND = 'placement.resource_provider.not_found'
ILLEGAL_DUPLICATE_QUERYPARAM = 'placement.query.duplicate_key'
QUERYPARAM_BAD_VALUE = 'placement.query.bad_value'
QUERYPARAM_MISSING_VALUE = 'placement.query.missing_value'
# POST /claims (an addition of this service): the group cannot be placed.
CLAIM_NO_FIT = 'placement.claims.no_fit'

# What a 409 was about, as the metrics count write conflicts.
PROVIDER_GENERATION = 'provider_generation'
CONSUMER_GENERATION = 'consumer_generation'
CAPACITY = 'capacity'
CONCURRENT = 'concurrent_update'
OTHER_CONFLICT = 'other'
CONFLICT_KINDS = (PROVIDER_GENERATION, CONSUMER_GENERATION, CAPACITY,
                  CONCURRENT, OTHER_CONFLICT)

# Why a transaction ran again, as the metrics count retries: a lost
# compare-and-swap, the database's deadlock or serialization check, a
# connection that died in use (reads only).
LOST_RACE = 'lost_race'
DEADLOCK = 'deadlock'
# POST /claims chose room a concurrent writer took first, and chooses
# again within its transaction.
ROOM_TAKEN = 'room_taken'
CONNECTION_LOST = 'connection_lost'

# An error text quotes at most about this many characters of the input it
# refuses: a body with a megabyte-long name must not come back (twice, in
# a schema error) as a two-megabyte answer.
QUOTE_LIMIT = 300
# And no detail is longer, whatever it quotes; upstream's schema errors on
# input of normal size reach 11 kB (the schema they print).
DETAIL_LIMIT = 16 * 1024


def shorten(text, limit=QUOTE_LIMIT):
    """``text``, or when longer than ``limit`` its start and its end
    around ' ... ': the end keeps the words after a quoted value ("is too
    long")."""
    if len(text) <= limit:
        return text
    tail = limit // 4
    return text[:limit - tail - 5] + ' ... ' + text[-tail:]


class _Shortened:
    """A value an error text shows by its shortened ``repr()``."""

    def __init__(self, text):
        self.text = shorten(text)

    def __repr__(self):
        return self.text


def _quoted(value):
    text = repr(value)
    return value if len(text) <= QUOTE_LIMIT else _Shortened(text)


def schema_violation(error):
    """What ``str(error)`` says of a jsonschema ``error`` (upstream's
    text), with each piece of input it quotes shortened: the message, the
    path to the refused value and the value itself."""
    short = copy.copy(error)
    short.message = shorten(error.message)
    short.instance = _quoted(error.instance)
    short.relative_path = collections.deque(
        _quoted(key) for key in error.relative_path)
    return str(short)


def json_error_formatter(body, status, title, environ, code=DEFAULT,
                         extra=None):
    """webob ``json_formatter`` producing the upstream error document."""
    status_code = int(status.split(None, 1)[0])
    error = {
        'status': status_code,
        'title': title,
        'detail': webob.exc.strip_tags(body),
        'request_id': environ.get(environ_keys.REQUEST_ID),
    }
    version = environ.get(environ_keys.MICROVERSION)
    if version is not None and version >= microversions.ERROR_CODES:
        error['code'] = code
    error.update(extra or {})
    return {'errors': [error]}


def http_error(exc_class, detail=None, code=None, extra=None, **kwargs):
    """A webob response (``exc_class``) rendering the error document.

    Only the middleware calls this, to render a ``PlacementError`` or a
    webob exception raised by a library; everything else raises.
    """
    if detail is not None:
        detail = shorten(detail, DETAIL_LIMIT)
    return exc_class(detail, json_formatter=functools.partial(
        json_error_formatter, code=code or DEFAULT, extra=extra), **kwargs)


class PlacementError(Exception):
    """An error answer: ``status`` (a webob class), detail text, code.

    ``headers`` are added to the response (``Allow`` of a 405), ``extra``
    fields to the error object (the version range of a 406).
    """

    status = webob.exc.HTTPInternalServerError

    def __init__(self, detail=None, code=None, headers=None, extra=None):
        super().__init__(detail)
        self.detail = detail
        self.code = code or DEFAULT
        self.headers = headers
        self.extra = extra

    def to_http(self):
        kwargs = {'headers': self.headers} if self.headers else {}
        return http_error(self.status, self.detail, self.code, self.extra,
                          **kwargs)


class BadRequest(PlacementError):
    status = webob.exc.HTTPBadRequest


class Unauthorized(PlacementError):
    status = webob.exc.HTTPUnauthorized


class Forbidden(PlacementError):
    status = webob.exc.HTTPForbidden


class NotFound(PlacementError):
    status = webob.exc.HTTPNotFound


class MethodNotAllowed(PlacementError):
    status = webob.exc.HTTPMethodNotAllowed


class NotAcceptable(PlacementError):
    status = webob.exc.HTTPNotAcceptable


class Conflict(PlacementError):
    status = webob.exc.HTTPConflict

    def __init__(self, detail, code=None, kind=OTHER_CONFLICT):
        super().__init__(detail, code)
        self.kind = kind

    @property
    def lacks_room(self):
        """Whether a capacity check refused the write (POST /claims then
        chooses again)."""
        return self.kind == CAPACITY


class UnsupportedMediaType(PlacementError):
    status = webob.exc.HTTPUnsupportedMediaType


class RequestTooLarge(PlacementError):
    status = webob.exc.HTTPRequestEntityTooLarge


class ServiceUnavailable(PlacementError):
    """The database cannot answer; ``reason`` CONNECTION_LOST when the
    connection died in use (a read may run again on a new one)."""
    status = webob.exc.HTTPServiceUnavailable

    def __init__(self, detail=None, reason=None):
        super().__init__(detail)
        self.reason = reason


class RetryableConflict(Conflict):
    """A write lost a race; ``Database.write`` runs it again.

    ``reason`` tells the metrics what was lost: a compare-and-swap
    (LOST_RACE) or the database's own deadlock or serialization check
    (DEADLOCK).
    """

    def __init__(self, detail, code=CONCURRENT_UPDATE, reason=LOST_RACE):
        super().__init__(detail, code, kind=CONCURRENT)
        self.reason = reason
