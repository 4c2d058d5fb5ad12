"""``fits`` of GET and POST /capacity held to the oracle (a scheduler
placing one instance at a time through the list endpoint) on generated
clouds: flat, nested, sharing and wide trees, one shape or a flavor
list."""
import uuid as uuidlib

import hypothesis
from hypothesis import strategies as st

from support import capacity_oracle as oracle
from support.random_clouds import (TRAITS, group_st, inventory_st, over_http,
                                   provider_st)


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


def _unfiltered(params):
    """``params`` without its aggregates and traits."""
    return {key: value for key, value in params.items()
            if not key.startswith(('member_of', 'required'))}


def _elsewhere(world, params):
    """``params`` with other provider filters: without its aggregate and
    traits, or with aggregate A and a trait when it had neither."""
    other = _unfiltered(params)
    if other != params:
        return other
    suffix = min(key[len('resources'):] for key in params
                 if key.startswith('resources'))
    return dict(params, **{
        'member_of' + suffix: _aggregate_uuid(world, 'A'),
        'required' + suffix: TRAITS[0]})


def _assert_stranded(answer, free_left, filtered):
    """The free space left is split between ``stranded`` and
    ``stranded_elsewhere``, each rounded down; a shape without aggregates
    or traits (``filtered`` false) may draw on every inventory: none is
    elsewhere."""
    for rc, left in free_left.items():
        split = answer['stranded'][rc] + answer['stranded_elsewhere'][rc]
        assert left - 1 <= split <= left, rc
    if not filtered:
        assert answer['stranded'] == free_left
        assert set(answer['stranded_elsewhere'].values()) == {0}


def _more(resources):
    """``resources`` with one more of each class."""
    return ','.join('%s:%d' % (rc, int(amount) + 1) for rc, amount in (
        item.split(':') for item in resources.split(',')))


@over_http(150)
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
    counted = oracle.capacity(client, version, **params)
    # Shapes alike but for their amounts or provider filters are read
    # together: each answers as it does alone.
    more = dict(params, **{key: _more(value) for key, value in params.items()
                          if key.startswith('resources')})
    elsewhere = _elsewhere(world, params)
    together = oracle.shapes(client, {'shapes': {
        'more': more, 'shape': params, 'elsewhere': elsewhere}},
        version)['shapes']
    assert together == {'shape': counted,
                        'more': oracle.capacity(client, version, **more),
                        'elsewhere': oracle.capacity(client, version,
                                                     **elsewhere)}
    classes = sorted({rc for group in groups for rc in group['resources']})
    hypothesis.event('an aggregate pinned differs' if any(
        'roots_fits' in entry for entry in counted['aggregates'])
        else 'no aggregate pinned differs')
    if unsuffixed:
        # Each aggregate's figure is the shape pinned to it, as nova pins
        # an availability zone.
        assert oracle.by_aggregate(world, counted) == {
            uuid: oracle.pinned_fits(world, client, params, uuid, version)
            for _, uuid in world.aggs.values()}
    placed = oracle.place_until_full(client, params, version)
    hypothesis.target(min(len(placed), 10))
    hypothesis.event('fits: %s' % min(len(placed), 5))
    hypothesis.event('nested' if any(
        info['parent'] for info in world.providers.values()) else 'flat')
    hypothesis.event('sharing' if any(
        spec['sharing'] for spec in providers) else 'no sharing')
    assert counted['fits'] == len(placed)
    assert sum(p['fits'] for p in counted['providers']) == len(placed)
    _assert_stranded(counted, oracle.free_left(world, client, classes),
                     filtered=params != _unfiltered(params))
    by_root = oracle.placed_by_root(world, placed)
    assert by_root is None or oracle.fits_by_root(counted) == by_root


def _numa_tree(first, tree):
    """Provider specs (as ``provider_st`` draws them) of ``tree`` (root
    disk inventory or None, its aggregates, [child inventory, ...]), the
    root at index ``first``: disk on the root, VCPU on its children, so
    that one group asking for both has candidates sharing the root's disk
    (or a pool's, when the root has none)."""
    disk, aggs, children = tree
    spec = {'used': {}, 'traits': set(), 'aggs': set(), 'sharing': False}
    return [dict(spec, inventory={} if disk is None else {'DISK_GB': disk},
                 aggs=aggs, parent=None),
            *(dict(spec, inventory={'VCPU': child}, parent=first)
              for child in children)]


@over_http(60)
@hypothesis.given(
    trees=st.lists(st.tuples(
        st.one_of(st.none(), inventory_st),
        st.sets(st.sampled_from(['A', 'B'])),
        st.lists(inventory_st, min_size=1, max_size=3)), min_size=1,
        max_size=3),
    others=st.lists(provider_st, max_size=2),
    amounts=st.lists(st.tuples(st.integers(1, 2), st.integers(1, 3)),
                     min_size=2, max_size=3, unique=True))
def test_a_flavor_list_fills_nested_trees_as_a_scheduler_places(
        client, world, trees, others, amounts):
    # Flavors alike but for their amounts are read at once and their
    # trees filled from the rows read (alike.py), those a pool serves
    # too: each shape's figures are a scheduler's, placing it alone.
    specs = list(others)
    for tree in trees:
        specs += _numa_tree(len(specs), tree)
    named = {'s%d' % index: {'resources': 'VCPU:%d,DISK_GB:%d' % pair}
             for index, pair in enumerate(amounts)}
    world.clear()
    world.add_random(specs)
    answers = oracle.shapes(client, {'shapes': named})['shapes']
    named_aggregate = {uuid: agg for agg, (_, uuid) in world.aggs.items()}
    for name, params in named.items():
        world.clear()
        world.add_random(specs)
        # Pools outside A or B: each aggregate counts the shape pinned to
        # it (by name: the world built again has new uuids).
        fits = {named_aggregate[entry['uuid']]: entry['fits']
                for entry in answers[name]['aggregates']}
        assert {agg: fits.get(agg, 0) for agg in world.aggs} == {
            agg: oracle.pinned_fits(world, client, params, uuid)
            for agg, (_, uuid) in world.aggs.items()}, name
        placed = oracle.place_until_full(client, params)
        assert answers[name]['fits'] == len(placed), name
        _assert_stranded(answers[name], oracle.free_left(
            world, client, ['VCPU', 'DISK_GB']), filtered=False)
        by_root = oracle.placed_by_root(world, placed)
        assert by_root is None or oracle.fits_by_root(answers[name]) == by_root
