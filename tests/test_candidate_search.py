"""The candidate combiner (placement/candidate_search.py) in-process, on
hand-built trees and on random small worlds.

The property test keeps a tiny model of providers (trees, inventories,
traits, aggregates, sharing providers) and of requests (granular groups
with required, forbidden and any-of traits, member_of with forbidden
aggregates, in_tree, same_subtree, root_required, group_policy, old
microversions).  It turns the model into the values the reader would
pass - the filters SQL applies are modelled here - and checks the
combiner's answer against a brute-force enumerator that works from the
model directly: same candidates in the same order (depth-first, with a
limit, and breadth-first).
"""
import itertools
import time

import hypothesis
from hypothesis import strategies as st

from placement import candidate_search as cs

VF = 7


# -- hand-built trees ---------------------------------------------------------

def wide(vfs, groups, isolate=False):
    """A compute node (1) with ``vfs`` single-unit VF children and a
    request for ``groups`` VFs in groups of their own."""
    spec = [cs.Group(str(g), {VF: 1}) for g in range(1, groups + 1)]
    members = [{rp: 1 for rp in range(2, vfs + 2)}] * groups
    limits = {(rp, VF): 1 for rp in range(2, vfs + 2)}
    request = cs.Request(spec, isolate=isolate)
    return request, cs.Tree(1, members, limits, {})


def test_identical_groups_give_every_assignment_once():
    request, tree = wide(4, 3)
    found = list(cs.candidates(request, [tree]))
    # 4 * 3 * 2 ways; each maps the groups differently.
    assert len(found) == 24
    assert len({tuple(sorted(m.items())) for _, m in found}) == 24
    # Product order: group 1 on the first VF, group 2 on the next free.
    assert found[0][1] == {'1': (2,), '2': (3,), '3': (4,)}
    assert found[1][1] == {'1': (2,), '2': (3,), '3': (5,)}


def test_more_groups_than_providers_is_answered_at_once():
    # 29! orderings of 29 VFs would never finish; the matching check
    # at the root sees that 30 groups cannot fit.
    for isolate in (False, True):
        request, tree = wide(29, 30, isolate)
        started = time.process_time()
        assert list(cs.candidates(request, [tree])) == []
        assert time.process_time() - started < 1


def test_a_provider_only_one_group_can_use_is_kept_for_it():
    # Groups 1-8 can use VFs 2-10, group 9 only VF 10: every branch that
    # gives VF 10 to an earlier group is dropped at once, not after 8!
    # orderings of the others.
    request, tree = wide(9, 9)
    members = list(tree.members)
    members[8] = {10: 1}
    tree = tree._replace(members=members)
    started = time.process_time()
    found = list(itertools.islice(cs.candidates(request, [tree]), 10))
    assert len(found) == 10
    assert all(m['9'] == (10,) for _, m in found)
    assert time.process_time() - started < 1
    request, tree = wide(9, 10)
    assert list(cs.candidates(request, [tree])) == []


def test_first_candidate_of_a_wide_tree_comes_fast():
    request, tree = wide(64, 32)
    started = time.process_time()
    first = next(cs.candidates(request, [tree]))
    assert time.process_time() - started < 0.2
    assert first[1] == {str(g): (g + 1,) for g in range(1, 33)}


# -- the model ----------------------------------------------------------------

RCS = (1, 2)
TRAITS = ('A', 'B', 'C')
AGGS = ('x', 'y')
SHARES = 'SHARES'


class World:
    """Providers by id (1..n, parents before children): {'parent',
    'root', 'traits', 'aggs', 'inv': {rc: {room, min, max, step}}}."""

    def __init__(self, specs):
        self.rps = {}
        for index, spec in enumerate(specs):
            rp = index + 1
            parent = spec['parent']
            parent = parent + 1 if parent is not None and parent < index \
                else None
            traits = set(spec['traits'])
            if spec['sharing'] and parent is None:
                traits.add(SHARES)
            self.rps[rp] = {
                'parent': parent,
                'root': rp if parent is None else self.rps[parent]['root'],
                'traits': traits, 'aggs': set(spec['aggs']),
                'inv': spec['inv']}

    def fits(self, rp, rc, amount):
        inv = self.rps[rp]['inv'].get(rc)
        return (inv is not None and inv['min'] <= amount <= inv['max']
                and amount % inv['step'] == 0 and amount <= inv['room'])

    def limit(self, rp, rc):
        inv = self.rps[rp]['inv'][rc]
        return min(inv['room'], inv['max'])

    def roots(self):
        return sorted({info['root'] for info in self.rps.values()})

    def sharing(self):
        return [rp for rp, info in self.rps.items() if SHARES in info['traits']]

    def served_by(self, sharer):
        """Roots of the trees a sharing provider serves."""
        aggs = self.rps[sharer]['aggs']
        return {info['root'] for info in self.rps.values()
                if info['aggs'] & aggs}

    def passes(self, rp, group, via_root):
        """The filters SQL applies to a provider for a group (traits of the
        unsuffixed group aside: they are a mask)."""
        info = self.rps[rp]
        if info['traits'] & group['forbidden']:
            return False
        if not group['spread'] and not all(
                info['traits'] & any_of for any_of in group['required']):
            return False
        aggs = set(info['aggs'])
        if via_root:
            aggs |= self.rps[info['root']]['aggs']
        if not all(aggs & any_of for any_of in group['member_of']):
            return False
        if aggs & group['not_member_of']:
            return False
        named = group['in_tree']
        if named is not None and (named not in self.rps or info['root']
                                  != self.rps[named]['root']):
            return False
        return True

    def root_ok(self, root, root_required):
        return root_required <= self.rps[root]['traits']


def reader_values(world, groups, root_required, isolate, same_subtree,
                  one_per_tree):
    """What the reader would hand the combiner: Request and Trees."""
    specs = [cs.Group(g['suffix'], g['amounts'], g['spread'],
                      len(g['required']) if g['spread'] else 0)
             for g in groups]
    requested = [rc for g in groups for rc in g['amounts']]
    with_limits = len(requested) != len(set(requested))

    def rows(group, rps):
        """(rp, fit, limits, traits) as the group's statement gives."""
        found = []
        for rp in rps:
            if not world.passes(rp, group, group['spread']):
                continue
            fit = 0
            limits = {}
            for bit, (rc, amount) in enumerate(group['amounts'].items()):
                if world.fits(rp, rc, amount):
                    fit |= 1 << bit
                    if with_limits:
                        limits[(rp, rc)] = world.limit(rp, rc)
            if group['amounts'] and not fit:
                continue
            traits = 0
            if group['spread']:
                for bit, any_of in enumerate(group['required']):
                    if world.rps[rp]['traits'] & any_of:
                        traits |= 1 << bit
            found.append((rp, fit, limits, traits))
        return found

    sharing = cs.Sharing({}, [{} for _ in groups], {}, {})
    sharers = world.sharing()
    for index, group in enumerate(groups):
        if not group['amounts']:
            continue
        for rp, fit, limits, traits in rows(group, sharers):
            own = world.rps[rp]['root']
            sharing.roots[rp] = own
            sharing.limits.update(limits)
            if traits:
                sharing.masks[rp] = traits
            for anchor in sorted(world.served_by(rp)):
                if anchor != own:
                    sharing.serving[index].setdefault(anchor, []).append(
                        (rp, fit))
    anchored = {anchor for serving in sharing.serving for anchor in serving}
    trees = []
    for root in world.roots():
        members = []
        limits = {}
        masks = {}
        tree_rps = [rp for rp, info in world.rps.items()
                    if info['root'] == root]
        for group in groups:
            found = rows(group, tree_rps) \
                if world.root_ok(root, root_required) else []
            members.append({rp: fit for rp, fit, _, _ in found})
            for rp, _, group_limits, traits in found:
                limits.update(group_limits)
                if traits:
                    masks[rp] = traits
        if not any(members) and not (
                root in anchored and world.root_ok(root, root_required)):
            continue
        parents = {rp: world.rps[rp]['parent'] for rp in tree_rps} \
            if same_subtree else None
        trees.append(cs.Tree(root, members, limits, masks, parents))
    index = {g['suffix']: i for i, g in enumerate(groups)}
    request = cs.Request(
        specs, isolate=isolate,
        same_subtree=tuple(tuple(index[s] for s in suffixes)
                           for suffixes in same_subtree),
        one_per_tree=one_per_tree, sharing=sharing)
    return request, trees


# -- brute force, from the model alone ----------------------------------------

def brute_force(world, groups, root_required, isolate, same_subtree,
                one_per_tree):
    """[candidates of each tree] in product order, each candidate as
    (allocations {rp: {rc: amount}}, mappings {suffix: (rp, ...)}); see
    ``once`` for the repeats."""
    per_tree = []
    sharers = world.sharing()
    for root in world.roots():
        if not world.root_ok(root, root_required):
            continue
        tree = [rp for rp, info in world.rps.items() if info['root'] == root]
        extra = [rp for rp in sharers if world.rps[rp]['root'] != root
                 and root in world.served_by(rp)]
        options = []
        for group in groups:
            usable = [rp for rp in tree + extra
                      if world.passes(rp, group, group['spread'])]
            if group['spread']:
                classes = list(group['amounts'])
                per_class = [[rp for rp in usable
                              if world.fits(rp, rc, group['amounts'][rc])]
                             for rc in classes]
                choices = []
                for picks in itertools.product(*per_class):
                    have = set().union(*(world.rps[rp]['traits']
                                         for rp in picks))
                    if all(have & any_of for any_of in group['required']):
                        choices.append(list(zip(picks, classes)))
            elif group['amounts']:
                choices = [[(rp, rc) for rc in group['amounts']]
                           for rp in usable if all(
                               world.fits(rp, rc, amount)
                               for rc, amount in group['amounts'].items())]
            else:
                choices = [[(rp, None)] for rp in usable if rp in tree]
            options.append(choices)
        found = []
        for combo in itertools.product(*options):
            mappings = {}
            totals = {}
            for group, parts in zip(groups, combo):
                mappings[group['suffix']] = tuple(dict.fromkeys(
                    rp for rp, _ in parts))
                for rp, rc in parts:
                    if rc is not None:
                        totals[(rp, rc)] = (totals.get((rp, rc), 0)
                                            + group['amounts'][rc])
            singles = [mappings[g['suffix']][0] for g in groups
                       if not g['spread']]
            if isolate and len(set(singles)) != len(singles):
                continue
            if not all(amount <= world.limit(rp, rc)
                       for (rp, rc), amount in totals.items()):
                continue
            if not all(any(all(descends(world, mappings[s][0], top)
                               for s in suffixes)
                           for top in (mappings[s][0] for s in suffixes))
                       for suffixes in same_subtree):
                continue
            allocations = {}
            for (rp, rc), amount in totals.items():
                allocations.setdefault(rp, {})[rc] = amount
            if one_per_tree:
                roots = [world.rps[rp]['root'] for rp in allocations]
                if len(set(roots)) != len(roots):
                    continue
            found.append((allocations, mappings))
        per_tree.append(found)
    return per_tree


def once(candidates, sharers):
    """Without the repeats of candidates made of sharing providers only
    (the same from every tree they serve)."""
    seen = set()
    for candidate in candidates:
        if all(rp in sharers for rps in candidate[1].values() for rp in rps):
            key = canonical(candidate)
            if key in seen:
                continue
            seen.add(key)
        yield candidate


def descends(world, rp, top):
    while rp is not None:
        if rp == top:
            return True
        rp = world.rps[rp]['parent']
    return False


def canonical(candidate):
    allocations, mappings = candidate
    return (tuple(sorted((rp, tuple(sorted(amounts.items())))
                         for rp, amounts in allocations.items())),
            tuple(sorted(mappings.items())))


# -- the property test -------------------------------------------------------

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
def cases(draw):
    world = World(draw(st.lists(provider_st, min_size=1, max_size=8)))
    specs = draw(st.lists(group_st, min_size=1, max_size=3))
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
