"""The candidate combiner (placement/candidates/candidate_search.py)
in-process on random small worlds.

The property test draws a tiny model of providers (trees, inventories,
traits, aggregates, sharing providers) and of requests (granular groups
with required, forbidden and any-of traits, member_of with forbidden
aggregates, in_tree, same_subtree, root_required, group_policy, old
microversions).  candidate_search_model.py turns the model into the
values the reader would pass and enumerates its candidates by brute
force; the combiner must give the same candidates in the same order
(depth-first, with a limit, and breadth-first).
"""
import itertools

import hypothesis
from hypothesis import strategies as st

from placement.candidates import candidate_search as cs

from support.candidate_search_model import (World, brute_force, canonical,
                                            once, reader_values)

RCS = (1, 2)
TRAITS = ('A', 'B', 'C')
AGGS = ('x', 'y')


def rarely(strategy, empty):
    """``strategy`` one time in four, else ``empty``: filters that are
    always on would leave most examples without candidates."""
    return st.one_of(st.just(empty), st.just(empty), st.just(empty),
                     strategy)


inventory_st = st.fixed_dictionaries({
    'room': st.integers(0, 6), 'min': st.sampled_from([1, 1, 1, 2]),
    'max': st.integers(2, 6), 'step': st.sampled_from([1, 1, 1, 2])})
provider_st = st.fixed_dictionaries({
    'parent': st.one_of(st.none(), st.integers(0, 6)),
    'inv': st.dictionaries(st.sampled_from(RCS), inventory_st, min_size=1,
                           max_size=2),
    'traits': st.sets(st.sampled_from(TRAITS)),
    'aggs': st.sets(st.sampled_from(AGGS)),
    'sharing': rarely(st.just(True), False),
})
group_st = st.fixed_dictionaries({
    'amounts': st.dictionaries(st.sampled_from(RCS), st.integers(1, 2),
                               max_size=2),
    'required': rarely(st.lists(st.sets(st.sampled_from(TRAITS), min_size=1,
                                        max_size=2).map(frozenset),
                                min_size=1, max_size=2), []),
    'forbidden': rarely(st.sets(st.sampled_from(TRAITS), min_size=1,
                                max_size=1), set()),
    'member_of': rarely(st.lists(st.sets(st.sampled_from(AGGS), min_size=1)
                                 .map(frozenset), min_size=1, max_size=1),
                        []),
    'not_member_of': rarely(st.sets(st.sampled_from(AGGS), min_size=1,
                                    max_size=1), set()),
    'in_tree': rarely(st.integers(1, 8), None),
})


@st.composite
def _repeated(draw, specs, copies):
    """``specs`` ``copies`` times over, each copy's parents its own, and
    now and then a copy's provider with other room or traits: trees
    alike but for one thing."""
    found = []
    for copy in range(copies):
        for spec in specs:
            spec = dict(spec, parent=None if spec['parent'] is None
                        else spec['parent'] + copy * len(specs))
            if copy and draw(st.booleans()):
                spec['inv'] = {rc: dict(inv, room=draw(st.integers(0, 4)))
                               for rc, inv in spec['inv'].items()}
            if copy and draw(st.booleans()):
                spec['traits'] = draw(st.sets(st.sampled_from(TRAITS)))
            found.append(spec)
    return found


@st.composite
def cases(draw, copies=st.just(1), groups=1):
    world = World(draw(_repeated(draw(st.lists(
        provider_st, min_size=1, max_size=8)), draw(copies))))
    specs = draw(st.lists(group_st, min_size=groups, max_size=3))
    unsuffixed = draw(st.booleans())
    groups = []
    for index, spec in enumerate(specs):
        spread = unsuffixed and index == 0
        if spread and not spec['amounts']:
            spec = dict(spec, amounts={RCS[0]: 1})
        groups.append(dict(spec, suffix='' if spread else str(index + 1),
                           spread=spread))
    if not any(g['amounts'] for g in groups):
        groups[-1]['amounts'] = {RCS[0]: 1}
    suffixes = [g['suffix'] for g in groups if not g['spread']]
    same_subtree = []
    if len(suffixes) > 1 and draw(st.booleans()):
        same_subtree.append(tuple(draw(st.permutations(suffixes))[:2]))
    # A group without resources needs a same_subtree naming it.
    for group in groups:
        if not group['amounts'] and not any(
                group['suffix'] in s for s in same_subtree):
            group['amounts'] = {RCS[1]: 1}
    return (world, groups,
            draw(rarely(st.sets(st.sampled_from(TRAITS), min_size=1,
                                max_size=1), set())),
            draw(st.booleans()), same_subtree, draw(st.booleans()),
            draw(st.one_of(st.none(), st.integers(1, 5))))


@hypothesis.settings(max_examples=1500, deadline=None, derandomize=True)
@hypothesis.given(cases())
def test_combiner_matches_brute_force(case):
    _matches_brute_force(case)


@hypothesis.settings(max_examples=500, deadline=None, derandomize=True)
@hypothesis.given(cases(copies=st.integers(2, 3), groups=2))
def test_trees_alike_are_combined_alike(case):
    """The world's trees again and again (some copies changed a little),
    several groups: each kind of tree is searched once and its
    candidates given for every copy with the copy's ids."""
    _matches_brute_force(case)


def _matches_brute_force(case):
    world, groups, root_required, isolate, same_subtree, old, limit = case
    args = (world, groups, root_required, isolate, same_subtree, old)
    request, trees = reader_values(*args)
    expected = brute_force(*args)
    sharers = world.sharing()
    flat = list(once((c for found in expected for c in found), sharers))
    hypothesis.event('candidates: %s' % min(len(flat), 10))

    got = list(cs.candidates(request, trees))
    # Every candidate fits and none is missed, in product order.
    assert [canonical(c) for c in got] == [canonical(c) for c in flat]
    got = list(itertools.islice(cs.candidates(request, trees), limit))
    assert [canonical(c) for c in got] == [canonical(c)
                                           for c in flat[:limit]]
    # Breadth-first: one candidate of each tree in turn.
    got = list(cs.candidates(request, trees, breadth_first=True))
    turns = itertools.zip_longest(*expected)
    assert [canonical(c) for c in got] == [canonical(c) for c in once(
        (c for turn in turns for c in turn if c is not None), sharers)]
