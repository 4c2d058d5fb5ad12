"""The OpenAPI 3.1 document of the API, built from the code.

Nothing here describes the API by hand: the paths and methods come from
the route map (``router.ROUTES``) and the apps in front of it
(``ENDPOINTS``), the first version of an operation from its handler
(``negotiation.since``), the versions from the registry
(``microversions``), the policy rule of each operation from ``policy.py``,
and the request and response schemas from the ``OPERATIONS`` of
``schemas/<resource>.py``, the same objects the handlers validate with.
Where something changes with the microversion, the document lists the
alternatives, each marked with the versions it covers:
``"x-openstack": {"min-ver": "1.14", "max-ver": "1.19"}``.

``GET /openapi.json`` serves it, without a token, like ``GET /``.
"""
import copy
import functools
import importlib
import re

import orjson
import webob
import webob.dec
import webob.exc

from placement import console
from placement import errors
from placement import microversions
from placement.config import policy
from placement.metrics import metrics_wsgi
from placement.schemas import base
from placement.schemas import endpoints
from placement.web import environ_keys
from placement.web import router

PATH = '/openapi.json'
VERSION_HEADER = 'OpenStack-API-Version'
_PATH_PARAMETER = re.compile(r'{(\w+)}')
# A query-schema pattern key such as '^resources([1-9][0-9]*)?$'.
_PATTERN_NAME = re.compile(r'^\^(\w+?)\(')
# The apps in front of the router that answer some URLs themselves:
# {path: {method: operation of schemas/endpoints.py}}.
ENDPOINTS = {
    PATH: {'GET': 'openapi_document'},
    metrics_wsgi.PATH: {'GET': 'metrics'},
    console.PREFIX: {'GET': 'console_redirect'},
    console.PREFIX + '/': {'GET': 'console_page'},
    console.PREFIX + '/{file}': {'GET': 'console_file'},
}
# {(method, path): the policy rule it is checked against}.
_POLICIES = {(operation['method'], operation['path']): rule.name
             for rule in policy.API_RULES for operation in rule.operations}


def _versions(first, last):
    marks = {'min-ver': str(first)}
    if last != microversions.MAX:
        marks['max-ver'] = str(last)
    return marks


def _steps(value, since, until=microversions.MAX):
    """[(first, last, value)] of a value or ByVersion between two
    versions."""
    if not isinstance(value, microversions.ByVersion):
        return [(since, until, value)]
    return [(max(first, since), min(last, until), item)
            for first, last, item in value.ranges()
            if last >= since and first <= until]


def _alternatives(steps):
    """One schema, or anyOf of the versioned alternatives."""
    schemas = [(first, last, schema) for first, last, schema in steps
               if schema is not None]
    if len(steps) == 1 and schemas:
        return schemas[0][2]
    return {'anyOf': [dict(schema, **{'x-openstack': _versions(first, last)})
                      for first, last, schema in schemas]}


def _query_parameters(query, since):
    """OpenAPI parameters of a query-string schema (or ByVersion)."""
    found = {}
    for first, last, schema in _steps(query, since):
        required = set(schema.get('required', ()))
        names = [(name, prop, name in required)
                 for name, prop in schema.get('properties', {}).items()]
        for pattern, prop in schema.get('patternProperties', {}).items():
            # Group keys: the name with an optional suffix.
            names.append((_PATTERN_NAME.match(pattern).group(1), dict(
                prop, description='Also with a request group suffix: '
                                  'keys matching %s.' % pattern), False))
        for name, prop, is_required in names:
            entry = found.setdefault(name, {'first': first})
            entry.update(last=last, schema=prop,
                         required=entry.get('required', True) and is_required)
    parameters = []
    for name, entry in found.items():
        parameter = {'name': name, 'in': 'query',
                     'required': entry['required'],
                     'schema': entry['schema']}
        if (entry['first'], entry['last']) != (since, microversions.MAX):
            parameter['x-openstack'] = _versions(entry['first'],
                                                 entry['last'])
        parameters.append(parameter)
    return parameters


def _response(status, steps, version_range, versioned):
    response = {'description': webob.exc.status_map[status].title}
    headers = {}
    if versioned:
        headers[VERSION_HEADER] = {
            '$ref': '#/components/headers/OpenStack-API-Version'}
    if status == 201:
        headers['Location'] = {'$ref': '#/components/headers/Location'}
    if headers:
        response['headers'] = headers
    if len(steps) == 1 and isinstance(steps[0][2], base.Content):
        response['content'] = {media: {'schema': schema}
                               for media, schema in steps[0][2].items()}
    elif any(schema is not None for _, _, schema in steps):
        response['content'] = {'application/json': {
            'schema': _alternatives(steps)}}
    if version_range is not None:
        response['x-openstack'] = _versions(*version_range)
    return response


def _responses(operation, since):
    """The responses object: each status with its body alternatives."""
    by_status = {}
    for first, last, answers in _steps(operation.responses, since):
        for status, body in answers.items():
            by_status.setdefault(status, []).extend(
                _steps(body, first, last))
    responses = {}
    for status, steps in sorted(by_status.items()):
        first, last = steps[0][0], steps[-1][1]
        whole = (first, last) == (since, microversions.MAX)
        responses[str(status)] = _response(
            status, steps, None if whole else (first, last),
            operation.versioned)
    responses['default'] = {
        'description': 'An error, in the upstream error format.',
        'content': {'application/json': {
            'schema': {'$ref': '#/components/schemas/Error'}}}}
    return responses


def _handler_operation(method, path, func):
    module = importlib.import_module(
        'placement.schemas.' + func.__module__.rpartition('.')[2])
    operation = module.OPERATIONS[func.__name__]
    return _operation(method, path, func.__name__, operation,
                      operation.since or getattr(func, 'since', None))


def _operation(method, path, name, operation, since=None):
    since = since or microversions.MIN
    validated = operation.path or {}
    parameters = [{'name': name, 'in': 'path', 'required': True,
                   'schema': validated.get(name, {'type': 'string'})}
                  for name in _PATH_PARAMETER.findall(path)]
    if operation.versioned:
        parameters.append({'$ref': '#/components/parameters/microversion'})
    if operation.query is not None:
        parameters += _query_parameters(operation.query, since)
    result = {
        'operationId': name,
        'summary': operation.summary,
        'x-openstack': _versions(since, microversions.MAX),
        'parameters': parameters,
        'responses': _responses(operation, since),
    }
    if operation.query is not None:
        # The whole query-string schema, as the handler validates it.
        result['x-openstack-query-schema'] = _alternatives(
            _steps(operation.query, since))
    if operation.body is not None:
        steps = _steps(operation.body, since)
        result['requestBody'] = {
            'required': all(schema is not None for _, _, schema in steps),
            'content': {'application/json': {
                'schema': _alternatives(steps)}}}
    rule = _POLICIES.get((method, path))
    if rule is None:
        # No rule checks it: no token needed either.
        result['security'] = []
    else:
        result['x-openstack-policy'] = rule
    return result


def _body_properties(response):
    """The property names of a response body, over all its alternatives."""
    schema = response.get('content', {}).get('application/json', {}).get(
        'schema', {})
    names = set()
    for alternative in schema.get('anyOf', [schema]):
        names.update(alternative.get('properties', ()))
    return names


def _add_links(paths):
    """OpenAPI links from each creation (a POST on a collection) to the
    operations under the created item, when the answer names the item's
    URL parameter: ``POST /resource_providers`` answers ``uuid``, which
    ``/resource_providers/{uuid}/...`` take.  Clients such as
    schemathesis follow them to reach existing resources."""
    for collection, operations in paths.items():
        creation = operations.get('post')
        if creation is None:
            continue
        prefix = collection.rstrip('/') + '/{'
        for path, targets in paths.items():
            if not path.startswith(prefix):
                continue
            name = path[len(prefix):].partition('}')[0]
            for status, response in creation['responses'].items():
                if not status.startswith('2') or (
                        name not in _body_properties(response)):
                    continue
                links = response.setdefault('links', {})
                for target in targets.values():
                    links[target['operationId']] = {
                        'operationId': target['operationId'],
                        'parameters': {name: '$response.body#/' + name}}


@functools.lru_cache(maxsize=None)
def document():
    """The OpenAPI document (a dict; treat it as read-only)."""
    paths = {}
    for path, methods in router.ROUTES.items():
        # '' and '/' are one resource.
        path = path or '/'
        paths[path] = {method.lower(): _handler_operation(method, path, func)
                       for method, func in methods.items()}
    for path, methods in ENDPOINTS.items():
        paths[path] = {
            method.lower(): _operation(method, path, name,
                                       endpoints.OPERATIONS[name])
            for method, name in methods.items()}
    _add_links(paths)
    return {
        'openapi': '3.1.0',
        'info': {
            'title': 'OpenStack Placement API',
            'version': str(microversions.MAX),
            'description': (
                'Microversions %s to %s, chosen per request with the '
                '`OpenStack-API-Version: placement X.Y` header (1.0 '
                'without it). Operations, parameters and schemas list '
                'the versions they apply to in `x-openstack`.'
                % (microversions.MIN, microversions.MAX)),
        },
        'x-openstack': {
            'min-ver': str(microversions.MIN),
            'max-ver': str(microversions.MAX),
            'microversions': [
                {'version': str(version), 'name': version.name,
                 'description': version.description}
                for version in microversions.ALL],
        },
        'security': [{'token': []}],
        'paths': paths,
        'components': {
            'securitySchemes': {'token': {
                'type': 'apiKey', 'in': 'header', 'name': 'X-Auth-Token',
                'description': 'A keystone token.'}},
            'parameters': {'microversion': {
                'name': VERSION_HEADER, 'in': 'header', 'required': False,
                'description': '`placement X.Y` or `placement latest`.',
                'schema': {'type': 'string',
                           'pattern': r'^placement (latest|\d+\.\d+)$'}}},
            'headers': {
                'OpenStack-API-Version': {
                    'description': 'The version that answered.',
                    'required': True, 'schema': {'type': 'string'}},
                'Location': {'description': 'URL of the created resource.',
                             'required': True, 'schema': {'type': 'string'}},
            },
            'schemas': {'Error': copy.deepcopy(base.ANY_ERROR)},
        },
    }


@functools.lru_cache(maxsize=None)
def _body():
    # Schema keys may be str subclasses (patternProperties keys are
    # schemas.base.Pattern), which orjson takes as keys only so.
    return orjson.dumps(document(), option=orjson.OPT_NON_STR_KEYS)


class OpenAPIEndpoint:
    """Answer ``GET /openapi.json`` (no token needed)."""

    def __call__(self, environ, start_response):
        environ[environ_keys.ROUTE] = PATH
        return self._serve(environ, start_response)

    @webob.dec.wsgify
    def _serve(self, req):
        if req.method not in ('GET', 'HEAD'):
            raise errors.http_error(webob.exc.HTTPMethodNotAllowed,
                                    headers=[('Allow', 'GET, HEAD')])
        return webob.Response(body=_body(), content_type='application/json',
                              charset=None)
