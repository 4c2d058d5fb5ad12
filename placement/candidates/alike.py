"""Groups alike but for their amounts (``group_key``), and shapes so
alike read at once (POST /capacity).

A flavor list asks the same group statement of the same providers once
per flavor, only the amounts differing.  One read gives them all (the
source's ``of_shapes``; in SQL ``statements.group_statement``'s
``each``) and every shape takes its own rows from it.  The trees
without a sharing provider in them are set apart on the way: the fill
counts them from their rows, without building a tree of rows for each.
A shape of one group read on its own (``read_alone``: one alone of its
kind, or pinned to an aggregate) has its trees set apart alike.
"""
import itertools

from placement.candidates import filling


def group_key(group):
    """What the statement of ``group`` (a query.RequestGroup) reads, but
    for its amounts: groups with one key ask the same of the same
    providers (the same classes in the same order), be they groups of
    one request (the reader reads them once) or shapes of POST
    /capacity (read at once here)."""
    return (group.suffix == '', tuple(group.resources), group.traits,
            group.member_of, group.in_tree)


def alike(shapes):
    """[[name, ...]] of two or more ``shapes`` {name: CandidateQuery} of
    one group each that differ in their amounts only."""
    found = {}
    for name, query in shapes.items():
        if one_group(query):
            (group,) = query.groups.values()
            key = (group_key(group), query.root_required)
            found.setdefault(key, []).append(name)
    return [names for names in found.values() if len(names) > 1]


def one_group(query):
    """Whether ``query`` (a CandidateQuery) asks resources of one group:
    its trees can be set apart (``read``, ``read_alone``)."""
    (group, *others) = query.groups.values()
    return not others and bool(group.resources) and not query.same_subtree


def read(readings):
    """Read the one group of ``readings`` (reader.RequestSearch values,
    with ``rooms``, of shapes alike) at once.  {reading index: (its own
    rows, filling.Apart of its trees set apart)}, kept by the source as
    long as its rows stay the same (a snapshot version), never
    changed."""
    return readings[0].source.kept(
        'set apart', readings, lambda: _read(readings),
        lambda found: sum(map(_held, found.values())))


def _read(readings):
    layout = readings[0].groups[0].layout
    trees = _by_root(layout, readings[0].rows.of_shapes(readings))
    count = len(readings)

    def as_read_alone(row, fit):
        return layout.as_read_alone(row, fit, count)
    return {index: _set_apart(reading, trees,
                              layout.fit_of_shape(index, count),
                              as_read_alone)
            for index, reading in enumerate(readings)}


def read_alone(reading, roots=None):
    """``read`` of one reading of a ``one_group`` query, by its own
    statement: (its rows, filling.Apart), of the trees of ``roots``
    (sorted) only when given."""
    layout = reading.groups[0].layout
    return reading.source.kept(
        ('set apart alone', None if roots is None else tuple(roots)),
        [reading], lambda: _set_apart(
            reading, _by_root(layout, reading.rows.of_trees(0, roots)),
            layout.fit, lambda row, fit: row), _held)


def _held(set_apart):
    """How many trees and rows a ``_set_apart`` holds."""
    kept, apart = set_apart
    return (len(kept) + len(apart.served)
            + sum(map(len, apart.kinds.values())))


def _by_root(layout, rows):
    """[(filling.ApartTree, (trait mask, ...))] of each tree of ``rows``
    (they come root by root): shapes read at once share them."""
    found = []
    for root, tree in itertools.groupby(rows, key=layout.root):
        tree = tuple(tree)
        found.append((filling.ApartTree(root, tuple(map(layout.rp, tree)),
                                         tree),
                      tuple(layout.trait_mask(row) or 0 for row in tree)))
    return found


def _set_apart(reading, trees, fit_of, as_read_alone):
    """(The rows of ``trees`` (``_by_root``) read for ``reading``, as its
    own statement reads them, less those of trees without a sharing
    provider in them; those as a filling.Apart, their rows as read).
    ``fit_of(row)``: the reading's class mask in a row (0: not read for
    it); ``as_read_alone(row, that mask)``: the row as the reading's own
    statement reads it."""
    sharing = reading.sharing
    inside = set(sharing.roots.values())
    (serving,) = sharing.serving
    kept, apart, served = [], {}, []
    # Trees alike served alike share one (kind, serving) pair.
    pairs = {}
    for tree, traits in trees:
        root, rps, rows = tree
        fits = tuple(map(fit_of, rows))
        if not all(fits):
            if not any(fits):
                continue
            rps, rows, traits = (tuple(itertools.compress(rps, fits)),
                                 tuple(itertools.compress(rows, fits)),
                                 tuple(itertools.compress(traits, fits)))
            fits = tuple(filter(None, fits))
            tree = filling.ApartTree(root, rps, rows)
        if root in inside:
            # As the shape's own statement reads it.
            kept.extend(map(as_read_alone, rows, fits))
            continue
        kind = tuple(zip(fits, traits))
        if root in serving:
            pair = (kind, tuple(serving[root]))
            served.append(filling.ServedTree(
                root, pairs.setdefault(pair, pair), rps, rows))
        else:
            apart.setdefault(kind, []).append(tree)
    return kept, filling.Apart(apart, served, reading.groups[0].layout)
