"""What clients send, read and checked: JSON bodies (415 unless declared
as JSON, 400 unless well formed and valid) and query strings, against the
schemas of ``placement/schemas/``, with upstream's texts (on this
service's own routes, one sentence per violation: ``violations.py``)."""
import functools
import json
import re

import jsonschema
import orjson

from placement import errors
from placement.data import uuids
from placement.web import environ_keys
from placement.web import responses
from placement.web import violations


def require_json_content(func):
    """415 unless the body is declared as JSON."""
    @functools.wraps(func)
    def wrapper(req):
        content_type = req.content_type
        if content_type != responses.JSON:
            if not content_type:
                # webob's explanation names the environ's type, which
                # upstream shows as None when there is none.
                req.environ['CONTENT_TYPE'] = 'None'
            raise errors.UnsupportedMediaType(
                'The media type %s is not supported, use %s'
                % (content_type or None, responses.JSON))
        return func(req)
    return wrapper


_VALIDATORS = {}
# Bodies: clients may send UUIDs without dashes (upstream accepts both
# forms), so there the "uuid" format is checked with uuid.UUID.
_BODY_FORMATS = jsonschema.FormatChecker()
_BODY_FORMATS.checks('uuid')(lambda value: not isinstance(value, str)
                             or uuids.is_uuid(value))
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


def _own_route(req):
    """Whether ``req`` came by a route of this service (not upstream's)."""
    return req is not None and req.environ.get(environ_keys.OWN_ROUTE,
                                               False)


def _invalid_body(data, schema, req=None):
    """The 400 naming the schema violation of body ``data``, or None.  On
    upstream's routes, the full text (with "Failed validating ... in
    schema[...]") that upstream returns and clients match on."""
    error = _schema_error(data, schema)
    if error is None:
        return None
    if _own_route(req):
        return errors.BadRequest(violations.in_body(error))
    return errors.BadRequest('JSON does not validate: %s'
                             % errors.schema_violation(error))


def validate(data, schema):
    """Raise a 400 naming the schema violation of ``data``, with
    upstream's text."""
    problem = _invalid_body(data, schema)
    if problem is not None:
        raise problem


# 19 digits in a row: maybe an integer beyond 64 bits.
_LONG_NUMBER = re.compile(rb'[0-9]{19}')


def _no_constant(name):
    # Not reached: orjson already refused NaN and Infinity.
    raise ValueError(name)


def _has_nul(value):
    """Whether a decoded JSON value (or a tuple of them) holds a NUL."""
    if isinstance(value, str):
        return '\x00' in value
    if isinstance(value, dict):
        value = [item for pair in value.items() for item in pair]
    if isinstance(value, (list, tuple)):
        return any(_has_nul(item) for item in value)
    return False


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
    problem = _invalid_body(data, schema, req)
    return (None, problem) if problem is not None else (data, None)


def extract_json(req, schema):
    """Parse the request body as JSON and validate it against ``schema``."""
    data, problem = _read_json(req, schema)
    if problem is not None:
        raise problem
    return data


def validate_query(req, schema):
    """Validate the query string (one value per key) against ``schema``."""
    params = {key: req.GET.getall(key)[-1] for key in req.GET}
    error = _schema_error(params, schema, _QUERY_FORMATS)
    if error is None:
        return params
    if _own_route(req):
        raise errors.BadRequest(violations.in_query(error))
    # Full text, as for bodies: clients match 'Failed validating ...'.
    raise errors.BadRequest('Invalid query string parameters: %s'
                            % errors.schema_violation(error))


def body_uuid(value):
    """A UUID that keys a body (schemas.allocation.UUID_PATTERN), in its
    canonical form; a 400 for 36 dashes and digits that make no UUID."""
    if not uuids.is_uuid(value):
        raise errors.BadRequest(
            "JSON does not validate: '%s' is not a valid UUID" % value)
    return uuids.normalize_uuid(value)
