"""Every write route, over real HTTP, leaves change-feed rows naming the
providers it changed (a NULL row when names changed); a write that is
refused leaves none."""
import pytest
import sqlalchemy as sa

from support import helpers
from placement.data import own_tables
from placement.data import tables

CHANGES = own_tables.placement_changes
RP = tables.resource_providers
VCPU = {'VCPU': {'total': 8}}


def newest(engine):
    with engine.connect() as conn:
        return conn.execute(sa.select(sa.func.max(CHANGES.c.id))).scalar() or 0


def recorded_since(engine, mark):
    """The provider ids (None: names) of the feed's rows after ``mark``."""
    with engine.connect() as conn:
        return set(conn.execute(sa.select(CHANGES.c.provider_id).where(
            CHANGES.c.id > mark)).scalars())


def ids(engine, *uuids):
    with engine.connect() as conn:
        found = dict(conn.execute(sa.select(RP.c.uuid, RP.c.id).where(
            RP.c.uuid.in_(uuids))).all())
    return [found[uuid] for uuid in uuids]


@pytest.fixture
def after(engine):
    """after(action) -> the provider ids the feed recorded for
    ``action()``, which must succeed."""
    def run(action):
        mark = newest(engine)
        response = action()
        assert response.status_code < 300, response.text
        return recorded_since(engine, mark)
    return run


def test_create_root(client, engine, after):
    rp = helpers.new_uuid()
    recorded = after(lambda: client.post('/resource_providers', json={
        'name': 'rp-' + rp, 'uuid': rp}))
    assert recorded == set(ids(engine, rp))


def test_create_child(client, engine, after):
    parent = helpers.new_provider(client)
    child = helpers.new_uuid()
    recorded = after(lambda: client.post('/resource_providers', json={
        'name': 'rp-' + child, 'uuid': child,
        'parent_provider_uuid': parent}))
    assert recorded == set(ids(engine, child, parent))


def test_rename(client, engine, after):
    rp = helpers.new_provider(client)
    recorded = after(lambda: client.put('/resource_providers/' + rp,
                                        json={'name': 'renamed-' + rp}))
    assert recorded == set(ids(engine, rp))


def test_reparent_records_the_moved_subtree_and_both_parents(
        client, engine, after):
    old_parent = helpers.new_provider(client)
    new_parent = helpers.new_provider(client)
    moved = helpers.make_provider(client, VCPU, parent=old_parent)
    grandchild = helpers.make_provider(client, VCPU, parent=moved)
    recorded = after(lambda: client.put('/resource_providers/' + moved, json={
        'name': 'rp-' + moved, 'parent_provider_uuid': new_parent}))
    assert recorded == set(ids(engine, moved, grandchild, old_parent,
                               new_parent))


def test_delete_records_the_provider_and_its_parent(client, engine, after):
    parent = helpers.new_provider(client)
    child = helpers.make_provider(client, VCPU, parent=parent)
    expected = set(ids(engine, child, parent))
    assert after(lambda: client.delete(
        '/resource_providers/' + child)) == expected


@pytest.mark.parametrize('route', [
    'put_all', 'post_one', 'put_one', 'delete_one', 'delete_all'])
def test_inventories(client, engine, after, route):
    rp = helpers.make_provider(client, VCPU)
    path = '/resource_providers/%s/inventories' % rp
    actions = {
        'put_all': lambda: client.put(path, json={
            'resource_provider_generation': 1,
            'inventories': {'VCPU': {'total': 4}}}),
        'post_one': lambda: client.post(path, json={
            'resource_provider_generation': 1, 'resource_class': 'DISK_GB',
            'total': 100}),
        'put_one': lambda: client.put(path + '/VCPU', json={
            'resource_provider_generation': 1, 'total': 16}),
        'delete_one': lambda: client.delete(path + '/VCPU'),
        'delete_all': lambda: client.delete(path),
    }
    assert after(actions[route]) == set(ids(engine, rp))


def test_put_allocations(client, engine, after):
    rp = helpers.make_provider(client, VCPU)
    recorded = after(lambda: helpers.put(client, helpers.new_uuid(),
                                         {rp: {'VCPU': 1}}))
    assert recorded == set(ids(engine, rp))


def test_moving_a_consumer_records_both_providers(client, engine, after):
    source = helpers.make_provider(client, VCPU)
    target = helpers.make_provider(client, VCPU)
    consumer = helpers.new_uuid()
    assert helpers.put(client, consumer, {source: {'VCPU': 1}}
                       ).status_code == 204
    recorded = after(lambda: helpers.put(
        client, consumer, {target: {'VCPU': 1}}, consumer_generation=1))
    assert recorded == set(ids(engine, source, target))


def test_post_allocations(client, engine, after):
    first = helpers.make_provider(client, VCPU)
    second = helpers.make_provider(client, VCPU)
    moved = helpers.new_uuid()
    assert helpers.put(client, moved, {first: {'VCPU': 1}}).status_code == 204
    new = helpers.new_uuid()
    recorded = after(lambda: client.post('/allocations', json={
        moved: helpers.body({second: {'VCPU': 1}}, consumer_generation=1),
        new: helpers.body({second: {'VCPU': 1}})}))
    assert recorded == set(ids(engine, first, second))


@pytest.mark.parametrize('write', ['put', 'post'])
def test_a_consumers_new_type_records_its_providers(client, engine, after,
                                                    write):
    """At 1.38 a consumer may change type and nothing else: the snapshot
    keeps each holding's type, so its providers are read again."""
    first = helpers.make_provider(client, VCPU)
    second = helpers.make_provider(client, VCPU)
    consumer = helpers.new_uuid()
    held = {first: {'VCPU': 1}, second: {'VCPU': 2}}
    assert helpers.put(client, consumer, held).status_code == 204
    body = helpers.body(held, consumer_generation=1,
                        consumer_type='MIGRATION')
    actions = {
        'put': lambda: client.put('/allocations/' + consumer, json=body),
        'post': lambda: client.post('/allocations', json={consumer: body})}
    assert after(actions[write]) == set(ids(engine, first, second))


def test_delete_allocations(client, engine, after):
    rp = helpers.make_provider(client, VCPU)
    consumer = helpers.new_uuid()
    assert helpers.put(client, consumer, {rp: {'VCPU': 1}}).status_code == 204
    assert after(lambda: client.delete(
        '/allocations/' + consumer)) == set(ids(engine, rp))


def test_reshaper(client, engine, after):
    old = helpers.make_provider(client, VCPU)
    new = helpers.new_provider(client)
    consumer = helpers.new_uuid()
    assert helpers.put(client, consumer, {old: {'VCPU': 1}}).status_code == 204
    recorded = after(lambda: client.post('/reshaper', json={
        'inventories': {
            old: {'resource_provider_generation': 2, 'inventories': {}},
            new: {'resource_provider_generation': 0, 'inventories': VCPU}},
        'allocations': {consumer: helpers.body({new: {'VCPU': 1}},
                                               consumer_generation=1)}},
        # POST /reshaper is for services (rule service_api).
        headers={'x-auth-token': 'nova', 'x-roles': 'service'}))
    assert recorded == set(ids(engine, old, new))


@pytest.mark.parametrize('method', ['put', 'delete'])
def test_provider_traits(client, engine, after, method):
    rp = helpers.new_provider(client)
    path = '/resource_providers/%s/traits' % rp
    if method == 'put':
        recorded = after(lambda: client.put(path, json={
            'resource_provider_generation': 0, 'traits': ['HW_CPU_X86_AVX']}))
    else:
        recorded = after(lambda: client.delete(path))
    assert recorded == set(ids(engine, rp))


@pytest.mark.parametrize('microversion', ['1.1', 'latest'])
def test_provider_aggregates(client, engine, after, microversion):
    rp = helpers.new_provider(client)
    path = '/resource_providers/%s/aggregates' % rp
    aggregates = [helpers.new_uuid()]
    body = aggregates if microversion == '1.1' else {
        'resource_provider_generation': 0, 'aggregates': aggregates}
    recorded = after(lambda: client.put(
        path, json=body, headers=helpers.version(microversion)))
    assert recorded == set(ids(engine, rp))


@pytest.mark.parametrize('route', [
    'post_class', 'put_class', 'rename_class', 'delete_class',
    'put_trait', 'delete_trait'])
def test_names(client, after, route):
    name = 'CUSTOM_' + helpers.new_uuid().replace('-', '_').upper()
    if route in ('rename_class', 'delete_class'):
        assert client.put('/resource_classes/' + name).status_code == 201
    if route == 'delete_trait':
        assert client.put('/traits/' + name).status_code == 201
    actions = {
        'post_class': lambda: client.post('/resource_classes',
                                          json={'name': name}),
        'put_class': lambda: client.put('/resource_classes/' + name),
        'rename_class': lambda: client.put(
            '/resource_classes/' + name, json={'name': name + '_NEW'},
            headers=helpers.version('1.6')),
        'delete_class': lambda: client.delete('/resource_classes/' + name),
        'put_trait': lambda: client.put('/traits/' + name),
        'delete_trait': lambda: client.delete('/traits/' + name),
    }
    assert after(actions[route]) == {None}


def test_generation_conflict_leaves_no_row(client, engine):
    rp = helpers.make_provider(client, VCPU)
    mark = newest(engine)
    response = client.put('/resource_providers/%s/inventories' % rp, json={
        'resource_provider_generation': 0, 'inventories': VCPU})
    assert response.status_code == 409
    assert recorded_since(engine, mark) == set()


def test_capacity_conflict_leaves_no_row(client, engine):
    rp = helpers.make_provider(client, VCPU)
    source = helpers.make_provider(client, VCPU)
    consumer = helpers.new_uuid()
    assert helpers.put(client, consumer, {source: {'VCPU': 1}}
                       ).status_code == 204
    mark = newest(engine)
    # Moving the consumer would free ``source``: still refused whole.
    response = helpers.put(client, consumer, {rp: {'VCPU': 9}},
                           consumer_generation=1)
    assert response.status_code == 409
    assert recorded_since(engine, mark) == set()
