"""Error texts of the protocol: microversion headers, unknown routes
and methods, media types, malformed JSON, tokens, and GET /summary
(the world and the check: error_texts_support.py)."""
from support import error_texts_support as support
from support.error_texts_support import (MEDIA_TYPE_NONE, NOPE_404, NOPE_RP,
                                         RPU, SVC)

CASES, c = support.cases()

# microversion header
c('version-bad-string', 'GET', '/', version='abc')
c('version-too-high', 'GET', '/', version='1.99')
c('version-major', 'GET', '/', version='2.0')
c('route-unknown', 'GET', '/nowhere')
c('method-not-allowed', 'PATCH', '/resource_providers')
c('not-acceptable', 'GET', '/resource_providers',
  headers={'accept': 'text/plain'})
# GET /summary, an addition of this service, words its policy error as
# the upstream routes do (its schema errors: test_error_texts_own_routes.py).
c('summary-not-admin', 'GET', '/summary', headers=SVC)
# Found by running tools/differential.py against upstream.  A bytes body
# is sent as it is (as JSON unless the headers say otherwise).
NO_TYPE = {'content-type': ''}
c('json-malformed', 'PUT', RPU, b'{"a": ')
c('json-empty', 'POST', '/resource_providers', b'')
c('content-type-missing', 'POST', '/resource_classes')
c('content-type-empty', 'POST', '/resource_classes', b'{"name": "CUSTOM_CT"}',
  headers=NO_TYPE)
c('content-type-empty-unknown-url', 'POST', '/nowhere', b'{}',
  headers=NO_TYPE)
c('content-type-empty-trait', 'PUT', '/traits/CUSTOM_CTT', b'{}',
  headers=NO_TYPE)
c('accept-empty', 'GET', NOPE_RP, headers={'accept': ''})
c('token-empty', 'GET', '/resource_providers', headers={'x-auth-token': ''})


CONTENT_TYPE_REQUIRED = 'content-type header required when content-length > 0'

# name: (status, code (None before 1.23), detail text).
EXPECTED = {
    'json-malformed': (400, 'placement.undefined_code',
        'Malformed JSON: Expecting value: line 1 column 7 (char 6)'),
    'json-empty': (400, 'placement.undefined_code',
        'Malformed JSON: Expecting value: line 1 column 1 (char 0)'),
    'content-type-missing': (415, 'placement.undefined_code',
        MEDIA_TYPE_NONE),
    'content-type-empty': (400, 'placement.undefined_code',
        CONTENT_TYPE_REQUIRED),
    'content-type-empty-unknown-url': (400, 'placement.undefined_code',
        CONTENT_TYPE_REQUIRED),
    'content-type-empty-trait': (400, 'placement.undefined_code',
        CONTENT_TYPE_REQUIRED),
    'accept-empty': (404, 'placement.undefined_code', NOPE_404),
    'token-empty': (403, 'placement.undefined_code',
        'Policy does not allow placement:resource_providers:list to be'
        ' performed.'),
    'version-bad-string': (400, None,
        'Invalid microversion: invalid version string: abc; invalid'
        " literal for int() with base 10: 'abc'"),
    'version-too-high': (406, None,
        'Invalid microversion: Unacceptable version header: 1.99'),
    'version-major': (406, None,
        'Invalid microversion: Unacceptable version header: 2.0'),
    'route-unknown': (404, 'placement.undefined_code',
        ''),
    'method-not-allowed': (405, 'placement.undefined_code',
        'The method specified is not allowed for this resource.'),
    'not-acceptable': (406, None,
        'Only application/json is provided'),
    'summary-not-admin': (403, 'placement.undefined_code',
        'Policy does not allow placement:summary to be performed.'),
}


# The fixed world, built once for this module.
world = support.world


def test_every_case_has_an_expectation():
    # The table of each test_error_texts_*.py module collected in this run.
    for cases, expected in support.TABLES:
        assert sorted(name for name, *_ in cases) == sorted(expected)


@support.parametrize(CASES, EXPECTED)
def test_error_text(world, name, method, path, body, version, headers):
    support.check(world, name, EXPECTED[name], method, path, body, version,
                  headers)


# Behaviour the differential run found different, besides error texts.

def test_version_document_ignores_accept(world):
    response = world.get('/', headers={'accept': 'text/plain'})
    assert response.status_code == 200
    assert response.json()['versions'][0]['id'] == 'v1.0'


def test_bodiless_writes_have_no_cache_headers(world):
    # As upstream: of the 204s, only a trait's own URL sends them.
    latest = {'openstack-api-version': 'placement latest'}
    found = world.put('/resource_classes/CUSTOM_FOO', headers=latest)
    assert found.status_code == 204
    created = world.put('/traits/CUSTOM_GONE', headers=latest)
    assert created.status_code == 201
    assert created.headers['cache-control'] == 'no-cache'
    deleted = world.delete('/traits/CUSTOM_GONE', headers=latest)
    assert deleted.status_code == 204
    for response in (found, deleted):
        assert 'cache-control' not in response.headers
        assert 'last-modified' not in response.headers
