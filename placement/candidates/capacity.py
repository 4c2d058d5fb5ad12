"""GET and POST /capacity: how many more instances of each shape fit,
where, what ends each tree's run, and the free space no shape can use.

A shape is a parsed GET /allocation_candidates query.  It is read once
through the candidate pipeline (names, checks, reader) with every row's
free space, filled on copies of the rows (``filling.fill``), and the
answer is the same for one shape or many; shapes alike but for their
amounts share one read (``alike.py``); the providers' names, their
aggregates and the cloud's free space are read once for all shapes.
"""
import contextlib
import dataclasses
import heapq
import math

import sqlalchemy as sa

from placement import errors
from placement.candidates import alike as alike_mod
from placement.candidates import filling
from placement.candidates import lookup
from placement.candidates import names as names_mod
from placement.candidates import reader as reader_mod
from placement.data import tables
from placement.objects import figures

RP = tables.resource_providers
INV = tables.inventories
RPA = tables.resource_provider_aggregates
AGG = tables.placement_aggregates


@dataclasses.dataclass
class Counted:
    """One shape filled: ``classes`` {rc id: name} it requests."""
    filled: filling.Filled
    limit: int
    classes: dict


def count(conn, shapes, version):
    """{'shapes': {name: answer}, 'stranded': {class: amount}} of
    ``shapes`` {name: query.CandidateQuery} at microversion ``version``
    (api-ref/capacity.md defines the figures)."""
    readings = {}
    served = None
    for name, query in shapes.items():
        with named(name):
            readings[name] = _reading(conn, query, version, served)
        served = readings[name].served
    apart = {}
    for names in alike_mod.alike(shapes):
        found = alike_mod.read([readings[name] for name in names])
        apart.update(zip(names, found.values()))
    counted = {name: _fill(reading, shapes[name].limit, apart.get(name))
               for name, reading in readings.items()}
    roots = sorted({root for shape in counted.values()
                    for root, fits in shape.filled.fits.items() if fits})
    providers = _providers(conn, roots)
    aggregates = _aggregates(conn, roots)
    classes = {}
    for shape in counted.values():
        classes.update(shape.classes)
    free = _free(conn, classes)
    answers = {
        name: _answer(shape, providers, aggregates,
                      _stranded(free, [shape.filled], shape.classes))
        for name, shape in counted.items()}
    return {'shapes': answers,
            'stranded': _stranded(free, [shape.filled for shape in
                                         counted.values()], classes)}


@contextlib.contextmanager
def named(name):
    """A 400 about shape ``name`` says so (a GET's only shape, named
    '', answers as the list would)."""
    try:
        yield
    except errors.BadRequest as error:
        if not name:
            raise
        raise errors.BadRequest('Shape %s: %s' % (name, error.detail),
                                code=error.code) from None


def _reading(conn, query, version, served):
    """The RequestSearch of one shape: read as the list reads it, with
    every row's free space (and the sharing providers ``served``, when
    another shape read them)."""
    # Every tree is read: ``limit`` only cuts the providers listed.
    return reader_mod.RequestSearch(
        conn, dataclasses.replace(query, limit=None), version,
        names_mod.Names(conn, query), rooms=True, served=served)


def _fill(reading, limit, apart):
    """The Counted of one shape, filled from its ``reading`` and the
    trees it set ``apart`` (see alike.read; None if not read alike)."""
    names = reading.names
    request = reading.request()
    trees = list(reading.trees(
        apart=() if apart is None else [tree[0] for tree in apart.served]))
    reading.close()
    free = {}
    for layout, parts in reading.seen:
        if not layout.limits:
            continue
        rooms = layout.rooms
        for rp, part in parts.items():
            for rc, room in rooms(part):
                free[rp, rc] = room
    classes = {rc: names.rc_names[rc] for group in request.groups
               for rc in group.amounts}
    return Counted(filling.fill(request, trees, free, apart), limit,
                   classes)


def _answer(shape, providers, aggregates, stranded):
    filled = shape.filled
    # Ordered by fits, most first, then name and uuid.
    found = [(-fits, providers[root][1], providers[root][0], root)
             for root, fits in filled.fits.items() if fits]
    # Only ``limit`` of the trees are listed: those are picked, not all
    # sorted.
    if shape.limit is None:
        found.sort()
    else:
        found = heapq.nsmallest(shape.limit, found)
    # Few sets of classes end the runs: each is named once.
    limited_by = {}
    for _, _, _, root in found:
        short = filled.short[root]
        if short not in limited_by:
            limited_by[short] = sorted(shape.classes[rc] for rc in short)
    per_aggregate = {}
    for root, fits in filled.fits.items():
        if fits:
            for uuid in aggregates.get(root, ()):
                per_aggregate[uuid] = per_aggregate.get(uuid, 0) + fits
    return {
        'fits': sum(filled.fits.values()),
        'providers': [{'uuid': uuid, 'name': name, 'fits': -fits,
                       'limited_by': limited_by[filled.short[root]]}
                      for fits, name, uuid, root in found],
        'aggregates': [{'uuid': uuid, 'fits': fits} for uuid, fits in
                       sorted(per_aggregate.items(),
                              key=lambda item: (-item[1], item[0]))],
        'stranded': stranded,
    }


def _stranded(free, filled, classes):
    """{class name: free space left that none of ``filled`` (Filled
    values) takes}: per provider and class the free space less the most
    any of them placed there, summed over the cloud, rounded down."""
    if len(filled) == 1:
        most = filled[0].placed
    else:
        most = {}
        for one in filled:
            for key, amount in one.placed.items():
                if amount > most.get(key, 0):
                    most[key] = amount
    taken = dict.fromkeys(classes, 0)
    for (_, rc), amount in most.items():
        taken[rc] += amount
    return {name: max(math.floor(free.get(rc, 0) - taken[rc]), 0)
            for rc, name in classes.items()}


def _free(conn, classes):
    """{rc id: free space} of ``classes`` summed over every inventory of
    the cloud (over-used inventories count none)."""
    if not classes:
        return {}
    usage = figures.usage_table(classes)
    free = figures.free(INV, usage.c.used)
    rows = conn.execute(
        sa.select(INV.c.resource_class_id,
                  sa.func.sum(sa.case((free > 0, free), else_=0)))
        .select_from(INV.outerjoin(usage, sa.and_(
            usage.c.resource_provider_id == INV.c.resource_provider_id,
            usage.c.resource_class_id == INV.c.resource_class_id)))
        .where(INV.c.resource_class_id.in_(sorted(classes)))
        .group_by(INV.c.resource_class_id))
    return {rc: float(total) for rc, total in rows}


def _providers(conn, roots):
    """{root: (uuid, name)}."""
    if not roots:
        return {}
    wanted = set(roots)
    return {rp: (uuid, name) for rp, uuid, name in lookup.rows_for(
        conn, sa.select(RP.c.id, RP.c.uuid, RP.c.name), wanted, RP.c.id)
        if rp in wanted}


def _aggregates(conn, roots):
    """{root: [aggregate uuid, ...]}."""
    found = {}
    if not roots:
        return found
    wanted = set(roots)
    for rp, uuid in lookup.rows_for(
            conn, sa.select(RPA.c.resource_provider_id, AGG.c.uuid)
            .select_from(RPA.join(AGG, AGG.c.id == RPA.c.aggregate_id)),
            wanted, RPA.c.resource_provider_id):
        if rp in wanted:
            found.setdefault(rp, []).append(uuid)
    return found
