"""GET and POST /capacity over real HTTP, on rows written straight into
the database.

The property test holds ``fits`` to an oracle that does what a scheduler
does: GET /allocation_candidates, PUT /allocations with the first
candidate, again until there is none.
"""
import uuid as uuidlib

import hypothesis
from hypothesis import strategies as st
import pytest

import helpers
from helpers import SHARING, TRAITS, group_st, provider_st

PATH = '/capacity'


def capacity(client, version='1.39', **params):
    response = client.get(PATH, params=params,
                          headers=helpers.version(version))
    assert response.status_code == 200, response.text
    return response.json()


def shapes(client, body, version='1.39'):
    response = client.post(PATH, json=body,
                           headers=helpers.version(version))
    assert response.status_code == 200, response.text
    return response.json()


def place_until_full(client, params, version='1.39'):
    """The oracle: [allocations {uuid: resources}] placed one after
    another, each the first candidate of the list."""
    placed = []
    while True:
        body = helpers.get_candidates(client, version, limit='1', **params)
        if not body['allocation_requests']:
            return placed
        allocations = {
            rp: value['resources'] for rp, value in
            body['allocation_requests'][0]['allocations'].items()}
        response = helpers.put(client, helpers.new_uuid(), allocations)
        assert response.status_code == 204, response.text
        placed.append(allocations)


def free_left(world, client, classes):
    """{class: free space over every inventory of the cloud}, as the
    usages now say, rounded down."""
    free = dict.fromkeys(classes, 0.0)
    for info in world.providers.values():
        usages = client.get('/resource_providers/%s/usages'
                            % info['uuid']).json()['usages']
        for rc, row in info['inventory'].items():
            if rc in free:
                room = ((row['total'] - row['reserved'])
                        * row['allocation_ratio'] - usages.get(rc, 0))
                free[rc] += max(room, 0)
    return {rc: int(amount // 1) for rc, amount in free.items()}


# -- hand-built cases ------------------------------------------------------

def test_flat_providers_in_closed_form(client, w):
    w.add('cn1', inventory={'VCPU': {'total': 8, 'allocation_ratio': 2.0,
                                     'max_unit': 8},
                            'MEMORY_MB': 8192}, used={'VCPU': 3},
          aggs=['az1'])
    w.add('cn2', inventory={'VCPU': 4, 'MEMORY_MB': 2048}, aggs=['az1'])
    w.add('cn3', inventory={'VCPU': {'total': 8, 'step_size': 4}})
    body = capacity(client, resources='VCPU:2,MEMORY_MB:1024')
    # cn1: VCPU (16 - 3) // 2 = 6, memory 8; cn2: memory 2, VCPU 2.
    assert body['fits'] == 8
    assert [(p['name'], p['fits'], p['limited_by'])
            for p in body['providers']] == [
        ('cn1', 6, ['VCPU']), ('cn2', 2, ['MEMORY_MB', 'VCPU'])]
    assert body['aggregates'] == [{'uuid': w.aggs['az1'][1], 'fits': 8}]
    # Left: cn1 VCPU 1 and 2048 MB, cn3's 8 VCPU (wrong step).
    assert body['stranded'] == {'VCPU': 9, 'MEMORY_MB': 2048}
    assert capacity(client, resources='VCPU:4')['fits'] == 3 + 1 + 2
    limited = capacity(client, resources='VCPU:1', limit='1')
    assert [p['name'] for p in limited['providers']] == ['cn1']
    assert limited['fits'] == 13 + 4    # cn3: VCPU in steps of 4


def test_nested_groups_and_sharing(client, w):
    w.add('ss', inventory={'DISK_GB': 100}, traits=[SHARING], aggs=['a'])
    w.add('cn', inventory={'MEMORY_MB': 4096}, aggs=['a'])
    for numa in range(2):
        w.add('numa%d' % numa, parent='cn', inventory={'VCPU': 4})
    params = {'resources1': 'VCPU:3', 'resources2': 'VCPU:3',
              'resources': 'MEMORY_MB:512,DISK_GB:30',
              'group_policy': 'isolate'}
    body = capacity(client, **params)
    # One instance takes 3 VCPU of each NUMA node: one fits.
    assert body['fits'] == 1
    assert body['providers'][0]['name'] == 'cn'
    assert body['stranded'] == {'VCPU': 2, 'MEMORY_MB': 3584,
                                'DISK_GB': 70}
    body = capacity(client, resources='VCPU:1,DISK_GB:10')
    assert body['fits'] == 8
    assert len(place_until_full(client, {'resources':
                                         'VCPU:1,DISK_GB:10'})) == 8


def test_wide_tree_with_isolated_groups_as_a_scheduler_places(client, w):
    w.add('cn', inventory={'MEMORY_MB': 8192})
    for child in range(6):
        w.add('pf%d' % child, parent='cn',
              inventory={'VCPU': {'total': 3 + child % 2,
                                  'step_size': 1 + child % 2}})
    params = {'resources': 'MEMORY_MB:1024', 'resources1': 'VCPU:2',
              'resources2': 'VCPU:2', 'group_policy': 'isolate'}
    body = capacity(client, **params)
    placed = place_until_full(client, params)
    # Slots of 2 VCPU: 1 on each child of 3, 2 on each of 4; two a time.
    assert body['fits'] == len(placed) == 4
    assert body['providers'][0]['limited_by'] == ['VCPU']
    assert body['stranded'] == free_left(w, client, ['VCPU', 'MEMORY_MB'])


def test_alike_trees_with_same_subtree_and_a_pool_as_a_scheduler_places(
        client, w):
    # Three trees alike but for their ids and usage (their candidates are
    # listed once), drawing disk from one pool in root order.
    w.add('pool', inventory={'DISK_GB': 120}, traits=[SHARING],
          aggs=['p'])
    for host, used in (('a', 0), ('b', 3), ('c', 6)):
        w.add(host, inventory={'MEMORY_MB': 8192}, aggs=['p'])
        for numa in range(2):
            w.add('%s-numa%d' % (host, numa), parent=host,
                  inventory={'VCPU': 8}, used={'VCPU': used + numa})
            w.add('%s-numa%d-pf' % (host, numa),
                  parent='%s-numa%d' % (host, numa),
                  inventory={'SRIOV_NET_VF': 4})
    params = {'resources': 'MEMORY_MB:1024,DISK_GB:10',
              'resources_CPU': 'VCPU:2', 'resources_NET': 'SRIOV_NET_VF:1',
              'same_subtree': '_CPU,_NET', 'group_policy': 'none'}
    body = capacity(client, **params)
    placed = place_until_full(client, params)
    # The pool's 12 instances run out before the third tree's space.
    assert body['fits'] == len(placed) == 12
    fits = {}
    for allocations in placed:
        (root,) = {w.providers[w.name_of(rp)]['root'] for rp in allocations
                   if w.name_of(rp) != 'pool'}
        fits[root] = fits.get(root, 0) + 1
    assert {w.providers[p['name']]['id']: p['fits']
            for p in body['providers']} == fits
    assert body['stranded'] == free_left(
        w, client, ['VCPU', 'MEMORY_MB', 'DISK_GB', 'SRIOV_NET_VF'])


def test_shapes_read_together_fill_a_nested_tree_as_a_scheduler_places(
        client, w):
    # Shapes alike but for their amounts are read at once, and their trees
    # without a pool filled from the rows read (alike.py): here both
    # candidates of the tree take the root's disk, so the second run
    # finds what the first left.
    w.add('cn', inventory={'DISK_GB': 45})
    w.add('numa0', parent='cn', inventory={'VCPU': 5})
    w.add('numa1', parent='cn', inventory={'VCPU': 8})
    named = {'small': {'resources': 'VCPU:2,DISK_GB:10'},
             'large': {'resources': 'VCPU:3,DISK_GB:10'}}
    together = shapes(client, {'shapes': named})['shapes']
    assert together == {name: capacity(client, **params)
                        for name, params in named.items()}
    # Two on numa0, then two on numa1 before the disk runs out.
    assert together['small']['fits'] == len(
        place_until_full(client, named['small'])) == 4
    assert together['small']['providers'][0]['limited_by'] == ['DISK_GB']


def test_several_shapes_and_the_space_none_can_use(client, w):
    w.add('cn1', inventory={'VCPU': 4, 'MEMORY_MB': 4096},
          traits=['CUSTOM_A'])
    w.add('cn2', inventory={'VCPU': 4, 'MEMORY_MB': 1024})
    body = shapes(client, {'shapes': {
        'small': 'resources=VCPU:1,MEMORY_MB:512',
        'big': {'resources': 'VCPU:2,MEMORY_MB:2048',
                'required': ['CUSTOM_A']}}})
    assert body['shapes']['small']['fits'] == 4 + 2
    assert body['shapes']['big']['fits'] == 2
    # small leaves cn1's 2048 MB and cn2's 2 VCPU; big leaves cn1 nothing
    # and all of cn2: only cn2's 2 VCPU are left by both.
    assert body['shapes']['small']['stranded'] == {'VCPU': 2,
                                                   'MEMORY_MB': 2048}
    assert body['stranded'] == {'VCPU': 2, 'MEMORY_MB': 0}
    single = capacity(client, resources='VCPU:1,MEMORY_MB:512')
    assert single == body['shapes']['small']


@pytest.mark.parametrize('body,message', [
    ({}, "'shapes' is a required property"),
    ({'shapes': {}}, 'should be non-empty'),
    ({'shapes': {'a b': 'resources=VCPU:1'}}, 'does not match'),
    ({'shapes': {'x': 'resources=VCPU:1&bogus=1'}},
     'Shape x: Invalid query string parameters'),
    ({'shapes': {'x': {'resources': 'VCPU:x'}}}, 'Shape x: '),
    ({'shapes': {'x': 'resources=CUSTOM_NOPE:1'}}, 'Shape x: '),
    ({'shapes': {'x': {'resources1': 'VCPU:1', 'resources2': 'VCPU:1'}}},
     'Shape x: The "group_policy" parameter is required'),
    ({'shapes': {'x': 'resources=VCPU:1&required=%ff'}},
     'Shape x: The query string is not valid UTF-8.'),
    ({'shapes': {'x': 'resources=VCP\u00dc:1'}},
     'Shape x: Invalid resource class in resources parameter'),
    ({'shapes': {'x': {'resources': 'VCPU:1', 'required': 'A\u0000'}}},
     'NUL'),
])
def test_bad_shapes(client, w, body, message):
    response = client.post(PATH, json=body)
    assert response.status_code == 400, response.text
    assert message in helpers.error(response)['detail']


def test_microversion_and_policy(client, w):
    w.add('cn', inventory={'VCPU': 8})
    response = client.get(PATH, params={'resources': 'VCPU:1'},
                          headers=helpers.version('1.9'))
    assert response.status_code == 404
    assert capacity(client, version='1.10', resources='VCPU:1')['fits'] == 8
    service = {'x-auth-token': 'nova', 'x-roles': 'service'}
    response = client.get(PATH, params={'resources': 'VCPU:1'},
                          headers=service)
    assert response.status_code == 403
    assert 'placement:capacity' in response.text
    response = client.post(PATH, json={'shapes': {'a': 'resources=VCPU:1'}},
                           headers=service)
    assert response.status_code == 403


# -- property: the count of a scheduler placing one instance at a time -------

def _query(world, groups, unsuffixed, isolate, member_of, traits):
    params = {}
    for index, group in enumerate(groups):
        if not traits:
            group = dict(group, required=set(), forbidden=set())
        suffix = '' if unsuffixed and index == 0 else str(index + 1)
        params['resources' + suffix] = ','.join(
            '%s:%d' % item for item in sorted(group['resources'].items()))
        forbidden = group['forbidden'] - group['required']
        traits = sorted(group['required']) + ['!' + t for t in
                                              sorted(forbidden)]
        if traits:
            params['required' + suffix] = ','.join(traits)
    if member_of is not None:
        params['member_of'] = _aggregate_uuid(world, member_of)
        if not unsuffixed:
            params['member_of1'] = params.pop('member_of')
    params['group_policy'] = 'isolate' if isolate else 'none'
    return params


def _aggregate_uuid(world, name):
    """The uuid of the world's aggregate ``name``, or of none."""
    return world.aggs.get(name, (None, str(uuidlib.uuid4())))[1]


def _elsewhere(world, params):
    """``params`` with other provider filters: without its aggregate and
    traits, or with aggregate A and a trait when it had neither."""
    other = {key: value for key, value in params.items()
             if not key.startswith(('member_of', 'required'))}
    if other != params:
        return other
    suffix = min(key[len('resources'):] for key in params
                 if key.startswith('resources'))
    return dict(params, **{
        'member_of' + suffix: _aggregate_uuid(world, 'A'),
        'required' + suffix: TRAITS[0]})


def _more(resources):
    """``resources`` with one more of each class."""
    return ','.join('%s:%d' % (rc, int(amount) + 1) for rc, amount in (
        item.split(':') for item in resources.split(',')))


@hypothesis.settings(
    max_examples=150, deadline=None, derandomize=True,
    suppress_health_check=[hypothesis.HealthCheck.function_scoped_fixture])
@hypothesis.given(
    providers=st.lists(provider_st, min_size=2, max_size=7),
    groups=st.lists(group_st, min_size=1, max_size=3).filter(
        lambda groups: len(groups) < 3 or len(groups[2]['resources']) < 2),
    unsuffixed=st.booleans(),
    isolate=st.booleans(),
    member_of=st.sampled_from([None, None, None, 'A']),
    traits=st.booleans(),
    version=st.sampled_from(['1.39', '1.39', '1.28']))
def test_fits_as_a_scheduler_places(client, world, providers, groups,
                                    unsuffixed, isolate, member_of, traits,
                                    version):
    world.clear()
    world.add_random(providers)
    with world.engine.begin() as conn:
        for trait in TRAITS:
            world._trait(conn, trait)
    params = _query(world, groups, unsuffixed, isolate, member_of, traits)
    counted = capacity(client, version, **params)
    # Shapes alike but for their amounts or provider filters are read
    # together: each answers as it does alone.
    more = dict(params, **{key: _more(value) for key, value in params.items()
                          if key.startswith('resources')})
    elsewhere = _elsewhere(world, params)
    together = shapes(client, {'shapes': {
        'more': more, 'shape': params, 'elsewhere': elsewhere}},
        version)['shapes']
    assert together == {'shape': counted,
                        'more': capacity(client, version, **more),
                        'elsewhere': capacity(client, version, **elsewhere)}
    classes = sorted({rc for group in groups for rc in group['resources']})
    placed = place_until_full(client, params, version)
    hypothesis.target(min(len(placed), 10))
    hypothesis.event('fits: %s' % min(len(placed), 5))
    hypothesis.event('nested' if any(
        info['parent'] for info in world.providers.values()) else 'flat')
    hypothesis.event('sharing' if any(
        spec['sharing'] for spec in providers) else 'no sharing')
    assert counted['fits'] == len(placed)
    assert sum(p['fits'] for p in counted['providers']) == len(placed)
    assert counted['stranded'] == free_left(world, client, classes)
    if not any(spec['sharing'] for spec in providers):
        roots = {}
        for allocations in placed:
            (root,) = {world.providers[world.name_of(rp)]['root']
                       for rp in allocations}
            roots[root] = roots.get(root, 0) + 1
        assert {world.providers[p['name']]['id']: p['fits']
                for p in counted['providers']} == roots
