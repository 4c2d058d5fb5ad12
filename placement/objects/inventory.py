"""Inventories: what each provider offers, one record per resource class.

Every change bumps the provider's generation in the same transaction.
Removing a class that has allocations is refused; shrinking its total
below what is allocated is allowed (the operator knows best).
"""
import sqlalchemy as sa

from placement import errors
from placement.data import tables
from placement.data import timestamps
from placement.objects import base
from placement.objects import figures

INV = tables.inventories
ALLOC = tables.allocations
RC = tables.resource_classes
FIELDS = ('total', 'reserved', 'min_unit', 'max_unit', 'step_size',
          'allocation_ratio')

_UNKNOWN_CLASS = 'No such resource class %s.'


def _records(rows):
    """{class name: record} of inventory rows, plus their last change."""
    records = {}
    for row in rows:
        record = {f: getattr(row, f) for f in FIELDS}
        record['allocation_ratio'] = float(record['allocation_ratio'])
        records[row.class_name] = record
    return records, timestamps.last_change(rows)


# One row per inventory, or a single row of NULL inventory columns.
_PROVIDER_INVENTORIES = base.generation_and_links(
    INV, RC, INV.c.resource_class_id == RC.c.id,
    RC.c.name.label('class_name'), INV.c.created_at, INV.c.updated_at,
    *(INV.c[f] for f in FIELDS))


def get_all(conn, uuid):
    """(generation, {class: record}, last change) of provider ``uuid``."""
    generation, rows = base.read_generation_and_links(
        conn, _PROVIDER_INVENTORIES, uuid, 'class_name',
        base.REPEATED_SPACED)
    records, modified = _records(rows)
    return generation, records, modified


def get_one(conn, uuid, class_name):
    generation, records, modified = get_all(conn, uuid)
    if class_name not in records:
        raise errors.NotFound(
            'No inventory of class %s for %s' % (class_name, uuid))
    return generation, records[class_name], modified


# How replace_all reports errors for each caller, as upstream does: the
# texts, and whether a bad capacity is reported before a class in use.
PUT_ERRORS = {
    'unknown_class': 'Unknown resource class in inventory for resource '
                     'provider {uuid}: {error}',
    'in_use': 'update conflict: {error}',
    'capacity_first': True}
DELETE_ERRORS = dict(PUT_ERRORS, in_use='{error}')
RESHAPE_ERRORS = dict(PUT_ERRORS, capacity_first=False,
                      unknown_class='malformed reshaper data: {error}')


# Upstream words a client's stale generation this way on the inventory
# routes, and as base.GENERATION_CONFLICT on the traits and aggregates ones.
_GENERATION_CONFLICT = 'resource provider generation conflict'


def _check_capacity(action, uuid, records, *, reserved_can_be_total):
    """400 unless each record leaves something (or, if allowed, nothing)
    to allocate once its reserved amount is taken off; ``action`` names
    the operation in the text ('create' or 'update')."""
    for name, record in records.items():
        # Upstream checks the capacity, so a ratio of zero or below fails
        # too, in the same words (the reserved amount is not the culprit).
        capacity = figures.capacity_of(record['total'], record['reserved'],
                                       record['allocation_ratio'])
        if capacity < 0 or (capacity == 0 and not reserved_can_be_total):
            raise errors.BadRequest(
                "Unable to %s inventory for resource provider %s: Invalid "
                "inventory for '%s' on resource provider '%s'. The "
                "reserved value is greater than %stotal."
                % (action, uuid, name, uuid,
                   '' if reserved_can_be_total else 'or equal to '))


def _in_use(conn, uuid, provider_id, class_ids):
    """The text of the 409 if any of ``{name: id}`` has allocations on the
    provider (classes in id order), else None."""
    if not class_ids:
        return None
    used = set(conn.execute(
        sa.select(ALLOC.c.resource_class_id).distinct()
        .where(ALLOC.c.resource_provider_id == provider_id)
        .where(ALLOC.c.resource_class_id.in_(class_ids.values()))).scalars())
    in_use = sorted((id_, name) for name, id_ in class_ids.items()
                    if id_ in used)
    if not in_use:
        return None
    return ("Inventory for '%s' on resource provider '%s' in use."
            % (', '.join(name for _id, name in in_use), uuid))


def add(conn, uuid, class_name, record, *, reserved_can_be_total=False):
    """Add one class to a provider; 409 if it already has it."""
    provider_id, generation = base.lock_provider(conn, uuid)
    _check_capacity('create', uuid, {class_name: record},
                    reserved_can_be_total=reserved_can_be_total)
    class_id = base.referenced_class_ids(
        conn, [class_name]).get(class_name)
    if class_id is None:
        raise errors.BadRequest(
            'Unable to create inventory for resource provider %s: %s'
            % (uuid, _UNKNOWN_CLASS % class_name))
    exists = conn.execute(
        sa.select(INV.c.id).where(INV.c.resource_provider_id == provider_id)
        .where(INV.c.resource_class_id == class_id)).first()
    if exists is not None:
        raise errors.Conflict(
            "Update conflict: Inventory for '%s' on resource provider '%s' "
            "already exists." % (class_name, uuid),
            code=errors.CONCURRENT_UPDATE)
    conn.execute(INV.insert().values(
        resource_provider_id=provider_id, resource_class_id=class_id,
        created_at=base.now(), **record))
    return base.bump_generation(conn, provider_id, generation)


def update(conn, uuid, class_name, client_generation, record, *,
           reserved_can_be_total=False):
    """Replace one existing record; 400 if the provider lacks the class,
    404 if the class does not exist."""
    provider_id, generation = base.lock_provider(
        conn, uuid, client_generation, conflict=_GENERATION_CONFLICT)
    _check_capacity('update', uuid, {class_name: record},
                    reserved_can_be_total=reserved_can_be_total)
    class_id = base.resource_class_ids(conn, [class_name]).get(class_name)
    if class_id is None:
        raise errors.NotFound(_UNKNOWN_CLASS % class_name)
    result = conn.execute(
        INV.update().where(INV.c.resource_provider_id == provider_id)
        .where(INV.c.resource_class_id == class_id)
        .values(updated_at=base.now(), **record))
    if result.rowcount != 1:
        raise errors.BadRequest(
            'No inventory record with resource class for resource provider '
            '%s: No inventory of class %s found.' % (uuid, class_name))
    return base.bump_generation(conn, provider_id, generation)


def replace_all(conn, uuid, client_generation, records, *,
                reserved_can_be_total=False, report=PUT_ERRORS,
                check_capacity=True):
    """Make ``{class: record}`` the provider's whole inventory.

    ``client_generation`` None means the caller did not name one (the
    DELETE of all inventory, the reshaper).  ``report`` says how to
    report errors to the caller; ``check_capacity`` False lets the
    reshaper write an interim inventory that its last step checks.
    Returns the new generation.
    """
    provider_id, generation = base.lock_provider(
        conn, uuid, client_generation, conflict=_GENERATION_CONFLICT)
    current = dict(conn.execute(
        sa.select(INV.c.resource_class_id, INV.c.id)
        .where(INV.c.resource_provider_id == provider_id)).all())
    wanted = base.referenced_class_ids(conn, records, known=current)
    missing = [name for name in records if name not in wanted]
    if missing:
        raise errors.BadRequest(report['unknown_class'].format(
            uuid=uuid, error=_UNKNOWN_CLASS % missing[0]))
    names = base.resource_class_names(conn, current) if current else {}
    removed = {names[cid]: cid for cid in current
               if cid not in wanted.values()}

    def capacity():
        if check_capacity:
            _check_capacity('update', uuid, records,
                            reserved_can_be_total=reserved_can_be_total)

    if report['capacity_first']:
        capacity()
    in_use = _in_use(conn, uuid, provider_id, removed)
    if in_use:
        raise errors.Conflict(report['in_use'].format(error=in_use),
                              code=errors.INVENTORY_INUSE)
    if not report['capacity_first']:
        capacity()
    if removed:
        conn.execute(INV.delete().where(INV.c.id.in_(
            [current[cid] for cid in removed.values()])))
    now = base.now()
    for name, class_id in wanted.items():
        if class_id in current:
            conn.execute(INV.update().where(INV.c.id == current[class_id])
                         .values(updated_at=now, **records[name]))
        else:
            conn.execute(INV.insert().values(
                resource_provider_id=provider_id, resource_class_id=class_id,
                created_at=now, **records[name]))
    return base.bump_generation(conn, provider_id, generation)


def delete(conn, uuid, class_name):
    """Remove one class from a provider; 404 if it does not have it."""
    provider_id, generation = base.lock_provider(conn, uuid)
    missing = 'No inventory of class %s found for delete' % class_name
    class_id = base.resource_class_ids(conn, [class_name]).get(class_name)
    if class_id is None:
        raise errors.NotFound(
            '%s: %s' % (missing, _UNKNOWN_CLASS % class_name))
    in_use = _in_use(conn, uuid, provider_id, {class_name: class_id})
    if in_use:
        # Upstream's code for this one path is concurrent_update, not
        # inventory.inuse; clients may match either, so keep it.
        raise errors.Conflict(
            'Unable to delete inventory of class %s: %s'
            % (class_name, in_use), code=errors.CONCURRENT_UPDATE)
    result = conn.execute(
        INV.delete().where(INV.c.resource_provider_id == provider_id)
        .where(INV.c.resource_class_id == class_id))
    if result.rowcount != 1:
        raise errors.NotFound('%s: %s' % (missing, missing))
    return base.bump_generation(conn, provider_id, generation)
