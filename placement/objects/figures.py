"""The figures of an inventory, each written once: capacity, usage and
free space, as SQL expressions and as Python arithmetic; and the two
rules an allocation of an amount must pass, units and room, in both
forms from one expression.

Every reader of capacity (claims, candidates, explain, capacity gauges,
summaries) takes it from here, so a change of the rule (say, how
``reserved`` counts) is made in one place.  The read path ANDs the SQL
forms of the rules into its statements; the write path (claims) and the
capacity count test values already read with the Python forms.
"""
import struct
import typing

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


def ratio_in_sql(allocation_ratio, dialect):
    """The allocation_ratio ``dialect``'s SQL computes with, from the
    value its driver handed over: MySQL keeps the column in single
    precision (a FLOAT) and computes with that value, whose shortest
    decimal form is what Python read."""
    if dialect != 'mysql':
        return allocation_ratio
    return struct.unpack('f', struct.pack('f', allocation_ratio))[0]


def capacity_of(total, reserved, allocation_ratio):
    """``capacity`` of values already read (same arithmetic, so SQLite's
    double precision and Python's agree)."""
    return (total - reserved) * allocation_ratio


def used(inventory, released=()):
    """What is allocated from an inventory row: a scalar subquery
    correlated on ``inventory`` (NULL when nothing is); ``released``:
    consumers (uuids) whose allocations count as free, as POST /claims
    replaces them."""
    return (_kept(sa.select(sa.func.sum(ALLOC.c.used)), released)
            .where(ALLOC.c.resource_provider_id
                   == inventory.c.resource_provider_id,
                   ALLOC.c.resource_class_id
                   == inventory.c.resource_class_id)
            .scalar_subquery())


def usage_table(class_ids=None, released=()):
    """What is allocated per (provider, class), summed once: a subquery
    with ``resource_provider_id``, ``resource_class_id`` and ``used``
    (of ``class_ids`` when given; ``released`` as for ``used``), to
    outer-join where every inventory is read (``used`` looks one
    inventory up at a time)."""
    stmt = _kept(sa.select(ALLOC.c.resource_provider_id,
                           ALLOC.c.resource_class_id,
                           sa.func.sum(ALLOC.c.used).label('used')),
                 released)
    if class_ids is not None:
        stmt = stmt.where(ALLOC.c.resource_class_id.in_(sorted(class_ids)))
    return stmt.group_by(ALLOC.c.resource_provider_id,
                         ALLOC.c.resource_class_id).subquery('usage')


def _kept(stmt, released):
    """``stmt`` over the allocations but those of ``released``."""
    if released:
        stmt = stmt.where(ALLOC.c.consumer_id.notin_(sorted(released)))
    return stmt


def free(inventory, used_expr, ratio=None):
    """What is left of an inventory row's capacity, as SQL, given the
    expression ``used_expr`` of its usage (may be NULL); ``ratio`` as
    for ``capacity``."""
    return capacity(inventory, ratio) - sa.func.coalesce(used_expr, 0)


def free_of(capacity, used):
    """``free`` of values already read, as a float (MySQL sums usage to
    a Decimal; NULL usage is none)."""
    return float(capacity) - float(used or 0)


def capacity_in_sql(total, reserved, allocation_ratio, dialect):
    """``capacity`` of values already read, as ``dialect``'s SQL computes
    it (``ratio_in_sql``)."""
    return capacity_of(total, reserved,
                       ratio_in_sql(allocation_ratio, dialect))


def room_in_sql(total, reserved, allocation_ratio, used, dialect):
    """``free`` of values already read, as ``dialect``'s SQL computes
    it (``ratio_in_sql``): what its statements compare amounts with."""
    return free_of(capacity_in_sql(total, reserved, allocation_ratio,
                                   dialect), used)


def room_of(inventory, used, dialect):
    """``room_in_sql`` of an ``inventory`` row (total, reserved,
    allocation_ratio) and its ``used``."""
    return room_in_sql(inventory.total, inventory.reserved,
                       inventory.allocation_ratio, used, dialect)


class Held(typing.NamedTuple):
    """What a provider holds of a class, read already: its inventory (a
    row with total, reserved, allocation_ratio and the units), its usage
    (None: nothing allocated) and free space (``room``, see ``held``)."""
    inventory: object
    used: object
    room: float


def held(inventory, used, dialect):
    """The Held of an ``inventory`` and its ``used``, the free space as
    ``dialect``'s SQL computes it (``room_of``)."""
    return Held(inventory, used, room_of(inventory, used, dialect))


class Decided:
    """``check.fits(held)`` (a request's checks, on Held values) asked
    once per check and inventory, and per usage only for a check that
    reads it: in a snapshot inventories alike are one object."""

    def __init__(self):
        self._found = {}

    def fits(self, check, held):
        key = (id(check), id(held.inventory),
               held.used if check.reads_usage else None)
        found = self._found.get(key)
        if found is None:
            found = self._found[key] = check.fits(held)
        return found


def times_fitting(free, amount):
    """How many allocations of ``amount`` fit one after another in
    ``free`` (a value already read): how often ``fits_room_of`` holds,
    taking ``amount`` each time."""
    return times_fitting_each((free,), amount)[0]


def times_fitting_each(frees, amount):
    """[times_fitting(free, amount) for free in frees], with no call per
    value: the fill counts trees alike a column at a time."""
    return [int(free // amount) if free > 0 else 0 for free in frees]


def _units(min_unit, max_unit, step_size, amount):
    """The conditions of the units rule, columns or values alike.  The
    multiple of ``step_size`` is a remainder of at most 0: PostgreSQL
    guesses that an equality on an expression holds for 0.5 % of the
    rows (an inequality a third), and with the other guessed conditions
    of two classes expected a handful of inventory rows for thousands."""
    return (min_unit <= amount, max_unit >= amount,
            amount % step_size <= 0)


def fits_units(inventory, amount):
    """Whether one allocation of ``amount`` (an int or an expression)
    respects an inventory row's min_unit, max_unit and step_size, as
    SQL."""
    if isinstance(amount, int):
        amount = sa.literal(amount)
    return sa.and_(*_units(inventory.c.min_unit, inventory.c.max_unit,
                           inventory.c.step_size, amount))


def fits_units_of(min_unit, max_unit, step_size, amount):
    """``fits_units`` of values already read."""
    return all(_units(min_unit, max_unit, step_size, amount))


def fits_room(inventory, used_expr, amount):
    """Whether ``amount`` more fits an inventory row's capacity, given
    the expression ``used_expr`` of its usage (may be NULL), as SQL."""
    return fits_room_of(free(inventory, used_expr), amount)


def fits_room_of(free_space, amount):
    """Whether ``amount`` more fits in ``free_space`` (``free_of``, or
    ``free`` as SQL): what is left must be at least the amount."""
    return free_space >= amount
