"""The WSGI core over real HTTP: versions, errors, request ids."""
import pytest


def test_version_document(client):
    response = client.get('/', headers={'x-auth-token': ''})
    assert response.status_code == 200
    version = response.json()['versions'][0]
    assert version['min_version'] == '1.0'
    assert version['max_version'] == '1.39'
    assert response.headers['openstack-api-version'] == 'placement 1.39'
    assert 'openstack-api-version' in response.headers['vary']


def test_unknown_url_is_json_404_with_code(client):
    response = client.get('/barnabas')
    assert response.status_code == 404
    error = response.json()['errors'][0]
    assert error['code'] == 'placement.undefined_code'
    assert error['request_id'] == response.headers['openstack-request-id']


@pytest.mark.parametrize('accept, status', [
    ('application/json', 200), ('application/*', 200), ('*/*', 200),
    ('text/html, application/json;q=0.1', 200),
    ('text/plain', 406), ('application/json;q=0', 406),
    # An Accept header that does not parse is no preference at all.
    ('a;;q=x', 200),
])
def test_reads_negotiate_json(client, accept, status):
    response = client.get('/resource_providers', headers={'accept': accept})
    assert response.status_code == status


def test_unsupported_version_names_range(client):
    response = client.get('/', headers={'openstack-api-version':
                                        'placement 2.0'})
    assert response.status_code == 406
    error = response.json()['errors'][0]
    assert (error['min_version'], error['max_version']) == ('1.0', '1.39')


def test_malformed_version_is_400(client):
    response = client.get('/', headers={'openstack-api-version':
                                        'placement 1.x'})
    assert response.status_code == 400


def test_method_not_allowed_lists_methods(client):
    response = client.delete('/resource_providers')
    assert response.status_code == 405
    assert response.headers['allow'] == 'GET, POST'


def test_missing_token_is_401(client):
    request = client.build_request('GET', '/resource_providers')
    del request.headers['x-auth-token']
    assert client.send(request).status_code == 401


def test_empty_token_is_a_user_without_roles(client):
    # As upstream's noauth2: the header is there, so the policy decides.
    response = client.get('/resource_providers',
                          headers={'x-auth-token': ''})
    assert response.status_code == 403
