"""Shapes alike but for their amounts, read at once (POST /capacity).

A flavor list asks the same group statement of the same providers once
per flavor, only the amounts differing.  One statement reads them all
(``statements.group_statement``'s ``each``) and every shape takes its
own rows from it.  The trees without a sharing provider in them are set
apart on the way: the fill counts them from their rows, without
building a tree of rows for each.
"""
import itertools
import operator

from placement.candidates import filling
from placement.candidates import lookup
from placement.candidates import statements


def alike(shapes):
    """[[name, ...]] of two or more ``shapes`` {name: CandidateQuery} of
    one group each that differ in their amounts only (the same classes in
    the same order)."""
    found = {}
    for name, query in shapes.items():
        (group, *others) = query.groups.values()
        if others or not group.resources or query.same_subtree:
            continue
        # What the group's statement reads, but for the amounts.
        key = (group.suffix, tuple(group.resources), group.traits,
               group.member_of, group.in_tree, query.root_required)
        found.setdefault(key, []).append(name)
    return [names for names in found.values() if len(names) > 1]


def read(readings):
    """Read the one group of ``readings`` (reader.RequestSearch values,
    with ``rooms``, of shapes alike) in one statement; each takes its
    own rows.  {reading index: filling.Apart of its trees set apart}."""
    first = readings[0]
    group = first.groups[0]
    stmt = statements.group_statement(
        first.names, group.stack, group.spec.spread, group.spec.amounts,
        group.layout, first.conn.dialect.name, first.summary_classes,
        every_row=True,
        each=[reading.groups[0].spec.amounts for reading in readings])
    rows = lookup.fetch(first.conn, first.every_tree(stmt))
    count = len(readings)
    # Each shape's class mask is one of the last ``count`` columns.
    return {index: _set_apart(reading, rows, index - count, count)
            for index, reading in enumerate(readings)}


def _set_apart(reading, rows, at, count):
    """Give ``reading`` the ``rows`` read for it (its class mask at
    ``at``, ``count`` masks in all), less those of trees without a sharing
    provider in them: those are returned as a filling.Apart, their rows
    as read."""
    sharing = reading.sharing
    inside = set(sharing.roots.values())
    (serving,) = sharing.serving
    kept, apart, served = [], {}, []
    # The rows come root by root.
    for root, tree in itertools.groupby(filter(operator.itemgetter(at), rows),
                                        key=operator.itemgetter(0)):
        tree = list(tree)
        if root in inside:
            # As the reader reads a row: its own class mask in place of
            # that of any, without the other masks.
            kept.extend((*row[:3], row[at], *row[4:-count]) for row in tree)
            continue
        kind = tuple((row[at], row[2] or 0) for row in tree)
        rps = [row[1] for row in tree]
        if root in serving:
            served.append((root, (kind, tuple(serving[root])), rps, tree))
        else:
            apart.setdefault(kind, []).append((root, rps, tree))
    reading.groups[0].rows = kept
    return filling.Apart(apart, served,
                         reading.groups[0].layout.room_in_row)
