"""The shared part of the test_error_texts_*.py modules: a small fixed
world, the identifiers in it, and the step that sends one case and
compares the answer with upstream's.

Clients and operators match on the detail text of errors (nova and
osc-placement grep them), so status, ``code`` (absent before microversion
1.23) and detail text are part of the contract and are checked word for
word; a JSON-schema error only up to "Failed validating" (the schema dump
after it is not part of the contract).  Each module builds the world once
on its own databases; its cases run in order and none of them changes the
world.

Deliberate differences, not tested: a duplicate inventory's 409 (upstream
shows the driver's IntegrityError), and lists of group suffixes or trait
names in upstream's set order (sorted here).
"""
import httpx
import pytest

ADMIN = {'x-auth-token': 'admin', 'accept': 'application/json'}
SVC = {'x-auth-token': 'nova', 'x-roles': 'service'}

RP = 'c0ffee00-0000-4000-8000-00000000e001'
RP2 = 'c0ffee00-0000-4000-8000-00000000e002'
CH = 'c0ffee00-0000-4000-8000-00000000e003'
GC = 'c0ffee00-0000-4000-8000-00000000e004'
C1 = 'c0ffee00-0000-4000-8000-00000000ec01'
AGG = 'c0ffee00-0000-4000-8000-00000000ea01'
NOPE = 'c0ffee00-0000-4000-8000-00000000efff'
RPU = '/resource_providers/' + RP
RP2U = '/resource_providers/' + RP2
CHU = '/resource_providers/' + CH
NOPE_RP = '/resource_providers/' + NOPE
INV = RPU + '/inventories'
INV2 = RP2U + '/inventories'


def alloc(resources, rp=RP, gen=None, **extra):
    body = {'allocations': {rp: {'resources': resources}},
            'project_id': 'p', 'user_id': 'u', 'consumer_generation': gen,
            'consumer_type': 'INSTANCE'}
    body.update(extra)
    return body


_consumers = iter(range(1, 100000))


def new_consumer():
    """A consumer UUID no other case uses."""
    return 'c0ffee00-0000-4000-8000-0000001%05d' % next(_consumers)


def new_alloc():
    return '/allocations/' + new_consumer()


WORLD = [
    ('PUT', '/resource_classes/CUSTOM_FOO', None),
    ('PUT', '/traits/CUSTOM_T', None),
    ('PUT', '/resource_classes/CUSTOM_BAR', None),
    ('POST', '/resource_providers', {'name': 'rp1', 'uuid': RP}),
    ('POST', '/resource_providers', {'name': 'rp2', 'uuid': RP2}),
    ('POST', '/resource_providers', {'name': 'child', 'uuid': CH,
                                     'parent_provider_uuid': RP}),
    ('POST', '/resource_providers', {'name': 'grandchild', 'uuid': GC,
                                     'parent_provider_uuid': CH}),
    ('PUT', INV, {'resource_provider_generation': 0, 'inventories': {
        'VCPU': {'total': 8, 'max_unit': 4, 'step_size': 2, 'min_unit': 2},
        'MEMORY_MB': {'total': 1024}, 'CUSTOM_FOO': {'total': 4}}}),
    ('PUT', RPU + '/traits', {'resource_provider_generation': 1,
                              'traits': ['CUSTOM_T']}),
    ('PUT', RPU + '/aggregates', {'resource_provider_generation': 2,
                                  'aggregates': [AGG]}),
    ('PUT', '/allocations/' + C1, alloc({'VCPU': 2, 'CUSTOM_FOO': 1})),
]

# Integers beyond 64 bits in bodies are read exactly.
HUGE = 10 ** 30

# Detail texts the expectations of several modules share.
MEDIA_TYPE_NONE = 'The media type None is not supported, use application/json'
NOPE_404 = 'No resource provider with uuid %s found' % NOPE
AGG_UUIDS = ("Invalid query string parameters: Expected 'member_of' parameter"
             ' to contain valid UUID(s). Got:')


def cases():
    """A module's list of cases and its ``c(name, method, path, body=None,
    version='latest', headers=None)``, which adds one."""
    table = []

    def c(name, method, path, body=None, version='latest', headers=None):
        table.append((name, method, path, body, version, headers))

    return table, c


# (cases, expected) of every module collected in this run, for
# test_every_case_has_an_expectation.
TABLES = []


def parametrize(cases, expected):
    """``test_error_text`` over ``cases``; expected: {name: (status, code
    (None before 1.23), detail text)}."""
    TABLES.append((cases, expected))
    return pytest.mark.parametrize('name,method,path,body,version,headers',
                                   cases, ids=[case[0] for case in cases])


@pytest.fixture(scope='module')
def world(server):
    """An admin client of the module's server, once WORLD is built."""
    with httpx.Client(base_url=server.url, headers=ADMIN,
                      timeout=30) as http:
        for method, path, body in WORLD:
            response = http.request(
                method, path, json=body,
                headers={'openstack-api-version': 'placement latest'})
            assert response.status_code < 300, response.text
        yield http


def detail_of(response):
    """The detail text, without webob's generic explanation before it."""
    if response.headers['content-type'].startswith('application/json'):
        error = response.json()['errors'][0]
        detail, code = error['detail'], error.get('code')
    else:
        # The client asked for another type; no code in a text body.
        detail, code = response.text, None
    return detail.rsplit('\n\n', 1)[-1].strip(), code


# webob's explanation before the detail, where upstream's differs from
# webob's template.
EXPLANATIONS = {
    'content-type-missing':
        'The request media type None is not supported by this server.',
}


def check(world, name, expected, method, path, body, version, headers):
    """Send case ``name`` and compare the answer with ``expected``.  A
    bytes body is sent as it is (as JSON unless the headers say
    otherwise)."""
    status, code, text = expected
    request_headers = {'openstack-api-version': 'placement ' + version}
    if isinstance(body, bytes):
        request_headers['content-type'] = 'application/json'
        sent = {'content': body}
    else:
        sent = {'json': body}
    request_headers.update(headers or {})
    response = world.request(method, path, headers=request_headers, **sent)
    assert response.status_code == status, response.text
    if name in EXPLANATIONS:
        whole = response.json()['errors'][0]['detail']
        assert whole.startswith(EXPLANATIONS[name]), whole
    detail, got_code = detail_of(response)
    assert got_code == code, response.text
    if text.endswith('Failed validating'):
        assert detail.startswith(text), detail
    else:
        assert detail == text
