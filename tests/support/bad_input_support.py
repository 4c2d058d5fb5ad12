"""The shared part of the test_bad_input_*.py modules: the seeded world
and its identifiers, the ``Case`` of a table, and the checks every bad
request must pass: a 4xx (never a 500) in the upstream error format
(``code`` exactly from microversion 1.23), with no traceback in the
server's log.
"""
import dataclasses
import json
import uuid

import httpx
import pytest

from placement import microversions

ADMIN_HEADERS = {'x-auth-token': 'admin', 'accept': 'application/json',
                 'openstack-api-version': 'placement latest'}
# POST /reshaper is for services only.
SERVICE = {'x-auth-token': 'nova', 'x-roles': 'service'}

RP = str(uuid.UUID('c0ffee00-0000-4000-8000-000000000001'))
RP2 = str(uuid.UUID('c0ffee00-0000-4000-8000-000000000002'))
CONSUMER = str(uuid.UUID('c0ffee00-0000-4000-8000-0000000000c1'))
UNKNOWN = str(uuid.UUID('c0ffee00-0000-4000-8000-0000000000ff'))
CLASS = 'CUSTOM_BAD_INPUT'
TRAIT = 'CUSTOM_BAD_INPUT'
PROJECT = 'project-bad-input'
USER = 'user-bad-input'

INT32_OVER = 2 ** 31
INT64_OVER = 2 ** 63
# Past every integer type a database or SQLite's C API can bind.  Read
# exactly, as upstream does: in a body it fails a field's bounds (400) or,
# as a generation, simply does not match (409); in a query string it
# reaches the handlers as an integer.
HUGE = 10 ** 30


@dataclasses.dataclass
class Case:
    method: str
    path: str
    status: int
    body: object = None        # sent as JSON when given
    raw: bytes = None          # sent verbatim when given
    content_type: str = 'application/json'
    version: str = 'latest'    # None: no microversion header at all
    code: str = None           # the expected error code, if specific

    def headers(self):
        headers = dict(SERVICE) if self.path == '/reshaper' else {}
        if self.version is not None:
            headers['openstack-api-version'] = 'placement ' + self.version
        if self.body is not None or self.raw is not None:
            if self.content_type is not None:
                headers['content-type'] = self.content_type
        return headers

    def content(self):
        if self.raw is not None:
            return self.raw
        if self.body is not None:
            return json.dumps(self.body).encode()
        return None


def allocation_body(resources, provider=RP, generation=None, **extra):
    body = {'allocations': {provider: {'resources': resources}},
            'project_id': PROJECT, 'user_id': USER,
            'consumer_generation': generation, 'consumer_type': 'INSTANCE'}
    body.update(extra)
    return body


def inventory_put(inventories, generation=0):
    return {'resource_provider_generation': generation,
            'inventories': inventories}


RPS = '/resource_providers'
RP_URL = RPS + '/' + RP
INV = RP_URL + '/inventories'
ALLOC = '/allocations/' + CONSUMER
NEW_CONSUMER = '/allocations/' + str(uuid.UUID(int=7))
AC = '/allocation_candidates'

# Cases that answer with a 5xx or a wrong status today; strict, so the
# marker must go once the owner fixes the bug.
KNOWN_BUGS = {}


def params(cases):
    """A module's table {name: Case} as pytest parameters."""
    return [pytest.param(case, id=name, marks=(
        pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[name])
        if name in KNOWN_BUGS else ())) for name, case in cases.items()]


def version_of(header):
    """The (major, minor) a valid header negotiates, else None."""
    if header is None:
        return microversions.MIN
    if header == 'latest':
        return microversions.MAX
    try:
        major, minor = (int(part) for part in header.split('.'))
    except ValueError:
        return None
    if ((major, minor) > microversions.MAX
            or header != '%d.%d' % (major, minor)):
        return None
    return (major, minor)


def log_mark(server):
    with open(server.log_path, 'rb') as f:
        return f.seek(0, 2)


def log_since(server, mark):
    with open(server.log_path, 'rb') as f:
        f.seek(mark)
        return f.read().decode(errors='replace')


def assert_error_document(response, version):
    """The upstream error shape; ``code`` only from 1.23."""
    assert response.headers['content-type'].startswith('application/json'), (
        response.headers, response.text)
    body = response.json()
    assert list(body) == ['errors'], body
    assert len(body['errors']) == 1, body
    error = body['errors'][0]
    assert error['status'] == response.status_code, body
    assert isinstance(error['title'], str) and error['title'], body
    assert isinstance(error['detail'], str), body
    assert error['request_id'] == response.headers['openstack-request-id']
    assert error['request_id'].startswith('req-'), body
    if version is not None and version >= microversions.ERROR_CODES:
        assert isinstance(error['code'], str) and error['code'], body
    elif version is not None:
        assert 'code' not in error, body
    return error


@pytest.fixture(scope='module')
def seeded(server):
    """Two providers, a custom class and trait in use, one consumer."""
    with httpx.Client(base_url=server.url, headers=ADMIN_HEADERS,
                      timeout=30) as http:
        def ok(response):
            assert response.status_code < 300, response.text
            return response
        ok(http.put('/resource_classes/' + CLASS))
        ok(http.put('/traits/' + TRAIT))
        for name, rp in (('rp1', RP), ('rp2', RP2)):
            ok(http.post(RPS, json={'name': name, 'uuid': rp}))
            ok(http.put(RPS + '/%s/inventories' % rp, json=inventory_put({
                'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 2048},
                CLASS: {'total': 4}})))
        ok(http.put(RP_URL + '/traits', json={
            'traits': [TRAIT], 'resource_provider_generation': 1}))
        ok(http.put(ALLOC, json=allocation_body({'VCPU': 1, CLASS: 1})))
        yield http


def check(seeded, server, case):
    """Send ``case``: its status, an error document, no traceback."""
    mark = log_mark(server)
    response = seeded.request(case.method, case.path, content=case.content(),
                              headers=case.headers())
    log = log_since(server, mark)
    assert 'Traceback' not in log, log
    assert response.status_code == case.status, response.text
    error = assert_error_document(response, version_of(case.version))
    if case.code is not None:
        assert error['code'] == case.code, error
