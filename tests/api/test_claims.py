"""POST /claims over HTTP: choose and write allocations for a group of
consumers in one call, all or nothing (hand-built cases; the oracle and
the races are in tests/engine/test_claims_property.py and
tests/cluster/test_concurrency_claims_endpoint.py)."""
import httpx
import pytest

from support import helpers
from support.helpers import SHARING

PROJECT = helpers.PROJECT
USER = helpers.USER


def consumers(count, generation=None, **extra):
    return {helpers.new_uuid(): dict({
        'project_id': PROJECT, 'user_id': USER,
        'consumer_generation': generation, 'consumer_type': 'INSTANCE'},
        **extra) for _ in range(count)}


def claim(client, shape, group, version=None, **options):
    headers = {} if version is None else helpers.version(version)
    return client.post('/claims', json=dict(shape=shape, consumers=group,
                                            **options), headers=headers)


def usages(client, w, name):
    response = client.get('/resource_providers/%s/usages' % w.uuid(name))
    return response.json()['usages']


def test_claims_one_consumer_as_an_ordinary_allocation(client, w):
    w.add('cn1', inventory={'VCPU': 4, 'MEMORY_MB': 2048})
    group = consumers(1)
    response = claim(client, 'resources=VCPU:2,MEMORY_MB:512', group)
    assert response.status_code == 200, response.text
    (uuid, claimed), = response.json()['allocations'].items()
    assert claimed == {
        'allocations': {w.uuid('cn1'): {
            'resources': {'VCPU': 2, 'MEMORY_MB': 512}}},
        'consumer_generation': 1, 'root': w.uuid('cn1')}
    assert response.json()['alternates'] == {uuid: []}
    got = client.get('/allocations/' + uuid).json()
    assert got['allocations'][w.uuid('cn1')]['resources'] == {
        'VCPU': 2, 'MEMORY_MB': 512}
    assert got['consumer_generation'] == 1
    assert got['consumer_type'] == 'INSTANCE'
    assert usages(client, w, 'cn1') == {'VCPU': 2, 'MEMORY_MB': 512}


def test_shape_as_an_object_of_parameters(client, w):
    w.add('cn1', inventory={'VCPU': 4}, traits=['HW_CPU_X86_AVX'])
    w.add('cn2', inventory={'VCPU': 4})
    response = claim(client, {'resources': 'VCPU:1',
                              'required': ['HW_CPU_X86_AVX']}, consumers(3))
    assert response.status_code == 200, response.text
    roots = {c['root'] for c in response.json()['allocations'].values()}
    assert roots == {w.uuid('cn1')}
    assert usages(client, w, 'cn1') == {'VCPU': 3}


def test_group_all_or_nothing(client, w):
    w.add('cn1', inventory={'VCPU': 4})
    w.add('cn2', inventory={'VCPU': 4}, used={'VCPU': 2})
    response = claim(client, 'resources=VCPU:2', consumers(4))
    assert response.status_code == 409, response.text
    error = helpers.error(response)
    assert error['code'] == 'placement.claims.no_fit'
    explained = client.get('/allocation_candidates/explain',
                           params={'resources': 'VCPU:2'}).json()
    # Upstream's 409 texts open with webob's sentence.
    assert error['detail'].split('\n\n')[1].strip() == explained['summary']
    assert usages(client, w, 'cn1') == {'VCPU': 0}
    assert usages(client, w, 'cn2') == {'VCPU': 2}
    # Three fit: all are written.
    response = claim(client, 'resources=VCPU:2', consumers(3))
    assert response.status_code == 200, response.text
    assert usages(client, w, 'cn1') == {'VCPU': 4}
    assert usages(client, w, 'cn2') == {'VCPU': 4}


def test_no_candidate_at_all_is_explained(client, w):
    w.add('cn1', inventory={'VCPU': 1})
    response = claim(client, 'resources=VCPU:2', consumers(1))
    assert response.status_code == 409
    assert '0 of 1 resource providers can satisfy the request' in (
        helpers.error(response)['detail'])


@pytest.mark.parametrize('roots', ['distinct', 'same'])
def test_roots_rule(client, w, roots):
    w.add('cn1', inventory={'VCPU': 4})
    w.add('cn2', inventory={'VCPU': 4})
    w.add('cn3', inventory={'VCPU': 1})
    response = claim(client, 'resources=VCPU:1', consumers(3), roots=roots)
    assert response.status_code == 200, response.text
    found = [c['root'] for c in response.json()['allocations'].values()]
    if roots == 'distinct':
        assert sorted(found) == sorted(w.uuid(n) for n in ('cn1', 'cn2',
                                                           'cn3'))
    else:
        assert len(set(found)) == 1 and found[0] != w.uuid('cn3')
    # Three more: distinct has only two trees left with room; same has
    # one tree with four.
    response = claim(client, 'resources=VCPU:1', consumers(3), roots=roots)
    assert response.status_code == (409 if roots == 'distinct' else 200)


def test_same_tree_across_nested_providers(client, w):
    w.add('cn1', inventory={'MEMORY_MB': 1024})
    w.add('numa0', parent='cn1', inventory={'VCPU': 2})
    w.add('numa1', parent='cn1', inventory={'VCPU': 2})
    w.add('cn2', inventory={'MEMORY_MB': 1024})
    w.add('numa2', parent='cn2', inventory={'VCPU': 1})
    response = claim(client, 'resources=VCPU:1,MEMORY_MB:256',
                     consumers(4), roots='same')
    assert response.status_code == 200, response.text
    claimed = response.json()['allocations'].values()
    assert {c['root'] for c in claimed} == {w.uuid('cn1')}
    assert usages(client, w, 'numa0') == {'VCPU': 2}
    assert usages(client, w, 'numa1') == {'VCPU': 2}
    assert usages(client, w, 'cn1') == {'MEMORY_MB': 1024}


def test_sharing_provider_is_not_a_root(client, w):
    w.add('pool', inventory={'DISK_GB': 100}, traits=[SHARING], aggs=['a'])
    w.add('cn1', inventory={'VCPU': 1}, aggs=['a'])
    w.add('cn2', inventory={'VCPU': 1}, aggs=['a'])
    response = claim(client, 'resources=VCPU:1,DISK_GB:30', consumers(2),
                     roots='distinct')
    assert response.status_code == 200, response.text
    claimed = response.json()['allocations'].values()
    assert {c['root'] for c in claimed} == {w.uuid('cn1'), w.uuid('cn2')}
    assert usages(client, w, 'pool') == {'DISK_GB': 60}


@pytest.mark.parametrize('order', ['spread', 'pack'])
def test_order(client, w, order):
    w.add('big', inventory={'VCPU': 8})
    w.add('small', inventory={'VCPU': 4})
    response = claim(client, 'resources=VCPU:1', consumers(2), order=order)
    assert response.status_code == 200, response.text
    roots = [c['root'] for c in response.json()['allocations'].values()]
    if order == 'pack':
        assert roots == [w.uuid('small')] * 2
    else:
        assert sorted(roots) == sorted([w.uuid('big'), w.uuid('small')])


def test_alternates_are_unclaimed_and_fit(client, w):
    for name in ('cn1', 'cn2', 'cn3'):
        w.add(name, inventory={'VCPU': 2})
    response = claim(client, 'resources=VCPU:2', consumers(2),
                     roots='distinct', alternates=5)
    assert response.status_code == 200, response.text
    body = response.json()
    taken = {c['root'] for c in body['allocations'].values()}
    (left,) = {w.uuid(n) for n in ('cn1', 'cn2', 'cn3')} - taken
    for alternates in body['alternates'].values():
        assert alternates == [{
            'allocations': {left: {'resources': {'VCPU': 2}}},
            'mappings': {'': [left]}}]


def test_replaces_a_consumers_allocations_at_its_generation(client, w):
    w.add('cn1', inventory={'VCPU': 8})
    group = consumers(1)
    assert claim(client, 'resources=VCPU:1', group).status_code == 200
    # Null again: the consumer exists now.
    response = claim(client, 'resources=VCPU:2', group)
    assert response.status_code == 409
    error = helpers.error(response)
    assert error['code'] == 'placement.concurrent_update'
    assert 'consumer generation conflict - expected 1 but got None' in (
        error['detail'])
    (uuid, body), = group.items()
    body['consumer_generation'] = 1
    response = claim(client, 'resources=VCPU:2', group)
    assert response.status_code == 200, response.text
    assert response.json()['allocations'][uuid]['consumer_generation'] == 2
    assert usages(client, w, 'cn1') == {'VCPU': 2}


def test_what_a_consumer_holds_is_free_for_the_group(client, w):
    w.add('cn1', inventory={'VCPU': 2})
    holder = consumers(1)
    assert claim(client, 'resources=VCPU:1', holder).status_code == 200
    (uuid, body), = holder.items()
    body['consumer_generation'] = 1
    # One VCPU is free; the holder's own is released by its new claim.
    group = dict(holder, **consumers(1))
    response = claim(client, 'resources=VCPU:1', group)
    assert response.status_code == 200, response.text
    assert response.json()['allocations'][uuid]['consumer_generation'] == 2
    assert usages(client, w, 'cn1') == {'VCPU': 2}


def test_a_consumer_grows_in_place_on_a_full_provider(client, w):
    w.add('cn1', inventory={'VCPU': 4})
    holder = consumers(1)
    assert claim(client, 'resources=VCPU:3', holder).status_code == 200
    (uuid, body), = holder.items()
    body['consumer_generation'] = 1
    # One VCPU is free, so the list has no candidate for four; but what
    # the consumer holds is released by its new allocation, as a PUT
    # would allow.
    assert client.get('/allocation_candidates?resources=VCPU:4').json()[
        'allocation_requests'] == []
    response = claim(client, 'resources=VCPU:4', holder)
    assert response.status_code == 200, response.text
    assert response.json()['allocations'][uuid]['root'] == w.uuid('cn1')
    assert usages(client, w, 'cn1') == {'VCPU': 4}
    body['consumer_generation'] = 2
    response = claim(client, 'resources=VCPU:5', holder)
    assert response.status_code == 409
    assert helpers.error(response)['code'] == 'placement.claims.no_fit'
    assert usages(client, w, 'cn1') == {'VCPU': 4}


def test_default_order_spreads_callers_over_the_candidates_read(client, w):
    for number in range(20):
        w.add('cn%d' % number, inventory={'VCPU': 100})
    roots = set()
    for _ in range(10):
        response = claim(client, 'resources=VCPU:1', consumers(1),
                         order='default')
        assert response.status_code == 200, response.text
        roots.update(c['root'] for c in
                     response.json()['allocations'].values())
    # In upstream's order all ten would take the first tree; shuffled,
    # all ten on one of twenty has odds of 20**-9.
    assert len(roots) > 1


def test_not_before_1_28(client, w):
    response = claim(client, 'resources=VCPU:1', consumers(1),
                     version='1.27')
    assert response.status_code == 404
    assert 'POST /claims is not available before microversion 1.28.' in (
        helpers.error(response)['detail'])


def test_consumer_type_from_1_38(client, w):
    w.add('cn1', inventory={'VCPU': 8})
    group = consumers(1)
    response = claim(client, 'resources=VCPU:1', group, version='1.37')
    assert response.status_code == 400
    for body in group.values():
        del body['consumer_type']
    response = claim(client, 'resources=VCPU:1', group, version='1.37')
    assert response.status_code == 200, response.text


def test_not_for_a_project_member(server, w):
    headers = {'x-auth-token': 'user', 'openstack-api-version':
               'placement latest'}
    with httpx.Client(base_url=server.url, headers=headers) as http:
        response = claim(http, 'resources=VCPU:1', consumers(1))
    assert response.status_code == 403
    assert 'Policy does not allow placement:claims to be performed.' in (
        helpers.error(response)['detail'])


@pytest.mark.parametrize('body, detail', [
    ({'consumers': {}}, None),
    ({'shape': 'resources=VCPU:1', 'consumers': {}}, None),
    ({'shape': 'resources=VCPU:1', 'consumers': {'x': {}}}, None),
    ({'shape': 'resources=VCPU:1', 'roots': 'some'}, None),
    ({'shape': 'resources=VCPU:1', 'alternates': 11}, None),
    ({'shape': 'resources=VCPU:1', 'order': 'random'}, None),
    ({'shape': 'resources=VCPU:x'}, 'expected positive integer amount'),
    ({'shape': 'resources=VCPU:1&foo=1'}, None),
])
def test_bad_requests(client, w, body, detail):
    if 'consumers' not in body:
        body['consumers'] = consumers(1)
    response = client.post('/claims', json=body)
    assert response.status_code == 400, response.text
    if detail is not None:
        assert detail in helpers.error(response)['detail']


def test_a_consumer_named_twice(client, w):
    w.add('cn1', inventory={'VCPU': 8})
    (uuid, body), = consumers(1).items()
    response = claim(client, 'resources=VCPU:1',
                     {uuid: body, uuid.upper(): body})
    assert response.status_code == 400
    assert 'A consumer is named more than once' in (
        helpers.error(response)['detail'])


def test_unknown_names_in_the_shape(client, w):
    response = claim(client, 'resources=NO_SUCH_CLASS:1', consumers(1))
    assert response.status_code == 400
    assert helpers.error(response)['detail'] == (
        client.get('/allocation_candidates',
                   params={'resources': 'NO_SUCH_CLASS:1'}).json()[
            'errors'][0]['detail'])


def test_a_thousand_consumers_in_one_call(client, w):
    for index in range(10):
        w.add('cn%d' % index, inventory={'VCPU': 100})
    response = claim(client, 'resources=VCPU:1', consumers(1000),
                     order='spread')
    assert response.status_code == 200, response.text
    assert len(response.json()['allocations']) == 1000
    for index in range(10):
        assert usages(client, w, 'cn%d' % index) == {'VCPU': 100}
    response = claim(client, 'resources=VCPU:1', consumers(1))
    assert response.status_code == 409
