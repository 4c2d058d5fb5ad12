"""Schema errors on this service's own routes (router.OWN_ROUTES): one
sentence naming the field (its JSON pointer in the body, or the query
parameter) and what it must be, never the schema or a regex.  The same
schema on upstream's routes keeps upstream's text
(test_error_texts_*.py hold those)."""
import importlib
import re

import pytest

from support import error_texts_support as support
from placement.web import router

GROUP_KEYS = ', '.join('%s plus an optional group suffix' % prefix for prefix
                       in ('resources', 'required', 'member_of', 'in_tree'))
UUID = 'c0ffee00-0000-4000-8000-00000000ea01'
CONSUMERS = {UUID: {'project_id': 'p', 'user_id': 'u',
                    'consumer_generation': None, 'consumer_type': 'INSTANCE'}}

# (method, path, version, body, the sentence)
CASES = {
    'capacity-post-no-shapes': (
        'POST', '/capacity', 'latest', {'shapes': {}},
        'Body field /shapes must be an object of 1 to 100 entries.'),
    'capacity-post-missing': (
        'POST', '/capacity', 'latest', {},
        'Body field /shapes is required.'),
    'capacity-post-unknown-field': (
        'POST', '/capacity', 'latest',
        {'shapes': {'a': 'resources=VCPU:1'}, 'limit': 1},
        'Body field /limit is not allowed; allowed: evacuate, shapes, '
        'shapes_of, survive, with, without.'),
    'capacity-post-shape-type': (
        'POST', '/capacity', 'latest', {'shapes': {'m1.tiny': 5}},
        'Body field /shapes/m1.tiny must be a string of at least 1 character'
        ' or an object of at least 1 entry.'),
    'capacity-post-parameter-type': (
        'POST', '/capacity', 'latest',
        {'shapes': {'m1.tiny': {'resources': []}}},
        'Body field /shapes/m1.tiny/resources must be a string or an array'
        ' of strings of at least 1 item.'),
    'capacity-post-shape-name': (
        'POST', '/capacity', 'latest', {'shapes': {'m1 tiny': 'x'}},
        "Body field /shapes has the key 'm1 tiny', but its keys must be a"
        ' name of 1 to 255 characters without whitespace or /.'),
    # A shape's query is checked as GET /capacity checks its own.
    'capacity-post-shape-query': (
        'POST', '/capacity', 'latest',
        {'shapes': {'m1': 'resources=VCPU:1&limit=0'}},
        'Shape m1: Query parameter limit must be a whole number of at'
        ' least 1.'),
    'capacity-get-limit': (
        'GET', '/capacity?resources=VCPU:1&limit=0', 'latest', None,
        'Query parameter limit must be a whole number of at least 1.'),
    'capacity-get-unknown': (
        'GET', '/capacity?resources=VCPU:1&bogus=1', 'latest', None,
        'Query parameter bogus is not allowed; allowed: group_policy, limit,'
        ' root_required, same_subtree, ' + GROUP_KEYS + '.'),
    'capacity-get-before-its-version': (
        'GET', '/capacity?resources=VCPU:1&member_of=' + UUID, '1.20', None,
        'Query parameter member_of is not allowed; allowed: limit,'
        ' required, resources.'),
    'capacity-get-numbered-groups': (
        'GET', '/capacity?resources1=VCPU:1&group_policy=any', '1.25', None,
        'Query parameter group_policy must be one of none, isolate.'),
    'capacity-get-required': (
        'GET', '/capacity?limit=1', '1.24', None,
        'Query parameter resources is required.'),
    'claims-missing': (
        'POST', '/claims', 'latest', {'shape': 'resources=VCPU:1'},
        'Body field /consumers is required.'),
    'claims-roots': (
        'POST', '/claims', 'latest',
        {'shape': 'resources=VCPU:1', 'consumers': CONSUMERS,
         'roots': 'apart'},
        'Body field /roots must be one of any, distinct, same.'),
    'claims-no-consumers': (
        'POST', '/claims', 'latest',
        {'shape': 'resources=VCPU:1', 'consumers': {}},
        'Body field /consumers must be an object of 1 to 1000 entries.'),
    'claims-alternates': (
        'POST', '/claims', 'latest',
        {'shape': 'resources=VCPU:1', 'consumers': CONSUMERS,
         'alternates': 11},
        'Body field /alternates must be an integer from 0 to 10.'),
    'claims-consumer': (
        'POST', '/claims', 'latest',
        {'shape': 'resources=VCPU:1', 'consumers': {'me': {}}},
        "Body field /consumers has the key 'me', but its keys must be a UUID"
        ' (36 hex digits and dashes).'),
    'claims-consumer-type-before-its-version': (
        'POST', '/claims', '1.37',
        {'shape': 'resources=VCPU:1', 'consumers': CONSUMERS},
        'Body field /consumers/%s/consumer_type is not allowed; allowed:'
        ' consumer_generation, project_id, user_id.' % UUID),
    'claims-shape-query': (
        'POST', '/claims', 'latest',
        {'shape': 'resources=VCPU:1&bogus=1', 'consumers': CONSUMERS},
        # As GET /capacity words its query.
        'Query parameter bogus is not allowed; allowed: group_policy, limit,'
        ' root_required, same_subtree, ' + GROUP_KEYS + '.'),
    'explain-unknown': (
        'GET', '/allocation_candidates/explain?resources=VCPU:1'
        '&required=CUSTOM_T', '1.16', None,
        'Query parameter required is not allowed; allowed: limit,'
        ' resources.'),
    'explain-limit': (
        'GET', '/allocation_candidates/explain?resources=VCPU:1&limit=x',
        'latest', None,
        'Query parameter limit must be a whole number of at least 1.'),
    'summary-unknown': (
        'GET', '/summary?limit=5', 'latest', None,
        'Query parameter limit is not allowed; it takes none.'),
    'summary-providers-limit': (
        'GET', '/summary/providers?limit=101', 'latest', None,
        'Query parameter limit must be a whole number from 1 to 100.'),
    'summary-providers-offset': (
        'GET', '/summary/providers?offset=-1', 'latest', None,
        'Query parameter offset must be a whole number of up to 9 digits.'),
    'summary-providers-sort': (
        'GET', '/summary/providers?sort=changed', 'latest', None,
        'Query parameter sort must be one of generation, name, uuid,'
        ' -generation, -name, -uuid.'),
    'summary-providers-uuid': (
        'GET', '/summary/providers?in_tree=abc', 'latest', None,
        'Query parameter in_tree must be a UUID.'),
    'summary-providers-search': (
        'GET', '/summary/providers?q=' + 'x' * 256, 'latest', None,
        'Query parameter q must be a string of at most 255 characters.'),
}

# What a schema dump or a regex would bring along.
LEAKS = re.compile(r"Failed validating|schema|does not match|'type'|"
                   r"[\^${}\[\]]|\\[sd]")


@pytest.mark.parametrize('name', CASES)
def test_schema_error_is_one_sentence(client, name):
    method, path, version, body, sentence = CASES[name]
    response = client.request(method, path, json=body, headers={
        'openstack-api-version': 'placement ' + version})
    assert response.status_code == 400, response.text
    detail = support.detail_of(response)[0]
    assert detail == sentence
    assert not LEAKS.search(detail), detail


# The same schemas on upstream's routes: upstream's texts, unchanged.
@pytest.mark.parametrize('path,version,upstream_path', [
    ('/capacity?resources=VCPU:1&limit=0', 'latest',
     '/allocation_candidates?resources=VCPU:1&limit=0'),
    ('/allocation_candidates/explain?resources=VCPU:1&required=X', '1.16',
     '/allocation_candidates?resources=VCPU:1&required=X'),
    ('/summary/providers?in_tree=abc', 'latest',
     '/resource_providers?in_tree=abc'),
])
def test_upstream_routes_keep_upstream_texts(client, path, version,
                                             upstream_path):
    headers = {'openstack-api-version': 'placement ' + version}
    ours = support.detail_of(client.get(path, headers=headers))[0]
    upstream = support.detail_of(client.get(upstream_path,
                                            headers=headers))[0]
    assert ours.startswith('Query parameter ')
    assert upstream.startswith('Invalid query string parameters: ')
    assert 'Failed validating' in upstream


def _patterns(schema):
    """Every regex a schema holds (its patterns and pattern keys)."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == 'pattern':
                yield value
            if key == 'patternProperties':
                yield from value
            yield from _patterns(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _patterns(value)


def _own_schemas():
    for methods in router.OWN_ROUTES.values():
        for func in methods.values():
            module = importlib.import_module(
                'placement.schemas.' + func.__module__.rpartition('.')[2])
            operation = module.OPERATIONS[func.__name__]
            for schema in (operation.query, operation.body):
                if hasattr(schema, 'ranges'):
                    for _, _, step in schema.ranges():
                        yield func.__name__, step
                elif schema is not None:
                    yield func.__name__, schema


@pytest.mark.parametrize('name,schema', list(_own_schemas()))
def test_every_pattern_of_an_own_route_says_what_it_accepts(name, schema):
    """A regex without words would leave its errors nothing to say."""
    for pattern in _patterns(schema):
        assert getattr(pattern, 'meaning', None), (name, pattern)
