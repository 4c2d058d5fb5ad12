"""The read step's source in a worker's snapshot (memory/snapshot.py):
the rows ``database_rows``' statements read (``memory_rows``), and
what the uses read beside them, each as the database answers it.

Names are matched by themselves here (traits by name, aggregates by
uuid): names.Names keys them so.  Nothing is read from the database;
a snapshot version never changes, so a request reads one cloud from
start to end.
"""
from placement import microversions
from placement.candidates import census
from placement.candidates import memory_rows
from placement.candidates import names as names_mod
from placement.candidates import stranded
from placement.memory import indexes
from placement.objects import figures


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
    """The snapshot ``snap`` as the read step's source, answering as the
    database of ``dialect`` would."""

    def __init__(self, snap, dialect):
        self.snap = snap
        self.dialect = dialect

    def names(self, query):
        snap = self.snap
        return names_mod.Names(
            query, self.class_names(),
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
        with a provider in one of its aggregates (one value per
        version: callers do not change it)."""
        snap = self.snap
        return snap.derived(('served',), lambda: {
            rp: roots for rp, roots in self.reaches(
                snap.indexes.traits.get(names_mod.SHARING_TRAIT, ())
            ).items() if roots})

    def rows(self, search, plan):
        return memory_rows.MemoryRows(self, search, plan)

    def kept(self, label, readings, build, rows, patch=None):
        """``build()``, what ``label`` names derived from the rows of the
        first groups of ``readings`` (RequestSearch values of this
        source), kept for the life of the snapshot version: it never
        changes, so nor do they.  Never to be changed by its readers;
        ``rows(value)``: how many rows or trees it holds; ``patch`` as
        Snapshot.derived takes it."""
        return self.snap.derived((label, *(
            reading.rows.key(reading.groups[0]) for reading in readings)),
            build, rows, patch)

    def lost(self):
        """Whether the connection died: there is none."""
        return False

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
        """{rp: [trait name, ...]} of ``providers`` in trait id order.
        Providers with one set of traits (the snapshot keeps equal sets
        once) share one list: it is only serialized."""
        snap = self.snap
        listed = {}

        def listing(traits):
            found = listed.get(traits)
            if found is None:
                found = listed[traits] = sorted(traits,
                                                key=snap.trait_ids.get)
            return found
        held = snap.traits
        none = frozenset()
        return {rp: listing(held.get(rp, none)) for rp in providers}

    # -- what the capacity count reads beyond the rows ---------------------

    def labels(self, rps):
        """{rp: (uuid, name)} of those of the providers ``rps`` that
        exist (a what-if's copies do not)."""
        providers = self.snap.providers
        return {rp: (providers[rp].uuid, providers[rp].name) for rp in rps
                if rp in providers}

    def memberships(self, rps):
        """{rp: [aggregate uuid, ...]} of the providers ``rps``."""
        snap = self.snap
        return {rp: sorted(held) for rp in rps
                for held in (snap.aggregates_of(rp),) if held}

    def loose_aggregates(self):
        """{uuid} of the aggregates holding a provider whose root they do
        not hold."""
        snap = self.snap
        return snap.derived(('loose aggregates',), lambda: frozenset(
            uuid for uuid, members in snap.indexes.aggregates.items()
            if any(snap.providers[rp].root_id not in members
                   for rp in members)))

    def free_space(self, classes, scoped, changed=None):
        """stranded.free in Python."""
        return stranded.free_in(self.snap, classes, scoped, self.dialect,
                                changed)

    # -- what a what-if reads beyond the rows ------------------------------

    def providers_by_uuid(self, uuids):
        """{uuid: (id, root id)} of those of the providers ``uuids`` that
        exist."""
        snap = self.snap
        return {uuid: (rp, snap.providers[rp].root_id) for uuid in uuids
                for rp in (snap.by_uuid.get(uuid),) if rp is not None}

    def aggregate_roots(self, uuids):
        """{uuid: {root of each tree with a provider in it}} of those of
        the aggregates ``uuids`` that exist (members or not)."""
        snap = self.snap
        members = snap.indexes.aggregates
        return {uuid: {snap.providers[rp].root_id
                       for rp in members.get(uuid, ())}
                for uuid in uuids if uuid in snap.aggregate_uuids}

    def tree_providers(self, roots):
        """{root: [(rp, name, parent), ...] in id order} of the trees of
        ``roots``."""
        providers = self.snap.providers
        trees = self.snap.indexes.trees
        return {root: [(rp, providers[rp].name, providers[rp].parent_id)
                       for rp in sorted(trees[root])]
                for root in roots if root in trees}

    def last_provider_id(self):
        """The highest provider id."""
        order = self.snap.order
        return order[-1] if order else None

    def roots(self):
        """Every root provider's id, ascending."""
        return sorted(self.snap.indexes.trees)

    def sharing_roots(self):
        """{root} of the trees of the sharing providers."""
        snap = self.snap
        return {snap.providers[rp].root_id for rp in
                snap.indexes.traits.get(names_mod.SHARING_TRAIT, ())}

    def holdings(self, roots):
        """{consumer uuid: [(rp, its root, rc, used), ...]}: every
        allocation of the consumers holding some on the trees of
        ``roots``."""
        snap = self.snap
        held = snap.holdings
        on_trees = {consumer for rp in indexes.filed_under(
            snap.indexes.trees, roots) for consumer in held.get(rp, ())}
        holders = snap.holders() if on_trees else {}
        return {consumer: [(rp, snap.providers[rp].root_id, rc, used)
                           for rp in holders[consumer]
                           for rc, used in held[rp][consumer].used]
                for consumer in sorted(on_trees)}

    def consumers_of_type(self, uuids, name):
        """{uuid} of the consumers ``uuids`` of type ``name``."""
        snap = self.snap
        holders = snap.holders()
        return {uuid for uuid in uuids if uuid in holders
                and snap.holdings[holders[uuid][0]][uuid].consumer_type
                == name}

    def reaches(self, providers):
        """{provider: {root of each tree with a provider in one of its
        aggregates}} of ``providers``."""
        snap = self.snap
        members = snap.indexes.aggregates
        return {rp: {snap.providers[member].root_id
                     for aggregate in snap.aggregates_of(rp)
                     for member in members[aggregate]}
                for rp in providers}

    def class_names(self):
        """{resource class id: name} of every class."""
        return {rc: name for name, rc in self.snap.class_ids.items()}
