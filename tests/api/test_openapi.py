"""The OpenAPI document: complete, valid, served, and fuzzed."""
import importlib
import json
import os
import pkgutil
import re
import subprocess
import sys
import tempfile
import uuid

import httpx
import pytest
import webob
from openapi_spec_validator import validate

from support import helpers
from support import openapi_support
from placement import console
from placement import microversions
from placement import schemas
from placement.config import conf as placement_conf
from placement.data import db
from placement.metrics import metrics_wsgi
from placement.web import deploy
from placement.web import environ_keys
from placement.web import middleware
from placement.web import openapi
from placement.web import router
from testsupport import openapi_check


def test_document_is_valid_openapi_3_1():
    document = openapi.document()
    assert document['openapi'] == '3.1.0'
    validate(document)


def test_every_route_and_method_is_documented():
    paths = openapi.document()['paths']
    for path, methods in router.ROUTES.items():
        documented = paths[path or '/']
        assert set(documented) == {m.lower() for m in methods}, path


def _served_paths(app):
    """The URL templates the assembled app answers: the route map's, and
    those of the endpoints the dispatcher in front of it sends to."""
    paths = set()
    while not isinstance(app, router.Router):
        if isinstance(app, middleware.PathDispatch):
            paths.update(app.endpoints)
            if console.PREFIX in app.prefixes:
                # Its redirect, its page and its files.
                paths |= {console.PREFIX, console.PREFIX + '/',
                          console.PREFIX + '/{file}'}
        app = getattr(app, 'application', None) or app._app
    return paths | {route.routepath or '/' for route in app.mapper.matchlist}


@pytest.mark.parametrize('options', [
    '', '[metrics]\nrequire_auth = false\n'], ids=['default', 'open-metrics'])
def test_every_served_path_is_documented(tmp_path, options):
    """The paths of the app as deploy.py builds it, console and metrics
    on: a path it answers that the document lacks fails here."""
    config = helpers.write_config(
        str(tmp_path), 'sqlite:///%s/p.sqlite' % tmp_path, options)
    conf = placement_conf.load(config_files=[config])
    database = db.Database(conf)
    try:
        served = _served_paths(deploy.build_app(conf, database))
    finally:
        database.dispose()
    assert {metrics_wsgi.PATH, openapi.PATH, '/console/'} <= served
    assert served == set(openapi.document()['paths'])


def test_policy_and_token_of_each_operation():
    """Every operation names the policy rule that guards it; those no rule
    guards need no token."""
    paths = openapi.document()['paths']
    assert paths['/metrics']['get']['x-openstack-policy'] == (
        'placement:metrics')
    assert paths['/traits']['get']['x-openstack-policy'] == (
        'placement:traits:list')
    for path, methods in paths.items():
        for method, operation in methods.items():
            assert ('x-openstack-policy' in operation) != (
                operation.get('security') == []), (method, path)
    public = {path for path, methods in paths.items()
              for operation in methods.values()
              if operation.get('security') == []}
    assert public == {'/', '/openapi.json', '/console', '/console/',
                      '/console/{file}'}


def _without_marks(value):
    if isinstance(value, dict):
        return {k: _without_marks(v) for k, v in value.items()
                if k != 'x-openstack'}
    if isinstance(value, list):
        return [_without_marks(v) for v in value]
    return value


def _subtrees(value, found):
    found.add(json.dumps(value, sort_keys=True))
    children = (value.values() if isinstance(value, dict)
                else value if isinstance(value, list) else ())
    for child in children:
        _subtrees(child, found)
    return found


def _schemas_of(module):
    """Public schemas of a schemas module: dicts and every step of a
    ByVersion."""
    for name, value in vars(module).items():
        if name.startswith('_') or name == 'OPERATIONS':
            continue
        if isinstance(value, microversions.ByVersion):
            for _, _, step in value.ranges():
                if isinstance(step, dict) and 'type' in step:
                    yield '%s.%s' % (name, _), step
        elif isinstance(value, dict) and 'type' in value:
            yield name, value


def test_every_schema_is_in_the_document():
    """A schema the code validates with (or answers with) that the
    document lacks fails here."""
    found = _subtrees(_without_marks(openapi.document()), set())
    modules = [importlib.import_module('placement.schemas.' + info.name)
               for info in pkgutil.iter_modules(schemas.__path__)]
    missing = [
        '%s.%s' % (module.__name__, name)
        for module in modules for name, schema in _schemas_of(module)
        if json.dumps(schema, sort_keys=True) not in found]
    assert not missing


def test_every_handler_has_an_operation():
    for methods in router.ROUTES.values():
        for func in methods.values():
            module = importlib.import_module(
                'placement.schemas.' + func.__module__.rpartition('.')[2])
            assert func.__name__ in module.OPERATIONS


def test_versioned_alternatives():
    paths = openapi.document()['paths']
    post = paths['/resource_providers']['post']['responses']
    assert post['201']['x-openstack'] == {'min-ver': '1.0', 'max-ver': '1.19'}
    assert post['200']['x-openstack'] == {'min-ver': '1.20'}
    # PUT /allocations/{uuid} answers 204, whatever the version.
    put = paths['/allocations/{consumer_uuid}']['put']['responses']
    assert set(put) == {'204', 'default'}
    candidates = paths['/allocation_candidates']['get']
    assert candidates['x-openstack'] == {'min-ver': '1.10'}
    limit = next(p for p in candidates['parameters']
                 if p.get('name') == 'limit')
    assert limit['x-openstack'] == {'min-ver': '1.16'}


def test_a_created_provider_links_to_its_operations():
    """The answer of POST /resource_providers (with a body from 1.20)
    links to every operation of the route map under the new provider."""
    responses = openapi.document()['paths']['/resource_providers']['post'][
        'responses']
    under = {func.__name__ for path, methods in router.ROUTES.items()
             if path.startswith(router.PROVIDER) for func in methods.values()}
    links = responses['200']['links']
    assert set(links) == under
    assert links['get_inventory'] == {
        'operationId': 'get_inventory',
        'parameters': {'uuid': '$response.body#/uuid'}}
    assert 'links' not in responses['201']      # no body to link from


def test_checker_refuses_a_response_the_document_lacks():
    request = httpx.Request('GET', 'http://service/resource_providers/x')
    response = httpx.Response(
        200, request=request, json={'uuid': 'x'},
        headers={'openstack-api-version': 'placement 1.14'})
    with pytest.raises(openapi_support.Mismatch):
        openapi_support.check(response)
    response = httpx.Response(
        204, request=request,
        headers={'openstack-api-version': 'placement 1.14'})
    with pytest.raises(openapi_support.Mismatch):
        openapi_support.check(response)


def _answering(status, body, headers=()):
    """A WSGI app answering every request with this status and body (a
    JSON value, or None for none)."""
    def app(environ, start_response):
        start_response(status, [('Content-Type', 'application/json'),
                                ('openstack-api-version', 'placement 1.6'),
                                *headers])
        return [] if body is None else [json.dumps(body).encode()]
    return openapi_check.ResponseValidator(app)


def _call(app, path, method='GET'):
    request = webob.Request.blank(path, method=method)
    request.environ[environ_keys.REQUEST_ID] = 'req-test'
    return request.get_response(app)


def test_validator_passes_a_valid_response_untouched():
    app = _answering('200 OK', {'traits': ['CUSTOM_A']},
                     [('X-Extra', 'kept')])
    response = _call(app, '/traits')
    assert response.status_code == 200
    assert response.headers['X-Extra'] == 'kept'
    assert response.json == {'traits': ['CUSTOM_A']}
    # Not the API's own URLs (the router's 404) are left alone.
    assert _call(app, '/no/such/thing').status_code == 200


@pytest.mark.parametrize('status,body,headers,names', [
    ('200 OK', {'traits': 'CUSTOM_A'}, (), "'CUSTOM_A' is not of type"),
    ('200 OK', {'traits': [], 'more': 1}, (), 'Additional properties'),
    ('202 Accepted', {'traits': []}, (), 'status not in the document'),
])
def test_validator_refuses_a_broken_response(caplog, status, body, headers,
                                             names):
    response = _call(_answering(status, body, headers), '/traits')
    assert response.status_code == 500
    [error] = response.json['errors']
    assert error['status'] == 500
    assert error['request_id'] == 'req-test'
    assert ('The response breaks the OpenAPI document: GET /traits -> '
            in error['detail'])
    assert names in error['detail']
    assert names in caplog.text


def test_validator_wants_any_error_in_the_error_format():
    """Even outside the document's operations (the router's 404)."""
    response = _call(_answering('404 Not Found', {'message': 'gone'}),
                     '/no/such/thing')
    assert response.status_code == 500
    assert ('GET /no/such/thing -> 404: ' in
            response.json['errors'][0]['detail'])


def test_validator_wants_the_location_of_a_creation():
    app = _answering('201 Created', None)
    response = _call(app, '/resource_providers', method='POST')
    assert response.status_code == 500
    assert 'no Location header' in response.json['errors'][0]['detail']
    app = _answering('201 Created', None,
                     [('Location', '/resource_providers/x')])
    assert _call(app, '/resource_providers', method='POST').status_code == 201


def test_validator_is_switched_on_by_the_environment():
    assert not deploy.validating_responses({})
    assert not deploy.validating_responses(
        {'PLACEMENT_VALIDATE_RESPONSES': '0'})
    assert deploy.validating_responses({'PLACEMENT_VALIDATE_RESPONSES': '1'})


@pytest.mark.parametrize('value,validated', [('1', True), ('', False)])
def test_deploy_adds_the_validator_only_when_asked(tmp_path, monkeypatch,
                                                   value, validated):
    path = helpers.write_config(str(tmp_path),
                                'sqlite:///%s/p.sqlite' % tmp_path)
    database = db.Database(placement_conf.load(config_files=[path]))
    monkeypatch.setenv(deploy.VALIDATE_RESPONSES, value)
    try:
        app = deploy.build_app(database.conf, database)
    finally:
        database.dispose()
    # Outermost: the request log, then the validator when switched on.
    assert isinstance(app.application,
                      openapi_check.ResponseValidator) is validated


def test_served_without_a_token(server):
    response = httpx.get(server.url + '/openapi.json')
    assert response.status_code == 200
    assert response.headers['content-type'] == 'application/json'
    assert response.json() == json.loads(json.dumps(openapi.document()))
    assert httpx.post(server.url + '/openapi.json').status_code == 405


@pytest.fixture(scope='module')
def fuzz_server():
    """A server of its own on SQLite (the fuzzer writes random data) that
    checks its own answers: one the document does not allow at the
    request's microversion is a 500, which the fuzzer reports."""
    workdir = tempfile.mkdtemp(prefix='placement-fuzz-')
    helpers.write_config(workdir,
                         'sqlite:///%s/placement.sqlite' % workdir)
    server = helpers.Server(
        workdir, workers=2,
        env={deploy.VALIDATE_RESPONSES: '1'})
    yield server
    server.stop()


def _seed(url):
    """A provider with inventory and a consumer for the URL parameters:
    random UUIDs alone would only ever reach the 404s."""
    client = httpx.Client(base_url=url, headers=helpers.ADMIN_HEADERS)
    provider = helpers.new_provider(client)
    response = client.put('/resource_providers/%s/inventories' % provider,
                          json={'resource_provider_generation': 0,
                                'inventories': {'VCPU': {'total': 64},
                                                'DISK_GB': {'total': 500}}})
    assert response.status_code == 200, response.text
    consumer = str(uuid.uuid4())
    helpers.allocate(client, provider, VCPU=2)
    response = client.put('/allocations/' + consumer, json={
        'allocations': {provider: {'resources': {'DISK_GB': 10}}},
        'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
        'consumer_type': 'INSTANCE'})
    assert response.status_code == 204, response.text
    client.close()
    return {'path.uuid': provider, 'path.consumer_uuid': consumer,
            'path.resource_class': 'VCPU'}


# The stateful phase follows only the document's own links (from
# POST /resource_providers to the new provider's operations), not the
# ones schemathesis would guess, with a bounded number of scenarios.
STATEFUL = """
[phases.stateful]
max-steps = 6
[phases.stateful.inference]
algorithms = []
[phases.stateful.generation]
max-examples = 30
"""


def test_schemathesis(fuzz_server, tmp_path):
    """schemathesis against the live server, a bounded number of cases
    per operation: no 5xx (the server answers 500 for anything the
    document does not allow), nothing the document does not allow, no
    request slower than the timeout."""
    config = tmp_path / 'schemathesis.toml'
    config.write_text('[parameters]\n' + ''.join(
        '"%s" = "%s"\n' % item for item in _seed(fuzz_server.url).items())
        + STATEFUL)
    command = [
        os.path.join(os.path.dirname(sys.executable), 'schemathesis'),
        '--config-file', str(config),
        'run', fuzz_server.url + '/openapi.json',
        '--url', fuzz_server.url,
        '--checks', 'not_a_server_error,status_code_conformance,'
                    'content_type_conformance,response_schema_conformance',
        # coverage: boundary and invalid values of every parameter and
        # body; fuzzing: random ones; stateful: chains of calls along the
        # document's links.
        '--phases', 'coverage,fuzzing,stateful',
        # One worker: with two threads, hypothesis's lambda-source lookup
        # calls ast.parse concurrently, which CPython 3.11 does not allow
        # ("AST constructor recursion depth mismatch", seen under load).
        '--max-examples', '8', '--seed', '1', '--workers', '1',
        '--request-timeout', '20', '--no-shrink',
        '--generation-database', 'none',
        # Admin and service roles: POST /reshaper is for services, and
        # would otherwise answer nothing but 403.
        '-H', 'X-Auth-Token: fuzzer', '-H', 'X-Roles: admin,service',
        '-H', 'OpenStack-API-Version: placement latest']
    result = subprocess.run(command, capture_output=True, text=True,
                            timeout=900, cwd=tmp_path)
    with open(fuzz_server.log_path, errors='replace') as log:
        mismatches = [line for line in log
                      if 'breaks the OpenAPI document' in line]
    # The report's findings, not its tail of passes and warnings.
    report = result.stdout
    findings = min((report.find(header)
                    for header in (' ERRORS ', ' FAILURES ')
                    if header in report), default=0)
    assert result.returncode == 0, (report[findings:findings + 8000],
                                    mismatches[:20])
    assert not mismatches
    # The stateful phase followed the document's links.
    covered = re.search(r'API Links: +(\d+) covered', result.stdout)
    assert covered and int(covered.group(1)) > 0, result.stdout[-3000:]
    # The fuzzing got past the policy of POST /reshaper to its schema.
    with open(fuzz_server.log_path, errors='replace') as log:
        assert any('"POST /reshaper" status: 400' in line for line in log)
