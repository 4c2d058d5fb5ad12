"""GET /allocation_candidates/explain: what each check removes, on rows
written straight into the database (worlds.World).

Fixed data sets, each with a rule that alone removes providers, check the
counts, nearest misses and summaries exactly.  A hypothesis test compares
the funnel of small random trees with an oracle reading World's mirror of
the rows (the census read from the database and from a snapshot alike),
and ``candidates`` with the length of the real answer.
"""
import hypothesis
from hypothesis import strategies as st
import webob.multidict

from support.explain_support import combined, explain, steps
from support.helpers import SHARING, get_candidates
from support.random_clouds import TRAITS, group_st, over_http, provider_st
from placement import microversions
from placement.candidates import checks as checks_mod
from placement.candidates import database_source
from placement.candidates import explain as explain_mod
from placement.candidates import memory_source
from placement.candidates import query
from placement.candidates import stacks
from placement.memory import snapshot


# -- one rule at a time ------------------------------------------------------

def test_capacity_names_the_nearest_and_the_largest_free(client, w):
    for index, used in enumerate([5, 6, 7, 0]):
        w.add('cn%d' % index, inventory={'VCPU': 8}, used={'VCPU': used})
    body = explain(client, resources='VCPU:4')
    assert body['candidates'] == 1
    assert steps(body) == {
        'resources=VCPU:4 (inventory)': (0, 4),
        'resources=VCPU:4 (min_unit, max_unit, step_size)': (0, 4),
        'resources=VCPU:4 (capacity)': (3, 1)}
    assert body['groups'][0]['considered'] == 4
    assert body['summary'] == (
        '1 of 4 resource providers can satisfy the request: 3 providers '
        'lack capacity for VCPU (largest free 3, requested 4).')
    assert [(n['name'], n['check'], n['detail']) for n in body['nearest']] \
        == [('cn0', 'resources=VCPU:4 (capacity)', 'VCPU: 3 free, 4 requested'),
            ('cn1', 'resources=VCPU:4 (capacity)', 'VCPU: 2 free, 4 requested'),
            ('cn2', 'resources=VCPU:4 (capacity)', 'VCPU: 1 free, 4 requested')]
    assert body['nearest'][0]['uuid'] == w.uuid('cn0')
    assert body['nearest'][0]['group'] == ''


def test_inventory_and_units(client, w):
    w.add('disk', inventory={'DISK_GB': 100})
    w.add('small', inventory={'VCPU': {'total': 8, 'max_unit': 2}})
    w.add('steps', inventory={'VCPU': {'total': 8, 'step_size': 3}})
    w.add('fine', inventory={'VCPU': 8})
    body = explain(client, resources='VCPU:4')
    assert body['candidates'] == 1
    assert steps(body) == {
        'resources=VCPU:4 (inventory)': (1, 3),
        'resources=VCPU:4 (min_unit, max_unit, step_size)': (2, 1),
        'resources=VCPU:4 (capacity)': (0, 1)}
    assert body['summary'] == (
        '1 of 4 resource providers can satisfy the request: 1 provider has '
        'no VCPU inventory; 2 providers cannot take VCPU:4 in one '
        'allocation (min_unit, max_unit, step_size).')
    details = {n['name']: n['detail'] for n in body['nearest']}
    assert details == {
        'disk': 'VCPU: no inventory',
        'small': 'VCPU: 4 requested, min_unit 1, max_unit 2, step_size 1',
        'steps': 'VCPU: 4 requested, min_unit 1, max_unit 8, step_size 3'}


def test_required_forbidden_and_any_of_traits(client, w):
    w.add('avx', inventory={'VCPU': 8}, traits={'HW_CPU_X86_AVX2'})
    w.add('plain', inventory={'VCPU': 8})
    w.add('sse', inventory={'VCPU': 8}, traits={'HW_CPU_X86_SSE',
                                                'HW_CPU_X86_AVX2'})
    body = explain(client, resources='VCPU:1', required='HW_CPU_X86_AVX2')
    assert steps(body)['required=HW_CPU_X86_AVX2'] == (1, 2)
    assert body['candidates'] == 2
    assert body['summary'] == (
        '2 of 3 resource providers can satisfy the request: 1 provider '
        'lacks the required trait HW_CPU_X86_AVX2.')
    assert [(n['name'], n['detail']) for n in body['nearest']] == [
        ('plain', 'lacks the trait(s) (required=HW_CPU_X86_AVX2)')]
    body = explain(client, resources='VCPU:1', required='!HW_CPU_X86_SSE')
    assert steps(body)['required=!HW_CPU_X86_SSE'] == (1, 2)
    assert ('1 provider has the forbidden trait HW_CPU_X86_SSE'
            in body['summary'])
    body = explain(client, resources='VCPU:1',
                   required='in:HW_CPU_X86_SSE,HW_CPU_X86_SSE2')
    assert steps(body)['required=in:HW_CPU_X86_SSE,HW_CPU_X86_SSE2'] == (2, 1)
    assert body['candidates'] == 1
    assert ('2 providers have none of the traits HW_CPU_X86_SSE, '
            'HW_CPU_X86_SSE2'
            in body['summary'])


def test_member_of_and_forbidden_aggregates(client, w):
    w.add('in_a', inventory={'VCPU': 8}, aggs={'A'})
    w.add('in_b', inventory={'VCPU': 8}, aggs={'B'})
    w.add('none', inventory={'VCPU': 8})
    agg_a = w.aggs['A'][1]
    agg_b = w.aggs['B'][1]
    body = explain(client, resources='VCPU:1', member_of=agg_a)
    assert steps(body)['member_of=' + agg_a] == (2, 1)
    assert body['candidates'] == 1
    body = explain(client, resources='VCPU:1',
                   member_of='in:%s,%s' % (agg_a, agg_b))
    assert steps(body)['member_of=in:%s' % ','.join(
        sorted([agg_a, agg_b]))] == (1, 2)
    body = explain(client, resources='VCPU:1', member_of='!' + agg_b)
    assert steps(body)['member_of=!' + agg_b] == (1, 2)
    assert body['candidates'] == 2
    assert ('1 provider is in a forbidden aggregate of %s' % agg_b
            in body['summary'])


def test_in_tree(client, w):
    w.add('cn1', inventory={'VCPU': 8})
    w.add('cn1_numa', parent='cn1', inventory={'VCPU': 8})
    w.add('cn2', inventory={'VCPU': 8})
    body = explain(client, resources='VCPU:1', in_tree=w.uuid('cn1'))
    assert steps(body)['in_tree=' + w.uuid('cn1')] == (1, 2)
    assert body['candidates'] == 2
    # Trees: cn2's tree is not served.
    assert body['combination']['considered'] == 2
    assert combined(
        body)["group '' in one tree with its sharing providers"] == (1, 1)
    assert body['summary'].startswith(
        '1 of 2 provider trees can satisfy the request: 1 provider is '
        'outside the '
        'tree of %s;' % w.uuid('cn1'))


# -- rules spanning groups --------------------------------------------------

def test_isolate_removes_trees_the_groups_alone_allow(client, w):
    w.add('cn1', inventory={'VCPU': 8})
    w.add('cn2', inventory={'VCPU': 8})
    w.add('cn2_child', parent='cn2', inventory={'VCPU': 8})
    params = {'resources1': 'VCPU:1', 'resources2': 'VCPU:1'}
    body = explain(client, group_policy='isolate', **params)
    assert body['candidates'] == 2
    assert [g['suffix'] for g in body['groups']] == ['1', '2']
    assert steps(body, '1')['resources=VCPU:1 (capacity)'] == (0, 3)
    spanning = ('combining groups (group_policy=isolate, capacity summed '
                'across groups)')
    assert combined(body) == {
        "group '1' in one tree with its sharing providers": (0, 2),
        "group '2' in one tree with its sharing providers": (0, 2),
        spanning: (1, 1)}
    assert body['summary'] == (
        '1 of 2 provider trees can satisfy the request: 1 tree is left '
        'without a candidate by ' + spanning + '.')
    body = explain(client, group_policy='none', **params)
    assert combined(body)[spanning.replace(
        'group_policy=isolate, ', '')] == (0, 2)


def test_summed_capacity_same_subtree_and_root_required(client, w):
    w.add('cn1', inventory={'VCPU': 3}, traits={'CUSTOM_ROOT'})
    w.add('cn2', traits={'CUSTOM_ROOT'})
    w.add('cn2_a', parent='cn2', inventory={'VCPU': 8})
    w.add('cn2_b', parent='cn2', inventory={'VCPU': 8})
    w.add('cn3', inventory={'VCPU': 8})
    with w.engine.begin() as conn:
        w._trait(conn, 'CUSTOM_ROOT')
    # Two groups of 2 VCPU fit each provider of cn1 alone, not together.
    body = explain(client, resources1='VCPU:2', resources2='VCPU:2',
                   group_policy='none', root_required='CUSTOM_ROOT')
    assert combined(body)['root_required=CUSTOM_ROOT'] == (1, 2)
    assert body['candidates'] == 4
    spanning = [c for c in combined(body) if c.startswith('combining')]
    assert combined(body)[spanning[0]] == (1, 1)
    # same_subtree: two children of cn2 are siblings, not one subtree.
    body = explain(client, resources_A='VCPU:1', resources_B='VCPU:1',
                   same_subtree='_A,_B', group_policy='isolate',
                   in_tree_A=w.uuid('cn2'), in_tree_B=w.uuid('cn2'))
    assert body['candidates'] == 0
    spanning, = [c for c in combined(body) if c.startswith('combining')]
    assert 'same_subtree=_A,_B' in spanning
    assert combined(body)[spanning] == (1, 0)


def test_sharing_provider_serves_a_tree(client, w):
    w.add('cn1', inventory={'VCPU': 8}, aggs={'A'})
    w.add('cn2', inventory={'VCPU': 8})
    w.add('ss', inventory={'DISK_GB': 100}, traits={SHARING}, aggs={'A'})
    body = explain(client, resources='VCPU:1,DISK_GB:10')
    assert body['candidates'] == 1
    assert body['combination']['considered'] == 3
    # cn1 draws disk from ss; cn2 and ss's own tree cannot serve the group.
    assert combined(
        body)["group '' in one tree with its sharing providers"] == (2, 1)
    assert body['summary'].startswith('1 of 3 provider trees')


# -- a small cloud, as a new user met it ------------------------------------

def small_cloud(w):
    """Six computes with two NUMA nodes and an SR-IOV PF each; cn1-cn3
    take their disk from a shared pool in aggregate A, cn4-cn6 have
    their own."""
    used = {'cn1': 40, 'cn2': 30, 'cn3': 50}
    for number in range(1, 7):
        name = 'cn%d' % number
        inventory = {'VCPU': 128}
        if number > 3:
            inventory['DISK_GB'] = 500
        w.add(name, inventory=inventory, used={'VCPU': used.get(name, 0)},
              aggs={'A'} if number <= 3 else ())
        for numa in range(2):
            w.add('%s_numa%d' % (name, numa), parent=name,
                  inventory={'MEMORY_MB': 65536})
        w.add(name + '_pf', parent=name, inventory={'SRIOV_NET_VF': 8})
    w.add('pool', inventory={'DISK_GB': 10000}, traits={SHARING},
          aggs={'A'})


def test_nearest_misses_count_the_sharing_providers_a_tree_draws_from(
        client, w):
    small_cloud(w)
    body = explain(client, resources='VCPU:100,DISK_GB:20',
                   member_of=w.aggs['A'][1])
    assert body['candidates'] == 0
    # The three computes of the pool miss on VCPU alone, then the computes
    # outside the aggregate; the pool itself, with no VCPU, is farther.
    assert [(n['name'], n['detail']) for n in body['nearest']] == [
        ('cn2', 'VCPU: 98 free, 100 requested'),
        ('cn1', 'VCPU: 88 free, 100 requested'),
        ('cn3', 'VCPU: 78 free, 100 requested'),
        ('cn4', 'not in the aggregate(s) (member_of=%s)' % w.aggs['A'][1]),
        ('cn5', 'not in the aggregate(s) (member_of=%s)' % w.aggs['A'][1])]
    assert {n['group'] for n in body['nearest']} == {''}


def test_isolation_is_named_as_the_cause(client, w):
    small_cloud(w)
    body = explain(client, resources='VCPU:1', resources1='SRIOV_NET_VF:1',
                   resources2='SRIOV_NET_VF:1', group_policy='isolate')
    assert body['candidates'] == 0
    # Every group keeps providers; one PF per tree cannot serve two
    # isolated groups.
    for group in body['groups']:
        assert group['steps'][-1]['remaining'] > 0
    spanning = ('combining groups (group_policy=isolate, capacity summed '
                'across groups)')
    assert combined(body)[spanning] == (6, 0)
    assert body['summary'].startswith(
        '0 of 7 provider trees can satisfy the request: 6 trees are left '
        'without a candidate by ' + spanning + ';')


def test_summary_names_providers_and_trees(client, w):
    small_cloud(w)
    with w.engine.begin() as conn:
        w._trait(conn, 'CUSTOM_PLATINUM')
    body = explain(client, resources='VCPU:1', required='CUSTOM_PLATINUM')
    assert body['summary'] == (
        "0 of 7 provider trees can satisfy the request: 25 providers lack "
        "the required trait CUSTOM_PLATINUM; 7 trees cannot serve group ''.")


# -- property test: the funnel against an oracle written from the rows -------

NO_AGGREGATE = '00000000-0000-4000-8000-000000000000'

def oracle_fails(world, info, check, suffix):
    """Whether the provider ``info`` fails ``check``, from World's mirror
    of the rows alone."""
    if isinstance(check, (checks_mod.MemberOf,
                          checks_mod.ForbiddenAggregates)):
        uuids = {world.aggs[name][1] for name in info['aggs']}
        if suffix == '':
            # The unsuffixed group also takes the root's aggregates.
            root, = [p for p in world.providers.values()
                     if p['id'] == info['root']]
            uuids |= {world.aggs[name][1] for name in root['aggs']}
        member = bool(uuids & check.names)
        return not member if isinstance(check, checks_mod.MemberOf) else member
    if isinstance(check, checks_mod.RequiredTraits):
        return not info['traits'] & check.names
    if isinstance(check, checks_mod.ForbiddenTrait):
        return bool(info['traits'] & check.names)
    inv = info['inventory'].get(check.rc)
    if isinstance(check, checks_mod.HasInventory) or inv is None:
        # Without inventory every resource check of the class fails.
        return inv is None
    if isinstance(check, checks_mod.Units):
        return not (inv['min_unit'] <= check.amount <= inv['max_unit']
                    and check.amount % inv['step_size'] == 0)
    capacity = (inv['total'] - inv['reserved']) * inv['allocation_ratio']
    return info['used'].get(check.rc, 0) + check.amount > capacity


@over_http(40)
@hypothesis.given(
    providers=st.lists(provider_st, min_size=1, max_size=6),
    groups=st.lists(st.tuples(group_st, st.sampled_from(
        [None, 'A', '!B', 'in:A,B'])), min_size=1, max_size=2),
    isolate=st.booleans())
def test_funnel_matches_an_oracle(client, world, providers, groups, isolate):
    world.clear()
    world.add_random(providers)
    with world.engine.begin() as conn:
        for trait in TRAITS:
            world._trait(conn, trait)

    def agg(name):
        return world.aggs[name][1] if name in world.aggs else NO_AGGREGATE

    params = {'group_policy': 'isolate' if isolate else 'none'}
    for index, (group, member_of) in enumerate(groups):
        suffix = '' if index == 0 else str(index)
        params['resources' + suffix] = ','.join(
            '%s:%d' % item for item in group['resources'].items())
        forbidden = group['forbidden'] - group['required']
        traits = sorted(group['required']) + ['!' + t for t in
                                              sorted(forbidden)]
        if traits:
            params['required' + suffix] = ','.join(traits)
        if member_of == 'in:A,B':
            params['member_of' + suffix] = 'in:%s,%s' % (agg('A'), agg('B'))
        elif member_of:
            bang = member_of.startswith('!')
            params['member_of' + suffix] = '!' * bang + agg(
                member_of.lstrip('!'))

    parsed = query.parse_candidate_query(webob.multidict.MultiDict(params),
                                         microversions.MAX)
    with world.engine.connect() as conn:
        database = database_source.DatabaseSource(conn)
        reading = stacks.read(database, parsed, microversions.MAX,
                              stacks.EVERY_TREE)
        facts = database.census(reading)
        reading.close()
        # The snapshot's census, each check in its Python form: the same.
        memory = memory_source.MemorySource(snapshot.load(conn),
                                            conn.dialect.name)
        remembered = memory.census(stacks.read(
            memory, parsed, microversions.MAX, stacks.EVERY_TREE))
    assert remembered == facts
    by_id = {info['id']: info for info in world.providers.values()}
    for suffix, group in zip(parsed.groups, reading.groups):
        checks = group.stack
        steps, first = explain_mod.funnel(checks, len(facts.providers),
                                          facts.failures[suffix])
        for rp_id, info in by_id.items():
            failing = [index for index, check in enumerate(checks)
                       if oracle_fails(world, info, check, suffix)]
            # Counted at a check it fails, and passing every earlier one
            # (so it was among the remaining of every earlier step).
            assert first.get(rp_id) == (failing[0] if failing else None), (
                suffix, info['name'], checks)
        left = len(by_id)
        for index, step in enumerate(steps):
            left -= sum(1 for at in first.values() if at == index)
            assert step['remaining'] == left
    body = explain(client, **params)
    count = body['candidates']
    assert count == len(
        get_candidates(client, **params)['allocation_requests'])
    # Trees counted by the combiner: those left hold a candidate.
    assert bool(count) == bool(body['combination']['steps'][-1]['remaining'])
    hypothesis.event('candidates: %s' % min(count, 3))
