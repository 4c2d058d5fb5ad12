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
zone.  That is exactly its roots' counts summed unless a sharing
provider the shape can use crosses the aggregate's bounds (serves one
of its trees from outside, or from inside a tree outside) or the
aggregate holds a provider but not its root; only those aggregates are
counted again, pinned (``_pinned``).  Of a crossed aggregate only the
trees the crossing providers touch are filled again (the others keep
their counts); one holding a provider without its root is counted whole.
"""
import contextlib
import dataclasses
import heapq
import itertools

from placement import errors
from placement.candidates import alike as alike_mod
from placement.candidates import changes
from placement.candidates import filling
from placement.candidates import stranded as stranded_mod


@dataclasses.dataclass
class Counted:
    """One shape filled: ``classes`` {rc id: name} it requests."""
    filled: filling.Filled
    limit: int
    classes: dict


def count(where, shapes, version, read, changed=None):
    """{'shapes': {name: answer}, 'stranded': {class: amount},
    'stranded_elsewhere': {class: amount}} of ``shapes`` {name:
    query.CandidateQuery} at microversion ``version`` (api-ref/capacity.md
    defines the figures), read from ``where`` (the read step's source)
    by ``read``, the stack's read step (see stacks.count_capacity);
    ``changed``: the changes.Changed to count with, if any."""
    readings, counted = _counted(shapes, version, read, changed=changed)
    roots = sorted({root for shape in counted.values()
                    for root, fits in shape.filled.fits.items() if fits})
    providers = where.labels(roots)
    if changed is not None:
        providers.update(changed.names())
    members, pinned = _pinned_counts(where, shapes, readings, counted,
                                     roots, version, read, changed)
    classes = {}
    for shape in counted.values():
        classes.update(shape.classes)
    scoped = {name: stranded_mod.scopes(reading)
              for name, reading in readings.items()}
    everyone = [scope for found in scoped.values() for scope in found]
    total, within = where.free_space(classes, {**scoped, None: everyone},
                                     changed)
    answers = {name: _answer(
        shape, providers, _per_aggregate(shape, members, pinned[name]),
        stranded_mod.split(total, within[name], [shape.filled],
                           shape.classes))
        for name, shape in counted.items()}
    left, elsewhere = stranded_mod.split(
        total, within[None], [shape.filled for shape in counted.values()],
        classes)
    return {'shapes': answers, 'stranded': left,
            'stranded_elsewhere': elsewhere}


def _counted(shapes, version, read, served=None, changed=None):
    """({name: reader.RequestSearch}, {name: Counted}) of ``shapes``,
    those alike read at once; ``served`` as ``_reading`` takes it,
    ``changed`` as ``_fill``."""
    readings = {}
    for name, query in shapes.items():
        with named(name):
            readings[name] = _reading(read, query, version, served)
        served = readings[name].served
    alike = {}
    for names in alike_mod.alike(shapes):
        found = alike_mod.read([readings[name] for name in names])
        alike.update(zip(names, found.values()))
    return readings, {
        name: _fill(reading, shapes[name].limit,
                    *alike.get(name, (None, None)), changed=changed)
        for name, reading in readings.items()}


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


def _reading(read, query, version, served):
    """The RequestSearch of one shape by the ``read`` step (and the
    sharing providers ``served``, when another shape read them)."""
    # Every tree is read: ``limit`` only cuts the providers listed.
    return read(dataclasses.replace(query, limit=None), version,
                served=served)


def _fill(reading, limit, rows, apart, roots=None, changed=None):
    """The Counted of one shape, filled from its ``reading``, or from the
    ``rows`` and the trees set ``apart`` of its read with shapes alike
    (see alike.read; None if not read alike: a shape of one group has
    its own set apart, alike.read_alone); of the trees of ``roots``
    (sorted) only, if given; as ``changed`` (changes.Changed), if
    given."""
    names = reading.names
    request = reading.request()
    if rows is None and alike_mod.one_group(reading.query):
        rows, apart = alike_mod.read_alone(reading, roots)
    trees = list(reading.trees(
        roots=roots, rows=rows,
        apart=() if apart is None else [tree.root for tree in apart.served]))
    reading.close()
    free = reading.rooms()
    if changed is not None:
        applied = changes.Applied(changed, reading, request)
        request = applied.request
        trees, free, apart = applied.trees(
            trees, free, apart, None if roots is None else set(roots))
    classes = {rc: names.rc_names[rc] for group in request.groups
               for rc in group.amounts}
    return Counted(filling.fill(request, trees, free, apart), limit,
                   classes)


def _pinned_counts(where, shapes, readings, counted, roots, version, read,
                   changed):
    """({aggregate uuid: [provider, ...]} of the ``roots`` and of the
    sharing providers and trees the shapes draw on, {name: {aggregate
    uuid: fits of the shape pinned to it}}): pinned counts only where
    they may differ from the roots' sum (see the module's doc); a shape
    without an unsuffixed group has nowhere to pin; ``changed`` as
    ``_fill`` takes it."""
    pinnable = [name for name in shapes if '' in shapes[name].groups]
    served_by = {name: _served_by(readings[name]) for name in pinnable}
    drawn = set(roots)
    for found in served_by.values():
        for rp, (root, anchors) in found.items():
            drawn.update(anchors, (rp, root))
    memberships = where.memberships(sorted(drawn))
    if changed is not None:
        memberships = changed.memberships(memberships)
    members = _members(memberships)
    loose = where.loose_aggregates() if pinnable else set()
    served = next(iter(readings.values())).served
    pinned = {name: {} for name in shapes}
    for name in pinnable:
        crossed = _crossed(served_by[name], memberships) - loose
        fits = counted[name].filled.fits
        summed = _roots_sums(fits, members) if crossed else {}
        for uuid in sorted(crossed):
            # Only the trees a sharing provider of the aggregate serves,
            # or one serves in it, can change once pinned: the others are
            # filled as they were, and no tree outside it gets one.
            again = _refilled(served_by[name], memberships, uuid)
            if changed is not None:
                again = changed.with_copies(again)
            filled = _fill(_reading(read, _pinned(shapes[name], uuid),
                                    version, served),
                           None, None, None, sorted(again), changed).filled
            pinned[name][uuid] = (
                sum(filled.fits.values()) + summed.get(uuid, 0)
                - sum(fits[root] for root in again if root in fits
                      and uuid in memberships.get(root, ())))
    # Where trees outside the aggregate have providers in it, each is
    # counted whole, as more shapes (those of one family pinned to one
    # aggregate are read at once, as alike shapes are).
    _, whole = _counted({
        (name, uuid): _pinned(shapes[name], uuid)
        for name in pinnable for uuid in sorted(loose)}, version, read,
        served, changed)
    for (name, uuid), shape in whole.items():
        pinned[name][uuid] = sum(shape.filled.fits.values())
    return members, pinned


def _served_by(reading):
    """{sharing provider able to serve some group of a shape: (its root,
    {roots of the other trees it serves})}."""
    sharing = reading.sharing
    found = {rp: (root, set()) for rp, root in sharing.roots.items()}
    for by_root in sharing.serving:
        for anchor, pairs in by_root.items():
            for rp, _ in pairs:
                found[rp][1].add(anchor)
    return found


def _crossed(served_by, memberships):
    """{aggregate uuid} a sharing provider crosses: it serves a tree of
    the aggregate from outside (pinned, the tree cannot use it), or a
    tree outside from inside (pinned, that tree no longer draws on it
    first, or draws on it alone)."""
    found = set()
    for rp, (root, anchors) in served_by.items():
        # A provider is in an aggregate of its root's too (member_of).
        inside = set(memberships.get(rp, ())).union(
            memberships.get(root, ()))
        for anchor in anchors:
            found |= inside.symmetric_difference(memberships.get(anchor, ()))
    return found


def _refilled(served_by, memberships, uuid):
    """{root} of the trees whose count may change once pinned to the
    aggregate ``uuid`` (holding no provider without its root): those a
    sharing provider in it serves, its own among them, and those in it a
    sharing provider serves."""
    found = set()
    for rp, (root, anchors) in served_by.items():
        if uuid in memberships.get(root, ()):
            found.add(root)
            found.update(anchors)
        else:
            found.update(anchor for anchor in anchors
                         if uuid in memberships.get(anchor, ()))
    return found


def _pinned(query, uuid):
    """``query`` with ``member_of=<uuid>`` added to its unsuffixed group,
    as nova pins an availability zone."""
    group = query.groups['']
    member_of = dataclasses.replace(
        group.member_of,
        required=(*group.member_of.required, frozenset([uuid])))
    return dataclasses.replace(query, groups={
        **query.groups, '': dataclasses.replace(group, member_of=member_of)})


def _members(memberships):
    """{aggregate uuid: [provider]} of ``memberships`` {provider:
    [aggregate uuid]}."""
    found = {}
    for rp, uuids in memberships.items():
        for uuid in uuids:
            found.setdefault(uuid, []).append(rp)
    return found


def _roots_sums(fits, members):
    """{aggregate uuid: the ``fits`` {root: instances} of its roots
    summed} of the aggregates ``members`` {uuid: [provider]} lists."""
    return {uuid: sum(map(fits.get, rps, itertools.repeat(0)))
            for uuid, rps in members.items()}


def _per_aggregate(shape, members, pinned):
    """The ``aggregates`` entries of a shape: per aggregate its roots'
    ``fits`` summed, or its ``pinned`` count {uuid: fits} where counted,
    with that sum as ``roots_fits`` when they differ."""
    summed = dict.fromkeys(pinned, 0)
    summed.update(_roots_sums(shape.filled.fits, members))
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
