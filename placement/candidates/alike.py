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

From a snapshot, what a version set apart is patched for the next ones:
only the trees their changes touched, and those whose sharing providers
serve them otherwise, are read and set apart again (``_patch``).
"""
import heapq
import itertools
import operator
import typing

from placement.candidates import filling

# Past one tree touched in this many of those a shape set apart, they
# are all set apart again rather than patched.
_PATCHED_BELOW = 4
_ROOT = operator.attrgetter('root')


class _SetApart(typing.NamedTuple):
    """What a read set apart, ``found`` {reading index: (rows,
    filling.Apart)}, and ``service`` per reading what its sharing
    providers served as read (see ``_services``), which a patch
    compares."""
    found: dict
    service: list


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
    return _kept('set apart', readings, lambda roots: _read(readings, roots))


def _read(readings, roots):
    """``read``'s answer, of the trees of ``roots`` (sorted) only unless
    None."""
    layout = readings[0].groups[0].layout
    trees = _by_root(layout, readings[0].rows.of_shapes(readings, roots))
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

    def read_trees(only):
        if only is None:
            only = roots
        elif roots is not None:
            only = sorted(set(only).intersection(roots))
        return {0: _set_apart(
            reading, _by_root(layout, reading.rows.of_trees(0, only)),
            layout.fit, lambda row, fit: row)}
    return _kept(('set apart alone', None if roots is None else tuple(roots)),
                 [reading], read_trees)[0]


def _kept(label, readings, read_trees):
    """``read_trees(None)``, {reading index: (rows, filling.Apart)} of
    every tree, kept by the source under ``label``; from a snapshot,
    patched for a later version by ``read_trees(sorted roots)`` of the
    trees that changed (see ``_patch``)."""
    return readings[0].source.kept(
        label, readings,
        lambda: _SetApart(read_trees(None), _services(readings)),
        _held_all, _patch(readings, read_trees)).found


def _services(readings):
    """Per reading (of one group), (the roots of the trees holding a
    sharing provider, {root: the sharing providers serving it, with
    their class masks}): what the trees' places in a filling.Apart
    depend on beside their own rows."""
    found = []
    for reading in readings:
        sharing = reading.sharing
        (serving,) = sharing.serving
        found.append((frozenset(sharing.roots.values()),
                      {root: tuple(pairs) for root, pairs in serving.items()}))
    return found


def _patch(readings, read_trees):
    """patch(a _SetApart of an earlier snapshot version, {root of each
    tree touched since}): that _SetApart for ``readings``, the trees
    touched and those now served otherwise read again by
    ``read_trees``; None when too many changed."""
    def patch(old, touched):
        changed = set(touched)
        services = _services(readings)
        for (inside, serving), (now_inside, now_serving) in zip(
                old.service, services):
            changed |= inside.symmetric_difference(now_inside)
            changed.update(root for root in serving.keys()
                           | now_serving.keys()
                           if serving.get(root) != now_serving.get(root))
        if len(changed) * _PATCHED_BELOW * len(old.found) > _held_all(old):
            return None
        fresh = read_trees(sorted(changed))
        layout = readings[0].groups[0].layout
        return _SetApart({index: _merged(found, fresh[index], changed,
                                         layout)
                          for index, found in old.found.items()}, services)
    return patch


def _merged(old, fresh, changed, layout):
    """(rows, filling.Apart) ``old`` with the trees of the roots
    ``changed`` those of ``fresh``, each list in root order as read."""
    (kept, apart), (fresh_kept, fresh_apart) = old, fresh

    def merged(items, new_items, root_of):
        return list(heapq.merge(
            [item for item in items if root_of(item) not in changed],
            new_items, key=root_of))
    # The kinds in any order: their trees share no provider, and the
    # answer is sorted.
    kinds = {kind: merged(apart.kinds.get(kind, ()),
                          fresh_apart.kinds.get(kind, ()), _ROOT)
             for kind in {**apart.kinds, **fresh_apart.kinds}}
    return (merged(kept, fresh_kept, layout.root),
            filling.Apart(kinds, merged(apart.served, fresh_apart.served,
                                        _ROOT), fresh_apart.layout))


def _held_all(set_apart):
    """How many trees and rows a _SetApart holds."""
    return sum(map(_held, set_apart.found.values()))


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
