"""GET and POST /capacity over real HTTP, on rows written straight into
the database: hand-built cases (test_capacity_property.py holds ``fits``
to the oracle on generated clouds)."""
import pytest

from support import capacity_oracle as oracle
from support import helpers
from support.helpers import SHARING


def test_flat_providers_in_closed_form(client, w):
    w.add('cn1', inventory={'VCPU': {'total': 8, 'allocation_ratio': 2.0,
                                     'max_unit': 8},
                            'MEMORY_MB': 8192}, used={'VCPU': 3},
          aggs=['az1'])
    w.add('cn2', inventory={'VCPU': 4, 'MEMORY_MB': 2048}, aggs=['az1'])
    w.add('cn3', inventory={'VCPU': {'total': 8, 'step_size': 4}})
    body = oracle.capacity(client, resources='VCPU:2,MEMORY_MB:1024')
    # cn1: VCPU (16 - 3) // 2 = 6, memory 8; cn2: memory 2, VCPU 2.
    assert body['fits'] == 8
    assert [(p['name'], p['fits'], p['limited_by'])
            for p in body['providers']] == [
        ('cn1', 6, ['VCPU']), ('cn2', 2, ['MEMORY_MB', 'VCPU'])]
    assert body['aggregates'] == [{'uuid': w.aggs['az1'][1], 'fits': 8}]
    # Left: cn1 VCPU 1 and 2048 MB, cn3's 8 VCPU (wrong step).
    assert body['stranded'] == {'VCPU': 9, 'MEMORY_MB': 2048}
    assert oracle.capacity(client, resources='VCPU:4')['fits'] == 3 + 1 + 2
    limited = oracle.capacity(client, resources='VCPU:1', limit='1')
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
    body = oracle.capacity(client, **params)
    # One instance takes 3 VCPU of each NUMA node: one fits.
    assert body['fits'] == 1
    assert body['providers'][0]['name'] == 'cn'
    assert body['stranded'] == {'VCPU': 2, 'MEMORY_MB': 3584,
                                'DISK_GB': 70}
    body = oracle.capacity(client, resources='VCPU:1,DISK_GB:10')
    assert body['fits'] == 8
    assert len(oracle.place_until_full(client, {'resources':
                                         'VCPU:1,DISK_GB:10'})) == 8


def test_wide_tree_with_isolated_groups_as_a_scheduler_places(client, w):
    w.add('cn', inventory={'MEMORY_MB': 8192})
    for child in range(6):
        w.add('pf%d' % child, parent='cn',
              inventory={'VCPU': {'total': 3 + child % 2,
                                  'step_size': 1 + child % 2}})
    params = {'resources': 'MEMORY_MB:1024', 'resources1': 'VCPU:2',
              'resources2': 'VCPU:2', 'group_policy': 'isolate'}
    body = oracle.capacity(client, **params)
    placed = oracle.place_until_full(client, params)
    # Slots of 2 VCPU: 1 on each child of 3, 2 on each of 4; two a time.
    assert body['fits'] == len(placed) == 4
    assert body['providers'][0]['limited_by'] == ['VCPU']
    assert body['stranded'] == oracle.free_left(w, client,
                                                ['VCPU', 'MEMORY_MB'])


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
    body = oracle.capacity(client, **params)
    placed = oracle.place_until_full(client, params)
    # The pool's 12 instances run out before the third tree's space.
    assert body['fits'] == len(placed) == 12
    assert oracle.fits_by_root(body) == oracle.placed_by_root(w, placed)
    assert body['stranded'] == oracle.free_left(
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
    together = oracle.shapes(client, {'shapes': named})['shapes']
    assert together == {name: oracle.capacity(client, **params)
                        for name, params in named.items()}
    # Two on numa0, then two on numa1 before the disk runs out.
    assert together['small']['fits'] == len(
        oracle.place_until_full(client, named['small'])) == 4
    assert together['small']['providers'][0]['limited_by'] == ['DISK_GB']


def test_several_shapes_and_the_space_none_can_use(client, w):
    w.add('cn1', inventory={'VCPU': 4, 'MEMORY_MB': 4096},
          traits=['CUSTOM_A'])
    w.add('cn2', inventory={'VCPU': 4, 'MEMORY_MB': 1024})
    body = oracle.shapes(client, {'shapes': {
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
    single = oracle.capacity(client, resources='VCPU:1,MEMORY_MB:512')
    assert single == body['shapes']['small']


@pytest.mark.parametrize('body,message', [
    ({}, 'Body field /shapes is required.'),
    ({'shapes': {}}, 'Body field /shapes must be an object of 1 to 100'),
    ({'shapes': {'a b': 'resources=VCPU:1'}}, "has the key 'a b'"),
    ({'shapes': {'x': 'resources=VCPU:1&bogus=1'}},
     'Shape x: Query parameter bogus is not allowed'),
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
    response = client.post(oracle.PATH, json=body)
    assert response.status_code == 400, response.text
    assert message in helpers.error(response)['detail']


def test_microversion_and_policy(client, w):
    w.add('cn', inventory={'VCPU': 8})
    response = client.get(oracle.PATH, params={'resources': 'VCPU:1'},
                          headers=helpers.version('1.9'))
    assert response.status_code == 404
    assert oracle.capacity(client, version='1.10',
                           resources='VCPU:1')['fits'] == 8
    service = {'x-auth-token': 'nova', 'x-roles': 'service'}
    response = client.get(oracle.PATH, params={'resources': 'VCPU:1'},
                          headers=service)
    assert response.status_code == 403
    assert 'placement:capacity' in response.text
    response = client.post(oracle.PATH,
                           json={'shapes': {'a': 'resources=VCPU:1'}},
                           headers=service)
    assert response.status_code == 403


def _pool_outside_the_zones(w):
    """Disk-less hosts drawing disk from a pool in no availability zone
    of theirs (through aggregate p2 or pool), beside a host with disk of
    its own."""
    w.add('pool', inventory={'DISK_GB': 100}, traits=[SHARING],
          aggs=['pool', 'p2'])
    w.add('diskless-a', inventory={'VCPU': 8, 'MEMORY_MB': 8192},
          aggs=['az1', 'p2'])
    w.add('disk-b', inventory={'VCPU': 4, 'MEMORY_MB': 4096,
                               'DISK_GB': 100}, aggs=['az1'])
    w.add('diskless-c', inventory={'VCPU': 8, 'MEMORY_MB': 8192},
          aggs=['az2', 'pool'])


def test_an_aggregate_counts_as_the_shape_pinned_to_it(client, w):
    params = {'resources': 'VCPU:2,MEMORY_MB:1024,DISK_GB:20'}
    _pool_outside_the_zones(w)
    body = oracle.capacity(client, **params)
    uuid = {name: w.aggs[name][1] for name in w.aggs}
    # Unpinned, diskless-a takes 4 (the pool keeps 20 GB), disk-b 2 and
    # diskless-c the pool's last 20 GB.  Pinned to az1 or az2 (nova's
    # member_of) the pool is out of reach: only disk-b's 2 fit.  Pinned
    # to the pool's aggregate, diskless-a (outside it) no longer drains
    # the pool first: diskless-c takes 4.
    assert body['fits'] == 7
    assert sorted(body['aggregates'], key=lambda a: a['uuid']) == sorted([
        {'uuid': uuid['az1'], 'fits': 2, 'roots_fits': 6},
        {'uuid': uuid['pool'], 'fits': 4, 'roots_fits': 1},
        {'uuid': uuid['p2'], 'fits': 4},
        {'uuid': uuid['az2'], 'fits': 0, 'roots_fits': 1}],
        key=lambda a: a['uuid'])
    assert [a['fits'] for a in body['aggregates']] == [4, 4, 2, 0]
    together = oracle.shapes(client, {'shapes': {'s': params}})
    assert together['shapes']['s'] == body
    assert oracle.by_aggregate(w, body) == {
        aggregate: oracle.pinned_fits(w, client, params, aggregate)
        for aggregate in uuid.values()}


def test_stranded_is_within_the_shape_s_filters(client, w):
    w.add('host', inventory={'VCPU': 10, 'MEMORY_MB': 4096},
          used={'VCPU': 4}, aggs=['az1'])
    w.add('other', inventory={'VCPU': 16, 'MEMORY_MB': 1024})
    in_tree = oracle.capacity(client, resources='VCPU:4',
                              in_tree=w.uuid('host'))
    # One instance on host; its 2 VCPU left are stranded, other's 16 are
    # outside the shape's reach.
    assert in_tree['fits'] == 1
    assert in_tree['stranded'] == {'VCPU': 2}
    assert in_tree['stranded_elsewhere'] == {'VCPU': 16}
    pinned = oracle.capacity(client, resources='VCPU:4,MEMORY_MB:1024',
                             member_of=w.aggs['az1'][1])
    assert pinned['stranded'] == {'VCPU': 2, 'MEMORY_MB': 3072}
    assert pinned['stranded_elsewhere'] == {'VCPU': 16, 'MEMORY_MB': 1024}
    # Unfiltered, nothing is elsewhere: other takes 4 and strands none.
    everywhere = oracle.capacity(client, resources='VCPU:4')
    assert everywhere['stranded'] == {'VCPU': 2}
    assert everywhere['stranded_elsewhere'] == {'VCPU': 0}
    # What no shape uses: other's VCPU is within the second's reach.
    body = oracle.shapes(client, {'shapes': {
        'here': {'resources': 'VCPU:4', 'in_tree': w.uuid('host')},
        'there': {'resources': 'VCPU:8', 'in_tree': w.uuid('other')}}})
    assert body['stranded'] == {'VCPU': 2}
    assert body['stranded_elsewhere'] == {'VCPU': 0}
    assert body['shapes']['there']['stranded_elsewhere'] == {'VCPU': 6}
