"""Every response of the service checked against the OpenAPI document.

``check(response)`` finds the operation a response answers (by URL and
method), the alternative of the document for the response's microversion
and status, and validates the body; conftest.py calls it for every
response any httpx client in the tests receives from the service.
"""
import re
import urllib.parse

import jsonschema

from placement import microversions
from placement import openapi
from placement.schemas import base

DOCUMENT = openapi.document()
_ROUTES = [(re.compile('^%s$' % re.sub(r'{\w+}', '[^/]+', path)), path)
           for path in DOCUMENT['paths']]
_FORMATS = jsonschema.Draft202012Validator.FORMAT_CHECKER


class Mismatch(AssertionError):
    """A response the document does not allow."""


def _version(text):
    major, minor = text.split('.')
    return microversions.Version(int(major), int(minor))


def _covers(marked, version):
    marks = marked.get('x-openstack', {})
    return (_version(marks.get('min-ver', '1.0')) <= version
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


_VALIDATORS = {}


def _validate(what, body, schema):
    # The document's schemas live as long as the process: keyed by id.
    validator = _VALIDATORS.get(id(schema))
    if validator is None:
        validator = _VALIDATORS[id(schema)] = (
            jsonschema.Draft202012Validator(schema, format_checker=_FORMATS))
    errors = sorted(validator.iter_errors(body), key=str)
    if errors:
        raise Mismatch('%s: %s' % (what, errors[0]))


def operation_for(method, path):
    for pattern, template in _ROUTES:
        if pattern.match(path):
            return template, DOCUMENT['paths'][template].get(method.lower())
    return None, None


def check(response):
    stamped = response.headers.get(openapi.VERSION_HEADER, '')
    if not stamped.startswith('placement '):
        return      # not the service (keystone), or not negotiated
    version = _version(stamped.split()[1])
    request = response.request
    path = urllib.parse.urlsplit(str(request.url)).path
    template, operation = operation_for(request.method, path or '/')
    if operation is None:
        return      # unknown URL or method: 404/405, checked below anyway
    what = '%s %s -> %s at %s' % (request.method, template,
                                  response.status_code, version)
    documented = operation['responses'].get(str(response.status_code))
    if documented is not None and not (_covers(operation, version)
                                       and _covers(documented, version)):
        documented = None
    if documented is None:
        if response.status_code < 400:
            raise Mismatch('%s: status not in the document' % what)
        documented = operation['responses']['default']
    content = documented.get('content')
    if content is None:
        if response.content:
            raise Mismatch('%s: a body where the document has none' % what)
        return
    if request.method == 'HEAD' or not response.headers.get(
            'content-type', '').startswith('application/json'):
        if response.status_code < 400:
            raise Mismatch('%s: not JSON' % what)
        return      # an error rendered for an Accept other than JSON
    schema = content['application/json']['schema']
    if schema.get('$ref') == '#/components/schemas/Error':
        schema = base.ANY_ERROR
    _validate(what, response.json(), schema_at(schema, version))
