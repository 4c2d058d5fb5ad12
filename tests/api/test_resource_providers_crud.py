"""Resource providers over real HTTP: create, show, update and delete,
trees and re-parenting, policy, and concurrent writes."""
import concurrent.futures
import uuid

import httpx
import pytest
import sqlalchemy as sa

from support.helpers import allocate, error, version
from support.resource_providers_support import (create, listed, put_inventory,
                                                show)
from support import stress_setup
from placement.data import tables


def test_create_before_1_20_is_201_without_body(client, server):
    rp_uuid = str(uuid.uuid4())
    response = client.post('/resource_providers',
                           json={'name': rp_uuid, 'uuid': rp_uuid},
                           headers=version('1.19'))
    assert response.status_code == 201
    assert response.content == b''
    assert 'content-type' not in response.headers
    # Absolute, so that clients behind a path prefix can follow it.
    assert response.headers['location'] == (
        server.url + '/resource_providers/' + rp_uuid)


def test_create_from_1_20_returns_the_provider(client, server):
    rp_uuid = str(uuid.uuid4())
    response = client.post('/resource_providers',
                           json={'name': 'new ' + rp_uuid, 'uuid': rp_uuid})
    assert response.status_code == 200
    assert response.headers['location'] == (
        server.url + '/resource_providers/' + rp_uuid)
    body = response.json()
    assert body['uuid'] == rp_uuid
    assert body['name'] == 'new ' + rp_uuid
    assert body['generation'] == 0
    assert body['parent_provider_uuid'] is None
    assert body['root_provider_uuid'] == rp_uuid
    assert body == show(client, rp_uuid)


def test_create_without_uuid_makes_one(client):
    response = client.post('/resource_providers', json={'name': 'no uuid'})
    assert response.status_code == 200
    made = response.json()['uuid']
    assert str(uuid.UUID(made)) == made
    assert response.headers['location'].endswith('/resource_providers/' + made)


@pytest.mark.parametrize('ver,rels', [
    ('1.0', ['self', 'inventories', 'usages']),
    ('1.1', ['self', 'inventories', 'usages', 'aggregates']),
    ('1.6', ['self', 'inventories', 'usages', 'aggregates', 'traits']),
    ('1.11', ['self', 'inventories', 'usages', 'aggregates', 'traits',
              'allocations']),
])
def test_links_grow_with_microversion(client, ver, rels):
    rp_uuid = create(client)
    body = client.get('/resource_providers/' + rp_uuid,
                      headers=version(ver)).json()
    path = '/resource_providers/' + rp_uuid
    assert body['links'] == [
        {'rel': rel, 'href': path if rel == 'self' else path + '/' + rel}
        for rel in rels]


def test_tree_fields_appear_at_1_14(client):
    rp_uuid = create(client)
    old = client.get('/resource_providers/' + rp_uuid,
                     headers=version('1.13')).json()
    assert set(old) == {'uuid', 'name', 'generation', 'links'}
    new = client.get('/resource_providers/' + rp_uuid,
                     headers=version('1.14')).json()
    assert set(new) == set(old) | {'parent_provider_uuid',
                                   'root_provider_uuid'}


def test_parent_is_rejected_before_1_14(client):
    parent = create(client)
    response = client.post(
        '/resource_providers',
        json={'name': 'early child', 'parent_provider_uuid': parent},
        headers=version('1.13'))
    assert response.status_code == 400
    assert 'JSON does not validate' in error(response)['detail']


def test_child_inherits_the_root_of_its_parent(client):
    root = create(client)
    child = create(client, parent=root)
    grandchild = create(client, parent=child)
    body = show(client, grandchild)
    assert body['parent_provider_uuid'] == child
    assert body['root_provider_uuid'] == root


def test_bad_parents_on_create(client):
    rp_uuid = str(uuid.uuid4())
    itself = client.post('/resource_providers', json={
        'name': 'self', 'uuid': rp_uuid, 'parent_provider_uuid': rp_uuid})
    assert itself.status_code == 400
    assert 'parent provider UUID cannot be same as UUID' in (
        error(itself)['detail'])
    missing = client.post('/resource_providers', json={
        'name': 'orphan', 'parent_provider_uuid': str(uuid.uuid4())})
    assert missing.status_code == 400
    assert 'parent provider UUID does not exist' in error(missing)['detail']


def test_duplicates_conflict(client):
    rp_uuid = create(client, name='dup-name-' + str(uuid.uuid4()))
    name = show(client, rp_uuid)['name']
    same_name = client.post('/resource_providers', json={'name': name})
    assert same_name.status_code == 409
    assert error(same_name)['code'] == 'placement.duplicate_name'
    # The same UUID without dashes is still the same UUID.
    same_uuid = client.post('/resource_providers', json={
        'name': 'other', 'uuid': rp_uuid.replace('-', '')})
    assert same_uuid.status_code == 409
    assert ('Conflicting resource provider uuid: %s already exists'
            % rp_uuid) in error(same_uuid)['detail']


@pytest.mark.parametrize('body', [
    {}, {'name': 'x' * 201}, {'name': 'x', 'uuid': 'not a uuid'},
    {'name': 'x', 'generation': 1}, {'name': 42},
])
def test_invalid_create_bodies(client, body):
    response = client.post('/resource_providers', json=body)
    assert response.status_code == 400
    assert 'JSON does not validate' in error(response)['detail']


def test_create_needs_json(client):
    response = client.post('/resource_providers', content=b'name=x',
                           headers={'content-type': 'text/plain'})
    assert response.status_code == 415


def test_missing_provider_is_404(client):
    missing = str(uuid.uuid4())
    response = client.get('/resource_providers/' + missing)
    assert response.status_code == 404
    assert ('No resource provider with uuid %s found' % missing) in (
        error(response)['detail'])
    assert client.put('/resource_providers/' + missing,
                      json={'name': 'x'}).status_code == 404
    assert client.delete('/resource_providers/' + missing).status_code == 404


def test_rename_keeps_generation(client):
    rp_uuid = create(client)
    response = client.put('/resource_providers/' + rp_uuid,
                          json={'name': 'renamed ' + rp_uuid})
    assert response.status_code == 200
    assert response.json()['name'] == 'renamed ' + rp_uuid
    assert response.json()['generation'] == 0
    assert 'location' not in response.headers
    assert show(client, rp_uuid)['name'] == 'renamed ' + rp_uuid


def test_rename_to_taken_name_conflicts(client):
    taken = show(client, create(client))['name']
    rp_uuid = create(client)
    response = client.put('/resource_providers/' + rp_uuid,
                          json={'name': taken})
    assert response.status_code == 409
    assert error(response)['code'] == 'placement.duplicate_name'


def test_update_cannot_change_uuid(client):
    rp_uuid = create(client)
    response = client.put('/resource_providers/' + rp_uuid, json={
        'name': 'x', 'uuid': str(uuid.uuid4())})
    assert response.status_code == 400
    assert 'Additional properties are not allowed' in error(response)['detail']


def test_gaining_a_parent_moves_the_subtree(client):
    new_root = create(client)
    old_root = create(client)
    child = create(client, parent=old_root)
    response = client.put('/resource_providers/' + old_root, json={
        'name': show(client, old_root)['name'],
        'parent_provider_uuid': new_root}, headers=version('1.14'))
    assert response.status_code == 200
    assert response.json()['root_provider_uuid'] == new_root
    assert show(client, child)['root_provider_uuid'] == new_root
    assert listed(client, in_tree=child) == {new_root, old_root, child}


def test_reparenting_needs_1_37(client):
    first, second = create(client), create(client)
    child = create(client, parent=first)
    grandchild = create(client, parent=child)
    name = show(client, child)['name']
    moved = client.put('/resource_providers/' + child, json={
        'name': name, 'parent_provider_uuid': second},
        headers=version('1.36'))
    assert moved.status_code == 400
    assert 're-parenting a provider is not currently allowed' in (
        error(moved)['detail'])
    orphaned = client.put('/resource_providers/' + child, json={
        'name': name, 'parent_provider_uuid': None}, headers=version('1.36'))
    assert orphaned.status_code == 400
    assert 'un-parenting a provider is not currently allowed' in (
        error(orphaned)['detail'])

    moved = client.put('/resource_providers/' + child, json={
        'name': name, 'parent_provider_uuid': second},
        headers=version('1.37'))
    assert moved.status_code == 200
    assert moved.json()['root_provider_uuid'] == second
    assert show(client, grandchild)['root_provider_uuid'] == second
    orphaned = client.put('/resource_providers/' + child, json={
        'name': name, 'parent_provider_uuid': None}, headers=version('1.37'))
    assert orphaned.status_code == 200
    assert orphaned.json()['parent_provider_uuid'] is None
    assert orphaned.json()['root_provider_uuid'] == child
    assert show(client, grandchild)['root_provider_uuid'] == child
    assert listed(client, in_tree=second) == {second}


def test_no_loops(client):
    root = create(client)
    child = create(client, parent=root)
    grandchild = create(client, parent=child)
    name = show(client, root)['name']
    for target in (root, grandchild):
        response = client.put('/resource_providers/' + root, json={
            'name': name, 'parent_provider_uuid': target})
        assert response.status_code == 400
        assert 'creating loop in the provider tree is not allowed' in (
            error(response)['detail'])
    assert show(client, root)['parent_provider_uuid'] is None


def test_delete_refuses_parents_and_allocated_providers(client):
    parent = create(client)
    child = create(client, parent=parent)
    response = client.delete('/resource_providers/' + parent)
    assert response.status_code == 409
    assert error(response)['code'] == (
        'placement.resource_provider.cannot_delete_parent')

    put_inventory(client, child, VCPU={'total': 4})
    allocate(client, child, VCPU=1)
    response = client.delete('/resource_providers/' + child)
    assert response.status_code == 409
    assert error(response)['code'] == 'placement.resource_provider.inuse'
    assert show(client, child)['uuid'] == child


def test_delete_removes_inventory_traits_and_aggregates(client, database):
    rp_uuid = create(client)
    put_inventory(client, rp_uuid, DISK_GB={'total': 100})
    generation = show(client, rp_uuid)['generation']
    assert client.put('/resource_providers/%s/traits' % rp_uuid, json={
        'traits': ['HW_CPU_X86_SSE'],
        'resource_provider_generation': generation}).status_code == 200
    generation = show(client, rp_uuid)['generation']
    assert client.put('/resource_providers/%s/aggregates' % rp_uuid, json={
        'aggregates': [str(uuid.uuid4())],
        'resource_provider_generation': generation}).status_code == 200
    engine = database.engine()
    with engine.connect() as conn:
        provider_id = conn.execute(
            sa.select(tables.resource_providers.c.id)
            .where(tables.resource_providers.c.uuid == rp_uuid)).scalar()
    response = client.delete('/resource_providers/' + rp_uuid)
    assert response.status_code == 204
    assert 'content-type' not in response.headers
    with engine.connect() as conn:
        for table in (tables.inventories, tables.resource_provider_traits,
                      tables.resource_provider_aggregates):
            left = conn.execute(
                sa.select(sa.func.count()).select_from(table)
                .where(table.c.resource_provider_id == provider_id)).scalar()
            assert left == 0, table.name
    engine.dispose()
    again = client.delete('/resource_providers/' + rp_uuid)
    assert again.status_code == 404
    assert 'found for delete' in error(again)['detail']


def test_non_admin_is_forbidden(client):
    rp_uuid = create(client)
    user = {'x-auth-token': 'user'}
    assert client.get('/resource_providers', headers=user).status_code == 403
    assert client.get('/resource_providers/' + rp_uuid,
                      headers=user).status_code == 403
    assert client.post('/resource_providers', json={'name': 'nope'},
                       headers=user).status_code == 403
    assert client.delete('/resource_providers/' + rp_uuid,
                         headers=user).status_code == 403


def test_concurrent_creates_of_one_name(database):
    name = 'race-' + str(uuid.uuid4())
    with stress_setup.service(database.backend, workers=3) as svc, \
            httpx.Client(base_url=svc.url, headers=stress_setup.HEADERS,
                         timeout=30) as http:
        with concurrent.futures.ThreadPoolExecutor(10) as pool:
            responses = list(pool.map(
                lambda _: http.post('/resource_providers',
                                    json={'name': name}), range(10)))
        statuses = sorted(r.status_code for r in responses)
        assert statuses == [200] + [409] * 9, [r.text for r in responses]
        assert all(error(r)['code'] == 'placement.duplicate_name'
                   for r in responses if r.status_code == 409)
        found = http.get('/resource_providers', params={'name': name})
        assert len(found.json()['resource_providers']) == 1


def test_concurrent_child_create_and_parent_delete(database):
    """A parent is either deleted or gains the child, never both."""
    with stress_setup.service(database.backend, workers=3) as svc, \
            httpx.Client(base_url=svc.url, headers=stress_setup.HEADERS,
                         timeout=30) as http:
        for _ in range(5):
            parent = create(http)
            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                child = pool.submit(http.post, '/resource_providers', json={
                    'name': str(uuid.uuid4()),
                    'parent_provider_uuid': parent})
                gone = pool.submit(http.delete,
                                   '/resource_providers/' + parent)
                child, gone = child.result(), gone.result()
            assert sorted([child.status_code, gone.status_code]) in (
                [200, 409], [204, 400]), (child.text, gone.text)
