"""Every answer of the service checked against its own OpenAPI document.

``check(...)`` finds the operation a response answers (by method and
path), the document's alternative for the response's microversion and
status, and validates status, headers and body; it raises ``Mismatch``
naming what broke.  Two users, one validator:

* ``ResponseValidator``, a WSGI middleware that ``deploy.build_app``
  loads by name and adds when ``PLACEMENT_VALIDATE_RESPONSES=1`` is in the
  environment: a response the document does not allow is logged and
  replaced by a 500 in the upstream error format naming the mismatch, so
  that any client (the conformance suite, schemathesis) sees it fail;
* ``tests/support/openapi_support.py``, which checks every response any test
  receives.
"""
import functools
import logging
import re

import jsonschema
import orjson
import webob

from placement import errors
from placement import microversions
from placement.schemas import base
from placement.web import middleware
from placement.web import openapi

JSON = 'application/json'
LOG = logging.getLogger(__name__)
_FORMATS = jsonschema.Draft202012Validator.FORMAT_CHECKER
_VERSION_HEADER = openapi.VERSION_HEADER.lower()


class Mismatch(AssertionError):
    """A response the document does not allow."""


def _version(text):
    major, minor = text.split('.')
    return microversions.Version(int(major), int(minor))


def _covers(marked, version):
    marks = marked.get('x-openstack', {})
    return (_version(marks.get('min-ver', str(microversions.MIN))) <= version
            <= _version(marks.get('max-ver', str(microversions.MAX))))


def schema_at(schema, version):
    """The alternative of ``schema`` in force at ``version``."""
    alternatives = schema.get('anyOf', ())
    if alternatives and all('x-openstack' in alt for alt in alternatives):
        found = [alt for alt in alternatives if _covers(alt, version)]
        if not found:
            raise Mismatch('no alternative for %s' % version)
        return found[0]
    return schema


class _Document:
    """The document's routes as regular expressions, and one compiled
    validator per schema (the document lives as long as the process)."""

    def __init__(self, document):
        self.document = document
        self.routes = [
            (re.compile('^%s$' % re.sub(r'{\w+}', '[^/]+', path)), path)
            for path in document['paths']]
        self.validators = {}

    def operation_for(self, method, path):
        """(path template, operation) or (None, None)."""
        for pattern, template in self.routes:
            if pattern.match(path):
                return template, self.document['paths'][template].get(
                    method.lower())
        return None, None

    def validate(self, what, body, schema):
        validator = self.validators.get(id(schema))
        if validator is None:
            validator = self.validators[id(schema)] = (
                jsonschema.Draft202012Validator(schema,
                                                format_checker=_FORMATS))
        error = jsonschema.exceptions.best_match(validator.iter_errors(body))
        if error is not None:
            where = '/'.join(str(part) for part in error.absolute_path)
            raise Mismatch('%s: %s at /%s' % (what, error.message, where))


@functools.lru_cache(maxsize=None)
def _document():
    return _Document(openapi.document())


def _documented_response(operation, status, version):
    """The response object the document gives for ``status``, or None."""
    documented = operation['responses'].get(str(status))
    if documented is None or not (_covers(operation, version)
                                  and _covers(documented, version)):
        return None
    return documented


def _required_headers(documented, components):
    for name, header in documented.get('headers', {}).items():
        if '$ref' in header:
            header = components[header['$ref'].rpartition('/')[2]]
        if header.get('required'):
            yield name


def check(method, path, status, headers, body):
    """Raise Mismatch unless the document allows this response.

    ``headers``: a mapping with lower-case names; ``body``: bytes.
    An answer of an operation the document has, at the microversion it
    carries, must be one the document lists for that version, in one of
    its media types (only JSON bodies are checked against a schema).  Any
    other error (an unknown URL or method, a 406 before negotiation, a
    refused token) must be in the error format; other answers without a
    microversion (the console's) are not checked.
    """
    document = _document()
    template, operation = document.operation_for(method, path or '/')
    stamped = headers.get(_VERSION_HEADER, '')
    if operation is None or not stamped.startswith('placement '):
        if status >= 400:
            _check_body('%s %s -> %s' % (method, path, status), method,
                        status, headers, body, base.ANY_ERROR)
        return
    version = _version(stamped.split()[1])
    what = '%s %s -> %s at %s' % (method, template, status, version)
    documented = _documented_response(operation, status, version)
    if documented is None:
        if status < 400:
            raise Mismatch('%s: status not in the document' % what)
        documented = operation['responses']['default']
    components = document.document['components']['headers']
    for name in _required_headers(documented, components):
        if name.lower() not in headers:
            raise Mismatch('%s: no %s header' % (what, name))
    content = documented.get('content')
    if content is None:
        if body:
            raise Mismatch('%s: a body where the document has none' % what)
        return
    media = headers.get('content-type', '').partition(';')[0].strip()
    if media != JSON and media in content:
        return      # a documented type other than JSON: no schema
    if JSON not in content:
        raise Mismatch('%s: %s, not a type of the document' % (what, media))
    schema = content[JSON]['schema']
    if schema.get('$ref') == '#/components/schemas/Error':
        schema = base.ANY_ERROR
    _check_body(what, method, status, headers, body,
                schema_at(schema, version))


def _check_body(what, method, status, headers, body, schema):
    if method == 'HEAD':
        return      # the server sends no body
    if not headers.get('content-type', '').startswith('application/json'):
        if status < 400:
            raise Mismatch('%s: not JSON' % what)
        return      # an error rendered for an Accept other than JSON
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise Mismatch('%s: the body is not JSON (%s)' % (what, exc)) from None
    _document().validate(what, data, schema)


class ResponseValidator:
    """Check every response against the document (``check``); answer a
    500 naming the mismatch instead of a response that breaks it.

    The whole body is read before anything is sent, so this is for test
    and conformance runs, not production.
    """

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        captured = {}

        def _capture(status, headers, exc_info=None):
            captured['status'], captured['headers'] = status, headers
            return lambda data: captured.setdefault('written', []).append(
                data)

        chunks = self.application(environ, _capture)
        try:
            body = b''.join(captured.get('written', []) + list(chunks))
        finally:
            if hasattr(chunks, 'close'):
                chunks.close()
        status, headers = captured['status'], captured['headers']
        try:
            check(environ['REQUEST_METHOD'], environ.get('PATH_INFO', ''),
                  int(status.split(None, 1)[0]),
                  {name.lower(): value for name, value in headers}, body)
        except Mismatch as exc:
            LOG.error('response breaks the OpenAPI document: %s', exc)
            middleware.prefer_json_errors(environ)
            response = middleware.error_response(
                webob.Request(environ), errors.PlacementError(
                    'The response breaks the OpenAPI document: %s' % exc))
            return response(environ, start_response)
        start_response(status, headers)
        return [body]
