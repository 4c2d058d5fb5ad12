"""GET /resource_providers from a snapshot: the filters of
``resource_provider.filtered``, as Python over one snapshot version.

The rules themselves are not written again: units and room are
``figures``' Python forms, and an unknown class or trait is the 400 of
``provider_filter``, worded there.
"""
from placement.objects import base
from placement.objects import figures
from placement.objects import provider_filter


def answerable(dialect, filters):
    """Whether a snapshot answers as the database would: MySQL compares
    names in its collation (case and accents aside), which Python does
    not repeat, so a name filter there is read from the database."""
    return not (dialect == 'mysql' and 'name' in filters)


def _fits(inventory, used, amount, dialect):
    if inventory is None:
        return False
    capacity = figures.capacity_of(
        inventory.total, inventory.reserved,
        figures.ratio_in_sql(inventory.allocation_ratio, dialect))
    return (figures.fits_units_of(inventory.min_unit, inventory.max_unit,
                                  inventory.step_size, amount)
            and figures.fits_room_of(figures.free_of(capacity, used), amount))


def _rules(snap, dialect, name, uuid, in_tree, resources, traits,
           member_of):
    """The filters given, as tests of a provider id; 400 for an unknown
    class or trait, as the database path words it."""
    rules = []
    providers = snap.providers
    if name is not None:
        rules.append(lambda rp: providers[rp].name == name)
    if uuid is not None:
        rules.append(lambda rp: providers[rp].uuid == uuid)
    if in_tree is not None:
        named = snap.by_uuid.get(in_tree)
        root = None if named is None else providers[named].root_id
        rules.append(lambda rp: providers[rp].root_id == root)
    if resources:
        class_ids = provider_filter.known_classes(
            {n: snap.class_ids[n] for n in resources if n in snap.class_ids},
            resources)
        wanted = [(class_ids[n], amount) for n, amount in resources.items()]
        inventories, usage = snap.inventories, snap.usage

        def room(rp):
            held = inventories.get(rp, {})
            used = usage.get(rp, {})
            return all(_fits(held.get(rc), used.get(rc), amount, dialect)
                       for rc, amount in wanted)
        rules.append(room)
    if traits:
        base.known_traits({n: n for n in traits.names()
                           if n in snap.trait_names}, traits.names(),
                          provider_filter.UNKNOWN_REQUIRED_TRAIT)
        rules.append(lambda rp: _holds(snap.traits_of(rp), traits))
    if member_of:
        rules.append(lambda rp: _holds(snap.aggregates_of(rp), member_of))
    return rules


def _holds(present, constraint):
    """Whether the set ``present`` has one of each required set of
    ``constraint`` (a TraitFilter or AggregateFilter) and none of its
    forbidden."""
    return (all(present & any_of for any_of in constraint.required)
            and not present & constraint.forbidden)


def matching(snap, dialect, name=None, uuid=None, in_tree=None,
             resources=None, traits=None, member_of=None):
    """The providers (``snapshot.Shown``) matching every filter given, by
    id: what ``resource_provider.get_all`` reads from ``dialect``'s
    database."""
    rules = _rules(snap, dialect, name, uuid, in_tree, resources, traits,
                   member_of)
    if uuid is not None and uuid in snap.by_uuid:
        ids = [snap.by_uuid[uuid]]
    elif uuid is not None:
        ids = []
    else:
        ids = snap.order
    shown = snap.shown
    return [shown[rp] for rp in ids if all(rule(rp) for rule in rules)]
