"""Bad microversions, unknown routes and methods, text no column can
store, and bad bodies or headers swept over every route: each answers
a 4xx error document (helpers: bad_input_support.py)."""
import pytest

from placement import microversions

from support import bad_input_support as support
from support.bad_input_support import (AC, ALLOC, CLASS, CONSUMER, Case, INV,
                                       NEW_CONSUMER, PROJECT, RP, RPS, RP_URL,
                                       SERVICE, TRAIT, UNKNOWN,
                                       allocation_body, assert_error_document,
                                       log_mark, log_since, version_of)

CASES = {
    # -- microversion header --------------------------------------------
    'version-too-new': Case('GET', '/', 406, version='1.40'),
    'version-major-2': Case('GET', '/', 406, version='2.0'),
    'version-words': Case('GET', '/', 400, version='one.two'),
    'version-three-parts': Case('GET', '/', 400, version='1.2.3'),
    'version-bad-on-write': Case('POST', RPS, 406, body={'name': 'x'},
                                 version='1.99'),
    'method-not-allowed': Case('PATCH', RP_URL, 405),
    'unknown-url': Case('GET', '/nothing/here', 404),

    # -- text no column can store -----------------------------------------
    'query-not-utf8-rp-list': Case('GET', RPS + '?name=%FF', 400),
    'query-not-utf8-key': Case('GET', RPS + '?%FF=1', 400),
    'query-not-utf8-traits': Case('GET', '/traits?name=in:%FF', 400),
    'query-not-utf8-usages': Case('GET', '/usages?project_id=%FF', 400),
    'query-not-utf8-candidates': Case('GET', AC + '?resources=%FF:1', 400),
    'query-nul-rp-name': Case('GET', RPS + '?name=a%00b', 400),
    'query-nul-usages': Case('GET', '/usages?project_id=a%00b', 400),
    'query-nul-traits': Case('GET', '/traits?name=in:A%00B', 400),
    'path-nul-trait': Case('GET', '/traits/CUSTOM_%00', 400),
    'path-nul-class': Case('GET', '/resource_classes/CUSTOM_%00', 400),
    'path-nul-inventory': Case('GET', INV + '/A%00B', 400),
    'body-nul-rp-name': Case('POST', RPS, 400, body={'name': 'a\x00b'}),
    'body-nul-rp-rename': Case('PUT', RP_URL, 400, body={'name': 'a\x00b'}),
    'body-nul-project': Case('PUT', NEW_CONSUMER, 400, body=allocation_body(
        {'VCPU': 1}, project_id='a\x00b')),
    'body-nul-trait': Case('PUT', RP_URL + '/traits', 400, body={
        'traits': ['A\x00B'], 'resource_provider_generation': 0}),
}


# The seeded world, built once for this module.
seeded = support.seeded


@pytest.mark.parametrize('case', support.params(CASES))
def test_bad_input_is_a_4xx_error_document(seeded, server, case):
    support.check(seeded, server, case)


# One URL per route of placement/web/router.py, to sweep what every route
# must refuse the same way.
ROUTE_URLS = {
    '/': '/',
    '/resource_providers': RPS,
    '/resource_providers/{uuid}': RP_URL,
    '/resource_providers/{uuid}/inventories': INV,
    '/resource_providers/{uuid}/inventories/{resource_class}': INV + '/VCPU',
    '/resource_providers/{uuid}/usages': RP_URL + '/usages',
    '/resource_providers/{uuid}/aggregates': RP_URL + '/aggregates',
    '/resource_providers/{uuid}/allocations': RP_URL + '/allocations',
    '/resource_providers/{uuid}/traits': RP_URL + '/traits',
    '/resource_classes': '/resource_classes',
    '/resource_classes/{name}': '/resource_classes/' + CLASS,
    '/traits': '/traits',
    '/traits/{name}': '/traits/' + TRAIT,
    '/allocations': '/allocations',
    '/allocations/{consumer_uuid}': ALLOC,
    '/allocation_candidates': AC + '?resources=VCPU:1',
    '/allocation_candidates/explain': AC + '/explain?resources=VCPU:1',
    '/usages': '/usages?project_id=' + PROJECT,
    '/reshaper': '/reshaper',
    '/summary': '/summary',
    '/summary/providers': '/summary/providers',
    '/capacity': '/capacity?resources=VCPU:1',
    '/claims': '/claims',
}
# The routes whose writes take a JSON body.
JSON_WRITES = [
    ('POST', RPS), ('PUT', RP_URL), ('POST', INV), ('PUT', INV),
    ('PUT', INV + '/VCPU'), ('PUT', RP_URL + '/aggregates'),
    ('PUT', RP_URL + '/traits'), ('POST', '/resource_classes'),
    ('PUT', ALLOC), ('POST', '/allocations'), ('POST', '/reshaper'),
    ('POST', '/capacity'), ('POST', '/claims'),
]
BAD_BODIES = {
    'malformed': (b'{"a": ', 'application/json', 400),
    'empty': (b'', 'application/json', 400),
    'string': (b'"text"', 'application/json', 400),
    'number': (b'1e400', 'application/json', 400),
    'array': (b'[[], {}]', 'application/json', 400),
    'text-plain': (b'{}', 'text/plain', 415),
    'no-content-type': (b'{}', None, 400),
}


def test_route_table_covers_every_route():
    from placement.web import router
    assert set(ROUTE_URLS) == set(router.ROUTES) - {''}
    writes = {(method, path) for path, methods in router.ROUTES.items()
              for method in methods if method in ('POST', 'PUT')}
    # PUT of a trait or (from 1.7) of a class takes no body.
    assert len(writes) == len(JSON_WRITES) + 2


def _route_methods():
    from placement.web import router
    return [pytest.param(method, ROUTE_URLS[path], id='%s-%s' % (
        method, path)) for path, methods in router.ROUTES.items()
        if path for method in methods]


@pytest.mark.parametrize('header,status', [
    ('placement 1.40', 406), ('placement 2.0', 406),
    ('placement 1.x', 400), ('placement 1', 400)])
@pytest.mark.parametrize('method,path', _route_methods())
def test_every_route_refuses_bad_microversions(seeded, server, method, path,
                                               header, status):
    mark = log_mark(server)
    response = seeded.request(method, path, headers={
        'openstack-api-version': header})
    log = log_since(server, mark)
    assert 'Traceback' not in log, log
    assert response.status_code == status, response.text
    error = assert_error_document(response, None)
    if status == 406:
        assert (error['min_version'], error['max_version']) == (
            '1.0', '1.39')


@pytest.mark.parametrize('body,content_type,status', [
    pytest.param(*value, id=name) for name, value in BAD_BODIES.items()])
@pytest.mark.parametrize('method,path', [
    pytest.param(m, p, id='%s-%s' % (m, p.replace(RP, '{uuid}').replace(
        CONSUMER, '{consumer}'))) for m, p in JSON_WRITES])
def test_every_json_write_refuses_bad_bodies(seeded, server, method, path,
                                             body, content_type, status):
    # Every write bumps some provider's generation: the list shows them.
    before = seeded.get(RPS).json()
    headers = dict(SERVICE) if path == '/reshaper' else {}
    if content_type:
        headers['content-type'] = content_type
    mark = log_mark(server)
    response = seeded.request(method, path, content=body, headers=headers)
    log = log_since(server, mark)
    assert 'Traceback' not in log, log
    assert response.status_code == status, response.text
    assert_error_document(response, microversions.MAX)
    assert seeded.get(RPS).json() == before


@pytest.mark.parametrize('version', ['1.0', '1.22', '1.23', 'latest'])
def test_error_code_appears_from_1_23(seeded, version):
    response = seeded.get(RPS + '/' + UNKNOWN,
                          headers={'openstack-api-version':
                                   'placement ' + version})
    assert response.status_code == 404
    error = assert_error_document(response, version_of(version))
    if version_of(version) >= microversions.ERROR_CODES:
        assert error['code'] == 'placement.undefined_code'


def test_errors_are_json_without_any_accept_header(seeded, server):
    # httpx sends "Accept: */*" unless told otherwise; the fault handler
    # must still answer JSON.
    response = seeded.get(RPS + '/' + UNKNOWN, headers={'accept': '*/*'})
    assert response.status_code == 404
    assert_error_document(response, microversions.MAX)
