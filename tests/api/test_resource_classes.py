"""Resource classes over real HTTP."""
import concurrent.futures
import datetime
import uuid

import httpx
import os_resource_classes
import pytest
import sqlalchemy as sa

from support import stress_setup
from placement.data import tables
from support.helpers import version


def custom(label):
    return 'CUSTOM_%s_%s' % (label, uuid.uuid4().hex[:8].upper())


def class_ids(db_url):
    """{name: id} straight from the table."""
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            return dict(conn.exec_driver_sql(
                'SELECT name, id FROM resource_classes').all())
    finally:
        engine.dispose()


def test_routes_start_at_1_2(client):
    assert client.get('/resource_classes',
                      headers=version('1.1')).status_code == 404
    # The 404 comes before the content-type check.
    response = client.post('/resource_classes', content='x',
                           headers=dict(version('1.1'),
                                        **{'content-type': 'text/plain'}))
    assert response.status_code == 404


def test_list_starts_with_standard_classes_in_order(client):
    response = client.get('/resource_classes')
    assert response.status_code == 200
    listed = response.json()['resource_classes']
    standard = os_resource_classes.STANDARDS
    assert [rc['name'] for rc in listed[:len(standard)]] == standard
    assert listed[0]['links'] == [{'rel': 'self',
                                   'href': '/resource_classes/VCPU'}]
    assert response.headers['cache-control'] == 'no-cache'


def test_create_show_delete(client, database):
    name = custom('GOLD')
    response = client.post('/resource_classes', json={'name': name})
    assert response.status_code == 201
    assert response.headers['location'].endswith('/resource_classes/' + name)
    assert class_ids(database.url)[name] >= 10000
    shown = client.get('/resource_classes/' + name)
    assert shown.json() == {'name': name, 'links': [
        {'rel': 'self', 'href': '/resource_classes/' + name}]}
    again = client.post('/resource_classes', json={'name': name})
    assert again.status_code == 409
    assert 'Conflicting resource class already exists' in again.text
    assert client.delete('/resource_classes/' + name).status_code == 204
    assert client.get('/resource_classes/' + name).status_code == 404
    assert client.delete('/resource_classes/' + name).status_code == 404


def test_custom_ids_grow_from_10000(client, database):
    names = [custom('SEQ') for _ in range(3)]
    for name in names:
        assert client.post('/resource_classes',
                           json={'name': name}).status_code == 201
    ids = class_ids(database.url)
    assert 10000 <= ids[names[0]] < ids[names[1]] < ids[names[2]]
    standard = os_resource_classes.STANDARDS
    assert all(ids[name] == index for index, name in enumerate(standard))


@pytest.mark.parametrize('body, message', [
    ({'name': 'IRON_NFV'}, "Failed validating 'pattern'"),
    ({'name': 'VCPU'}, "Failed validating 'pattern'"),
    ({'name': 'CUSTOM_' + 'S' * 249}, "Failed validating 'maxLength'"),
    ({'name': 'CUSTOM_A', 'more': 1}, 'Additional properties are not'),
    ({}, "'name' is a required property"),
])
def test_bad_create_bodies(client, body, message):
    response = client.post('/resource_classes', json=body)
    assert response.status_code == 400
    detail = response.json()['errors'][0]['detail']
    assert 'JSON does not validate' in detail
    assert message in detail


def test_write_with_text_accept_still_gets_its_400(client):
    response = client.post('/resource_classes', json={'name': 'FOO'},
                           headers={'accept': 'text/plain'})
    assert response.status_code == 400
    assert 'JSON does not validate' in response.text


def test_standard_class_cannot_be_deleted(client):
    response = client.delete('/resource_classes/VCPU')
    assert response.status_code == 400
    assert 'Cannot delete standard resource class' in response.text


def test_put_creates_or_confirms_from_1_7(client):
    name = custom('PUT')
    first = client.put('/resource_classes/' + name)
    assert first.status_code == 201
    assert first.headers['location'].endswith('/resource_classes/' + name)
    assert client.put('/resource_classes/' + name).status_code == 204
    assert client.get('/resource_classes/' + name).status_code == 200


@pytest.mark.parametrize('bad', ['COW', 'VCPU'])
def test_put_refuses_names_a_client_could_not_post(client, bad):
    response = client.put('/resource_classes/' + bad)
    assert response.status_code == 400
    assert "Failed validating 'pattern'" in response.text


def test_put_renames_before_1_7(client):
    old, new = custom('OLD'), custom('NEW')
    client.post('/resource_classes', json={'name': old})
    headers = version('1.6')
    response = client.put('/resource_classes/' + old, json={'name': new},
                          headers=headers)
    assert response.status_code == 200
    assert response.json() == {'name': new, 'links': [
        {'rel': 'self', 'href': '/resource_classes/' + new}]}
    assert client.get('/resource_classes/' + old).status_code == 404
    missing = client.put('/resource_classes/' + old, json={'name': new},
                         headers=headers)
    assert missing.status_code == 404


def test_rename_errors_before_1_7(client):
    one, two = custom('ONE'), custom('TWO')
    for name in (one, two):
        client.post('/resource_classes', json={'name': name})
    headers = version('1.6')
    taken = client.put('/resource_classes/' + one, json={'name': two},
                       headers=headers)
    assert taken.status_code == 409
    assert 'Resource class already exists: ' + two in taken.text
    standard = client.put('/resource_classes/VCPU', json={'name': one},
                          headers=headers)
    assert standard.status_code == 400
    assert 'Cannot update standard resource class VCPU' in standard.text
    bodiless = client.put('/resource_classes/' + one, content=b'',
                          headers=dict(headers,
                                       **{'content-type': 'application/json'}))
    assert bodiless.status_code == 400
    assert 'Malformed JSON' in bodiless.text


def test_rename_keeps_inventories(client):
    old, new = custom('INV'), custom('MOVED')
    client.post('/resource_classes', json={'name': old})
    rp_uuid = str(uuid.uuid4())
    client.post('/resource_providers', json={'name': rp_uuid,
                                             'uuid': rp_uuid})
    path = '/resource_providers/%s/inventories' % rp_uuid
    response = client.put(path, json={'resource_provider_generation': 0,
                                      'inventories': {old: {'total': 4}}})
    assert response.status_code == 200, response.text
    assert client.put('/resource_classes/' + old, json={'name': new},
                      headers=version('1.6')).status_code == 200
    assert list(client.get(path).json()['inventories']) == [new]


def test_class_with_inventory_cannot_be_deleted(client):
    name = custom('USED')
    client.put('/resource_classes/' + name)
    rp_uuid = str(uuid.uuid4())
    client.post('/resource_providers', json={'name': rp_uuid,
                                             'uuid': rp_uuid})
    path = '/resource_providers/%s/inventories' % rp_uuid
    assert client.put(path, json={
        'resource_provider_generation': 0,
        'inventories': {name: {'total': 5}}}).status_code == 200
    response = client.delete('/resource_classes/' + name)
    assert response.status_code == 409
    assert 'Class is in use in inventory' in response.text
    assert client.delete(path).status_code == 204
    assert client.delete('/resource_classes/' + name).status_code == 204


@pytest.mark.parametrize('updated_at', [None, datetime.datetime(2020, 6, 1)])
def test_first_inventory_of_a_class_leaves_its_row_as_it_was(
        client, database, updated_at):
    # The write holds the class row by writing it (for Galera, see
    # base.referenced_class_ids); the row, and so the class's answers,
    # end as they were, with or without an updated_at.
    name = custom('HELD')
    assert client.put('/resource_classes/' + name).status_code == 201
    engine = sa.create_engine(database.url)
    rc = tables.resource_classes
    select = sa.select(rc).where(rc.c.name == name)
    try:
        with engine.begin() as conn:
            conn.execute(rc.update().where(rc.c.name == name).values(
                updated_at=updated_at))
            before = conn.execute(select).one()
        shown = client.get('/resource_classes/' + name).headers[
            'last-modified']
        rp_uuid = str(uuid.uuid4())
        client.post('/resource_providers', json={'name': rp_uuid,
                                                 'uuid': rp_uuid})
        assert client.put(
            '/resource_providers/%s/inventories' % rp_uuid, json={
                'resource_provider_generation': 0,
                'inventories': {name: {'total': 5}}}).status_code == 200
        with engine.connect() as conn:
            assert conn.execute(select).one() == before
    finally:
        engine.dispose()
    if updated_at is not None:
        assert client.get('/resource_classes/' + name).headers[
            'last-modified'] == shown


def test_concurrent_creates_get_distinct_ids(database):
    names = [custom('RACE') for _ in range(12)]
    with stress_setup.service(database.backend, workers=3) as svc:
        with httpx.Client(base_url=svc.url, headers=stress_setup.HEADERS,
                          timeout=30) as http:
            with concurrent.futures.ThreadPoolExecutor(12) as pool:
                statuses = list(pool.map(
                    lambda name: http.post('/resource_classes',
                                           json={'name': name}).status_code,
                    names))
        ids = class_ids(svc.db_url)
    assert statuses == [201] * 12
    custom_ids = [ids[name] for name in names]
    assert len(set(custom_ids)) == 12
    assert min(custom_ids) >= 10000


def test_names_match_exactly_on_every_database(client):
    assert client.get('/resource_classes/vcpu').status_code == 404
    assert client.get('/resource_classes/VCPU').status_code == 200
