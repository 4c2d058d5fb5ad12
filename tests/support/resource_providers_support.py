"""Steps shared by the test_resource_providers_*.py modules: make, show
and list providers over HTTP, each asserting that the request worked."""
import uuid


def create(client, name=None, parent=None, rp_uuid=None, **headers):
    rp_uuid = rp_uuid or str(uuid.uuid4())
    body = {'name': name or 'rp-' + rp_uuid, 'uuid': rp_uuid}
    if parent:
        body['parent_provider_uuid'] = parent
    response = client.post('/resource_providers', json=body, headers=headers)
    assert response.status_code == 200, response.text
    return rp_uuid


def show(client, rp_uuid):
    response = client.get('/resource_providers/' + rp_uuid)
    assert response.status_code == 200, response.text
    return response.json()


def put_inventory(client, rp_uuid, **classes):
    generation = show(client, rp_uuid)['generation']
    response = client.put(
        '/resource_providers/%s/inventories' % rp_uuid,
        json={'resource_provider_generation': generation,
              'inventories': classes})
    assert response.status_code == 200, response.text


def listed(client, **params):
    response = client.get('/resource_providers', params=params)
    assert response.status_code == 200, response.text
    return {rp['uuid'] for rp in response.json()['resource_providers']}
