"""The read step's rows from a worker's snapshot (memory/snapshot.py):
the rows ``database_source``'s statements read, in the same layouts
(layouts.Layout), decided by the same checks in their Python form
(checks.py: ``passes`` of a provider, ``fits`` of an inventory).

Names are matched by themselves here (traits by name, aggregates by
uuid): names.Names keys them so.  Nothing is read from the database;
a snapshot version never changes, so a request reads one cloud from
start to end.
"""
import typing

from placement import microversions
from placement.candidates import census
from placement.candidates import checks as checks_mod
from placement.candidates import names as names_mod
from placement.memory import indexes
from placement.objects import figures


class _Held(typing.NamedTuple):
    """What a provider has of a class it can serve: the inventory, its
    usage and free space (as the database's SQL computes it)."""
    inventory: object
    used: object
    room: float


def answers(snap, query, dialect):
    """Whether the snapshot answers ``query`` as the database would:
    MySQL compares names in its collation (case aside), which Python
    does not repeat, so there a name the snapshot does not hold exactly
    is looked up by the database (which may know it otherwise)."""
    if dialect != 'mysql':
        return True
    groups = query.groups.values()
    traits = set(query.root_required.names())
    uuids = set()
    for group in groups:
        traits.update(group.traits.names())
        uuids.update(uuid for any_of in group.member_of.required
                     for uuid in any_of)
        uuids.update(group.member_of.forbidden)
        if group.in_tree:
            uuids.add(group.in_tree)
    return (all(name in snap.class_ids for group in groups
                for name in group.resources)
            and traits.issubset(snap.trait_ids)
            and all(uuid in snap.by_uuid or uuid in snap.indexes.aggregates
                    for uuid in uuids))


class MemorySource:
    """The snapshot ``snap`` as the read step's source; ``conn``: the
    request's transaction, which the uses reading the database go on
    with."""

    def __init__(self, snap, conn):
        self.snap = snap
        self.conn = conn
        self.dialect = conn.dialect.name

    def names(self, query):
        snap = self.snap
        return names_mod.Names(
            query, {rc: name for name, rc in snap.class_ids.items()},
            lambda names: {name: name for name in names
                           if name in snap.trait_ids},
            lambda uuids: {uuid: uuid for uuid in uuids
                           if uuid in snap.indexes.aggregates},
            self._root_of)

    def _root_of(self, uuid):
        rp = self.snap.by_uuid.get(uuid)
        return None if rp is None else self.snap.providers[rp].root_id

    def served(self, names):
        """{sharing provider: {roots of the trees it serves}}: every tree
        with a provider in one of its aggregates."""
        snap = self.snap
        members = snap.indexes.aggregates
        found = {}
        for rp in snap.indexes.traits.get(names_mod.SHARING_TRAIT, ()):
            roots = {snap.providers[member].root_id
                     for aggregate in snap.aggregates_of(rp)
                     for member in members[aggregate]}
            if roots:
                found[rp] = roots
        return found

    def rows(self, search, plan):
        return MemoryRows(self, search, plan)

    def census(self, search):
        """Explain's census.Census of ``search`` (a RequestSearch)."""
        return census.of_snapshot(self.snap, search, self.dialect)

    # -- what the summaries read beyond the rows ---------------------------

    def places(self, version, ids):
        """{rp: (uuid, parent uuid, root uuid)} of ``ids``, and from 1.29
        of every provider of their trees, in id order (the summaries')."""
        snap = self.snap
        if version >= microversions.NESTED_CANDIDATES:
            trees = snap.indexes.trees
            ids = {member for root in {snap.providers[rp].root_id
                                       for rp in ids}
                   for member in trees[root]}
        return {rp: (shown.uuid, shown.parent_provider_uuid,
                     shown.root_provider_uuid)
                for rp in sorted(ids) for shown in (snap.shown[rp],)}

    def figures(self, providers, classes):
        """{rp: {rc: (capacity, used)}} of ``providers``' inventories (of
        ``classes`` when not None)."""
        snap = self.snap
        found = {}
        for rp in providers:
            used = snap.usage.get(rp, {})
            found[rp] = {
                rc: (figures.capacity_of(inventory.total, inventory.reserved,
                                         inventory.allocation_ratio),
                     used.get(rc))
                for rc, inventory in snap.inventories.get(rp, {}).items()
                if classes is None or rc in classes}
        return found

    def trait_lists(self, providers):
        """{rp: [trait name, ...]} of ``providers`` in trait id order."""
        snap = self.snap
        return {rp: sorted(snap.traits_of(rp), key=snap.trait_ids.get)
                for rp in providers}


class MemoryRows:
    """The rows of one reader.RequestSearch from a snapshot, as the
    database's statements read them (``plan`` as there: root_required
    checked here or left to explain; without ``allocated`` nothing is
    used).  The list alone reads from memory: nothing is released."""

    def __init__(self, source, search, plan):
        self.snap = source.snap
        self.dialect = source.dialect
        self.search = search
        self.used_counts = plan.allocated
        root = checks_mod.root_required(search.query)
        self.root_check = root if plan.root_filtered else None
        self._roots_seen = {}

    def _root_passes(self, root):
        passes = self._roots_seen.get(root)
        if passes is None:
            passes = self._roots_seen[root] = (
                self.root_check is None
                or self.root_check.passes(self.search.names, self.snap, root))
        return passes

    def of_sharing(self, index, served):
        """The rows of group ``index`` of the providers of ``served``."""
        return list(self._group_rows(index, self._ordered(served),
                                     every_root=True))

    def of_trees(self, index, roots=None):
        """The rows of group ``index`` in root order, of the trees of
        ``roots`` when given."""
        group = self.search.groups[index]
        snap = self.snap
        if roots is not None:
            return self._group_rows(index, self._ordered(
                indexes.filed_under(snap.indexes.trees, roots)))

        def every_row():
            return self._group_rows(index, self._ordered(
                self._of_classes(group) if group.spec.amounts
                else snap.providers))
        if self.search.limited:
            # Read lazily: the limit may stop it after a few trees.
            return every_row()
        return snap.derived(self._key(group), lambda: list(every_row()))

    def _key(self, group):
        """What a group's rows of the whole cloud depend on besides the
        snapshot version."""
        layout = group.layout
        return ('rows', tuple(group.stack), group.spec.spread,
                tuple(group.spec.amounts.items()), layout.rendered,
                layout.limits, self.search.summary_classes and tuple(
                    self.search.summary_classes),
                self.root_check, self.used_counts)

    def _ordered(self, ids):
        """``ids`` in root order, as the statements order their rows."""
        providers = self.snap.providers
        return sorted(ids, key=lambda rp: (providers[rp].root_id, rp))

    def _group_rows(self, index, ids, every_root=False):
        group = self.search.groups[index]
        layout = group.layout
        rendered = layout.rendered
        shown = self.snap.shown
        listed = self._listed if rendered and group.spec.amounts else None
        # Per distinct (per class what a provider has): its class mask
        # and the row's columns of it, built once.
        built = {}
        for rp, root, traits, found in self._passing(group, ids, every_root):
            key = tuple(map(id, found))
            done = built.get(key)
            if done is None:
                done = built[key] = (_fit(found), layout.parts([
                    None if held is None else (
                        layout.values(held.inventory, held.used),
                        (held.room, held.inventory.max_unit))
                    for held in found]))
            fit, parts = done
            yield layout.row((root, rp, traits, fit), parts,
                             -1 if listed is None else listed(rp),
                             shown[rp].uuid if rendered else None)

    def _listed(self, rp):
        """How many inventories the provider's summary lists."""
        held = self.snap.inventories.get(rp, {})
        classes = self.search.summary_classes
        if classes is None:
            return len(held)
        return sum(1 for rc in held if rc in classes)

    def _passing(self, group, ids, every_root=False):
        """(rp, root, trait mask, per class a _Held or None) of the
        providers of ``ids`` passing the group's filters and able to serve
        one of its classes (any provider passing them, for a group
        without amounts).  Equal holdings give the same _Held: the
        resource checks run once per distinct (inventory, usage)."""
        snap = self.snap
        names = self.search.names
        filters = checks_mod.filters(group.stack, group.spec.spread)
        bits = (checks_mod.trait_bits(group.stack) if group.spec.spread
                else ())
        classes = [(rc, [check for check in group.stack
                         if check.rc == names.rc_names[rc]])
                   for rc in group.spec.amounts]
        dialect = self.dialect
        counted = self.used_counts
        # {(rc, inventory, used): its _Held, or None when it cannot serve}
        # (inventories alike are one object in a snapshot).
        decided = {}
        for rp in ids:
            root = snap.providers[rp].root_id
            if not (every_root or self._root_passes(root)):
                continue
            if not all(check.passes(names, snap, rp, root)
                       for check in filters):
                continue
            traits = 0
            for bit, check in enumerate(bits):
                if check.passes(names, snap, rp, root):
                    traits |= 1 << bit
            held = snap.inventories.get(rp, {})
            usage = snap.usage.get(rp, {}) if counted else {}
            found = []
            for rc, checks in classes:
                inventory = held.get(rc)
                if inventory is None:
                    found.append(None)
                    continue
                used = usage.get(rc)
                key = (rc, inventory, used)
                if key not in decided:
                    decided[key] = _Held(inventory, used, figures.room_in_sql(
                        inventory.total, inventory.reserved,
                        inventory.allocation_ratio, used, dialect)) if all(
                            check.fits(inventory, used, dialect)
                            for check in checks) else None
                found.append(decided[key])
            if classes and not any(found):
                continue
            yield rp, root, traits, found

    def roots_passing(self, roots):
        """Those of the root ids ``roots`` that root_required admits."""
        return {root for root in roots if self._root_passes(root)}

    def parents(self, roots=None):
        """(root, rp, parent) of every provider in root order, of the
        trees of ``roots`` when given."""
        snap = self.snap
        ids = snap.providers
        if roots is not None:
            ids = indexes.filed_under(snap.indexes.trees, roots)
        return [(snap.providers[rp].root_id, rp, snap.providers[rp].parent_id)
                for rp in self._ordered(ids)]

    def ranking_bounds(self, index, lowest):
        """{root: (largest free space per class..., smallest...)} of group
        ``index``, as statements.ranking_statement reads it: over the
        providers passing the group's checks, the free space as Python
        computes it."""
        group = self.search.groups[index]
        count = len(group.spec.amounts)
        largest, smallest = {}, {}
        for _, root, _, found in self._passing(group,
                                               self._of_classes(group)):
            high = largest.setdefault(root, [None] * count)
            low = smallest.setdefault(root, [None] * count)
            for at, held in enumerate(found):
                if held is None:
                    continue
                inventory, used = held.inventory, held.used
                free = figures.free_of(figures.capacity_of(
                    inventory.total, inventory.reserved,
                    inventory.allocation_ratio), used)
                if high[at] is None or free > high[at]:
                    high[at] = free
                if low[at] is None or free < low[at]:
                    low[at] = free
        return {root: tuple(high) + (tuple(smallest[root]) if lowest else ())
                for root, high in largest.items()}

    def _of_classes(self, group):
        """The providers with an inventory of one of the group's
        classes."""
        return indexes.filed_under(self.snap.indexes.classes,
                                   group.spec.amounts)

    def close(self):
        pass


def _fit(found):
    """The class mask of a provider's classes (None where it cannot serve
    the class)."""
    fit = 0
    for bit, held in enumerate(found):
        if held is not None:
            fit |= 1 << bit
    return fit
