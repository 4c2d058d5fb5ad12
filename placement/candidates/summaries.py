"""The provider summaries of an answer: from the rows the group
statements already read where those hold all a summary lists; the
providers' places in their trees, their traits and any figures the rows
lack in a few bulk reads.
"""
import sqlalchemy as sa

from placement import microversions
from placement.candidates import lookup
from placement.data import tables
from placement.objects import figures

RP = tables.resource_providers
INV = tables.inventories
RPT = tables.resource_provider_traits
TRAITS = tables.traits
# The providers of the answer, whose trees are summarized (built once).
_INNER = RP.alias('inner')


def summaries(conn, search, ids):
    """{rp: (uuid, parent uuid, root uuid, {rc name: {capacity, used}},
    [trait name, ...] or None)} of the providers ``ids`` of an answer;
    from 1.29 of every provider of their trees, before 1.27 with the
    requested classes only, traits from 1.17."""
    if not ids:
        return {}
    places = _places(conn, search.version, ids)
    resources = _resources(conn, search, places)
    traits = None
    if search.version >= microversions.CANDIDATE_TRAITS:
        traits = _traits(conn, places)
    return {rp: (*place, resources[rp],
                 None if traits is None else traits[rp])
            for rp, place in places.items()}


def _places(conn, version, ids):
    """{rp: (uuid, parent uuid, root uuid)} of ``ids``, and from 1.29 of
    every provider of their trees."""
    stmt = sa.select(RP.c.id, RP.c.uuid, RP.c.parent_provider_id,
                     RP.c.root_provider_id)
    if version >= microversions.NESTED_CANDIDATES:
        rows = lookup.rows_for(
            conn, stmt, ids, _INNER.c.id,
            lambda clause: RP.c.root_provider_id.in_(
                sa.select(_INNER.c.root_provider_id).where(clause)))
        roots = {root for rp, _, _, root in rows if rp in ids}
        rows = [(rp, uuid, parent, root) for rp, uuid, parent, root in rows
                if root in roots]
    else:
        rows = [(rp, uuid, parent, root) for rp, uuid, parent, root
                in lookup.rows_for(conn, stmt, ids, RP.c.id) if rp in ids]
    uuids = {rp: uuid for rp, uuid, _, _ in rows}
    return {rp: (uuid, uuids.get(parent), uuids.get(root))
            for rp, uuid, parent, root in rows}


def _resources(conn, search, providers):
    """{rp: {rc name: {capacity, used}}} of ``providers``: from the rows
    the group statements read where those hold all that the summary
    lists, else read here.  Inventories alike render alike, and the
    rendering is only serialized: such providers share one dict, and
    providers whose rows are alike share the whole summary."""
    names = search.names.rc_names
    rendered = {}

    def render(per_class):
        summary = {}
        for rc in sorted(per_class):
            found = per_class[rc]
            shown = rendered.get(found)
            if shown is None:
                capacity, used = found
                shown = rendered[found] = {'capacity': int(capacity),
                                           'used': int(used or 0)}
            summary[names[rc]] = shown
        return summary

    resources = {}
    unread = {}
    by_rows = {}
    seen = list(enumerate(search.seen))
    for rp in providers:
        # What the rows say of a provider, without its id and tree.
        key = tuple((number, part) for number, (_, parts) in seen
                    for part in (parts.get(rp),) if part is not None)
        summary = by_rows.get(key, False)
        if summary is False:
            per_class = {}
            listed = None
            for number, (layout, parts) in seen:
                part = parts.get(rp)
                if part is not None:
                    listed = layout.listed_of(part)
                    layout.figures(part, per_class)
            summary = by_rows[key] = (
                render(per_class) if len(per_class) == listed else None)
        if summary is None:
            unread[rp] = {}
        else:
            resources[rp] = summary
    if unread:
        stmt = sa.select(INV.c.resource_provider_id,
                         INV.c.resource_class_id, INV.c.total,
                         INV.c.reserved, INV.c.allocation_ratio,
                         figures.used(INV))
        if search.summary_classes is not None:
            stmt = stmt.where(
                INV.c.resource_class_id.in_(search.summary_classes))
        for rp, rc, total, reserved, ratio, used in lookup.rows_for(
                conn, stmt, unread, INV.c.resource_provider_id):
            found = unread.get(rp)
            if found is not None:
                found[rc] = (figures.capacity_of(total, reserved, ratio),
                             used)
        for rp, per_class in unread.items():
            resources[rp] = render(per_class)
    return resources


def _traits(conn, providers):
    """{rp: [trait name, ...]} of ``providers`` in trait id order."""
    traits = {rp: [] for rp in providers}
    rows = lookup.rows_for(
        conn, sa.select(RPT.c.resource_provider_id, RPT.c.trait_id)
        .order_by(RPT.c.resource_provider_id, RPT.c.trait_id),
        providers, RPT.c.resource_provider_id)
    names = dict(lookup.fetch(
        conn, sa.select(TRAITS.c.id, TRAITS.c.name)
        .where(TRAITS.c.id.in_(sorted({trait for _, trait in rows})))))
    for rp, trait in rows:
        found = traits.get(rp)
        if found is not None:
            found.append(names[trait])
    return traits
