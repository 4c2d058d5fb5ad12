"""GET /summary/providers: the provider list a page at a time, filtered
as GET /resource_providers filters, each provider as the REST API shows
it, on every database."""
import pytest

from support import helpers

PATH = '/summary/providers'
AGG = 'agg'


@pytest.fixture(scope='module')
def names(world):
    """A small cloud: a tree, a sharing provider, providers whose names
    hold LIKE's wildcards; their names."""
    world.clear()
    world.add('Compute-A', inventory={
        'VCPU': {'total': 16, 'allocation_ratio': 2.0},
        'MEMORY_MB': {'total': 4096, 'reserved': 512}},
        used={'VCPU': 5}, traits=['HW_CPU_X86_AVX2'], aggs=[AGG])
    world.add('compute-a-numa0', parent='Compute-A',
              inventory={'PCPU': {'total': 8, 'reserved': 1}},
              used={'PCPU': 3})
    world.add('shared_disk', inventory={'DISK_GB': 1000},
              traits=[helpers.SHARING], aggs=[AGG])
    world.add('disk%pool', inventory={'DISK_GB': 10})
    for index in range(6):
        world.add('bulk-%d' % index, inventory={'VCPU': 1 + index})
    return sorted(world.providers)


def page(client, **params):
    response = client.get(PATH, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def as_the_api_shows(client, uuid):
    """A provider of the page, from the provider's own routes."""
    base = '/resource_providers/' + uuid
    rp = client.get(base).json()
    parent = rp['parent_provider_uuid']
    inventories = client.get(base + '/inventories').json()['inventories']
    usages = client.get(base + '/usages').json()['usages']
    return {
        'uuid': uuid, 'name': rp['name'], 'generation': rp['generation'],
        'parent_provider_uuid': parent,
        'parent_provider_name': parent and client.get(
            '/resource_providers/' + parent).json()['name'],
        'root_provider_uuid': rp['root_provider_uuid'],
        'traits': sorted(client.get(base + '/traits').json()['traits']),
        'inventories': {rc: {
            'total': inv['total'], 'reserved': inv['reserved'],
            'allocation_ratio': inv['allocation_ratio'],
            'capacity': int((inv['total'] - inv['reserved'])
                            * inv['allocation_ratio']),
            'used': usages.get(rc, 0)} for rc, inv in inventories.items()},
    }


def test_each_provider_is_what_the_api_says(client, names):
    body = page(client, limit='100')
    assert body['count'] == len(names)
    for provider in body['resource_providers']:
        assert provider == as_the_api_shows(client, provider['uuid'])


def test_pages_follow_the_sort(client, names):
    whole = page(client, sort='-generation', limit='100')
    pieces = [page(client, sort='-generation', limit='3', offset=str(at))
              for at in range(0, len(names), 3)]
    assert [p['uuid'] for body in pieces
            for p in body['resource_providers']] == [
        p['uuid'] for p in whole['resource_providers']]
    generations = [p['generation'] for p in whole['resource_providers']]
    assert generations == sorted(generations, reverse=True)
    by_name = [p['name'] for p in page(client)['resource_providers']]
    assert len(by_name) == len(names)
    assert [name.lower() for name in by_name] == sorted(
        name.lower() for name in by_name)


@pytest.mark.parametrize('query', [
    {'resources': 'VCPU:4'}, {'required': 'HW_CPU_X86_AVX2'},
    {'required': '!' + helpers.SHARING}, {'member_of': 'in:{agg}'},
    {'in_tree': '{tree}'}, {'resources': 'DISK_GB:10',
                               'member_of': '{agg}'}])
def test_filters_are_those_of_the_provider_list(client, world, names,
                                               query):
    query = {key: value.format(agg=world.aggs[AGG][1],
                               tree=world.uuid('Compute-A'))
             for key, value in query.items()}
    listed = client.get('/resource_providers', params=query).json()
    shown = page(client, limit='100', **query)
    assert {p['uuid'] for p in shown['resource_providers']} == {
        p['uuid'] for p in listed['resource_providers']}
    assert shown['count'] == len(listed['resource_providers']) > 0


@pytest.mark.parametrize('search,found', [
    ('compute-a', ['Compute-A', 'compute-a-numa0']),
    ('%', ['disk%pool']), ('_', ['shared_disk']), ('nowhere', [])])
def test_search_is_a_part_of_the_name_in_any_case(client, names, search,
                                                  found):
    body = page(client, q=search)
    assert sorted(p['name'] for p in body['resource_providers']) == found
    assert body['count'] == len(found)


def test_search_finds_a_part_of_the_uuid(client, world, names):
    uuid = world.uuid('bulk-3')
    body = page(client, q=uuid[9:18].upper())
    assert [p['uuid'] for p in body['resource_providers']] == [uuid]


@pytest.mark.parametrize('query', [
    {'limit': '0'}, {'limit': '101'}, {'offset': '-1'},
    {'sort': 'changed'}, {'page': '2'}])
def test_bad_paging_is_a_400(client, names, query):
    response = client.get(PATH, params=query)
    assert response.status_code == 400, response.text
    # A route of ours names the parameter in a sentence
    # (test_error_texts_own_routes.py has the texts).
    assert 'Query parameter %s ' % next(iter(query)) in helpers.error(
        response)['detail']


# The filters' schema errors are worded as ours
# (test_error_texts_own_routes.py); the parsers' texts are the list's.
@pytest.mark.parametrize('query', [
    {'resources': 'VCPU:0'}, {'required': 'CUSTOM_NOPE'},
    {'member_of': 'in:'}])
def test_bad_filters_are_refused_as_the_provider_list_refuses(
        client, names, query):
    response = client.get(PATH, params=query)
    listed = client.get('/resource_providers', params=query)
    assert response.status_code == listed.status_code == 400, response.text
    assert helpers.error(response)['detail'] == helpers.error(
        listed)['detail']
