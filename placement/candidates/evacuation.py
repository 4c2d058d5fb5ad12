"""The evacuation of a what-if (POST /capacity's ``evacuate``): the
consumers holding allocations on the trees taken out, placed again on
what remains before the shapes are counted.

Consumers move one after another in the order of their uuids, each to
the first candidate of its shape, in the default order, that still
fits: the first tree in root order that has one, the combiner's first
candidate there, as the capacity fill places.  One free-space state
{(rp, rc): room} serves every consumer's shape; placements only take
space, so a tree without room for a shape never gets it back, and each
shape keeps a cursor past such trees.  Consumers of one shape share its
read.

A consumer's shape is what it holds on the trees taken out: one group
per provider, with that provider's amounts, isolated when it used
several, in one subtree when one of them is an ancestor of the others;
or the shape given for it.  What it holds elsewhere (a pool's disk, say)
stays, so its moved part only goes to a tree that reaches each of those
providers (has a provider in one of its aggregates).  Consumers of type
MIGRATION are dropped: what they hold on the trees taken out ends, the
rest stays.
"""
import dataclasses

from placement import microversions
from placement.candidates import changes
from placement.candidates import filling
from placement.candidates import query as query_mod
from placement.candidates import tree_rules

# The consumer type that is moved nowhere: the source side of a move.
DROPPED_TYPE = 'MIGRATION'
# The microversion the consumers' shapes are read at.
VERSION = microversions.MAX
# The trees of this many roots are read first for a consumer shape (then
# twice as many each time): first fit seldom goes further.
PAGE = 64


def evacuate(where, changed, shapes_of, read):
    """(``changed`` with the placements taken, the ``evacuation`` answer)
    of the consumers on the trees ``changed`` takes out, read from
    ``where`` (the read step's source); ``shapes_of`` {consumer uuid:
    CandidateQuery} replaces their recorded shapes; ``read``: the
    stack's read step (the ROOMS plan)."""
    held, parents = holdings(where, changed.out)
    dropped = where.consumers_of_type(sorted(held), DROPPED_TYPE)
    outside = {rp for consumer in held.values() for rp in consumer.kept}
    reach = where.reaches(sorted(outside))
    names = where.class_names()
    shapes = Shapes(where, changed, read)
    taken = {}
    touched = set()
    placed = {}
    for uuid in sorted(held):
        if uuid in dropped:
            continue
        consumer = held[uuid]
        shape = shapes.of(shapes_of.get(uuid) or recorded(
            names, consumer.moved, parents))
        root, allocations = shape.place(
            reaching(changed, reach, consumer.kept))
        for rp, rc, amount in allocations or ():
            taken[rp, rc] = taken.get((rp, rc), 0) + amount
            touched.add(shape.sharing_roots.get(rp, root))
        placed[uuid] = (root, 'given' if uuid in shapes_of else 'recorded')
    labels = labelled(where, changed, {root for root, _ in placed.values()
                                       if root is not None})
    moved = sum(1 for root, _ in placed.values() if root is not None)
    return dataclasses.replace(changed, taken=taken,
                               touched=frozenset(touched)), {
        'moved': moved,
        'nowhere': len(placed) - moved,
        'dropped': len(held) - len(placed),
        'consumers': {uuid: {'to': labels.get(root), 'by': by}
                      for uuid, (root, by) in placed.items()}}


@dataclasses.dataclass
class _Held:
    """What one consumer holds: ``moved`` {rp: {rc id: amount}} on the
    trees taken out, ``kept`` {rp} elsewhere."""
    moved: dict = dataclasses.field(default_factory=dict)
    kept: set = dataclasses.field(default_factory=set)


class Shapes:
    """The consumer shapes of one what-if, each read once (by ``read``,
    the stack's read step) with the trees of every root left and the
    copies', and one free-space state ``free`` {(rp, rc): room} they
    all place in."""

    def __init__(self, where, changed, read):
        self.changed = changed
        self.read = read
        self.roots = [root for root in where.roots()
                      if root not in changed.out] + [
            copy.root for copy in changed.copies]
        self.free = {}
        self._served = None
        self._read = {}

    def of(self, query):
        """The _Shape of a CandidateQuery, read at its first use."""
        key = repr(query)
        if key not in self._read:
            shape = _Shape(self.read(
                dataclasses.replace(query, limit=None), VERSION,
                served=self._served), self.changed, self.roots, self.free)
            self._served = shape.served
            self._read[key] = shape
        return self._read[key]


class _Shape:
    """A consumer shape, its trees read page by page of ``roots`` (all
    roots, in order) as first fit needs them: most consumers find room
    in the first trees.  Its combiner request as changed, the free
    space of each page added to the shared ``free`` as read, and the
    cursor of its first tree that may still have room."""

    def __init__(self, reading, changed, roots, free):
        self.reading = reading
        self.served = reading.served
        self.applied = changes.Applied(changed, reading, reading.request())
        self.kinds = filling.Kinds(self.applied.request)
        self.sharing_roots = self.applied.request.sharing.roots
        self.pages = _pages(roots)
        self.free = free
        self.trees = []
        self.cursor = 0

    def place(self, reach):
        """(root, [(rp, rc, amount)]) of one instance placed first fit
        (taken from the shared free space), on a tree of ``reach`` if not
        None; (None, None) when none fits."""
        root, allocations, self.cursor = self._first_fit(
            self.free, reach, None, self.cursor)
        return root, allocations

    def place_in(self, free, reach, lost):
        """The root of the tree one instance is placed on first fit in
        ``free`` (an overlay of the shared free space, taken from), on a
        tree of ``reach`` if not None and not on that of root ``lost``;
        None when none fits.  The cursor stays: what does not fit in an
        overlay may fit in the shared space."""
        root, _, _ = self._first_fit(free, reach, lost, self.cursor)
        return root

    def _first_fit(self, free, reach, lost, cursor):
        """(root, allocations, ``cursor`` moved past the trees before the
        first one that has room) of ``place``; (None, None, cursor) when
        none fits."""
        unbroken = True
        at = cursor
        while at < len(self.trees) or self._read_page():
            if at == len(self.trees):
                # A page of trees none of which the shape can use.
                continue
            tree = self.trees[at]
            at += 1
            if tree.root == lost or (reach is not None
                                     and tree.root not in reach):
                unbroken = False
                continue
            allocations = filling.place_first(tree, self.kinds, free)
            if allocations is not None:
                return tree.root, allocations, cursor
            if unbroken:
                cursor = at
        return None, None, cursor

    def _read_page(self):
        """Read the trees of the next page; False when none is left."""
        page = next(self.pages, None)
        if page is None:
            return False
        read = list(self.reading.trees(roots=page))
        trees, rooms, _ = self.applied.trees(read, self.reading.rooms(),
                                             roots=set(page))
        for key, room in rooms.items():
            self.free.setdefault(key, room)
        self.trees += trees
        return True


def _pages(roots):
    """``roots`` in pages of doubling size."""
    start, size = 0, PAGE
    while start < len(roots):
        yield roots[start:start + size]
        start += size
        size *= 2


def holdings(where, out):
    """({consumer uuid: _Held} of the consumers holding allocations on
    the trees of roots ``out``, {rp: parent} of those trees'
    providers), read from ``where``."""
    held = {}
    if not out:
        return held, {}
    for consumer, allocations in where.holdings(out).items():
        mine = held[consumer] = _Held()
        for rp, root, rc, used in allocations:
            if root in out:
                amounts = mine.moved.setdefault(rp, {})
                amounts[rc] = amounts.get(rc, 0) + used
            else:
                mine.kept.add(rp)
    parents = {rp: parent for tree in where.tree_providers(out).values()
               for rp, _, parent in tree}
    return held, parents


def recorded(names, moved, parents):
    """The CandidateQuery of what a consumer holds on the trees taken out
    (``moved``, classes by id; ``names`` {id: class name}): one group per
    provider in id order, isolated when several, in one subtree when one
    provider is an ancestor of the others."""
    suffixes = [str(number) for number in range(1, len(moved) + 1)]
    groups = {suffix: query_mod.RequestGroup(
        suffix=suffix, resources={names[rc]: amount
                                  for rc, amount in sorted(amounts.items())})
        for suffix, (_, amounts) in zip(suffixes, sorted(moved.items()))}
    query = query_mod.CandidateQuery(
        # As the query string's parser orders the groups.
        groups={suffix: groups[suffix] for suffix in sorted(suffixes)})
    if len(moved) > 1:
        query.group_policy = 'isolate'
        if tree_rules.in_one_subtree(list(moved), parents):
            query.same_subtree = [tuple(suffixes)]
    return query


def reaching(changed, reach, kept):
    """{root} of the trees (copies among them) reaching every provider of
    ``kept``; None when there are none to reach."""
    if not kept:
        return None
    roots = set.intersection(*(reach[rp] for rp in kept))
    return changed.with_copies(roots)


def labelled(where, changed, roots):
    """{root: its uuid, or its name as a copy}, read from ``where``."""
    labels = {root: uuid for root, (uuid, _) in changed.names().items()
              if root in roots}
    labels.update((root, uuid) for root, (uuid, _) in
                  where.labels(sorted(roots - set(labels))).items())
    return labels
