"""GET and POST /capacity: how many more instances of each shape fit,
where, what ends each tree's run, and the free space no shape can use.

A shape is a parsed GET /allocation_candidates query.  It is read once
through the candidate pipeline (names, checks, reader) with every row's
free space, filled on copies of the rows (``filling.fill``), and the
answer is the same for one shape or many; shapes alike but for their
amounts share one read (``alike.py``); the providers' names, their
aggregates and the cloud's free space are read once for all shapes.

An aggregate's figure is the count of the shape pinned to it by
``member_of`` on its unsuffixed group, as nova pins an availability
zone.  Where no sharing provider the shape can use touches the
aggregate's trees, and the aggregate holds no provider without its root,
that is exactly its roots' counts summed; only the other aggregates are
counted again, pinned (``_pinned_fits``).
"""
import contextlib
import dataclasses
import heapq

import sqlalchemy as sa

from placement import errors
from placement import tables
from placement.candidates import alike as alike_mod
from placement.candidates import filling
from placement.candidates import lookup
from placement.candidates import names as names_mod
from placement.candidates import reader as reader_mod
from placement.candidates import stranded as stranded_mod

RP = tables.resource_providers
RPA = tables.resource_provider_aggregates
AGG = tables.placement_aggregates
_ROOT_RPA = RPA.alias('root_rpa')


@dataclasses.dataclass
class Counted:
    """One shape filled: ``classes`` {rc id: name} it requests."""
    filled: filling.Filled
    limit: int
    classes: dict


def count(conn, shapes, version):
    """{'shapes': {name: answer}, 'stranded': {class: amount},
    'stranded_elsewhere': {class: amount}} of ``shapes`` {name:
    query.CandidateQuery} at microversion ``version`` (api-ref/capacity.md
    defines the figures)."""
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
    memberships, pinned = _pinned_counts(conn, shapes, readings, roots,
                                         version)
    classes = {}
    for shape in counted.values():
        classes.update(shape.classes)
    scoped = {name: stranded_mod.scopes(reading)
              for name, reading in readings.items()}
    everyone = [scope for found in scoped.values() for scope in found]
    total, within = stranded_mod.free(conn, classes,
                                      {**scoped, None: everyone})
    answers = {name: _answer(
        shape, providers, _per_aggregate(shape, memberships, pinned[name]),
        stranded_mod.split(total, within[name], [shape.filled],
                           shape.classes))
        for name, shape in counted.items()}
    left, elsewhere = stranded_mod.split(
        total, within[None], [shape.filled for shape in counted.values()],
        classes)
    return {'shapes': answers, 'stranded': left,
            'stranded_elsewhere': elsewhere}


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


def _pinned_counts(conn, shapes, readings, roots, version):
    """({provider: [aggregate uuid, ...]} of the ``roots`` and of the
    providers the shapes draw on, {name: {aggregate uuid: fits of the
    shape pinned to it}}): pinned counts only where they may differ from
    the roots' sum (see the module's doc); a shape without an unsuffixed
    group has nowhere to pin."""
    pinnable = [name for name in shapes if '' in shapes[name].groups]
    drawn = {name: _drawn_on(readings[name]) for name in pinnable}
    memberships = _aggregates(conn, sorted(set(roots).union(*drawn.values())))
    loose = _loose_aggregates(conn) if pinnable else set()
    pinned = dict.fromkeys(shapes, {})
    for name in pinnable:
        reading = readings[name]
        pinned[name] = {
            uuid: _pinned_fits(conn, shapes[name], uuid, version,
                               reading.served)
            for uuid in sorted(loose.union(*(
                memberships.get(rp, ()) for rp in drawn[name])))}
    return memberships, pinned


def _drawn_on(reading):
    """The providers a shape's count pinned to an aggregate holding one
    of them may differ for: the sharing providers able to serve it,
    their roots and the roots of the trees they serve."""
    sharing = reading.sharing
    found = set(sharing.roots).union(sharing.roots.values())
    for by_root in sharing.serving:
        found.update(by_root)
    return found


def _pinned_fits(conn, query, uuid, version, served):
    """``fits`` of ``query`` with ``member_of=<uuid>`` added to its
    unsuffixed group, as nova pins an availability zone."""
    group = query.groups['']
    member_of = dataclasses.replace(
        group.member_of,
        required=(*group.member_of.required, frozenset([uuid])))
    pinned = dataclasses.replace(query, groups={
        **query.groups, '': dataclasses.replace(group, member_of=member_of)})
    filled = _fill(_reading(conn, pinned, version, served), None,
                   None).filled
    return sum(filled.fits.values())


def _per_aggregate(shape, memberships, pinned):
    """The ``aggregates`` entries of a shape: per aggregate its roots'
    ``fits`` summed, or its ``pinned`` count {uuid: fits} where counted,
    with that sum as ``roots_fits`` when they differ."""
    summed = dict.fromkeys(pinned, 0)
    for root, fits in shape.filled.fits.items():
        if fits:
            for uuid in memberships.get(root, ()):
                summed[uuid] = summed.get(uuid, 0) + fits
    entries = []
    for uuid, roots_fits in summed.items():
        entry = {'uuid': uuid, 'fits': pinned.get(uuid, roots_fits)}
        if entry['fits'] != roots_fits:
            entry['roots_fits'] = roots_fits
        if entry['fits'] or roots_fits:
            entries.append(entry)
    return sorted(entries, key=lambda entry: (-entry['fits'], entry['uuid']))


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
    left, elsewhere = stranded
    return {
        'fits': sum(filled.fits.values()),
        'providers': [{'uuid': uuid, 'name': name, 'fits': -fits,
                       'limited_by': limited_by[filled.short[root]]}
                      for fits, name, uuid, root in found],
        'aggregates': aggregates,
        'stranded': left,
        'stranded_elsewhere': elsewhere,
    }


def _providers(conn, roots):
    """{root: (uuid, name)}."""
    if not roots:
        return {}
    wanted = set(roots)
    return {rp: (uuid, name) for rp, uuid, name in lookup.rows_for(
        conn, sa.select(RP.c.id, RP.c.uuid, RP.c.name), wanted, RP.c.id)
        if rp in wanted}


def _aggregates(conn, rps):
    """{provider: [aggregate uuid, ...]} of the providers ``rps``."""
    found = {}
    if not rps:
        return found
    wanted = set(rps)
    for rp, uuid in lookup.rows_for(
            conn, sa.select(RPA.c.resource_provider_id, AGG.c.uuid)
            .select_from(RPA.join(AGG, AGG.c.id == RPA.c.aggregate_id)),
            wanted, RPA.c.resource_provider_id):
        if rp in wanted:
            found.setdefault(rp, []).append(uuid)
    return found


def _loose_aggregates(conn):
    """{uuid} of the aggregates holding a provider whose root they do not
    hold: pinned to one, a tree outside it may serve the unsuffixed group
    from that provider."""
    root_in = sa.exists().where(
        _ROOT_RPA.c.resource_provider_id == RP.c.root_provider_id,
        _ROOT_RPA.c.aggregate_id == RPA.c.aggregate_id)
    return {uuid for uuid, in conn.execute(
        sa.select(AGG.c.uuid).distinct()
        .select_from(RPA.join(AGG, AGG.c.id == RPA.c.aggregate_id)
                     .join(RP, RP.c.id == RPA.c.resource_provider_id))
        .where(RP.c.id != RP.c.root_provider_id, ~root_in))}
