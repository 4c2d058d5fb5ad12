"""The choice of POST /claims (candidates/claim_choice.py) on options
built by hand."""
from placement.candidates import claim_choice
from placement.candidates.claims import Option


def _option(root, **amounts):
    """One provider per keyword: ``p1=2`` takes 2 of class 'r' of p1."""
    return Option({rp: {'r': amount} for rp, amount in amounts.items()},
                  {}, root)


def test_spread_takes_each_candidate_in_turn_pack_fills_first():
    options = [_option(1, p1=1), _option(2, p2=1)]
    free = {'p1': {'r': 4}, 'p2': {'r': 4}}
    assert claim_choice.choose(options, free, 3) == [0, 1, 0]
    assert claim_choice.choose(options, free, 3, order='pack') == [0, 0, 0]
    assert claim_choice.choose(options, free, 5, order='pack') == [
        0, 0, 0, 0, 1]


def test_search_finds_what_the_quick_pass_misses():
    # The best candidate alone leaves no room for a second of either.
    options = [_option(1, p1=2), _option(1, p1=1, p2=1)]
    free = {'p1': {'r': 2}, 'p2': {'r': 2}}
    assert claim_choice.choose(options, free, 2) == [1, 1]
    assert claim_choice.choose(options, free, 3) is None


def test_roots_rules():
    options = [_option(1, a=1), _option(1, b=1), _option(2, c=1)]
    free = {'a': {'r': 1}, 'b': {'r': 1}, 'c': {'r': 5}}
    assert claim_choice.choose(options, free, 2, 'distinct') == [0, 2]
    assert claim_choice.choose(options, free, 3, 'distinct') is None
    # Tree 1 holds two, tree 2 all three.
    assert claim_choice.choose(options, free, 2, 'same') == [0, 1]
    assert claim_choice.choose(options, free, 3, 'same') == [2, 2, 2]
    assert claim_choice.choose(options, free, 6, 'same') is None


def test_a_thousand_consumers():
    options = [_option(root, **{'p%d' % root: 1}) for root in range(10)]
    free = {'p%d' % root: {'r': 100} for root in range(10)}
    chosen = claim_choice.choose(options, free, 1000)
    assert sorted(chosen) == sorted(list(range(10)) * 100)
    assert claim_choice.choose(options, free, 1001) is None
