"""GET /resource_providers from a snapshot: the filters of
``resource_provider.filtered``, as Python over one snapshot version.

The rules themselves are not written again: units and room are
``figures``' Python forms, and an unknown class or trait is the 400 of
``provider_filter``, worded there.
"""
from placement.memory import indexes as indexes_mod
from placement.objects import base
from placement.objects import figures
from placement.objects import provider_filter


def answerable(dialect, filters):
    """Whether a snapshot answers as the database would: MySQL compares
    names in its collation (case and accents aside), which Python does
    not repeat, so a name filter there is read from the database."""
    return not (dialect == 'mysql' and 'name' in filters)


def _fits(inventory, used, amount, dialect):
    return (figures.fits_units_of(inventory.min_unit, inventory.max_unit,
                                  inventory.step_size, amount)
            and figures.fits_room_of(
                figures.room_of(inventory, used, dialect), amount))


def _rules(snap, dialect, name, uuid, in_tree, resources, traits,
           member_of):
    """(the filters given as tests of a provider id, the sets of ids a
    match is in: one per filter an index answers); 400 for an unknown
    class or trait, as the database path words it."""
    rules, within = [], []
    providers, indexes = snap.providers, snap.indexes
    if name is not None:
        rules.append(lambda rp: providers[rp].name == name)
    if uuid is not None:
        within.append({snap.by_uuid[uuid]} if uuid in snap.by_uuid else ())
    if in_tree is not None:
        named = snap.by_uuid.get(in_tree)
        within.append(() if named is None else
                      indexes.trees[providers[named].root_id])
    if resources:
        class_ids = provider_filter.known_classes(
            {n: snap.class_ids[n] for n in resources if n in snap.class_ids},
            resources)
        wanted = [(class_ids[n], amount) for n, amount in resources.items()]
        within.extend(indexes.classes.get(rc, ()) for rc, _ in wanted)
        inventories, usage = snap.inventories, snap.usage

        def room(rp):
            held = inventories[rp]
            used = usage.get(rp, {})
            return all(_fits(held[rc], used.get(rc), amount, dialect)
                       for rc, amount in wanted)
        rules.append(room)
    if traits:
        base.known_traits({n: n for n in traits.names()
                           if n in snap.trait_ids}, traits.names(),
                          provider_filter.UNKNOWN_REQUIRED_TRAIT)
        within.extend(indexes_mod.filed_under(indexes.traits, any_of)
                      for any_of in traits.required)
        if traits.forbidden:
            rules.append(lambda rp: not snap.traits_of(rp) & traits.forbidden)
    if member_of:
        within.extend(indexes_mod.filed_under(indexes.aggregates, any_of)
                      for any_of in member_of.required)
        if member_of.forbidden:
            rules.append(lambda rp: not (snap.aggregates_of(rp)
                                         & member_of.forbidden))
    return rules, within


def matching(snap, dialect, name=None, uuid=None, in_tree=None,
             resources=None, traits=None, member_of=None):
    """The ids of the providers matching every filter given, ascending:
    those of the rows ``resource_provider.get_all`` reads from
    ``dialect``'s database."""
    rules, within = _rules(snap, dialect, name, uuid, in_tree, resources,
                           traits, member_of)
    if within:
        smallest = min(within, key=len)
        ids = sorted(set(smallest).intersection(*within))
    else:
        ids = snap.order
    if not rules:
        return ids
    return [rp for rp in ids if all(rule(rp) for rule in rules)]
