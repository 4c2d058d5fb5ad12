"""GET /allocation_candidates/explain as an endpoint: its microversion
and policy, counts that agree with the list for every query shape, and
the log line that explains an empty list (and the option turning it off).
"""
import tempfile
import uuid as uuidlib

import httpx
import pytest

from support import helpers
from support.explain_support import PATH, combined, explain
from support.helpers import SHARING


def test_microversion_and_policy(client, w):
    w.add('cn', inventory={'VCPU': 8})
    response = client.get(PATH, params={'resources': 'VCPU:1'},
                          headers=helpers.version('1.9'))
    assert response.status_code == 404
    # Upstream has no such route: its 404 says why (upstream's own routes
    # keep their empty detail, see test_error_texts_candidates.py).
    detail = response.json()['errors'][0]['detail']
    # After webob's generic explanation of a 404.
    assert detail.rsplit('\n\n', 1)[-1].strip() == (
        'GET /allocation_candidates/explain is not available before'
        ' microversion 1.10.')
    body = explain(client, version='1.10', resources='VCPU:1')
    assert body['candidates'] == 1
    response = client.get(PATH, params={'resources': 'VCPU:1'},
                          headers={'x-auth-token': 'nova',
                                   'x-roles': 'service'})
    assert response.status_code == 403
    assert 'placement:allocation_candidates:explain' in response.text
    # The list itself stays open to services.
    response = client.get('/allocation_candidates',
                          params={'resources': 'VCPU:1'},
                          headers={'x-auth-token': 'nova',
                                   'x-roles': 'service'})
    assert response.status_code == 200


def test_limit_counts_as_the_list(client, w):
    for index in range(3):
        w.add('cn%d' % index, inventory={'VCPU': 8})
    body = explain(client, resources='VCPU:1', limit='2')
    assert body['candidates'] == 2
    # The answer was cut, the trees are counted all the same.
    assert combined(body)['combining groups'] == (0, 3)
    assert body['summary'] == (
        '3 of 3 resource providers can satisfy the request.')


# -- the empty answer explains itself in the log ------------------------------

def test_empty_answer_is_explained_in_the_log(server, client, w):
    w.add('cn', inventory={'VCPU': 8}, used={'VCPU': 6})
    global_id = 'req-' + str(uuidlib.uuid4())
    listed = client.get('/allocation_candidates',
                        params={'resources': 'VCPU:4'},
                        headers={'x-openstack-request-id': global_id})
    assert listed.json() == {'allocation_requests': [],
                             'provider_summaries': {}}
    local_id = listed.headers['openstack-request-id']
    line, = [line for line in server.log().splitlines()
             if local_id in line and 'no allocation candidates' in line]
    assert ' INFO placement.handlers.allocation_candidate ' in line
    assert line.endswith(
        'request_id: %s global_request_id: %s: 0 of 1 resource providers '
        'can satisfy the request: 1 provider lacks capacity for VCPU '
        '(largest free 2, '
        'requested 4).' % (local_id, global_id))
    found = client.get('/allocation_candidates',
                       params={'resources': 'VCPU:1'})
    assert not [line for line in server.log().splitlines()
                if found.headers['openstack-request-id'] in line
                and 'no allocation candidates' in line]


def test_explain_empty_results_turned_off(database, world):
    workdir = tempfile.mkdtemp(prefix='explain-', dir=database.workdir)
    helpers.write_config(workdir, database.url,
                         '[placement]\nexplain_empty_results = False\n')
    server = helpers.Server(workdir)
    try:
        response = httpx.get(server.url + '/allocation_candidates',
                             params={'resources': 'VCPU:100000'},
                             headers=helpers.ADMIN_HEADERS)
        assert response.status_code == 200
        assert response.json()['allocation_requests'] == []
        assert 'no allocation candidates' not in server.log()
    finally:
        server.stop()


@pytest.mark.parametrize('version,params', [
    ('1.36', {'resources_A': 'VCPU:1', 'required_B': 'CUSTOM_X',
              'same_subtree': '_A,_B', 'group_policy': 'none'}),
    ('1.39', {'resources': 'VCPU:1', 'member_of': str(uuidlib.uuid4()),
              'in_tree': str(uuidlib.uuid4())}),
    ('1.39', {'resources': 'VCPU:1', 'root_required': '!CUSTOM_X'}),
    ('1.25', {'resources1': 'VCPU:1', 'resources2': 'DISK_GB:5',
              'group_policy': 'isolate'}),
    ('1.10', {'resources': 'VCPU:1,DISK_GB:5'}),
])
def test_every_query_shape_counts_as_the_list(client, w, version, params):
    w.add('cn', inventory={'VCPU': 8}, traits={'CUSTOM_X'})
    w.add('numa', parent='cn', inventory={'VCPU': 8, 'DISK_GB': 10})
    w.add('ss', inventory={'DISK_GB': 100}, traits={SHARING}, aggs={'A'})
    w.add('cn2', inventory={'VCPU': 8}, aggs={'A'})
    listed = client.get('/allocation_candidates', params=params,
                        headers=helpers.version(version))
    assert listed.status_code == 200, listed.text
    body = explain(client, version=version, **params)
    assert body['candidates'] == len(listed.json()['allocation_requests'])
    assert body['combination']['considered'] == 3
