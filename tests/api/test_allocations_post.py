"""POST /allocations over real HTTP: a move between consumers is all or
nothing, each consumer is named once, and a write of more consumers than
one IN list of the server holds."""
from support.helpers import (body, error, generation, make_provider, new_uuid,
                             put, version)


def test_post_moves_atomically(client):
    source = make_provider(client, {'VCPU': {'total': 4}})
    target = make_provider(client, {'VCPU': {'total': 4}})
    instance, migration = new_uuid(), new_uuid()
    assert put(client, instance, {source: {'VCPU': 4}}).status_code == 204

    def move(instance_generation, target_amount):
        return client.post('/allocations', json={
            instance: dict(body({target: {'VCPU': target_amount}},
                                consumer_generation=instance_generation)),
            migration: dict(body({}, consumer_type='MIGRATION')),
        })
    # Too much on the target: nothing at all changes.
    response = move(1, 5)
    assert response.status_code == 409
    assert client.get('/allocations/%s' % instance).json()['allocations'][
        source]['resources'] == {'VCPU': 4}
    response = move(1, 4)
    assert response.status_code == 204, response.text
    got = client.get('/allocations/%s' % instance).json()
    assert list(got['allocations']) == [target]
    assert got['consumer_generation'] == 2
    assert client.get('/resource_providers/%s/usages' % source).json()[
        'usages'] == {'VCPU': 0}
    # Before 1.13 the route does not exist.
    response = client.post('/allocations', json={}, headers=version(1.12))
    assert response.status_code == 404


def test_post_names_each_consumer_once(client):
    rp = make_provider(client, {'VCPU': {'total': 8}})
    consumer = new_uuid()
    response = client.post('/allocations', json={
        consumer: body({rp: {'VCPU': 1}}),
        consumer.upper(): body({rp: {'VCPU': 2}})})
    assert response.status_code == 400
    assert 'more than once' in error(response)['detail']


# More consumers than one IN list of the server holds (IN_CHUNK, 1,000).
MANY = 2500


def _post_many(client, consumers, allocation, generation, owner):
    """POST /allocations for ``consumers``; ``allocation(index)`` and
    ``owner(index)`` (body() keywords) give each consumer's part."""
    return client.post('/allocations', json={
        consumer: body(allocation(index), consumer_generation=generation,
                       **owner(index))
        for index, consumer in enumerate(consumers)})


def _owner(index):
    # Several projects, users and types, each shared by many consumers.
    return {'project': 'project-%d' % (index % 3),
            'user': 'user-%d' % (index % 5),
            'consumer_type': ('INSTANCE', 'MIGRATION')[index % 2]}


def test_post_many_consumers(client):
    rp = make_provider(client, {'VCPU': {'total': 4 * MANY}})
    consumers = [new_uuid() for _ in range(MANY)]
    before = generation(client, rp)
    response = _post_many(client, consumers, lambda i: {rp: {'VCPU': 1}},
                          None, _owner)
    assert response.status_code == 204, response.text
    # One generation bump for the provider, whatever the consumer count.
    assert generation(client, rp) == before + 1
    listed = client.get('/resource_providers/%s/allocations' % rp).json()
    assert listed['allocations'] == {
        consumer: {'resources': {'VCPU': 1}, 'consumer_generation': 1}
        for consumer in consumers}
    got = client.get('/allocations/%s' % consumers[7]).json()
    assert (got['project_id'], got['user_id'], got['consumer_type']) == (
        'project-1', 'user-2', 'MIGRATION')
    usages = client.get('/usages?project_id=project-0').json()['usages']
    assert usages == {
        'INSTANCE': {'consumer_count': 417, 'VCPU': 417},
        'MIGRATION': {'consumer_count': 417, 'VCPU': 417}}

    # The first half gives everything back (and its consumers go); the
    # second half doubles its claim and moves to one new owner.
    half = MANY // 2
    response = _post_many(
        client, consumers,
        lambda i: {rp: {'VCPU': 2}} if i >= half else {}, 1,
        lambda i: {'project': 'project-new', 'user': 'user-new'})
    assert response.status_code == 204, response.text
    listed = client.get('/resource_providers/%s/allocations' % rp).json()
    assert listed['allocations'] == {
        consumer: {'resources': {'VCPU': 2}, 'consumer_generation': 2}
        for consumer in consumers[half:]}
    assert client.get('/allocations/%s' % consumers[0]).json() == {
        'allocations': {}}
    got = client.get('/allocations/%s' % consumers[-1]).json()
    assert (got['project_id'], got['user_id'], got['consumer_type']) == (
        'project-new', 'user-new', 'INSTANCE')
    assert client.get('/usages?project_id=project-new').json()[
        'usages'] == {'INSTANCE': {'consumer_count': MANY - half,
                                   'VCPU': 2 * (MANY - half)}}


def test_post_many_consumers_one_stale_generation(client):
    rp = make_provider(client, {'VCPU': {'total': 2 * MANY}})
    consumers = [new_uuid() for _ in range(MANY)]
    response = _post_many(client, consumers, lambda i: {rp: {'VCPU': 1}},
                          None, lambda i: {})
    assert response.status_code == 204, response.text
    # Every generation is right but the last one: nothing is written.
    response = client.post('/allocations', json={
        consumer: body({rp: {'VCPU': 2}},
                       consumer_generation=1 if consumer != consumers[-1]
                       else 5)
        for consumer in consumers})
    assert response.status_code == 409
    assert error(response)['code'] == 'placement.concurrent_update'
    assert ('consumer generation conflict - expected 1 but got 5'
            in error(response)['detail'])
    assert client.get('/resource_providers/%s/usages' % rp).json()[
        'usages'] == {'VCPU': MANY}
    assert client.get('/allocations/%s' % consumers[0]).json()[
        'consumer_generation'] == 1


def test_post_many_consumers_over_capacity(client):
    rp = make_provider(client, {'VCPU': {'total': MANY}})
    # Each claim fits alone; all of them together exceed the total by one.
    response = _post_many(
        client, [new_uuid() for _ in range(MANY)],
        lambda i: {rp: {'VCPU': 2 if i == 0 else 1}}, None, lambda i: {})
    assert response.status_code == 409
    assert ("Unable to create allocation for 'VCPU' on resource provider "
            "'%s'. The requested amount would exceed the capacity." % rp
            in error(response)['detail'])
    assert client.get('/resource_providers/%s/usages' % rp).json()[
        'usages'] == {'VCPU': 0}
