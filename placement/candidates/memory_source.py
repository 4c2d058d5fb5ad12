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
        return memory_rows.MemoryRows(self, search, plan)

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
        """{rp: [trait name, ...]} of ``providers`` in trait id order."""
        snap = self.snap
        return {rp: sorted(snap.traits_of(rp), key=snap.trait_ids.get)
                for rp in providers}

    # -- what the capacity count reads beyond the rows ---------------------

    def labels(self, rps):
        """{rp: (uuid, name)} of the providers ``rps``."""
        providers = self.snap.providers
        return {rp: (providers[rp].uuid, providers[rp].name) for rp in rps}

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
        """stranded.free in Python (``changed``: None, a what-if reads the
        database)."""
        assert changed is None
        return stranded.free_in(self.snap, classes, scoped, self.dialect)
