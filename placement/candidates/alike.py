"""Groups alike but for their amounts (``group_key``), and shapes so
alike read at once (POST /capacity).

A flavor list asks the same group statement of the same providers once
per flavor, only the amounts differing.  One read gives them all (the
source's ``of_shapes``; in SQL ``statements.group_statement``'s
``each``) and every shape takes its own rows from it.  The trees
without a sharing provider in them are set apart on the way: the fill
counts them from their rows, without building a tree of rows for each.
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
        (group, *others) = query.groups.values()
        if others or not group.resources or query.same_subtree:
            continue
        key = (group_key(group), query.root_required)
        found.setdefault(key, []).append(name)
    return [names for names in found.values() if len(names) > 1]


def read(readings):
    """Read the one group of ``readings`` (reader.RequestSearch values,
    with ``rooms``, of shapes alike) at once.  {reading index: (its own
    rows, filling.Apart of its trees set apart)}."""
    rows = list(readings[0].rows.of_shapes(readings))
    count = len(readings)
    return {index: _set_apart(reading, rows, index, count)
            for index, reading in enumerate(readings)}


def _set_apart(reading, rows, index, count):
    """(The ``rows`` read for ``reading``, the ``index``-th of ``count``
    shapes read at once, as its own statement reads them, less those of
    trees without a sharing provider in them; those as a filling.Apart,
    their rows as read)."""
    sharing = reading.sharing
    inside = set(sharing.roots.values())
    (serving,) = sharing.serving
    layout = reading.groups[0].layout
    fit_of = layout.fit_of_shape(index, count)
    as_read_alone, trait_mask = layout.as_read_alone, layout.trait_mask
    kept, apart, served = [], {}, []
    # The rows come root by root.
    for root, tree in itertools.groupby(filter(fit_of, rows),
                                        key=layout.root):
        tree = list(tree)
        if root in inside:
            # As the shape's own statement reads it.
            kept.extend(as_read_alone(row, fit_of(row), count)
                        for row in tree)
            continue
        kind = tuple((fit_of(row), trait_mask(row) or 0) for row in tree)
        rps = list(map(layout.rp, tree))
        if root in serving:
            served.append((root, (kind, tuple(serving[root])), rps, tree))
        else:
            apart.setdefault(kind, []).append((root, rps, tree))
    return kept, filling.Apart(apart, served, layout)
