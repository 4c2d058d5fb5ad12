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
