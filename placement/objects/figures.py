"""The figures of an inventory, each written once: capacity, usage and
free space, as SQL expressions and as Python arithmetic.

Every reader of capacity (claims, candidates, explain, capacity gauges,
summaries) takes it from here, so a change of the rule (say, how
``reserved`` counts) is made in one place.
"""
import sqlalchemy as sa

from placement.data import tables

ALLOC = tables.allocations


def capacity(inventory, ratio=None):
    """What an inventory row can hold in all, as SQL; ``ratio``: the
    expression to read its allocation_ratio by (see
    candidates.statements.ratio_as_read)."""
    if ratio is None:
        ratio = inventory.c.allocation_ratio
    return (inventory.c.total - inventory.c.reserved) * ratio


def capacity_of(total, reserved, allocation_ratio):
    """``capacity`` of values already read (same arithmetic, so SQLite's
    double precision and Python's agree)."""
    return (total - reserved) * allocation_ratio


def used(inventory):
    """What is allocated from an inventory row: a scalar subquery
    correlated on ``inventory`` (NULL when nothing is)."""
    return (sa.select(sa.func.sum(ALLOC.c.used))
            .where(ALLOC.c.resource_provider_id
                   == inventory.c.resource_provider_id,
                   ALLOC.c.resource_class_id
                   == inventory.c.resource_class_id)
            .scalar_subquery())


def usage_table(class_ids=None):
    """What is allocated per (provider, class), summed once: a subquery
    with ``resource_provider_id``, ``resource_class_id`` and ``used``
    (of ``class_ids`` when given), to outer-join where every inventory
    is read (``used`` looks one inventory up at a time)."""
    stmt = sa.select(ALLOC.c.resource_provider_id,
                     ALLOC.c.resource_class_id,
                     sa.func.sum(ALLOC.c.used).label('used'))
    if class_ids is not None:
        stmt = stmt.where(ALLOC.c.resource_class_id.in_(sorted(class_ids)))
    return stmt.group_by(ALLOC.c.resource_provider_id,
                         ALLOC.c.resource_class_id).subquery('usage')


def free(inventory, used_expr, ratio=None):
    """What is left of an inventory row's capacity, as SQL, given the
    expression ``used_expr`` of its usage (may be NULL); ``ratio`` as
    for ``capacity``."""
    return capacity(inventory, ratio) - sa.func.coalesce(used_expr, 0)


def free_of(capacity, used):
    """``free`` of values already read, as a float (MySQL sums usage to
    a Decimal; NULL usage is none)."""
    return float(capacity) - float(used or 0)


def times_fitting(free, amount):
    """How many allocations of ``amount`` fit one after another in
    ``free`` (a value already read): each is allowed while what is left
    is at least ``amount``, as the capacity check says."""
    return max(int(free // amount), 0)
