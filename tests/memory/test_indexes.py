"""Who-has-what indexes brought up to date equal ones built whole."""
from placement.memory import indexes


def _parts(providers):
    """(providers, inventories, usage, traits, aggregates, holdings) of
    {rp: (root, traits)}, as a snapshot holds them."""
    return ({rp: _Provider(root) for rp, (root, _) in providers.items()},
            {}, {}, {rp: frozenset(traits)
                     for rp, (_, traits) in providers.items()}, {}, {})


class _Provider:
    def __init__(self, root_id):
        self.root_id = root_id


def test_a_key_left_by_one_provider_and_joined_by_another():
    """Provider 1 gives up the only trait X and provider 2 takes it, both
    in one change: X stays filed, under provider 2."""
    before = _parts({1: (1, {'X'}), 2: (2, set())})
    after = _parts({1: (1, set()), 2: (2, {'X'})})
    old = indexes.build(before)
    assert indexes.changed(old, before, after, [1, 2]) == indexes.build(after)
    assert indexes.changed(old, before, after, [2, 1]) == indexes.build(after)
    # The old version is never changed.
    assert old == indexes.build(before)


def test_a_key_left_by_its_last_provider_is_dropped():
    before = _parts({1: (1, {'X'}), 2: (2, {'Y'})})
    after = _parts({1: (1, set()), 2: (2, {'Y'})})
    found = indexes.changed(indexes.build(before), before, after, [1])
    assert 'X' not in found.traits
    assert found == indexes.build(after)
