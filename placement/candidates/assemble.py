"""The assemble step: the groups' rows, merged by root, into one
``candidate_search.Tree`` per tree, lazily and in root order.

A stream yields ``(root, index, data)`` per tree: a group's rows
(``index`` the group's), a root only sharing providers serve
(``ANCHORED``), or the tree's parents for ``same_subtree``
(``PARENTS``).
"""
import heapq
import itertools
import operator

from placement.candidates import candidate_search

ANCHORED = -1
PARENTS = -2

_ROOT = operator.attrgetter('root')
_FIRST = operator.itemgetter(0)


def by_root(rows, index):
    """(root, index, [ProviderRow, ...]): a group's rows, a tree at a
    time."""
    for root, group in itertools.groupby(rows, key=_ROOT):
        yield root, index, list(group)


def parents_by_root(rows):
    """(root, PARENTS, {rp: parent}) per tree from (root, rp, parent)
    rows in root order."""
    for root, group in itertools.groupby(rows, key=_FIRST):
        yield root, PARENTS, {rp: parent for _, rp, parent in group}


def trees(streams, read_by):
    """The Trees of ``streams`` merged by root; ``read_by``: per group
    the index of the group whose rows it shares (reader.RequestSearch)."""
    if len(streams) == 1 and len(read_by) == 1:
        for root, _, rows in streams[0]:
            limits = {}
            masks = {}
            yield candidate_search.Tree(root, [_members(rows, limits, masks)],
                                        limits, masks, None)
        return
    merged = heapq.merge(*streams, key=_FIRST)
    for root, items in itertools.groupby(merged, key=_FIRST):
        own = [()] * len(read_by)
        parents = None
        for _, index, data in items:
            if index >= 0:
                own[index] = data
            elif index == PARENTS:
                parents = data
        yield _tree(root, own, parents, read_by)


def _tree(root, own, parents, read_by):
    """A Tree from the ProviderRow lists of the groups that read
    (``own``, by group index)."""
    limits = {}
    masks = {}
    members = []
    for index, reader in enumerate(read_by):
        # Alike groups share one dict (never changed).
        members.append(members[reader] if reader != index
                       else _members(own[index], limits, masks))
    return candidate_search.Tree(root, members, limits, masks, parents)


def _members(rows, limits, masks):
    """{rp: class mask} of one group's ProviderRows, their limits and
    trait masks noted in ``limits`` and ``masks``."""
    for row in rows:
        if row.limits or row.traits:
            note(row, limits, masks)
    return {row.rp: row.fit for row in rows}


def note(row, limits, masks):
    """Copy a ProviderRow's limits and trait mask into the combiner's
    dicts."""
    for rc, limit in row.limits.items():
        limits[(row.rp, rc)] = limit
    if row.traits:
        masks[row.rp] = row.traits
