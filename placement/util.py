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
from placement.objects import resource_provider as rp_obj

JSON = 'application/json'
# Upper bound of integer fields, as upstream's database columns.
MAX_INT = 2147483647


def context(req):
    return req.environ[environ_keys.CONTEXT]


def handler(func=None, *, negotiate=True):
    """Mark a function as a route handler: JSON only, webob request in.

    ``negotiate=False`` for the version document, which upstream serves
    whatever the client accepts.
    """
    if func is None:
        return functools.partial(handler, negotiate=negotiate)

    @functools.wraps(func)
    @webob.dec.wsgify
    def wrapper(req):
        # Only reads negotiate the body type (as upstream): a write with
        # e.g. "Accept: text/plain" still gets its 4xx, rendered as text.
        # An empty Accept header asks for nothing in particular.
        if (negotiate and req.method == 'GET' and req.accept
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
    """415 unless the body is declared as JSON."""
    @functools.wraps(func)
    def wrapper(req):
        content_type = req.content_type
        if content_type != JSON:
            if not content_type:
                # webob's explanation names the environ's type, which
                # upstream shows as None when there is none.
                req.environ['CONTENT_TYPE'] = 'None'
            raise errors.UnsupportedMediaType(
                'The media type %s is not supported, use %s'
                % (content_type or None, JSON))
        return func(req)
    return wrapper


_VALIDATORS = {}
# Bodies: clients may send UUIDs without dashes (upstream accepts both
# forms), so there the "uuid" format is checked with uuid.UUID.
_BODY_FORMATS = jsonschema.FormatChecker()
_BODY_FORMATS.checks('uuid')(lambda value: not isinstance(value, str)
                             or is_uuid(value))
# Query strings: jsonschema's own formats, whose "uuid" wants the dashes
# (upstream refuses ?uuid=<32 hex digits> with a 400).
_QUERY_FORMATS = jsonschema.FormatChecker()
# The schemas name no draft, so (as upstream) they are read as the latest
# one; but an integer stays a JSON integer, not any float without a
# fraction (2.0 would reach the database as a float).
_Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft4Validator.TYPE_CHECKER)


def _validator(schema, formats=_BODY_FORMATS):
    """A compiled validator per schema (schemas are module constants)."""
    key = (id(schema), id(formats))
    entry = _VALIDATORS.get(key)
    if entry is None or entry[0] is not schema:
        entry = (schema, _Validator(schema, format_checker=formats))
        _VALIDATORS[key] = entry
    return entry[1]


def is_valid(data, schema):
    return _validator(schema).is_valid(data)


def _schema_error(data, schema, formats=_BODY_FORMATS):
    """The violation upstream names when there are several: jsonschema's
    best match (the least deep one first), not the first one found."""
    return jsonschema.exceptions.best_match(
        _validator(schema, formats).iter_errors(data))


def _invalid_body(data, schema):
    """The 400 naming the schema violation of body ``data``, or None.  The
    full text (with "Failed validating ... in schema[...]") is what
    upstream returns and what clients match on."""
    error = _schema_error(data, schema)
    if error is None:
        return None
    return errors.BadRequest('JSON does not validate: %s' % error)


def validate(data, schema):
    """Raise a 400 naming the schema violation of ``data``."""
    problem = _invalid_body(data, schema)
    if problem is not None:
        raise problem


# 19 digits in a row: maybe an integer beyond 64 bits.
_LONG_NUMBER = re.compile(rb'[0-9]{19}')


def _no_constant(name):
    # Not reached: orjson already refused NaN and Infinity.
    raise ValueError(name)


def _stdlib_json_error(body):
    """Why the standard library's parser refuses ``body`` (upstream's
    wording, "Expecting value: line 1 column 1 (char 0)"), if it does."""
    try:
        json.loads(body.decode('utf-8'))
    except ValueError as exc:      # UnicodeDecodeError included
        return str(exc)
    except RecursionError:
        # Nesting too deep for it (upstream answers 500): orjson's words.
        return None
    return None


def _read_json(req, schema):
    """``(data, None)`` for a body that is JSON and valid against
    ``schema``, else ``(None, the 400 to answer)``."""
    try:
        data = orjson.loads(req.body)
    except orjson.JSONDecodeError as exc:
        reason = _stdlib_json_error(req.body) or exc
        return None, errors.BadRequest('Malformed JSON: %s' % reason)
    if _LONG_NUMBER.search(req.body):
        # orjson reads integers beyond 64 bits as floats, which would fail
        # the schema's type check; read them exactly so that they fail its
        # bounds, with upstream's status and text.
        data = json.loads(req.body, parse_constant=_no_constant)
    # JSON can only carry a NUL escaped; look closer only then.
    if b'\\u0000' in req.body and _has_nul(data):
        return None, errors.BadRequest(
            'NUL characters are not allowed in JSON strings.')
    problem = _invalid_body(data, schema)
    return (None, problem) if problem is not None else (data, None)


def extract_json(req, schema):
    """Parse the request body as JSON and validate it against ``schema``."""
    data, problem = _read_json(req, schema)
    if problem is not None:
        raise problem
    return data


def extract_provider_json(req, schema):
    """``extract_json`` for a write to the provider of the URL: as
    upstream, a provider that does not exist is a 404 even when the body
    is bad too (looked up only then, so a good body costs no read)."""
    data, problem = _read_json(req, schema)
    if problem is not None:
        context(req).database.read(rp_obj.get, req.urlvars['uuid'])
        raise problem
    return data


def validate_query(req, schema):
    """Validate the query string (one value per key) against ``schema``."""
    params = {key: req.GET.getall(key)[-1] for key in req.GET}
    error = _schema_error(params, schema, _QUERY_FORMATS)
    if error is not None:
        # Full text, as for bodies: clients match 'Failed validating ...'.
        raise errors.BadRequest('Invalid query string parameters: %s'
                                % error)
    return params


def json_response(req, data, status=200, last_modified=None):
    """A JSON response; from 1.15 with cache headers."""
    return encoded_json_response(req, orjson.dumps(data), status,
                                 last_modified)


def encoded_json_response(req, body, status=200, last_modified=None):
    """``json_response`` for a body already encoded (bytes)."""
    response = webob.Response(status=status, content_type=JSON,
                              charset=None)
    response.body = body
    if microversion.at_least(req, microversions.CACHE_HEADERS):
        response.cache_control = 'no-cache'
        response.last_modified = last_modified or utcnow()
    return response


def empty_response(req, status=204):
    """A bodiless answer; without cache headers, as upstream's writes
    (only a trait's own URL has them, see handlers/trait.py)."""
    response = webob.Response(status=status)
    response.headers.pop('Content-Type', None)
    response.content_type = None
    return response


def utcnow():
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)


def newest(*timestamps):
    """The latest of some (possibly naive) timestamps; None (a row without
    one) counts as now, as upstream counts it, and so do no timestamps."""
    found = [t for t in timestamps if t is not None]
    if not found or len(found) < len(timestamps):
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


def body_uuid(value):
    """A UUID that keys a body (schemas.allocation.UUID_PATTERN), in its
    canonical form; a 400 for 36 dashes and digits that make no UUID."""
    if not is_uuid(value):
        raise errors.BadRequest(
            "JSON does not validate: '%s' is not a valid UUID" % value)
    return normalize_uuid(value)


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
