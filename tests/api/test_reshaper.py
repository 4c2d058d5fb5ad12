"""The reshaper over real HTTP: inventories and allocations move together,
or nothing changes at all."""
from support.helpers import body
from support.helpers import error
from support.helpers import generation
from support.helpers import make_provider
from support.helpers import new_uuid
from support.helpers import put
from support.helpers import version

# POST /reshaper is for services (rule service_api).
SERVICE = {'x-auth-token': 'nova', 'x-roles': 'service'}


def reshape(client, data, **headers):
    return client.post('/reshaper', json=data,
                       headers=dict(SERVICE, **headers))


def _tree(client):
    """A root with VCPU and DISK_GB, a consumer of both, an empty child."""
    root = make_provider(client, {'VCPU': {'total': 8},
                                  'DISK_GB': {'total': 100}})
    child = make_provider(client, {}, parent=root)
    consumer = new_uuid()
    assert put(client, consumer, {root: {'VCPU': 4, 'DISK_GB': 10}}
               ).status_code == 204
    return root, child, consumer


def _reshape(root, child, consumer, root_gen, child_gen, vcpu=4,
             child_total=8):
    return {
        'inventories': {
            root: {'resource_provider_generation': root_gen,
                   'inventories': {'DISK_GB': {'total': 100}}},
            child: {'resource_provider_generation': child_gen,
                    'inventories': {'VCPU': {'total': child_total}}},
        },
        'allocations': {
            consumer: body({root: {'DISK_GB': 10}, child: {'VCPU': vcpu}},
                           consumer_generation=1),
        },
    }


def test_move_inventory_and_allocations_to_child(client):
    root, child, consumer = _tree(client)
    root_gen, child_gen = generation(client, root), generation(client, child)
    response = reshape(client, _reshape(
        root, child, consumer, root_gen, child_gen))
    assert response.status_code == 204, response.text
    assert client.get('/resource_providers/%s/usages' % root).json() == {
        'resource_provider_generation': root_gen + 3,
        'usages': {'DISK_GB': 10}}
    assert client.get('/resource_providers/%s/usages' % child).json() == {
        'resource_provider_generation': child_gen + 3,
        'usages': {'VCPU': 4}}
    got = client.get('/allocations/%s' % consumer).json()
    assert got['consumer_generation'] == 2
    assert got['allocations'][child]['resources'] == {'VCPU': 4}


def test_provider_emptied_by_reshape_moves_one_generation(client):
    # Upstream skips the interim inventory of a provider whose new
    # inventory is empty: only the final write bumps its generation.
    root, child, consumer = _tree(client)
    root_gen, child_gen = generation(client, root), generation(client, child)
    response = reshape(client, {
        'inventories': {
            root: {'resource_provider_generation': root_gen,
                   'inventories': {}},
            child: {'resource_provider_generation': child_gen,
                    'inventories': {'VCPU': {'total': 8},
                                    'DISK_GB': {'total': 100}}}},
        'allocations': {
            consumer: body({child: {'VCPU': 4, 'DISK_GB': 10}},
                           consumer_generation=1)}})
    assert response.status_code == 204, response.text
    assert client.get('/resource_providers/%s/inventories' % root
                      ).json() == {'resource_provider_generation':
                                   root_gen + 1, 'inventories': {}}
    assert generation(client, child) == child_gen + 3


def test_failed_reshape_changes_nothing(client):
    root, child, consumer = _tree(client)
    root_gen, child_gen = generation(client, root), generation(client, child)
    before = client.get('/allocations/%s' % consumer).json()
    # The child's new inventory cannot hold the moved allocation.
    response = reshape(client, _reshape(
        root, child, consumer, root_gen, child_gen, child_total=2))
    assert response.status_code == 409
    assert 'Unable to allocate inventory' in error(response)['detail']
    # Dropping VCPU from the root while it is still allocated: in use.
    data = _reshape(root, child, consumer, root_gen, child_gen)
    data['allocations'] = {}
    response = reshape(client, data)
    assert response.status_code == 409
    assert error(response)['code'] == 'placement.inventory.inuse'
    assert client.get('/allocations/%s' % consumer).json() == before
    assert (generation(client, root), generation(client, child)) == (
        root_gen, child_gen)
    inventories = client.get('/resource_providers/%s/inventories'
                             % root).json()['inventories']
    assert set(inventories) == {'VCPU', 'DISK_GB'}


def test_reshape_checks_generations_and_providers(client):
    root, child, consumer = _tree(client)
    root_gen, child_gen = generation(client, root), generation(client, child)
    response = reshape(client, _reshape(
        root, child, consumer, root_gen - 1, child_gen))
    assert response.status_code == 409
    assert ('actual: %d, given: %d' % (root_gen, root_gen - 1)
            in error(response)['detail'])
    response = reshape(client, _reshape(
        root, new_uuid(), consumer, root_gen, 0))
    assert response.status_code == 400
    assert error(response)['code'] == 'placement.resource_provider.not_found'
    response = reshape(client, _reshape(
        root, child, consumer, root_gen, child_gen), **version('1.29'))
    assert response.status_code == 404
    # consumer_type is required from 1.38 and unknown before it.
    response = reshape(client, _reshape(
        root, child, consumer, root_gen, child_gen), **version('1.37'))
    assert response.status_code == 400
    assert "'consumer_type' was unexpected" in error(response)['detail']
