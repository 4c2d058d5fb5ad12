"""Capacity and usage of the whole cloud, for the metrics scrape.

Each figure is one aggregate query, so a scrape costs a few index scans
however many providers there are.
"""
import collections

import sqlalchemy as sa

from placement.data import tables
from placement.objects import figures

INV = tables.inventories
ALLOC = tables.allocations
RC = tables.resource_classes
RP = tables.resource_providers

Totals = collections.namedtuple('Totals', 'classes providers consumers')

_CAPACITY = sa.func.sum(figures.capacity(INV))
# (class name, units allocated) of every class with allocations.
USED_BY_CLASS = (sa.select(RC.c.name, sa.func.sum(ALLOC.c.used))
                 .select_from(ALLOC.join(RC,
                                         RC.c.id == ALLOC.c.resource_class_id))
                 .group_by(RC.c.name))


def totals(conn):
    """Totals({class name: (capacity, used)}, providers, consumers).

    Capacity is (total - reserved) * allocation_ratio summed over the
    inventories of a class; every class with inventory or usage appears.
    """
    classes = collections.defaultdict(lambda: [0.0, 0])
    for name, value in conn.execute(
            sa.select(RC.c.name, _CAPACITY)
            .select_from(INV.join(RC, RC.c.id == INV.c.resource_class_id))
            .group_by(RC.c.name)):
        classes[name][0] = float(value)
    for name, value in conn.execute(USED_BY_CLASS):
        classes[name][1] = int(value)
    providers = conn.execute(
        sa.select(sa.func.count()).select_from(RP)).scalar()
    consumers = conn.execute(
        sa.select(sa.func.count()).select_from(tables.consumers)).scalar()
    return Totals({name: tuple(pair) for name, pair in classes.items()},
                  providers, consumers)


def per_provider(conn):
    """[((provider uuid, class name), (capacity, used))] of every
    inventory, by provider and class."""
    used = figures.usage_table()
    rows = conn.execute(
        sa.select(RP.c.uuid, RC.c.name,
                  figures.capacity(INV),
                  sa.func.coalesce(used.c.used, 0))
        .select_from(
            INV.join(RP, RP.c.id == INV.c.resource_provider_id)
            .join(RC, RC.c.id == INV.c.resource_class_id)
            .outerjoin(used, sa.and_(
                used.c.resource_provider_id == INV.c.resource_provider_id,
                used.c.resource_class_id == INV.c.resource_class_id)))
        .order_by(RP.c.uuid, RC.c.name))
    return [((uuid, name), (float(cap), int(value)))
            for uuid, name, cap, value in rows]


def snapshot(conn, with_providers):
    """(``totals``, ``per_provider`` or None), read in one transaction."""
    return totals(conn), per_provider(conn) if with_providers else None
