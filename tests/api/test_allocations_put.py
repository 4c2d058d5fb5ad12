"""PUT, GET and DELETE /allocations/{consumer} over real HTTP: body shapes
per microversion, consumer generations, capacity rules, a provider's
allocations, the consumer bookkeeping, and concurrent writers."""
import concurrent.futures

import httpx
import sqlalchemy as sa

from support.helpers import (PROJECT, USER, body, error, generation,
                             make_provider, new_uuid, put, version)

INCOMPLETE = '00000000-0000-0000-0000-000000000000'


def test_put_get_delete_latest(client):
    rp = make_provider(client, {'VCPU': {'total': 8},
                                'MEMORY_MB': {'total': 1024}})
    consumer = new_uuid()
    assert client.get('/allocations/%s' % consumer).json() == {
        'allocations': {}}
    response = put(client, consumer, {rp: {'VCPU': 2, 'MEMORY_MB': 256}})
    assert response.status_code == 204, response.text
    got = client.get('/allocations/%s' % consumer)
    assert got.json() == {
        'allocations': {rp: {'generation': 2,
                             'resources': {'VCPU': 2, 'MEMORY_MB': 256}}},
        'consumer_generation': 1, 'consumer_type': 'INSTANCE',
        'project_id': PROJECT, 'user_id': USER}
    assert got.headers['cache-control'] == 'no-cache'
    # Replacing bumps both generations and changes the usage.
    response = put(client, consumer, {rp: {'VCPU': 1}}, consumer_generation=1)
    assert response.status_code == 204, response.text
    got = client.get('/allocations/%s' % consumer).json()
    assert got['consumer_generation'] == 2
    assert got['allocations'][rp] == {'generation': 3,
                                      'resources': {'VCPU': 1}}
    assert client.delete('/allocations/%s' % consumer).status_code == 204
    response = client.delete('/allocations/%s' % consumer)
    assert response.status_code == 404
    assert "No allocations for consumer '%s'" % consumer in (
        error(response)['detail'])
    # Deleting frees capacity without touching the provider generation.
    assert generation(client, rp) == 3
    # The consumer is gone: it is new again.
    assert put(client, consumer, {rp: {'VCPU': 1}}).status_code == 204


def test_list_format_before_1_12_fills_incomplete_owner(client):
    rp = make_provider(client, {'DISK_GB': {'total': 100}})
    consumer = new_uuid()
    response = client.put('/allocations/%s' % consumer, headers=version(1.7),
                          json={'allocations': [
                              {'resource_provider': {'uuid': rp},
                               'resources': {'DISK_GB': 10}}]})
    assert response.status_code == 204, response.text
    got = client.get('/allocations/%s' % consumer, headers=version(1.12))
    assert got.json()['project_id'] == INCOMPLETE
    assert got.json()['user_id'] == INCOMPLETE
    assert 'consumer_generation' not in got.json()
    # 1.8 requires the owner; 1.12 refuses the list format.
    response = client.put('/allocations/%s' % consumer, headers=version(1.8),
                          json={'allocations': [
                              {'resource_provider': {'uuid': rp},
                               'resources': {'DISK_GB': 10}}]})
    assert response.status_code == 400
    assert "Failed validating 'required'" in error(response)['detail']
    response = client.put('/allocations/%s' % consumer, headers=version(1.12),
                          json={'allocations': [
                              {'resource_provider': {'uuid': rp},
                               'resources': {'DISK_GB': 10}}],
                              'project_id': PROJECT, 'user_id': USER})
    assert response.status_code == 400
    # From 1.8 the owner given replaces the placeholder one.
    response = client.put('/allocations/%s' % consumer, headers=version(1.12),
                          json={'allocations': {rp: {'resources': {
                              'DISK_GB': 20}}},
                              'project_id': PROJECT, 'user_id': USER})
    assert response.status_code == 204, response.text
    got = client.get('/allocations/%s' % consumer, headers=version(1.12))
    assert (got.json()['project_id'], got.json()['user_id']) == (PROJECT,
                                                                 USER)


def test_write_before_1_8_gives_existing_consumer_placeholder_owner(
        client):
    # Upstream takes the configured placeholders as the owner of any
    # write without one, so an existing consumer loses its owner; the
    # write bumps its generation once, like any other.
    rp = make_provider(client, {'DISK_GB': {'total': 100}})
    consumer, project, user = new_uuid(), new_uuid(), new_uuid()
    response = put(client, consumer, {rp: {'DISK_GB': 10}}, project=project,
                   user=user)
    assert response.status_code == 204, response.text
    response = client.put('/allocations/%s' % consumer, headers=version(1.7),
                          json={'allocations': [
                              {'resource_provider': {'uuid': rp},
                               'resources': {'DISK_GB': 20}}]})
    assert response.status_code == 204, response.text
    got = client.get('/allocations/%s' % consumer, headers=version(1.28))
    assert got.json() == {
        'allocations': {rp: {'generation': 3,
                             'resources': {'DISK_GB': 20}}},
        'consumer_generation': 2, 'project_id': INCOMPLETE,
        'user_id': INCOMPLETE}
    usages = client.get('/usages?project_id=%s' % project,
                        headers=version(1.9))
    assert usages.json() == {'usages': {}}
    # The generation the reset left is the one to name next.
    response = put(client, consumer, {rp: {'DISK_GB': 30}},
                   consumer_generation=2, project=project, user=user)
    assert response.status_code == 204, response.text
    got = client.get('/allocations/%s' % consumer).json()
    assert (got['consumer_generation'], got['project_id'],
            got['user_id']) == (3, project, user)


def test_consumer_generation_rules(client):
    rp = make_provider(client, {'VCPU': {'total': 8}})
    consumer = new_uuid()
    response = put(client, consumer, {rp: {'VCPU': 1}}, consumer_generation=3)
    assert response.status_code == 409
    assert error(response)['code'] == 'placement.concurrent_update'
    assert 'expected null but got 3' in error(response)['detail']
    assert put(client, consumer, {rp: {'VCPU': 1}}).status_code == 204
    response = put(client, consumer, {rp: {'VCPU': 2}})
    assert response.status_code == 409
    assert 'expected 1 but got None' in error(response)['detail']
    # Missing consumer_generation from 1.28 is a schema error.
    data = body({rp: {'VCPU': 2}})
    del data['consumer_generation']
    response = client.put('/allocations/%s' % consumer, json=data)
    assert response.status_code == 400
    # Before 1.28 no generation is checked.
    old = {'allocations': {rp: {'resources': {'VCPU': 3}}},
           'project_id': PROJECT, 'user_id': USER}
    response = client.put('/allocations/%s' % consumer, json=old,
                          headers=version('1.27'))
    assert response.status_code == 204, response.text
    got = client.get('/allocations/%s' % consumer).json()
    assert got['consumer_generation'] == 2
    # An empty dict with the right generation removes everything.
    response = put(client, consumer, {}, consumer_generation=2)
    assert response.status_code == 204, response.text
    assert client.get('/allocations/%s' % consumer).json() == {
        'allocations': {}}


def test_capacity_rules(client):
    rp = make_provider(client, {
        'VCPU': {'total': 10, 'reserved': 2, 'allocation_ratio': 1.5},
        'DISK_GB': {'total': 100, 'min_unit': 10, 'max_unit': 50,
                    'step_size': 5}})
    # (10 - 2) * 1.5 = 12 VCPU fit, 13 do not.
    first = new_uuid()
    assert put(client, first, {rp: {'VCPU': 12}}).status_code == 204
    response = put(client, new_uuid(), {rp: {'VCPU': 1}})
    assert response.status_code == 409
    detail = error(response)['detail']
    assert 'The requested amount would exceed the capacity' in detail
    assert "'VCPU' on resource provider '%s'" % rp in detail
    for amount in (5, 55, 12):      # under min, over max, off step
        response = put(client, new_uuid(), {rp: {'DISK_GB': amount}})
        assert response.status_code == 409, amount
        assert 'violate inventory constraints' in error(response)['detail']
    assert put(client, new_uuid(), {rp: {'DISK_GB': 15}}).status_code == 204
    # A known class the provider has no inventory of: 409.
    response = put(client, new_uuid(), {rp: {'MEMORY_MB': 1}})
    assert response.status_code == 409
    assert ("Inventory for 'MEMORY_MB' on resource provider '%s'" % rp
            in error(response)['detail'])
    # An unknown class and an unknown provider: 400.
    response = put(client, new_uuid(), {rp: {'CUSTOM_NOPE': 1}})
    assert response.status_code == 400
    assert 'No such resource class CUSTOM_NOPE' in error(response)['detail']
    ghost = new_uuid()
    response = put(client, new_uuid(), {ghost: {'VCPU': 1}})
    assert response.status_code == 400
    assert ("Allocation for resource provider '%s' that does not exist"
            % ghost) in error(response)['detail']
    # A consumer's own previous allocations do not count against it.
    response = put(client, first, {rp: {'VCPU': 12}}, consumer_generation=1)
    assert response.status_code == 204, response.text


def test_provider_allocations(client):
    rp = make_provider(client, {'VCPU': {'total': 8}})
    consumer = new_uuid()
    assert put(client, consumer, {rp: {'VCPU': 3}}).status_code == 204
    url = '/resource_providers/%s/allocations' % rp
    assert client.get(url).json() == {
        'resource_provider_generation': 2,
        'allocations': {consumer: {'resources': {'VCPU': 3},
                                   'consumer_generation': 1}}}
    old = client.get(url, headers=version('1.27')).json()
    assert old['allocations'][consumer] == {'resources': {'VCPU': 3}}
    assert client.get('/resource_providers/%s/allocations'
                      % new_uuid()).status_code == 404


def test_emptied_consumer_moves_its_providers_generation(client):
    # As upstream: the providers a consumer releases by being given no
    # allocations move a generation; one released by new allocations
    # elsewhere does not.
    first = make_provider(client, {'VCPU': {'total': 8}})
    second = make_provider(client, {'VCPU': {'total': 8}})
    emptied, moved = new_uuid(), new_uuid()
    assert put(client, emptied, {first: {'VCPU': 1}}).status_code == 204
    assert put(client, moved, {first: {'VCPU': 1}}).status_code == 204
    before = generation(client, first)
    assert put(client, moved, {second: {'VCPU': 1}},
               consumer_generation=1).status_code == 204
    assert generation(client, first) == before
    assert put(client, emptied, {},
               consumer_generation=1).status_code == 204
    assert generation(client, first) == before + 1


def test_consumer_rows_follow_allocations(client, database):
    rp = make_provider(client, {'VCPU': {'total': 8}})
    project = new_uuid()
    consumers = [new_uuid(), new_uuid()]
    for consumer in consumers:
        response = put(client, consumer, {rp: {'VCPU': 1}}, project=project)
        assert response.status_code == 204
    engine = database.engine()
    try:
        with engine.connect() as conn:
            projects = conn.execute(sa.text(
                'SELECT COUNT(*) FROM projects WHERE external_id = :p'),
                {'p': project}).scalar()
            assert projects == 1
        assert client.delete('/allocations/%s' % consumers[0]).status_code \
            == 204
        with engine.connect() as conn:
            left = conn.execute(sa.text(
                'SELECT uuid FROM consumers WHERE uuid IN (:a, :b)'),
                {'a': consumers[0], 'b': consumers[1]}).scalars().all()
        assert left == [consumers[1]]
        # Removing by PUT still records the owner named, as upstream.
        owner = new_uuid()
        assert put(client, consumers[1], {}, consumer_generation=1,
                   project=owner, user=owner).status_code == 204
        with engine.connect() as conn:
            assert conn.execute(sa.text(
                'SELECT COUNT(*) FROM consumers WHERE uuid = :c'),
                {'c': consumers[1]}).scalar() == 0
            for table in ('projects', 'users'):
                assert conn.execute(sa.text(
                    'SELECT COUNT(*) FROM %s WHERE external_id = :o'
                    % table), {'o': owner}).scalar() == 1
    finally:
        engine.dispose()


def test_malformed_consumer_uuid(client):
    response = client.put('/allocations/not-a-uuid', json=body({}))
    assert response.status_code == 400
    assert 'Malformed consumer_uuid' in error(response)['detail']


def _parallel(calls):
    with concurrent.futures.ThreadPoolExecutor(len(calls)) as pool:
        return [f.result() for f in [pool.submit(c) for c in calls]]


def test_concurrent_claims_never_over_commit(client, server):
    rp = make_provider(client, {'VCPU': {'total': 5}})
    headers = dict(client.headers)

    def claim():
        with httpx.Client(base_url=server.url, headers=headers,
                          timeout=60) as http:
            return put(http, new_uuid(), {rp: {'VCPU': 1}}).status_code
    codes = _parallel([claim] * 12)
    assert sorted(codes) == [204] * 5 + [409] * 7
    assert client.get('/resource_providers/%s/usages' % rp).json()[
        'usages'] == {'VCPU': 5}


def test_concurrent_writers_of_one_consumer(client, server):
    rp = make_provider(client, {'VCPU': {'total': 50}})
    headers = dict(client.headers)
    consumer = new_uuid()

    def create(amount):
        with httpx.Client(base_url=server.url, headers=headers,
                          timeout=60) as http:
            return put(http, consumer, {rp: {'VCPU': amount}})
    # Everybody believes the consumer is new: exactly one is right.
    responses = _parallel([lambda a=a: create(a) for a in range(1, 7)])
    codes = sorted(r.status_code for r in responses)
    assert codes == [204] + [409] * 5
    for response in responses:
        if response.status_code == 409:
            assert error(response)['code'] == 'placement.concurrent_update'
    got = client.get('/allocations/%s' % consumer).json()
    assert got['consumer_generation'] == 1
    used = client.get('/resource_providers/%s/usages' % rp).json()['usages']
    assert used['VCPU'] == got['allocations'][rp]['resources']['VCPU']
