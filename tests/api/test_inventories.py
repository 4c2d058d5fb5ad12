"""Inventories over real HTTP: one class and the whole collection."""
import concurrent.futures
import uuid

import httpx
import pytest

from support import stress_setup
from support.helpers import allocate, new_provider, version

MAX_INT = 2147483647
DEFAULTS = {'reserved': 0, 'min_unit': 1, 'max_unit': MAX_INT,
            'step_size': 1, 'allocation_ratio': 1.0}


def error(response):
    return response.json()['errors'][0]


def url(rp_uuid, class_name=None):
    path = '/resource_providers/%s/inventories' % rp_uuid
    return path + '/' + class_name if class_name else path


def generation(client, rp_uuid):
    return client.get(url(rp_uuid)).json()['resource_provider_generation']


def put_all(client, rp_uuid, inventories, gen=None, **headers):
    if gen is None:
        gen = generation(client, rp_uuid)
    return client.put(url(rp_uuid), headers=headers, json={
        'resource_provider_generation': gen, 'inventories': inventories})


def test_new_provider_has_empty_inventory(client):
    rp_uuid = new_provider(client)
    body = client.get(url(rp_uuid)).json()
    assert body == {'resource_provider_generation': 0, 'inventories': {}}


def test_post_fills_defaults_and_bumps_generation(client, server):
    rp_uuid = new_provider(client)
    response = client.post(url(rp_uuid),
                           json={'resource_class': 'DISK_GB', 'total': 100})
    assert response.status_code == 201
    assert response.headers['location'] == (
        server.url + url(rp_uuid, 'DISK_GB'))
    expected = dict(DEFAULTS, total=100, resource_provider_generation=1)
    assert response.json() == expected
    assert client.get(url(rp_uuid, 'DISK_GB')).json() == expected
    assert client.get('/resource_providers/' + rp_uuid).json()[
        'generation'] == 1


def test_post_twice_conflicts(client):
    rp_uuid = new_provider(client)
    body = {'resource_class': 'VCPU', 'total': 8}
    assert client.post(url(rp_uuid), json=body).status_code == 201
    again = client.post(url(rp_uuid), json=body)
    assert again.status_code == 409
    assert 'Update conflict' in error(again)['detail']
    assert generation(client, rp_uuid) == 1


def test_post_unknown_class(client):
    rp_uuid = new_provider(client)
    response = client.post(url(rp_uuid), json={
        'resource_class': 'CUSTOM_NOT_THERE', 'total': 1})
    assert response.status_code == 400
    assert 'No such resource class CUSTOM_NOT_THERE' in error(response)[
        'detail']


def test_custom_class_inventory(client):
    name = 'CUSTOM_INV_' + uuid.uuid4().hex[:8].upper()
    assert client.put('/resource_classes/' + name).status_code == 201
    rp_uuid = new_provider(client)
    assert client.post(url(rp_uuid), json={
        'resource_class': name, 'total': 3}).status_code == 201
    assert client.get(url(rp_uuid)).json()['inventories'][name]['total'] == 3


@pytest.mark.parametrize('field,value,text', [
    ('total', 0,
     "Failed validating 'minimum' in schema['properties']['total']"),
    ('total', MAX_INT + 1, "Failed validating 'maximum'"),
    ('reserved', -1, "Failed validating 'minimum'"),
    ('min_unit', 0, "Failed validating 'minimum'"),
    ('max_unit', 0, "Failed validating 'minimum'"),
    ('step_size', 0, "Failed validating 'minimum'"),
    ('allocation_ratio', 3.5e+38, "Failed validating 'maximum'"),
    ('total', 'ten', "is not of type 'integer'"),
    ('resource_class', 'lower_case', "does not match"),
    ('bogus', 1, 'Additional properties are not allowed'),
])
def test_post_validation(client, field, value, text):
    rp_uuid = new_provider(client)
    body = {'resource_class': 'DISK_GB', 'total': 10, field: value}
    response = client.post(url(rp_uuid), json=body)
    assert response.status_code == 400
    assert 'JSON does not validate' in error(response)['detail']
    assert text in error(response)['detail']
    assert generation(client, rp_uuid) == 0


def test_reserved_equal_to_total_needs_1_26(client):
    rp_uuid = new_provider(client)
    body = {'resource_class': 'DISK_GB', 'total': 10, 'reserved': 10}
    old = client.post(url(rp_uuid), json=body, headers=version('1.25'))
    assert old.status_code == 400
    assert 'greater than or equal to total' in error(old)['detail']
    over = client.post(url(rp_uuid), json=dict(body, reserved=11))
    assert over.status_code == 400
    assert 'The reserved value is greater than total' in error(over)['detail']
    assert client.post(url(rp_uuid), json=body,
                       headers=version('1.26')).status_code == 201


def test_missing_provider_and_class(client):
    missing = str(uuid.uuid4())
    for response in (client.get(url(missing)),
                     client.get(url(missing, 'VCPU')),
                     client.post(url(missing), json={
                         'resource_class': 'VCPU', 'total': 1}),
                     # The provider is looked for before the numbers.
                     client.post(url(missing), json={
                         'resource_class': 'VCPU', 'total': 1,
                         'reserved': 2}),
                     put_all(client, missing, {}, gen=0),
                     client.delete(url(missing)),
                     client.delete(url(missing, 'VCPU'))):
        assert response.status_code == 404, response.request
    rp_uuid = new_provider(client)
    response = client.get(url(rp_uuid, 'VCPU'))
    assert response.status_code == 404
    assert 'No inventory of class VCPU for %s' % rp_uuid in (
        error(response)['detail'])


def test_put_one_replaces_the_record(client):
    rp_uuid = new_provider(client)
    client.post(url(rp_uuid), json={'resource_class': 'MEMORY_MB',
                                    'total': 1024, 'reserved': 512,
                                    'step_size': 256})
    response = client.put(url(rp_uuid, 'MEMORY_MB'), json={
        'resource_provider_generation': 1, 'total': 2048,
        'allocation_ratio': 1.5})
    assert response.status_code == 200
    # Fields left out go back to their defaults.
    expected = dict(DEFAULTS, total=2048, allocation_ratio=1.5,
                    resource_provider_generation=2)
    assert response.json() == expected
    assert client.get(url(rp_uuid, 'MEMORY_MB')).json() == expected


def test_put_one_stale_generation_or_absent_class(client):
    rp_uuid = new_provider(client)
    client.post(url(rp_uuid), json={'resource_class': 'VCPU', 'total': 4})
    stale = client.put(url(rp_uuid, 'VCPU'), json={
        'resource_provider_generation': 0, 'total': 8},
        headers=version('1.23'))
    assert stale.status_code == 409
    assert error(stale)['code'] == 'placement.concurrent_update'
    absent = client.put(url(rp_uuid, 'DISK_GB'), json={
        'resource_provider_generation': 1, 'total': 8})
    assert absent.status_code == 400
    assert 'No inventory record with resource class' in (
        error(absent)['detail'])
    assert client.get(url(rp_uuid, 'VCPU')).json()['total'] == 4


def test_put_all_replaces_the_collection(client):
    rp_uuid = new_provider(client)
    assert put_all(client, rp_uuid, {'VCPU': {'total': 4},
                                     'DISK_GB': {'total': 10}}
                   ).status_code == 200
    response = put_all(client, rp_uuid, {'VCPU': {'total': 8},
                                         'MEMORY_MB': {'total': 64}})
    assert response.status_code == 200
    body = response.json()
    assert body['resource_provider_generation'] == 2
    assert set(body['inventories']) == {'VCPU', 'MEMORY_MB'}
    assert body['inventories']['VCPU'] == dict(DEFAULTS, total=8)
    assert client.get(url(rp_uuid)).json() == body


def test_put_all_errors(client):
    rp_uuid = new_provider(client)
    put_all(client, rp_uuid, {'VCPU': {'total': 4}})
    stale = put_all(client, rp_uuid, {}, gen=0)
    assert stale.status_code == 409
    assert 'resource provider generation conflict' in error(stale)['detail']
    unknown = put_all(client, rp_uuid, {'CUSTOM_NOPE_X': {'total': 1}})
    assert unknown.status_code == 400
    assert 'Unknown resource class in inventory' in error(unknown)['detail']
    capacity = put_all(client, rp_uuid, {'VCPU': {'total': 4, 'reserved': 5}})
    assert capacity.status_code == 400
    assert 'Unable to update inventory' in error(capacity)['detail']
    bad = put_all(client, rp_uuid, {'VCPU': {'reserved': 1}})
    assert bad.status_code == 400
    assert "'total' is a required property" in error(bad)['detail']
    missing_gen = client.put(url(rp_uuid), json={'inventories': {}})
    assert missing_gen.status_code == 400
    assert client.get(url(rp_uuid)).json()['inventories'] == {
        'VCPU': dict(DEFAULTS, total=4)}


def test_inventory_in_use_cannot_be_removed_but_can_shrink(client):
    rp_uuid = new_provider(client)
    put_all(client, rp_uuid, {'VCPU': {'total': 8}, 'DISK_GB': {'total': 50}})
    allocate(client, rp_uuid, VCPU=6)

    removed = put_all(client, rp_uuid, {'DISK_GB': {'total': 50}})
    assert removed.status_code == 409
    assert error(removed)['code'] == 'placement.inventory.inuse'
    one = client.delete(url(rp_uuid, 'VCPU'))
    assert one.status_code == 409
    # As upstream: this one path answers with the generic conflict code.
    assert error(one)['code'] == 'placement.concurrent_update'
    everything = client.delete(url(rp_uuid))
    assert everything.status_code == 409
    assert error(everything)['code'] == 'placement.inventory.inuse'

    # Below current usage: accepted, the operator knows best.
    shrunk = client.put(url(rp_uuid, 'VCPU'), json={
        'resource_provider_generation': generation(client, rp_uuid),
        'total': 2})
    assert shrunk.status_code == 200
    assert client.get(url(rp_uuid, 'VCPU')).json()['total'] == 2
    # A class without allocations can still go.
    assert client.delete(url(rp_uuid, 'DISK_GB')).status_code == 204


def test_delete_one_then_404(client):
    rp_uuid = new_provider(client)
    client.post(url(rp_uuid), json={'resource_class': 'VCPU', 'total': 1})
    response = client.delete(url(rp_uuid, 'VCPU'))
    assert response.status_code == 204
    assert 'content-type' not in response.headers
    assert generation(client, rp_uuid) == 2
    again = client.delete(url(rp_uuid, 'VCPU'))
    assert again.status_code == 404
    assert 'No inventory of class VCPU found for delete' in (
        error(again)['detail'])


def test_delete_all_from_1_5(client):
    rp_uuid = new_provider(client)
    put_all(client, rp_uuid, {'VCPU': {'total': 1}, 'DISK_GB': {'total': 1}})
    old = client.delete(url(rp_uuid), headers=version('1.4'))
    assert old.status_code == 405
    assert client.delete(url(rp_uuid), headers=version('1.5')
                         ).status_code == 204
    body = client.get(url(rp_uuid)).json()
    assert body == {'resource_provider_generation': 2, 'inventories': {}}
    # Deleting nothing still counts as a change.
    assert client.delete(url(rp_uuid)).status_code == 204
    assert generation(client, rp_uuid) == 3


def test_cache_headers_from_1_15(client):
    rp_uuid = new_provider(client)
    put_all(client, rp_uuid, {'VCPU': {'total': 1}})
    old = client.get(url(rp_uuid), headers=version('1.14'))
    assert 'last-modified' not in old.headers
    new = client.get(url(rp_uuid, 'VCPU'), headers=version('1.15'))
    assert new.headers['cache-control'] == 'no-cache'
    assert new.headers['last-modified'].endswith('GMT')


def test_non_admin_is_forbidden(client):
    rp_uuid = new_provider(client)
    user = {'x-auth-token': 'user'}
    assert client.get(url(rp_uuid), headers=user).status_code == 403
    assert client.post(url(rp_uuid), headers=user, json={
        'resource_class': 'VCPU', 'total': 1}).status_code == 403
    assert generation(client, rp_uuid) == 0


def test_concurrent_puts_at_one_generation(database):
    """Of many writers naming the same generation exactly one wins."""
    with stress_setup.service(database.backend, workers=3) as svc, \
            httpx.Client(base_url=svc.url, headers=stress_setup.HEADERS,
                         timeout=30) as http:
        rp_uuid = new_provider(http)
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            responses = list(pool.map(
                lambda n: put_all(http, rp_uuid,
                                  {'VCPU': {'total': n + 1}}, gen=0),
                range(8)))
        statuses = sorted(r.status_code for r in responses)
        assert statuses == [200] + [409] * 7, [r.text for r in responses]
        winner = next(r for r in responses if r.status_code == 200)
        body = http.get(url(rp_uuid)).json()
        assert body == winner.json()
        assert body['resource_provider_generation'] == 1


def test_concurrent_posts_each_bump_once(database):
    with stress_setup.service(database.backend, workers=3) as svc, \
            httpx.Client(base_url=svc.url, headers=stress_setup.HEADERS,
                         timeout=30) as http:
        rp_uuid = new_provider(http)
        classes = ['VCPU', 'MEMORY_MB', 'DISK_GB', 'IPV4_ADDRESS',
                   'SRIOV_NET_VF', 'PCI_DEVICE']
        with concurrent.futures.ThreadPoolExecutor(len(classes)) as pool:
            statuses = list(pool.map(
                lambda rc: http.post(url(rp_uuid), json={
                    'resource_class': rc, 'total': 4}).status_code,
                classes))
        assert statuses == [201] * len(classes)
        body = http.get(url(rp_uuid)).json()
        assert set(body['inventories']) == set(classes)
        assert body['resource_provider_generation'] == len(classes)
