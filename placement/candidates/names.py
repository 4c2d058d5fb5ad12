"""The ids of everything a request names, resolved once per request.

Unknown resource classes and traits are the upstream 400s, raised in the
order upstream checks them (classes first); unknown aggregates and
``in_tree`` providers simply match nothing.  The rules are here once;
each source of the read step (``database_source``, ``memory_source``)
only says how it looks names up.
"""
from placement.candidates import query as query_mod
from placement.objects import base
from placement.objects import provider_filter

# Providers with this trait share their inventory with the trees of their
# aggregates.
SHARING_TRAIT = 'MISC_SHARES_VIA_AGGREGATE'


class Names:
    """``rc`` {class name: id}, ``rc_names`` {id: name}, ``trait`` {name:
    key}, ``agg`` {uuid: key} of the known aggregates, ``tree_root``
    {in_tree uuid: root id or None}.  A key is what the source matches
    providers by: ids in SQL, the names themselves in a snapshot.

    ``rc_names``: every class; ``find_traits`` / ``find_aggregates``:
    {name: key} of those of the names given that exist; ``root_of``: the
    root id of a provider uuid, or None."""

    def __init__(self, query: query_mod.CandidateQuery, rc_names,
                 find_traits, find_aggregates, root_of):
        groups = query.groups.values()
        self.rc_names = rc_names
        self.rc = {name: rc for rc, name in rc_names.items()}
        provider_filter.known_classes(
            self.rc, [rc for group in groups for rc in group.resources])
        names = [SHARING_TRAIT, *query.root_required.names()]
        for group in groups:
            names += group.traits.names()
        self.trait = base.known_traits(find_traits(names), names)
        uuids = {uuid for group in groups
                 for uuids in group.member_of.required + (
                     group.member_of.forbidden,)
                 for uuid in uuids}
        self.agg = find_aggregates(uuids) if uuids else {}
        self.tree_root = {group.in_tree: root_of(group.in_tree)
                          for group in groups if group.in_tree}
        # Keys of name sets already asked for: the checks' Python form
        # asks once per provider.
        self._traits = {}
        self._aggregates = {}

    def traits(self, names):
        found = self._traits.get(names)
        if found is None:
            found = self._traits[names] = frozenset(
                self.trait[name] for name in names)
        return found

    def aggregates(self, uuids):
        """The keys of the known aggregates among ``uuids``."""
        found = self._aggregates.get(uuids)
        if found is None:
            found = self._aggregates[uuids] = frozenset(
                self.agg[uuid] for uuid in uuids if uuid in self.agg)
        return found


def read(conn, query):
    """The Names of ``query`` as the database has them."""
    return Names(query, base.resource_class_names(conn),
                 lambda names: base.trait_ids(conn, names),
                 lambda uuids: provider_filter.resolve_aggregates(conn, uuids),
                 lambda uuid: provider_filter.root_of(conn, uuid))
