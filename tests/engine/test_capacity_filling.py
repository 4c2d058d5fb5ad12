"""filling.fill on hand-built rows: the combiner's values, no database.

Providers and classes are small integers: class 1 is VCPU-like, class 2
disk-like.
"""
import hypothesis
from hypothesis import strategies as st

from placement.candidates import candidate_search as cs
from placement.candidates import filling
from placement.candidates import layouts
from placement.candidates import tree_rules
from placement.objects import figures

# The rows a shape's one group reads for GET /capacity: classes 1 and 2,
# each row carrying their free space (see layouts.Layout).
LAYOUT = layouts.Layout({1: 0, 2: 0}, 'sqlite', with_capacity=True,
                           rendered=False)


def read_row(root, rp, fit, free_1, free_2):
    """A row as LAYOUT places its columns: root, rp, trait mask, class
    mask, listed (-1: not looked up), (free space, max_unit) per class,
    the uuid (not looked up)."""
    row = (root, rp, 0, fit, -1, free_1, free_1, free_2, free_2, None)
    assert LAYOUT.free_by_class(row) == [(1, free_1), (2, free_2)]
    return row


def request(*groups, sharing=None, isolate=False):
    return cs.Request(groups=list(groups),
                      isolate=tree_rules.Isolate() if isolate else None,
                      sharing=sharing or cs.Sharing(
                          {}, [{} for _ in groups], {}, {}))


def space(free):
    return dict(free)


def test_flat_trees_in_closed_form():
    group = cs.Group('', {1: 2, 2: 100}, spread=True)
    trees = [cs.Tree(1, [{1: 0b11}], {}, {}),
             # Serves class 1 only: no candidate.
             cs.Tree(2, [{2: 0b01}], {}, {}),
             # A tree whose one provider read is a child.
             cs.Tree(3, [{4: 0b11}], {}, {})]
    room = space({(1, 1): 7, (1, 2): 350, (2, 1): 10, (4, 1): 9,
                  (4, 2): 100})
    filled = filling.fill(request(group), trees, room)
    assert filled.fits == {1: 3, 3: 1}
    assert filled.short == {1: {1, 2}, 3: {2}}
    assert filled.placed == {1: {1: 6, 4: 2}, 2: {1: 300, 4: 100}}
    assert room[1, 1] == 1 and room[4, 2] == 0


def test_nested_tree_moves_on_when_its_first_child_is_full():
    group = cs.Group('', {1: 2}, spread=True)
    tree = cs.Tree(1, [{2: 1, 3: 1}], {}, {})
    filled = filling.fill(request(group), [tree],
                          space({(2, 1): 5, (3, 1): 4}))
    assert filled.fits == {1: 4}
    assert filled.placed == {1: {2: 4, 3: 4}}


def test_a_sharing_provider_is_drawn_down_by_the_trees_in_root_order():
    group = cs.Group('', {1: 1, 2: 10}, spread=True)
    sharing = cs.Sharing({9: 9}, [{1: [(9, 0b10)], 2: [(9, 0b10)]}], {},
                         {})
    trees = [cs.Tree(1, [{1: 0b01}], {}, {}),
             cs.Tree(2, [{2: 0b01}], {}, {}),
             cs.Tree(9, [{9: 0b10}], {}, {})]
    filled = filling.fill(
        request(group, sharing=sharing), trees,
        space({(1, 1): 3, (2, 1): 3, (9, 2): 45}))
    # Tree 1 runs out of class 1 and leaves 15 of the shared 45.
    assert filled.fits == {1: 3, 2: 1}
    assert filled.short == {1: {1}, 2: {2}}
    assert filled.placed[2][9] == 40


def test_two_groups_on_one_provider_are_summed_against_max_unit():
    groups = (cs.Group('1', {1: 2}), cs.Group('2', {1: 2}))

    def count(max_unit):
        limit = min(9, max_unit)
        tree = cs.Tree(1, [{1: 1}, {1: 1}], {(1, 1): limit}, {})
        return filling.fill(request(*groups), [tree],
                            space({(1, 1): 9})).fits

    # One instance takes 4 in one allocation: more than max_unit 3.
    assert count(3) == {}
    assert count(8) == {1: 2}


def test_isolated_groups_need_two_providers_each_time():
    groups = (cs.Group('1', {1: 1}), cs.Group('2', {1: 1}))
    tree = cs.Tree(1, [{2: 1, 3: 1}, {2: 1, 3: 1}], {}, {})
    filled = filling.fill(request(*groups, isolate=True), [tree],
                          space({(2, 1): 3, (3, 1): 5}))
    assert filled.fits == {1: 3}
    assert filled.placed == {1: {2: 3, 3: 3}}


def test_trees_set_apart_fill_as_the_trees_read_do():
    # Trait masks ride along.
    group = cs.Group('', {1: 2, 2: 10}, spread=True)
    providers = {1: (0b11, 7, 35), 2: (0b01, 5, 0), 3: (0b01, 8, 0),
                 4: (0b10, 0, 45), 5: (0b11, 9, 100), 6: (0b01, 10, 0),
                 7: (0b01, 1, 0), 8: (0b10, 0, 30)}
    shapes = [(1, [1]), (2, [2, 3, 4]), (5, [5]), (6, [6, 7, 8])]
    rows = {rp: read_row(root, rp, *providers[rp])
            for root, members in shapes for rp in members}
    kinds = {}
    for root, members in shapes:
        kind = tuple((providers[rp][0], 0) for rp in members)
        kinds.setdefault(kind, []).append(
            filling.ApartTree(root, members, [rows[rp] for rp in members]))
    apart = filling.Apart(kinds, [], LAYOUT)
    as_read = filling.fill(request(group), [], {}, apart)
    trees = [cs.Tree(root, [{rp: providers[rp][0] for rp in members}], {},
                     {}) for root, members in shapes]
    free = {(rp, rc): room for rp, (fit, *rooms) in providers.items()
            for rc, room in zip((1, 2), rooms) if fit >> (rc - 1) & 1}
    assert as_read == filling.fill(request(group), trees, free)
    # Tree 2 moves on from provider 2 to 3 when 2 is full, and the disk
    # of 4 that the first run left ends the second: 2 + 2 runs.
    # Tree 6, of the same kind, runs out of disk after its first run: the
    # second candidate does not run, and the first's end stays.
    assert as_read.fits == {1: 3, 2: 4, 5: 4, 6: 3}
    assert as_read.short[2] == {2} and as_read.short[6] == {2}
    # The rows read are left as they were.
    assert rows[2] == read_row(2, 2, 0b01, 5, 0)


def test_trees_set_apart_draw_on_a_pool_in_root_order():
    # Trees 1 and 3, set apart, draw disk from pool 9 around tree 2, read
    # as a tree: in root order, as the trees read do.
    group = cs.Group('', {1: 1, 2: 10}, spread=True)
    serving = {root: [(9, 0b10)] for root in (1, 2, 3)}
    sharing = cs.Sharing({9: 9}, [serving], {}, {})
    rows = {1: read_row(1, 1, 0b01, 3, None),
            3: read_row(3, 3, 0b01, 9, None)}
    apart = filling.Apart({}, [
        filling.ServedTree(root, (((0b01, 0),), tuple(serving[root])),
                           [root], [rows[root]])
        for root in (1, 3)], LAYOUT)
    free = {(2, 1): 2, (9, 2): 75}
    as_read = filling.fill(request(group, sharing=sharing),
                           [cs.Tree(2, [{2: 0b01}], {}, {})], dict(free),
                           apart)
    trees = [cs.Tree(root, [{root: 0b01}], {}, {}) for root in (1, 2, 3)]
    free.update({(1, 1): 3, (3, 1): 9})
    assert as_read == filling.fill(request(group, sharing=sharing), trees,
                                   free)
    # 3 + 2 instances take 50 of the pool's 75: tree 3 gets 2 of its 9.
    assert as_read.fits == {1: 3, 2: 2, 3: 2}
    assert as_read.short[3] == {2} and as_read.placed[2][9] == 70


@hypothesis.given(st.lists(st.integers(-10, 10 ** 6) | st.floats(
    -10, 10 ** 6, allow_nan=False)), st.integers(1, 10 ** 4))
def test_a_column_of_free_space_fits_as_each_value_does(frees, amount):
    """times_fitting_each, the fill's column form, is times_fitting of
    each value: whole instances, none where the space is short or
    over-committed."""
    each = figures.times_fitting_each(frees, amount)
    assert each == [figures.times_fitting(free, amount) for free in frees]
    assert all(type(times) is int and times >= 0 for times in each)
    assert all(times * amount <= max(free, 0)
               for times, free in zip(each, frees))
