"""GET /allocation_candidates over real HTTP, on rows written straight into
the database (so these tests depend on no other write API): hand-built
trees check the documented behaviours one by one
(test_allocation_candidates_property.py holds the list to a brute-force
enumerator on random trees).
"""
import pytest

from support.helpers import SHARING, get_candidates


def named(world, body):
    """The allocation requests as a sorted list of {name: resources}."""
    found = []
    for request in body['allocation_requests']:
        allocations = request['allocations']
        if isinstance(allocations, list):
            allocations = {item['resource_provider']['uuid']: item
                           for item in allocations}
        found.append({world.name_of(uuid): value['resources']
                      for uuid, value in allocations.items()})
    return sorted(found, key=lambda item: sorted(
        (name, sorted(res.items())) for name, res in item.items()))


# -- hand-built cases ------------------------------------------------------

def test_capacity_units_and_step(client, w):
    w.add('full', inventory={'VCPU': 4}, used={'VCPU': 4})
    w.add('ratio', inventory={'VCPU': {'total': 4, 'allocation_ratio': 2.0,
                                       'max_unit': 8}},
          used={'VCPU': 6})
    w.add('reserved', inventory={'VCPU': {'total': 4, 'reserved': 3}})
    w.add('min', inventory={'VCPU': {'total': 8, 'min_unit': 3}})
    w.add('max', inventory={'VCPU': {'total': 8, 'max_unit': 1}})
    w.add('step', inventory={'VCPU': {'total': 8, 'step_size': 4}})
    w.add('fine', inventory={'VCPU': 8})
    body = get_candidates(client, resources='VCPU:2')
    assert [list(item) for item in named(w, body)] == [['fine'], ['ratio']]
    summary = body['provider_summaries'][w.uuid('ratio')]
    assert summary['resources'] == {'VCPU': {'capacity': 8, 'used': 6}}
    assert summary['parent_provider_uuid'] is None
    assert summary['root_provider_uuid'] == w.uuid('ratio')
    body = get_candidates(client, resources='VCPU:4')
    assert {name for item in named(w, body) for name in item} == {
        'min', 'step', 'fine'}


def test_summary_capacity_as_computed_from_the_stored_ratio(client, w):
    # 10 * 0.7 is 7 in double precision but 6.99... with the single
    # precision MySQL and PostgreSQL store: the summary figures come from
    # the candidate rows (VCPU) or a second read (MEMORY_MB, not
    # requested) and say 7 either way, as upstream does.
    odd = {'total': 10, 'allocation_ratio': 0.7}
    w.add('odd', inventory={'VCPU': odd, 'MEMORY_MB': odd})
    w.add('plain', inventory={'VCPU': 10})
    body = get_candidates(client, resources='VCPU:1')
    summaries = body['provider_summaries']
    assert summaries[w.uuid('odd')]['resources'] == {
        'VCPU': {'capacity': 7, 'used': 0},
        'MEMORY_MB': {'capacity': 7, 'used': 0}}
    assert summaries[w.uuid('plain')]['resources'] == {
        'VCPU': {'capacity': 10, 'used': 0}}


def test_sharing_provider_serves_trees_of_its_aggregates(client, w):
    w.add('cn1', inventory={'VCPU': 8}, aggs={'A'})
    w.add('cn2', inventory={'VCPU': 8, 'DISK_GB': 100})
    w.add('ss', inventory={'DISK_GB': 1000}, traits={SHARING}, aggs={'A'})
    w.add('lonely_disk', inventory={'DISK_GB': 1000}, aggs={'A'})
    body = get_candidates(client, resources='VCPU:1,DISK_GB:50')
    assert named(w, body) == [
        {'cn1': {'VCPU': 1}, 'ss': {'DISK_GB': 50}},
        {'cn2': {'DISK_GB': 50, 'VCPU': 1}},
    ]
    # Disk alone: every provider of disk once, however many trees the
    # sharing provider serves.
    body = get_candidates(client, resources='DISK_GB:50')
    assert sorted(name for item in named(w, body) for name in item) == [
        'cn2', 'lonely_disk', 'ss']
    # A forbidden trait keeps the sharing provider out.
    body = get_candidates(client, resources='VCPU:1,DISK_GB:50',
                          required='!' + SHARING)
    assert named(w, body) == [{'cn2': {'DISK_GB': 50, 'VCPU': 1}}]


def test_nested_spread_isolate_and_old_microversions(client, w):
    w.add('cn', traits={'CUSTOM_ROOT'})
    w.add('numa0', parent='cn', inventory={'VCPU': 4, 'MEMORY_MB': 1024},
          traits={'CUSTOM_N0'})
    w.add('numa1', parent='cn', inventory={'VCPU': 4, 'MEMORY_MB': 1024})
    w.add('pf', parent='numa1', inventory={'SRIOV_NET_VF': 8})
    body = get_candidates(client, resources='VCPU:1,MEMORY_MB:512')
    assert len(body['allocation_requests']) == 4
    # Summaries cover whole trees from 1.29.
    assert len(body['provider_summaries']) == 4
    assert body['provider_summaries'][w.uuid('pf')][
        'parent_provider_uuid'] == w.uuid('numa1')
    body = get_candidates(client, resources1='VCPU:1',
                          resources2='MEMORY_MB:512', group_policy='isolate')
    assert named(w, body) == [
        {'numa0': {'MEMORY_MB': 512}, 'numa1': {'VCPU': 1}},
        {'numa0': {'VCPU': 1}, 'numa1': {'MEMORY_MB': 512}},
    ]
    mappings = [request['mappings'] for request in
                body['allocation_requests']]
    assert {(m['1'][0], m['2'][0]) for m in mappings} == {
        (w.uuid('numa0'), w.uuid('numa1')),
        (w.uuid('numa1'), w.uuid('numa0'))}
    # Collective required traits: one of the contributing providers.
    body = get_candidates(client, resources='VCPU:1,SRIOV_NET_VF:1',
                          required='CUSTOM_N0')
    assert named(w, body) == [
        {'numa0': {'VCPU': 1}, 'pf': {'SRIOV_NET_VF': 1}}]
    # A trait of a provider that contributes nothing does not count.
    assert get_candidates(client, resources='VCPU:1',
                          required='CUSTOM_ROOT')['allocation_requests'] == []
    # Before 1.29 a tree contributes one provider at most.
    assert get_candidates(client, '1.28', resources='VCPU:1,SRIOV_NET_VF:1')[
        'allocation_requests'] == []
    body = get_candidates(client, '1.28', resources='VCPU:1,MEMORY_MB:512')
    assert len(body['allocation_requests']) == 2
    assert len(body['provider_summaries']) == 2


def test_summed_groups_respect_capacity_and_max_unit(client, w):
    w.add('small', inventory={'VGPU': {'total': 8, 'max_unit': 2}})
    w.add('big', inventory={'VGPU': 8}, used={'VGPU': 5})
    body = get_candidates(client, resources='VGPU:1', resources1='VGPU:1',
                          resources2='VGPU:1', group_policy='none')
    assert named(w, body) == [{'big': {'VGPU': 3}}]
    body = get_candidates(client, resources1='VGPU:2', resources2='VGPU:2',
                          group_policy='none')
    # small: 4 > max_unit 2; big: 5 used + 4 > 8.
    assert body['allocation_requests'] == []


def test_same_subtree_and_resourceless_groups(client, w):
    w.add('cn', inventory={'VCPU': 8}, traits={'CUSTOM_FOO'})
    for nic in ('nic1', 'nic2'):
        w.add(nic, parent='cn', traits={'CUSTOM_NIC'})
        for port in ('a', 'b'):
            w.add(nic + port, parent=nic,
                  inventory={'CUSTOM_VF': 2} if port == 'a'
                  else {'CUSTOM_VF': 2, 'CUSTOM_BW': 10})
    body = get_candidates(
        client, resources_C='VCPU:1', required_C='CUSTOM_FOO',
        required_NIC='CUSTOM_NIC', resources_P1='CUSTOM_VF:1',
        resources_P2='CUSTOM_BW:1', same_subtree=['_NIC,_P1,_P2'],
        group_policy='none')
    found = {(w.name_of(r['mappings']['_NIC'][0]),
              w.name_of(r['mappings']['_P1'][0]),
              w.name_of(r['mappings']['_P2'][0]))
             for r in body['allocation_requests']}
    assert found == {('nic1', 'nic1a', 'nic1b'), ('nic1', 'nic1b', 'nic1b'),
                     ('nic2', 'nic2a', 'nic2b'), ('nic2', 'nic2b', 'nic2b')}
    # The resourceless group takes no resources.
    for request in body['allocation_requests']:
        assert w.uuid('nic1') not in request['allocations']
        assert w.uuid('nic2') not in request['allocations']


def test_root_required_and_member_of_via_root(client, w):
    w.add('cn1', traits={'CUSTOM_GOLD'}, aggs={'A'})
    w.add('cn1_numa', parent='cn1', inventory={'VCPU': 4})
    w.add('cn2', inventory={'VCPU': 4})
    body = get_candidates(client, resources='VCPU:1',
                          root_required='CUSTOM_GOLD')
    assert named(w, body) == [{'cn1_numa': {'VCPU': 1}}]
    body = get_candidates(client, resources='VCPU:1',
                          root_required='!CUSTOM_GOLD')
    assert named(w, body) == [{'cn2': {'VCPU': 1}}]
    body = get_candidates(client, resources='VCPU:1', member_of=w.aggs['A'][1])
    assert named(w, body) == [{'cn1_numa': {'VCPU': 1}}]
    body = get_candidates(client, resources='VCPU:1',
                          member_of='!' + w.aggs['A'][1])
    assert named(w, body) == [{'cn2': {'VCPU': 1}}]
    body = get_candidates(client, resources='VCPU:1',
                          in_tree=w.uuid('cn1_numa'))
    assert named(w, body) == [{'cn1_numa': {'VCPU': 1}}]


def test_response_shapes_by_microversion(client, w):
    w.add('cn', inventory={'VCPU': 8, 'MEMORY_MB': 1024},
          traits={'CUSTOM_X'})
    old = get_candidates(client, '1.10', resources='VCPU:1')
    assert old['allocation_requests'] == [{'allocations': [
        {'resource_provider': {'uuid': w.uuid('cn')},
         'resources': {'VCPU': 1}}]}]
    assert old['provider_summaries'] == {w.uuid('cn'): {
        'resources': {'VCPU': {'capacity': 8, 'used': 0}}}}
    body = get_candidates(client, '1.17', resources='VCPU:1')
    assert body['allocation_requests'] == [{'allocations': {
        w.uuid('cn'): {'resources': {'VCPU': 1}}}}]
    assert body['provider_summaries'][w.uuid('cn')]['traits'] == [
        'CUSTOM_X']
    body = get_candidates(client, '1.27', resources='VCPU:1')
    assert set(body['provider_summaries'][w.uuid('cn')]['resources']) == {
        'VCPU', 'MEMORY_MB'}
    body = get_candidates(client, '1.34', resources='VCPU:1')
    assert body['allocation_requests'][0]['mappings'] == {
        '': [w.uuid('cn')]}


def test_limit(client, w):
    for index in range(5):
        w.add('cn%d' % index, inventory={'VCPU': 8})
    body = get_candidates(client, resources='VCPU:1', limit='2')
    assert len(body['allocation_requests']) == 2
    assert len(body['provider_summaries']) == 2


@pytest.mark.parametrize('params, message', [
    ({'resources': 'VCPU:0'}, 'requires amount >= 1'),
    ({'resources': 'NOPE:1'}, 'No such resource class NOPE'),
    ({'resources': 'VCPU:1', 'required': 'CUSTOM_NOPE'},
     'No such trait(s): CUSTOM_NOPE'),
    ({'resources': 'VCPU:1', 'limit': '0'}, "Failed validating"),
    ({'resources1': 'VCPU:1', 'resources2': 'VCPU:1'}, 'group_policy'),
    ({'resources': 'VCPU:1', 'same_subtree': '_X'}, 'same_subtree'),
    ({'resources': 'VCPU:1', 'required': 'CUSTOM_A,!CUSTOM_A'},
     'Conflicting required and forbidden'),
])
def test_bad_input(client, params, message):
    response = client.get('/allocation_candidates', params=params)
    assert response.status_code == 400
    assert message in response.json()['errors'][0]['detail']


# -- [placement] options --------------------------------------------------

def _four_trees(w):
    for tree in range(4):
        w.add('cn%d' % tree)
        for numa in range(2):
            w.add('cn%d_numa%d' % (tree, numa), parent='cn%d' % tree,
                  inventory={'VCPU': 4})


def _roots(w, body):
    return [w.providers[w.name_of(uuid)]['root']
            for request in body['allocation_requests']
            for uuid in request['allocations']]


def test_max_candidates_depth_and_breadth_first(configured, w):
    _four_trees(w)
    depth = configured(max_allocation_candidates=3)
    breadth = configured(
        max_allocation_candidates=3,
        allocation_candidates_generation_strategy='breadth-first')
    roots = _roots(w, get_candidates(depth, resources='VCPU:1'))
    assert len(roots) == 3 and len(set(roots)) == 2
    roots = _roots(w, get_candidates(breadth, resources='VCPU:1'))
    assert len(roots) == 3 and len(set(roots)) == 3
    # A limit below the bound still applies.
    assert len(get_candidates(depth, resources='VCPU:1', limit='1')[
        'allocation_requests']) == 1


def test_randomized_candidates_are_a_sample(configured, w):
    _four_trees(w)
    client = configured(randomize_allocation_candidates='true')
    seen = set()
    for _ in range(20):
        body = get_candidates(client, resources='VCPU:1', limit='2')
        picked = [w.name_of(uuid) for request in body['allocation_requests']
                  for uuid in request['allocations']]
        assert len(picked) == 2 and len(set(picked)) == 2
        assert set(body['provider_summaries']) == {
            info['uuid'] for info in w.providers.values()
            if info['root'] in {w.providers[name]['root']
                                for name in picked}}
        seen.add(frozenset(picked))
    # 28 possible pairs: twenty draws all alike would mean no sampling.
    assert len(seen) > 1
    assert len(get_candidates(client, resources='VCPU:1')[
        'allocation_requests']) == 8
