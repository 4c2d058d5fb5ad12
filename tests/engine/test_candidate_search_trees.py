"""The candidate combiner (placement/candidates/candidate_search.py)
in-process on hand-built trees: every assignment of identical groups once,
and wide requests answered (or refused) fast however many orderings they
allow."""
import itertools
import time

from placement.candidates import candidate_search as cs
from placement.candidates import tree_rules

VF = 7


def wide(vfs, groups, isolate=False):
    """A compute node (1) with ``vfs`` single-unit VF children and a
    request for ``groups`` VFs in groups of their own."""
    spec = [cs.Group(str(g), {VF: 1}) for g in range(1, groups + 1)]
    members = [{rp: 1 for rp in range(2, vfs + 2)}] * groups
    limits = {(rp, VF): 1 for rp in range(2, vfs + 2)}
    request = cs.Request(spec,
                         isolate=tree_rules.Isolate() if isolate else None)
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


def _tree_at(root, members, limits=None, masks=None, parents=None):
    """A tree of root ``root`` with its providers' ids offset by it."""
    return cs.Tree(root, [{root + rp: fit for rp, fit in found.items()}
                          for found in members],
                   {(root + rp, rc): most
                    for (rp, rc), most in (limits or {}).items()},
                   {root + rp: mask for rp, mask in (masks or {}).items()},
                   None if parents is None else {
                       root + rp: None if parent is None else root + parent
                       for rp, parent in parents.items()})


def test_trees_alike_but_for_limits_are_searched_each():
    # Two groups on one provider's VF: 2 + 1 fits a limit of 3, not 2.
    request = cs.Request([cs.Group('1', {VF: 2}), cs.Group('2', {VF: 1})])
    trees = [_tree_at(root, [{1: 1}, {1: 1}], {(1, VF): most})
             for root, most in ((10, 3), (20, 2), (30, 3))]
    assert list(cs.candidates(request, trees)) == [
        ({rp: {VF: 3}}, {'1': (rp,), '2': (rp,)}) for rp in (11, 31)]
    assert list(cs.candidates(request, trees[1:])) == [
        ({31: {VF: 3}}, {'1': (31,), '2': (31,)})]


def test_trees_alike_but_for_traits_are_searched_each():
    # The unsuffixed group (one provider per class) needs a trait of its
    # one any-of set, which only the root of the first and last trees has.
    request = cs.Request([cs.Group('', {VF: 1, 8: 1}, spread=True,
                                   trait_sets=1), cs.Group('1', {8: 1})])
    members = [{0: 0b01, 1: 0b10}, {1: 1}]
    trees = [_tree_at(root, members, masks={0: mask}, parents={0: None,
                                                                1: 0})
             for root, mask in ((10, 1), (20, 0), (30, 1))]
    assert [mappings for _, mappings in cs.candidates(request, trees)] == [
        {'': (root, root + 1), '1': (root + 1,)} for root in (10, 30)]


def test_trees_alike_but_for_parents_are_searched_each():
    # same_subtree of groups 1 and 2: provider 2 under 1 holds, provider
    # 2 beside 1 (both under the root) does not.
    rule = tree_rules.SameSubtree(('_1', '_2'), (0, 1))
    request = cs.Request([cs.Group('1', {VF: 1}), cs.Group('2', {8: 1})],
                         same_subtree=(rule,))
    members = [{1: 1}, {2: 1}]
    trees = [_tree_at(root, members, parents={0: None, 1: 0, 2: under})
             for root, under in ((10, 1), (20, 0), (30, 1))]
    assert [mappings for _, mappings in cs.candidates(request, trees)] == [
        {'1': (root + 1,), '2': (root + 2,)} for root in (10, 30)]


def test_trees_with_their_own_sharing_providers_are_searched_each():
    # Providers 11 and 21 share (their trait masks are the request's,
    # by id) and serve only their own trees: only 11 has the trait.
    request = cs.Request(
        [cs.Group('', {VF: 1}, spread=True, trait_sets=1)],
        one_per_tree=True,
        sharing=cs.Sharing({11: 10, 21: 20}, [{}], {}, {11: 1}))
    trees = [_tree_at(root, [{1: 1}]) for root in (10, 20)]
    assert [mappings for _, mappings in cs.candidates(request, trees)] == [
        {'': (11,)}]
