"""The rules over whole trees (placement/candidates/tree_rules.py) in
process: the test each holds, and the words built from the same
objects the combiner runs."""
from placement.candidates import candidate_search as cs
from placement.candidates import checks
from placement.candidates import query_filters
from placement.candidates import tree_rules

# A tree 1 -> 2 -> 3 and 1 -> 4.
PARENTS = {1: None, 2: 1, 3: 2, 4: 1}


def test_same_subtree_holds_when_one_pick_is_above_the_others():
    rule = tree_rules.SameSubtree(['_A', '_B', '_C'], (0, 2, 3))
    assert rule.label == 'same_subtree=_A,_B,_C' and rule.last == 3
    picks = [2, None, 3, None]
    # Group 3 (the last) placed on 3: 2 is above 3.
    assert rule.holds(PARENTS, picks, 3, 3)
    # On 4: 2 and 4 are siblings, neither above the other.
    assert not rule.holds(PARENTS, picks, 3, 4)
    # The root is above every provider of its tree.
    assert rule.holds(PARENTS, [1, None, 3, None], 3, 4)


def test_isolate_admits_one_suffixed_group_per_provider():
    isolate = tree_rules.Isolate()
    assert isolate.admits(0) and not isolate.admits(1)


def test_stack_words_the_rules_the_combiner_runs():
    isolate = tree_rules.Isolate()
    subtree = tree_rules.SameSubtree(['_A', '_B'], (1, 2))
    groups = [cs.Group('', {1: 1}, spread=True, trait_sets=1),
              cs.Group('_A', {1: 1}), cs.Group('_B', {2: 1})]
    request = cs.Request(groups, isolate=isolate, same_subtree=(subtree,))
    root = checks.RootRequired(query_filters.TraitFilter(
        required=(frozenset(['CUSTOM_R']),)))
    stack = tree_rules.stack(request, root)
    assert [step.label for step in stack.steps] == [
        "group '' in one tree with its sharing providers",
        "group '_A' in one tree with its sharing providers",
        "group '_B' in one tree with its sharing providers",
        'root_required=CUSTOM_R',
        'combining groups (group_policy=isolate, same_subtree=_A,_B, '
        'capacity summed across groups, required traits over the '
        'providers used)']
    assert stack.root.keeps(5, {6}) and not stack.root.keeps(6, {6})
    assert stack.root.clause_for(1, 'trees') == (
        '1 tree fails root_required=CUSTOM_R')
    assert stack.combining.clause_for(2, 'providers').startswith(
        '2 providers are left without a candidate by combining groups')
    plain = tree_rules.stack(cs.Request([cs.Group('', {1: 1}, True)]), None)
    assert plain.root is None
    assert [step.label for step in plain.steps][-1] == 'combining groups'
