"""What if: the changes POST /capacity may count with (``without``,
``with``, and the evacuation's placements), applied to what a shape
read before the fill, never written.

``without`` takes trees out, as if they left every aggregate and had
every inventory reserved whole: they fit nothing, no sharing provider
serves them and theirs serve nobody.  ``with`` adds copies of existing
trees as recorded, nothing allocated on them: each shape reads the
originals again by the AS_NEW plan (usage left out), and a copy's
providers get ids past the last provider's, copy after copy, as
creating them would number them (so the copies come last in root
order).  A copy is a member of its original's aggregates: the sharing
providers serving the original serve it, and a copy of a sharing
provider serves what its original serves.  ``taken``, what the
evacuation placed (evacuation.py), is off the free space of the rest.
"""
import dataclasses
import itertools
import operator
import typing

from placement import errors
from placement.candidates import candidate_search
from placement.candidates import filling

_ROOT = operator.attrgetter('root')


@dataclasses.dataclass(frozen=True)
class Asked:
    """The changes as asked, by uuid: ``without_roots``,
    ``without_aggregates``, ``copies`` ((like uuid, count), ...),
    ``evacuate``, ``survive`` (N+1, of the roots in aggregate
    ``survive_member_of`` if given) and ``shapes_of`` {consumer uuid:
    CandidateQuery}."""
    without_roots: tuple = ()
    without_aggregates: tuple = ()
    copies: tuple = ()
    evacuate: bool = False
    survive: bool = False
    survive_member_of: typing.Optional[str] = None
    shapes_of: dict = dataclasses.field(default_factory=dict)


class Copy(typing.NamedTuple):
    """A tree ``with`` adds like the tree of root ``like``: ``uuid`` and
    ``name`` as answers list it (``<like's>#<n>``); ``ids`` {provider of
    the original: the copy's}, in the order of the original's ids."""
    like: int
    uuid: str
    name: str
    ids: dict

    @property
    def root(self):
        return self.ids[self.like]


@dataclasses.dataclass(frozen=True)
class Changed:
    """The changes resolved: ``out`` {root id} of the trees taken out;
    ``copies`` (Copy, ...) in order; ``aggregates`` {provider of a tree
    copied: [aggregate uuid]}; ``read_new`` the read step of the copies
    (stacks.AS_NEW); ``taken`` {(rp, rc): amount} the evacuation
    placed, on the trees of ``touched`` {root}."""
    out: frozenset
    copies: tuple
    aggregates: dict
    read_new: object
    taken: dict = dataclasses.field(default_factory=dict)
    touched: frozenset = frozenset()

    def names(self):
        """{root id of a copy: (its uuid, its name)}."""
        return {copy.root: (copy.uuid, copy.name) for copy in self.copies}

    def memberships(self, found):
        """``found`` {provider: [aggregate uuid]} with the copies'
        providers, members of their originals' aggregates."""
        for copy in self.copies:
            for rp, new in copy.ids.items():
                if rp in self.aggregates:
                    found[new] = self.aggregates[rp]
        return found

    def with_copies(self, roots):
        """``roots`` (a set) and the roots of the copies of those."""
        return roots | {copy.root for copy in self.copies
                        if copy.like in roots}


def resolve(where, asked, read_new):
    """The Changed of ``asked``, read from ``where`` (the read step's
    source); unknown uuids, and providers that are not roots where a
    root is asked for, are 400s."""
    roots = _roots(where, asked.without_roots, 'without.roots')
    out = set(roots.values())
    if asked.without_aggregates:
        wanted = sorted(set(asked.without_aggregates))
        found = where.aggregate_roots(wanted)
        known(wanted, found, 'without.aggregates', 'aggregate')
        out.update(*found.values())
    liked = _roots(where, [like for like, _ in asked.copies], 'with.like')
    copies, aggregates = [], {}
    if liked:
        trees = where.tree_providers(set(liked.values()))
        aggregates = where.memberships(
            [rp for tree in trees.values() for rp, _, _ in tree])
        # Past the last provider's id, as the copies would be created.
        next_id = where.last_provider_id() + 1
        numbers = {}
        for like, count in asked.copies:
            tree = trees[liked[like]]
            _, first_name, _ = tree[0]
            for _ in range(count):
                number = numbers[like] = numbers.get(like, 0) + 1
                copies.append(Copy(
                    liked[like], '%s#%d' % (like, number),
                    '%s#%d' % (first_name, number),
                    {rp: next_id + at for at, (rp, _, _) in enumerate(tree)}))
                next_id += len(tree)
    return Changed(frozenset(out), tuple(copies), aggregates, read_new)


def _roots(where, uuids, field):
    """{uuid: id} of the root providers ``uuids``."""
    if not uuids:
        return {}
    wanted = sorted(set(uuids))
    found = where.providers_by_uuid(wanted)
    known(wanted, found, field, 'resource provider')
    inner = [uuid for uuid, (rp, root) in sorted(found.items())
             if rp != root]
    if inner:
        raise errors.BadRequest('%s: %s is not the root provider of its '
                                'tree.' % (field, inner[0]))
    return {uuid: rp for uuid, (rp, _) in found.items()}


def known(wanted, found, field, what):
    unknown = [uuid for uuid in wanted if uuid not in found]
    if unknown:
        raise errors.BadRequest('%s: no %s with uuid %s.'
                                % (field, what, unknown[0]))


class Applied:
    """``changed`` applied to one shape's ``reading`` (a
    reader.RequestSearch): ``request`` the combiner's Request as changed
    from ``request`` as read (the sharing providers as changed); its
    ``trees`` as changed, as often as some are read."""

    def __init__(self, changed, reading, request):
        self.changed = changed
        self.reading = reading
        copies = changed.copies
        new = None
        self.found = self.rooms = {}
        if copies:
            new = changed.read_new(reading.query, reading.version,
                                   served=reading.served)
            self.found = {tree.root: tree for tree in new.trees(
                roots=sorted({copy.like for copy in copies}))}
            new.close()
            self.rooms = new.rooms()
            copies = [copy for copy in copies if copy.like in self.found]
        self.copies = copies
        self.request = request._replace(
            sharing=_sharing(changed, reading, request.sharing, copies, new))

    def trees(self, trees, free, apart=None, roots=None):
        """(trees, free, apart) as ``filling.fill`` takes them: the
        ``trees`` read (in root order) and the copies', ``free`` (the
        rooms read, changed in place) and the trees set ``apart`` (see
        alike.read) as changed; of the trees of ``roots`` (a set) only,
        if given."""
        changed = self.changed
        copies = [copy for copy in self.copies
                  if roots is None or copy.root in roots]
        out = changed.out
        trees = [tree for tree in trees if tree.root not in out]
        outside = [bool(group.in_tree)
                   for group in self.reading.query.groups.values()]
        trees += [_renamed(self.found[copy.like], copy, outside)
                  for copy in copies]
        for copy in copies:
            for (rp, rc), room in self.rooms.items():
                if rp in copy.ids:
                    free[copy.ids[rp], rc] = room
        for key, amount in changed.taken.items():
            if key in free:
                free[key] -= amount
        sharing = self.request.sharing
        if apart is not None:
            apart = _apart(apart, sharing.serving, changed)
        trees += _anchored(self.reading, sharing, trees, apart, roots)
        trees.sort(key=_ROOT)
        return trees, free, apart


def _renamed(tree, copy, outside):
    """The candidate_search.Tree of ``copy`` from its original's ``tree``;
    ``outside`` per group: it names a tree (in_tree), which no copy is
    in.  Limits and masks are kept of the providers some group still
    has, as the reader keeps them of the rows it read."""
    ids = copy.ids
    members = [None if found is None else {} if away else
               {ids[rp]: fit for rp, fit in found.items()}
               for found, away in zip(tree.members, outside)]
    kept = {rp for found in members if found for rp in found}
    return candidate_search.Tree(
        copy.root, members,
        {(ids[rp], rc): limit for (rp, rc), limit in tree.limits.items()
         if ids[rp] in kept},
        {ids[rp]: mask for rp, mask in tree.masks.items()
         if ids[rp] in kept},
        None if tree.parents is None else {
            ids[rp]: ids.get(parent) for rp, parent in tree.parents.items()})


def _sharing(changed, reading, sharing, copies, new):
    """The combiner's Sharing as changed: without the providers of the
    trees taken out nor serving them; serving the copies as their
    originals; with the copies of sharing providers (those ``new``, the
    copies' read, found), serving what their originals serve."""
    out = changed.out
    kept = sorted((root, rp) for rp, root in sharing.roots.items()
                  if root not in out)
    copied = [] if new is None else [
        (copy, rp) for copy in copies for rp in copy.ids
        if rp in new.sharing.roots]
    served = reading.served
    serving = []
    for index, by_root in enumerate(sharing.serving):
        mine = {anchor: [(rp, fit) for rp, fit in pairs
                         if sharing.roots[rp] not in out]
                for anchor, pairs in by_root.items() if anchor not in out}
        fits = reading.sharing_fits[index]
        for copy in copies:
            pairs = [(rp, fits[rp]) for _, rp in kept
                     if rp in fits and copy.like in served.get(rp, ())]
            if pairs:
                mine[copy.root] = pairs
        new_fits = {} if new is None else new.sharing_fits[index]
        in_tree = list(reading.query.groups.values())[index].in_tree
        for owner, rp in copied:
            fit = new_fits.get(rp)
            if fit is None or in_tree:
                continue
            reach = served.get(rp, ())
            for anchor in reach:
                if anchor not in out:
                    mine.setdefault(anchor, []).append((owner.ids[rp], fit))
            for copy in copies:
                if copy.like in reach and copy.root != owner.root:
                    mine.setdefault(copy.root, []).append(
                        (owner.ids[rp], fit))
        serving.append(mine)
    roots = {rp: root for root, rp in kept}
    limits = {key: limit for key, limit in sharing.limits.items()
              if key[0] in roots}
    masks = {rp: mask for rp, mask in sharing.masks.items() if rp in roots}
    for owner, rp in copied:
        roots[owner.ids[rp]] = owner.root
        limits.update(((owner.ids[rp], rc), limit) for (of, rc), limit
                      in new.sharing.limits.items() if of == rp)
        if rp in new.sharing.masks:
            masks[owner.ids[rp]] = new.sharing.masks[rp]
    return candidate_search.Sharing(roots, serving, limits, masks)


def _apart(apart, serving, changed):
    """The filling.Apart of a one-group shape's trees set apart, as
    ``changed``: those taken out dropped, each served or not as
    ``serving`` now says, the evacuation's placements off their rows."""
    (by_root,) = serving
    layout = apart.layout
    out, touched = changed.out, changed.touched
    taken_of = {}
    for (rp, rc), amount in changed.taken.items():
        taken_of.setdefault(rp, {})[rc] = amount
    # Every kind stays (emptied or not), in its order.
    kinds, served = {kind: [] for kind in apart.kinds}, []
    was = itertools.chain(
        ((kind, tree) for kind, trees in apart.kinds.items()
         for tree in trees),
        ((tree.kind[0], tree) for tree in apart.served))
    for kind, tree in was:
        root, rows = tree.root, tree.rows
        if root in out:
            continue
        if root in touched:
            rows = _less(layout, tree.rps, rows, taken_of)
        if root in by_root:
            served.append(filling.ServedTree(
                root, (kind, tuple(by_root[root])), tree.rps, rows))
        else:
            kinds.setdefault(kind, []).append(
                filling.ApartTree(root, tree.rps, rows))
    served.sort(key=_ROOT)
    return filling.Apart(kinds, served, layout)


def _less(layout, rps, rows, taken_of):
    """A tree's ``rows`` with what ``taken_of`` {rp: {rc: amount}} says
    off their free space."""
    return [layout.less_room(row, taken_of[rp]) if rp in taken_of else row
            for rp, row in zip(rps, rows)]


def _anchored(reading, sharing, trees, apart, roots):
    """Empty trees of the roots only a copy of a sharing provider serves
    (no other tree of theirs was read), as the reader adds the trees
    sharing providers serve: those ``root_required`` admits, of
    ``roots`` if given."""
    have = {tree.root for tree in trees}
    if apart is not None:
        have.update(tree.root for tree in apart.served)
        have.update(tree.root for found in apart.kinds.values()
                    for tree in found)
    wanted = {anchor for by_root in sharing.serving for anchor in by_root
              if anchor not in have and (roots is None or anchor in roots)}
    if wanted:
        wanted = reading.rows.roots_passing(wanted)
    parents = {} if reading.query.same_subtree else None
    count = len(sharing.serving)
    return [candidate_search.Tree(root, [{}] * count, {}, {}, parents)
            for root in wanted]
