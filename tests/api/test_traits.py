"""Traits and provider traits over real HTTP."""
import concurrent.futures
import uuid

import httpx
import os_traits
import pytest

from support import stress_setup
from support.helpers import new_provider, version


def custom(label):
    return 'CUSTOM_%s_%s' % (label, uuid.uuid4().hex[:8].upper())


def set_traits(client, rp_uuid, traits, generation):
    return client.put('/resource_providers/%s/traits' % rp_uuid,
                      json={'traits': traits,
                            'resource_provider_generation': generation})


def test_routes_start_at_1_6(client):
    assert client.get('/traits', headers=version('1.5')).status_code == 404
    assert client.put('/traits/CUSTOM_OLD',
                      headers=version('1.5')).status_code == 404
    assert client.get('/traits', headers=version('1.6')).status_code == 200


def test_standard_traits_are_listed_sorted(client):
    names = client.get('/traits').json()['traits']
    assert set(os_traits.get_traits()) <= set(names)
    assert names == sorted(names)


def test_create_is_201_then_204_with_location(client):
    name = custom('NEW')
    first = client.put('/traits/' + name)
    assert first.status_code == 201
    assert first.headers['location'].endswith('/traits/' + name)
    assert 'content-type' not in first.headers
    assert first.headers['cache-control'] == 'no-cache'
    again = client.put('/traits/' + name)
    assert again.status_code == 204
    assert client.get('/traits/' + name).status_code == 204


def test_no_cache_headers_before_1_15(client):
    name = custom('OLD')
    response = client.put('/traits/' + name, headers=version('1.14'))
    assert response.status_code == 201
    assert 'cache-control' not in response.headers
    assert 'last-modified' not in response.headers


@pytest.mark.parametrize('name', [
    'TRAIT_X', 'CUSTOM_lower', 'CUSTOM_ABC:1', 'CUSTOM_' + 'A' * 249])
def test_only_valid_custom_names_can_be_created(client, name):
    response = client.put('/traits/' + name)
    assert response.status_code == 400
    assert 'start with the prefix "CUSTOM_"' in (
        response.json()['errors'][0]['detail'])


def test_unknown_trait_is_404(client):
    assert client.get('/traits/CUSTOM_NOPE_NOPE').status_code == 404
    assert client.delete('/traits/CUSTOM_NOPE_NOPE').status_code == 404


def test_standard_trait_cannot_be_deleted(client):
    response = client.delete('/traits/HW_CPU_X86_SSE')
    assert response.status_code == 400
    assert 'Cannot delete standard trait' in response.text
    assert client.get('/traits/HW_CPU_X86_SSE').status_code == 204


def test_name_filters(client):
    prefix = custom('FLT')
    names = [prefix + suffix for suffix in ('_B', '_A', '_C')]
    for name in names:
        assert client.put('/traits/' + name).status_code == 201
    listed = client.get('/traits', params={'name': 'startswith:' + prefix})
    assert listed.json()['traits'] == sorted(names)
    chosen = client.get('/traits', params={
        'name': 'in:%s,%s,CUSTOM_ABSENT' % (names[2], names[0])})
    assert chosen.json()['traits'] == sorted([names[0], names[2]])


def test_prefix_filter_treats_like_wildcards_literally(client):
    name = custom('PCT')
    assert client.put('/traits/' + name).status_code == 201
    # "_" is a LIKE wildcard; it must only match an underscore.
    response = client.get('/traits', params={'name': 'startswith:CUSTOM%'})
    assert response.json()['traits'] == []


@pytest.mark.parametrize('query, message', [
    ({'name': 'in_abc'}, 'Badly formatted name parameter'),
    ({'name': 'between:A'}, 'Badly formatted name parameter'),
    ({'associated': 'yes'}, 'only accepts "true" or "false"'),
    ({'invalid': 'abc'}, 'Additional properties are not allowed'),
])
def test_bad_list_queries(client, query, message):
    response = client.get('/traits', params=query)
    assert response.status_code == 400
    assert message in response.json()['errors'][0]['detail']


def test_provider_traits_replace_and_bump_generation(client):
    rp_uuid = new_provider(client)
    one, two = custom('ONE'), custom('TWO')
    for name in (two, one):
        client.put('/traits/' + name)
    empty = client.get('/resource_providers/%s/traits' % rp_uuid).json()
    assert empty == {'traits': [], 'resource_provider_generation': 0}
    response = set_traits(client, rp_uuid, [two, one, 'HW_CPU_X86_SSE'], 0)
    assert response.status_code == 200
    assert response.json() == {
        'traits': sorted([one, two, 'HW_CPU_X86_SSE']),
        'resource_provider_generation': 1}
    response = set_traits(client, rp_uuid, [one], 1)
    assert response.json() == {'traits': [one],
                               'resource_provider_generation': 2}
    shown = client.get('/resource_providers/%s/traits' % rp_uuid).json()
    assert shown == {'traits': [one], 'resource_provider_generation': 2}
    provider = client.get('/resource_providers/' + rp_uuid).json()
    assert provider['generation'] == 2


def test_stale_generation_is_409_and_changes_nothing(client):
    rp_uuid = new_provider(client)
    name = custom('GEN')
    client.put('/traits/' + name)
    response = set_traits(client, rp_uuid, [name], 3)
    assert response.status_code == 409
    error = response.json()['errors'][0]
    assert error['code'] == 'placement.concurrent_update'
    assert 'Please update the generation and try again.' in error['detail']
    shown = client.get('/resource_providers/%s/traits' % rp_uuid).json()
    assert shown == {'traits': [], 'resource_provider_generation': 0}


def test_unknown_traits_are_named_and_nothing_changes(client):
    rp_uuid = new_provider(client)
    known = custom('KNOWN')
    client.put('/traits/' + known)
    response = set_traits(client, rp_uuid, ['CUSTOM_NOT_B', known,
                                            'CUSTOM_NOT_A'], 0)
    assert response.status_code == 400
    assert ('No such trait CUSTOM_NOT_A, CUSTOM_NOT_B'
            in response.json()['errors'][0]['detail'])
    shown = client.get('/resource_providers/%s/traits' % rp_uuid).json()
    assert shown == {'traits': [], 'resource_provider_generation': 0}


@pytest.mark.parametrize('body, message', [
    ({'traits': []}, "'resource_provider_generation' is a required"),
    ({'traits': 'x', 'resource_provider_generation': 0},
     "'x' is not of type 'array'"),
    ({'traits': [], 'resource_provider_generation': 'x'},
     "'x' is not of type 'integer'"),
    ({'traits': [], 'resource_provider_generation': 0, 'extra': 1},
     'Additional properties are not allowed'),
])
def test_bad_provider_trait_bodies(client, body, message):
    rp_uuid = new_provider(client)
    response = client.put('/resource_providers/%s/traits' % rp_uuid,
                          json=body)
    assert response.status_code == 400
    assert message in response.json()['errors'][0]['detail']


def test_unknown_provider_is_404(client):
    path = '/resource_providers/%s/traits' % uuid.uuid4()
    assert client.get(path).status_code == 404
    assert client.delete(path).status_code == 404
    response = client.put(path, json={'traits': [],
                                      'resource_provider_generation': 0})
    assert response.status_code == 404
    assert 'No resource provider with uuid' in response.text


def test_delete_provider_traits_bumps_generation(client):
    rp_uuid = new_provider(client)
    name = custom('DEL')
    client.put('/traits/' + name)
    assert set_traits(client, rp_uuid, [name], 0).status_code == 200
    response = client.delete('/resource_providers/%s/traits' % rp_uuid)
    assert response.status_code == 204
    shown = client.get('/resource_providers/%s/traits' % rp_uuid).json()
    assert shown == {'traits': [], 'resource_provider_generation': 2}


def test_trait_in_use_cannot_be_deleted(client):
    rp_uuid = new_provider(client)
    name = custom('USED')
    client.put('/traits/' + name)
    assert set_traits(client, rp_uuid, [name], 0).status_code == 200
    response = client.delete('/traits/' + name)
    assert response.status_code == 409
    assert 'is in use by a resource provider' in response.text
    assert set_traits(client, rp_uuid, [], 1).status_code == 200
    assert client.delete('/traits/' + name).status_code == 204
    assert client.get('/traits/' + name).status_code == 404


def test_associated_filter(client):
    rp_uuid = new_provider(client)
    prefix = custom('ASSOC')
    used, unused = prefix + '_USED', prefix + '_UNUSED'
    for name in (used, unused):
        client.put('/traits/' + name)
    assert set_traits(client, rp_uuid, [used], 0).status_code == 200
    base = {'name': 'startswith:' + prefix}
    # Clients send "True" with a capital T.
    assert client.get('/traits', params=dict(
        base, associated='True')).json()['traits'] == [used]
    assert client.get('/traits', params=dict(
        base, associated='false')).json()['traits'] == [unused]


def test_concurrent_creates_of_one_trait(database):
    name = custom('RACE')
    with stress_setup.service(database.backend, workers=3) as svc, \
            httpx.Client(base_url=svc.url, headers=stress_setup.HEADERS,
                         timeout=30) as http:
        with concurrent.futures.ThreadPoolExecutor(12) as pool:
            statuses = sorted(pool.map(
                lambda _: http.put('/traits/' + name).status_code,
                range(12)))
    assert statuses == [201] + [204] * 11


def test_order_and_matching_ignore_database_collation(client):
    prefix = custom('COLL')
    names = [prefix + suffix for suffix in ('_A_C', '_AC', '_A_B', '_AB')]
    for name in names:
        assert client.put('/traits/' + name).status_code == 201
    listed = client.get('/traits', params={'name': 'startswith:' + prefix})
    assert listed.json()['traits'] == [prefix + '_AB', prefix + '_AC',
                                       prefix + '_A_B', prefix + '_A_C']
    lower = names[0].lower()
    assert client.get('/traits/' + lower).status_code == 404
    assert client.get('/traits', params={
        'name': 'in:' + lower}).json()['traits'] == []
    assert client.get('/traits', params={
        'name': 'startswith:' + prefix.lower()}).json()['traits'] == []
