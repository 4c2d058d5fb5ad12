"""The ids of everything a request names, resolved once per request.

Unknown resource classes and traits are the upstream 400s, raised in the
order upstream checks them (classes first); unknown aggregates and
``in_tree`` providers simply match nothing.
"""
from placement.candidates import query as query_mod
from placement.objects import base
from placement.objects import provider_filter

# Providers with this trait share their inventory with the trees of their
# aggregates.
SHARING_TRAIT = 'MISC_SHARES_VIA_AGGREGATE'


class Names:
    """``rc`` {class name: id}, ``rc_names`` {id: name}, ``trait`` {name:
    id}, ``agg`` {uuid: id} of the known aggregates, ``tree_root`` {in_tree
    uuid: root id or None}."""

    def __init__(self, conn, query: query_mod.CandidateQuery):
        groups = query.groups.values()
        self.rc_names = base.resource_class_names(conn)
        self.rc = {name: rc for rc, name in self.rc_names.items()}
        unknown = [rc for group in groups for rc in group.resources
                   if rc not in self.rc]
        if unknown:
            # Raises the 400 naming the unknown class.
            provider_filter.resolve_resource_classes(conn, unknown)
        names = [SHARING_TRAIT, *query.root_required.names()]
        for group in groups:
            names += group.traits.names()
        self.trait = base.resolve_traits(conn, names)
        self.agg = provider_filter.resolve_aggregates(
            conn, {uuid for group in groups
                   for uuids in group.member_of.required + (
                       group.member_of.forbidden,)
                   for uuid in uuids})
        self.tree_root = {
            group.in_tree: provider_filter.root_of(conn, group.in_tree)
            for group in groups if group.in_tree}

    def traits(self, names):
        return frozenset(self.trait[name] for name in names)

    def aggregates(self, uuids):
        """The ids of the known aggregates among ``uuids``."""
        return frozenset(self.agg[uuid] for uuid in uuids
                         if uuid in self.agg)
