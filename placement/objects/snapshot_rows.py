"""The SQL behind the in-memory snapshot (placement/memory/): every
provider with what it has, or only the providers a change touched.

Each function reads all providers when ``ids`` is None, else those of
``ids`` (in chunks); rows are read by name.  Usage is summed per
(provider, class) here, once, so the snapshot never sums allocations
for the read step; the consumers' holdings (what a what-if moves) are
read beside it.
"""
import sqlalchemy as sa

from placement.data import tables
from placement.objects import base

RP = tables.resource_providers
INV = tables.inventories
ALLOC = tables.allocations
RPT = tables.resource_provider_traits
RPA = tables.resource_provider_aggregates
CONSUMERS = tables.consumers
TYPES = tables.consumer_types

_PROVIDERS = sa.select(
    RP.c.id, RP.c.uuid, RP.c.name, RP.c.generation,
    RP.c.parent_provider_id.label('parent_id'),
    RP.c.root_provider_id.label('root_id'),
    sa.func.coalesce(RP.c.updated_at, RP.c.created_at).label('changed'))
_INVENTORIES = sa.select(
    INV.c.resource_provider_id.label('rp'), INV.c.resource_class_id.label('rc'),
    INV.c.total, INV.c.reserved, INV.c.min_unit, INV.c.max_unit,
    INV.c.step_size, INV.c.allocation_ratio)
_USAGE = (sa.select(ALLOC.c.resource_provider_id.label('rp'),
                    ALLOC.c.resource_class_id.label('rc'),
                    sa.func.sum(ALLOC.c.used).label('used'))
          .group_by(ALLOC.c.resource_provider_id, ALLOC.c.resource_class_id))
# An allocation may have no consumer row (written before consumers were
# recorded), a consumer no type.
_HOLDINGS = sa.select(
    ALLOC.c.resource_provider_id.label('rp'),
    ALLOC.c.consumer_id.label('consumer'),
    ALLOC.c.resource_class_id.label('rc'), ALLOC.c.used,
    TYPES.c.name.label('consumer_type')).select_from(
    ALLOC.outerjoin(CONSUMERS, CONSUMERS.c.uuid == ALLOC.c.consumer_id)
    .outerjoin(TYPES, TYPES.c.id == CONSUMERS.c.consumer_type_id))
_TRAITS = sa.select(RPT.c.resource_provider_id.label('rp'),
                    tables.traits.c.name).join_from(
    RPT, tables.traits, tables.traits.c.id == RPT.c.trait_id)
_AGGREGATES = sa.select(RPA.c.resource_provider_id.label('rp'),
                        tables.placement_aggregates.c.uuid).join_from(
    RPA, tables.placement_aggregates,
    tables.placement_aggregates.c.id == RPA.c.aggregate_id)


def _read(conn, stmt, column, ids):
    if ids is None:
        return conn.execute(stmt).all()
    rows = []
    for chunk in base.chunks(sorted(ids)):
        rows.extend(conn.execute(stmt.where(column.in_(chunk))))
    return rows


def providers(conn, ids=None):
    """Rows: id, uuid, name, generation, parent_id, root_id, changed."""
    return _read(conn, _PROVIDERS, RP.c.id, ids)


def inventories(conn, ids=None):
    """Rows: rp, rc, total, reserved, min_unit, max_unit, step_size,
    allocation_ratio."""
    return _read(conn, _INVENTORIES, INV.c.resource_provider_id, ids)


def usage(conn, ids=None):
    """Rows: rp, rc, used (summed)."""
    return _read(conn, _USAGE, ALLOC.c.resource_provider_id, ids)


def holdings(conn, ids=None):
    """Rows: rp, consumer (uuid), rc, used, consumer_type (name or
    None): one per allocation."""
    return _read(conn, _HOLDINGS, ALLOC.c.resource_provider_id, ids)


def traits(conn, ids=None):
    """Rows: rp, name."""
    return _read(conn, _TRAITS, RPT.c.resource_provider_id, ids)


def aggregates(conn, ids=None):
    """Rows: rp, uuid (of the aggregate)."""
    return _read(conn, _AGGREGATES, RPA.c.resource_provider_id, ids)


def aggregate_uuids(conn):
    """{uuid} of every aggregate, with members or not."""
    agg = tables.placement_aggregates
    return {uuid for uuid, in conn.execute(sa.select(agg.c.uuid))
            if uuid is not None}


def class_ids(conn):
    """{resource class name: id}."""
    rc = tables.resource_classes
    return dict(conn.execute(sa.select(rc.c.name, rc.c.id)).all())


def trait_ids(conn):
    """{trait name: id}."""
    traits = tables.traits
    return dict(conn.execute(sa.select(traits.c.name, traits.c.id)).all())




_PROVIDER_FIGURES = sa.select(
    sa.func.count(), sa.func.max(RP.c.id), sa.func.sum(RP.c.generation),
    sa.func.max(sa.func.coalesce(RP.c.updated_at, RP.c.created_at)),
    sa.func.sum(RP.c.root_provider_id), sa.func.sum(RP.c.parent_provider_id),
    sa.func.sum(sa.func.char_length(RP.c.name)))
_USED_IN_ALL = sa.select(sa.func.sum(ALLOC.c.used))


def fingerprint(conn):
    """Figures that upstream's writes move too, which record nothing in
    the change feed: the providers' count, highest id, sum of
    generations, newest change, sums of root and parent ids and of the
    names' lengths; the units allocated in all.  They cover the
    consumers' holdings and types as well: upstream bumps the generation
    of every provider a write leaves allocations on (a new type is
    written with the allocations), and a write that only removes some
    lowers the units allocated (each is at least 1)."""
    figures = conn.execute(_PROVIDER_FIGURES).one()
    return (*(int(value or 0) if index != 3 else value
              for index, value in enumerate(figures)),
            int(conn.execute(_USED_IN_ALL).scalar() or 0))
