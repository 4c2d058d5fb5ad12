"""Helpers shared by the handlers: request checks, JSON in and out."""
import contextlib
import datetime
import functools
import gc
import json
import re
import threading
import uuid

import jsonschema
import orjson
import webob
import webob.dec

from placement import environ_keys
from placement import errors
from placement import microversion
from placement import microversions
from placement.objects import base

JSON = 'application/json'
# Upper bound of integer fields, as upstream's database columns.
MAX_INT = 2147483647


def context(req):
    return req.environ[environ_keys.CONTEXT]


def handler(func):
    """Mark a function as a route handler: JSON only, webob request in."""
    @functools.wraps(func)
    @webob.dec.wsgify
    def wrapper(req):
        # Only reads negotiate the body type (as upstream): a write with
        # e.g. "Accept: text/plain" still gets its 4xx, rendered as text.
        if (req.method == 'GET'
                and not req.accept.acceptable_offers([JSON])):
            raise errors.NotAcceptable('Only application/json is provided')
        _check_url_text(req)
        return func(req)
    return wrapper


def _check_url_text(req):
    """400 for a URL no column could hold: a query string that is not
    UTF-8 (webob cannot decode it) or a NUL anywhere (PostgreSQL refuses
    NUL in text, the other databases would store it)."""
    try:
        params = req.GET
    except UnicodeDecodeError:
        raise errors.BadRequest(
            'The query string is not valid UTF-8.') from None
    if '\x00' in req.path_info or any(_has_nul(item)
                                      for item in params.items()):
        raise errors.BadRequest('NUL characters are not allowed in URLs.')


def _has_nul(value):
    """Whether a decoded JSON value (or a tuple of them) holds a NUL."""
    if isinstance(value, str):
        return '\x00' in value
    if isinstance(value, dict):
        value = [item for pair in value.items() for item in pair]
    if isinstance(value, (list, tuple)):
        return any(_has_nul(item) for item in value)
    return False


def require_json_content(func):
    """415 unless the body is declared as JSON; 400 if undeclared."""
    @functools.wraps(func)
    def wrapper(req):
        content_type = req.content_type
        if not content_type and req.content_length:
            raise errors.BadRequest('content-type header required')
        if content_type != JSON:
            raise errors.UnsupportedMediaType(
                'The media type %s is not supported, use %s'
                % (content_type or None, JSON))
        return func(req)
    return wrapper


_VALIDATORS = {}
# Clients may send UUIDs without dashes (upstream accepts both forms), so
# the "uuid" format is checked with uuid.UUID rather than jsonschema's
# dashed-only rule.
_FORMAT_CHECKER = jsonschema.FormatChecker()
_FORMAT_CHECKER.checks('uuid')(lambda value: not isinstance(value, str)
                               or is_uuid(value))


def _validator(schema):
    """A compiled validator per schema (schemas are module constants)."""
    entry = _VALIDATORS.get(id(schema))
    if entry is None or entry[0] is not schema:
        entry = (schema, jsonschema.Draft4Validator(
            schema, format_checker=_FORMAT_CHECKER))
        _VALIDATORS[id(schema)] = entry
    return entry[1]


def is_valid(data, schema):
    return _validator(schema).is_valid(data)


def validate(data, schema):
    """Raise a 400 naming the first schema violation of ``data``."""
    try:
        _validator(schema).validate(data)
    except jsonschema.ValidationError as exc:
        # The full text (with "Failed validating ... in schema[...]") is
        # what upstream returns and what clients match on.
        raise errors.BadRequest(
            'JSON does not validate: %s' % exc) from None


# 19 digits in a row: maybe an integer beyond 64 bits.
_LONG_NUMBER = re.compile(rb'[0-9]{19}')


def _no_constant(name):
    # Not reached: orjson already refused NaN and Infinity.
    raise ValueError(name)


def extract_json(req, schema):
    """Parse the request body as JSON and validate it against ``schema``."""
    try:
        data = orjson.loads(req.body)
    except orjson.JSONDecodeError as exc:
        raise errors.BadRequest('Malformed JSON: %s' % exc) from None
    if _LONG_NUMBER.search(req.body):
        # orjson reads integers beyond 64 bits as floats, which would fail
        # the schema's type check; read them exactly so that they fail its
        # bounds, with upstream's status and text.
        data = json.loads(req.body, parse_constant=_no_constant)
    # JSON can only carry a NUL escaped; look closer only then.
    if b'\\u0000' in req.body and _has_nul(data):
        raise errors.BadRequest('NUL characters are not allowed in JSON '
                                'strings.')
    validate(data, schema)
    return data


def validate_query(req, schema):
    """Validate the query string (one value per key) against ``schema``."""
    params = {key: req.GET.getall(key)[-1] for key in req.GET}
    try:
        _validator(schema).validate(params)
    except jsonschema.ValidationError as exc:
        # Full text, as for bodies: clients match 'Failed validating ...'.
        raise errors.BadRequest(
            'Invalid query string parameters: %s' % exc) from None
    return params


def json_response(req, data, status=200, last_modified=None):
    """A JSON response; from 1.15 with cache headers."""
    response = webob.Response(status=status, content_type=JSON,
                              charset=None)
    response.body = orjson.dumps(data)
    if microversion.at_least(req, microversions.CACHE_HEADERS):
        response.cache_control = 'no-cache'
        response.last_modified = last_modified or utcnow()
    return response


def empty_response(req, status=204):
    response = webob.Response(status=status)
    response.headers.pop('Content-Type', None)
    response.content_type = None
    if (microversion.at_least(req, microversions.CACHE_HEADERS)
            and status == 204):
        response.cache_control = 'no-cache'
        response.last_modified = utcnow()
    return response


def utcnow():
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)


def newest(*timestamps):
    """The latest of some (possibly None, possibly naive) timestamps."""
    found = [t for t in timestamps if t is not None]
    if not found:
        return utcnow()
    try:
        # Timestamps of one database are alike (all naive or all aware):
        # compared as they are, only the newest is converted, not
        # thousands of them in a long listing.
        latest = max(found)
    except TypeError:
        latest = max(_aware(t) for t in found)
    return _aware(latest)


def _aware(timestamp):
    if timestamp.tzinfo is None:
        return timestamp.replace(tzinfo=datetime.timezone.utc)
    return timestamp


def rows_modified(rows):
    """Last-Modified of a listing: the newest change among its rows
    (objects with ``created_at`` and ``updated_at``); now if empty."""
    return newest(base.last_change(rows))


def is_uuid(value):
    try:
        uuid.UUID(value)
    except (ValueError, TypeError, AttributeError):
        return False
    return True


def normalize_uuid(value):
    """Canonical dashed form of a UUID string (clients may omit dashes)."""
    return str(uuid.UUID(value))


def link(req, path, rel='self'):
    """A link object; absolute under the script name (e.g. /placement)."""
    return {'rel': rel, 'href': req.script_name + path}


def location(req, path):
    """An absolute Location header value, including any path prefix."""
    return req.host_url + req.script_name + path


class _CollectionPause:
    """Pause the cyclic garbage collector while large answers are built
    (``with util.collection_paused():``).

    Tens of thousands of small dicts would trigger collections that each
    walk every live object; what is built here holds no cycles, so
    reference counting frees it and the collector can wait.  Requests run
    in threads: the collector restarts when the last overlapping pause
    ends, and only if it was running when the first began.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._active = 0
        self._resume = False

    @contextlib.contextmanager
    def __call__(self):
        with self._lock:
            if not self._active:
                self._resume = gc.isenabled()
                gc.disable()
            self._active += 1
        try:
            yield
        finally:
            with self._lock:
                self._active -= 1
                if not self._active and self._resume:
                    gc.enable()


collection_paused = _CollectionPause()
