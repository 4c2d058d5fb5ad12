"""Usages over real HTTP: per provider, per project/user, per consumer type."""
from support.helpers import error
from support.helpers import make_provider
from support.helpers import new_uuid
from support.helpers import put
from support.helpers import version


def test_provider_usages_list_every_inventory_class(client):
    rp = make_provider(client, {'VCPU': {'total': 8},
                                'MEMORY_MB': {'total': 512}})
    url = '/resource_providers/%s/usages' % rp
    assert client.get(url).json() == {'resource_provider_generation': 1,
                                      'usages': {'VCPU': 0, 'MEMORY_MB': 0}}
    assert put(client, new_uuid(), {rp: {'VCPU': 3}}).status_code == 204
    assert put(client, new_uuid(), {rp: {'VCPU': 2}}).status_code == 204
    assert client.get(url).json() == {'resource_provider_generation': 3,
                                      'usages': {'VCPU': 5, 'MEMORY_MB': 0}}
    response = client.get('/resource_providers/%s/usages' % new_uuid())
    assert response.status_code == 404


def test_project_and_user_usages(client):
    rp = make_provider(client, {'VCPU': {'total': 64},
                                'DISK_GB': {'total': 500}})
    project, other_project = new_uuid(), new_uuid()
    alice, bob = new_uuid(), new_uuid()
    for resources, proj, user in (({'VCPU': 2, 'DISK_GB': 10}, project, alice),
                                  ({'VCPU': 4}, project, bob),
                                  ({'VCPU': 8}, other_project, alice)):
        response = put(client, new_uuid(), {rp: resources}, project=proj,
                       user=user, consumer_type='INSTANCE')
        assert response.status_code == 204, response.text
    url = '/usages?project_id=%s' % project
    assert client.get(url, headers=version('1.9')).json() == {
        'usages': {'VCPU': 6, 'DISK_GB': 10}}
    assert client.get(url + '&user_id=%s' % bob,
                      headers=version('1.9')).json() == {
        'usages': {'VCPU': 4}}
    assert client.get('/usages?project_id=%s' % new_uuid(),
                      headers=version('1.9')).json() == {'usages': {}}
    assert client.get(url, headers=version('1.8')).status_code == 404
    response = client.get('/usages', headers=version('1.9'))
    assert response.status_code == 400
    response = client.get('/usages?project_id=', headers=version('1.9'))
    assert "Failed validating 'minLength'" in error(response)['detail']
    # consumer_type is only known from 1.38.
    response = client.get(url + '&consumer_type=INSTANCE',
                          headers=version('1.37'))
    assert response.status_code == 400


def test_usages_by_consumer_type(client):
    rp = make_provider(client, {'VCPU': {'total': 64}})
    project = new_uuid()
    for amount, consumer_type in ((1, 'INSTANCE'), (2, 'INSTANCE'),
                                  (4, 'MIGRATION')):
        response = put(client, new_uuid(), {rp: {'VCPU': amount}},
                       project=project, consumer_type=consumer_type)
        assert response.status_code == 204, response.text
    untyped = {'allocations': {rp: {'resources': {'VCPU': 8}}},
               'project_id': project, 'user_id': new_uuid(),
               'consumer_generation': None}
    assert client.put('/allocations/%s' % new_uuid(), json=untyped,
                      headers=version('1.37')).status_code == 204
    url = '/usages?project_id=%s' % project
    assert client.get(url).json() == {'usages': {
        'INSTANCE': {'consumer_count': 2, 'VCPU': 3},
        'MIGRATION': {'consumer_count': 1, 'VCPU': 4},
        'unknown': {'consumer_count': 1, 'VCPU': 8}}}
    assert client.get(url + '&consumer_type=all').json() == {'usages': {
        'all': {'consumer_count': 4, 'VCPU': 15}}}
    assert client.get(url + '&consumer_type=unknown').json() == {'usages': {
        'unknown': {'consumer_count': 1, 'VCPU': 8}}}
    assert client.get(url + '&consumer_type=MIGRATION').json() == {
        'usages': {'MIGRATION': {'consumer_count': 1, 'VCPU': 4}}}
    assert client.get(url + '&consumer_type=ALL').json() == {'usages': {}}
    # Before 1.38 the same consumers are summed without grouping.
    assert client.get(url, headers=version('1.37')).json() == {
        'usages': {'VCPU': 15}}
