"""N+1, POST /capacity's ``survive``: for each root in scope, whether
the consumers it holds could go elsewhere were it lost.

Each root's loss is played on its own from the same cloud (as changed by
``without``, ``with`` and the evacuation): its consumers placed one
after another in order of uuid, each first fit in the default order on
the other trees, as the evacuation places them (evacuation.py).  One
free-space state serves every run; a run's placements go to an overlay
dropped after it, and the consumers' shapes are read once for all runs.
The roots of sharing providers are not in scope (their loss is not a
host's), nor the copies ``with`` adds (they hold nothing).  A consumer
the evacuation moved counts as used space where it landed and is not
moved again.
"""
import collections

import sqlalchemy as sa

from placement.candidates import changes
from placement.candidates import evacuation
from placement.candidates import lookup
from placement.candidates import names as names_mod
from placement.data import tables
from placement.objects import base

RP = tables.resource_providers
RPT = tables.resource_provider_traits
RPA = tables.resource_provider_aggregates
AGG = tables.placement_aggregates
TRAITS = tables.traits


def survive(conn, changed, member_of, shapes_of, read):
    """The ``survive`` answer {'failing': [{'uuid', 'nowhere'}]}: the
    roots in scope (every one, or those with a provider in aggregate
    ``member_of``) whose consumers would not all find room elsewhere,
    in order of uuid; ``shapes_of`` and ``read`` as the evacuation
    takes them."""
    roots = _in_scope(conn, changed, member_of)
    held, parents = evacuation.holdings(conn, roots)
    dropped = evacuation.of_type(conn, sorted(held), evacuation.DROPPED_TYPE)
    runs = collections.defaultdict(list)
    for uuid in sorted(held):
        if uuid in dropped:
            continue
        consumer = held[uuid]
        parts = collections.defaultdict(dict)
        for rp, amounts in consumer.moved.items():
            parts[_root(rp, parents)][rp] = amounts
        for root, part in parts.items():
            # Its part on the other roots stays, as what it holds
            # outside them does.
            kept = consumer.kept | (consumer.moved.keys() - part.keys())
            runs[root].append((uuid, part, kept))
    reach = evacuation.reaches(conn, sorted(
        {rp for run in runs.values() for _, _, kept in run for rp in kept}))
    names = base.resource_class_names(conn)
    shapes = evacuation.Shapes(conn, changed, read)
    failing = {}
    for root, run in runs.items():
        free = collections.ChainMap({}, shapes.free)
        nowhere = 0
        for uuid, part, kept in run:
            query = shapes_of.get(uuid) or evacuation.recorded(
                names, part, parents)
            found = shapes.of(query).place_in(
                free, evacuation.reaching(changed, reach, kept), root)
            nowhere += found is None
        if nowhere:
            failing[root] = nowhere
    labels = evacuation.labelled(conn, changed, set(failing))
    return {'failing': sorted(({'uuid': labels[root], 'nowhere': nowhere}
                               for root, nowhere in failing.items()),
                              key=lambda entry: entry['uuid'])}


def _root(rp, parents):
    """The root of provider ``rp`` ({rp: parent} holding its tree)."""
    while parents.get(rp) is not None:
        rp = parents[rp]
    return rp


def _in_scope(conn, changed, member_of):
    """{root id} of the trees whose loss is played: every root left but
    those of sharing providers; with a provider in aggregate
    ``member_of`` (a uuid) if given."""
    stmt = sa.select(RP.c.root_provider_id).distinct()
    if member_of is not None:
        found = dict(conn.execute(sa.select(AGG.c.uuid, AGG.c.id).where(
            AGG.c.uuid == member_of)).all())
        changes.known([member_of], found, 'survive.member_of', 'aggregate')
        stmt = stmt.select_from(RP.join(
            RPA, RPA.c.resource_provider_id == RP.c.id)).where(
                RPA.c.aggregate_id == found[member_of])
    sharing = (sa.select(RP.c.root_provider_id)
               .select_from(RP.join(RPT, RPT.c.resource_provider_id
                                    == RP.c.id)
                            .join(TRAITS, TRAITS.c.id == RPT.c.trait_id))
               .where(TRAITS.c.name == names_mod.SHARING_TRAIT))
    stmt = stmt.where(RP.c.root_provider_id.notin_(sharing))
    return {root for root, in lookup.fetch(conn, stmt)} - changed.out
