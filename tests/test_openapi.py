"""The OpenAPI document: complete, valid, served, and fuzzed."""
import importlib
import json
import os
import pkgutil
import subprocess
import sys
import tempfile
import uuid

import httpx
import pytest
from openapi_spec_validator import validate

import helpers
import openapi_support
from placement import microversions
from placement import openapi
from placement import router
from placement import schemas


def test_document_is_valid_openapi_3_1():
    document = openapi.document()
    assert document['openapi'] == '3.1.0'
    validate(document)


def test_every_route_and_method_is_documented():
    paths = openapi.document()['paths']
    for path, methods in router.ROUTES.items():
        documented = paths[path or '/']
        assert set(documented) == {m.lower() for m in methods}, path
    assert set(paths) == {path or '/' for path in router.ROUTES}


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


def test_served_without_a_token(server):
    response = httpx.get(server.url + '/openapi.json')
    assert response.status_code == 200
    assert response.headers['content-type'] == 'application/json'
    assert response.json() == json.loads(json.dumps(openapi.document()))
    assert httpx.post(server.url + '/openapi.json').status_code == 405


@pytest.fixture(scope='module')
def fuzz_server():
    """A server of its own on SQLite: the fuzzer writes random data."""
    workdir = tempfile.mkdtemp(prefix='placement-fuzz-')
    helpers.write_config(workdir,
                         'sqlite:///%s/placement.sqlite' % workdir)
    server = helpers.Server(workdir, workers=2)
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


def test_schemathesis(fuzz_server, tmp_path):
    """schemathesis against the live server, a bounded number of cases
    per operation: no 5xx, nothing the document does not allow, no
    request slower than the timeout."""
    config = tmp_path / 'schemathesis.toml'
    config.write_text('[parameters]\n' + ''.join(
        '"%s" = "%s"\n' % item for item in _seed(fuzz_server.url).items()))
    command = [
        os.path.join(os.path.dirname(sys.executable), 'schemathesis'),
        '--config-file', str(config),
        'run', fuzz_server.url + '/openapi.json',
        '--url', fuzz_server.url,
        '--checks', 'not_a_server_error,status_code_conformance,'
                    'content_type_conformance,response_schema_conformance',
        # coverage: boundary and invalid values of every parameter and
        # body; fuzzing: random ones.
        '--phases', 'coverage,fuzzing',
        '--max-examples', '8', '--seed', '1', '--workers', '2',
        '--request-timeout', '20', '--no-shrink',
        '--generation-database', 'none',
        '-H', 'X-Auth-Token: admin',
        '-H', 'OpenStack-API-Version: placement latest']
    result = subprocess.run(command, capture_output=True, text=True,
                            timeout=900, cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-8000:]
