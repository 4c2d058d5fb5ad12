"""Allocations: what each consumer uses of each provider.

``write`` replaces the allocations of one or more consumers in one
transaction, in this order (the reshaper runs the same steps through
``base.lock_providers_by_uuid`` and ``apply``):

1. Lock the providers that will receive allocations.  Their lookup by
   uuid is itself the locking read, and it is the transaction's first
   statement: on MariaDB under REPEATABLE-READ the snapshot that later
   plain reads (inventories, usages) see is taken at the first plain read,
   so it is taken only once no competing writer of these providers is
   left running (see ``objects/base.py``).
2. Lock the consumers (``consumer.lock``) and check the generations the
   client named (1.28+).
3. Delete the consumers' current allocations, then check the new ones
   against inventory and against the usage that remains, write them and
   bump the generation of every provider that received some.
4. Delete the consumers left without allocations.

Removing allocations never needs a provider lock: it can only free
capacity.

``check_room`` runs step 1 and the capacity check of step 3 alone,
writing nothing (POST /claims checks a choice before writing it).
"""
import collections
import dataclasses
import typing

import sqlalchemy as sa

from placement import errors
from placement.data import feed
from placement.data import tables
from placement.data import timestamps
from placement.objects import base
from placement.objects import consumer as consumer_obj
from placement.objects import figures

ALLOC = tables.allocations
INV = tables.inventories
RP = tables.resource_providers


class _Unchecked:
    """Marker: the client named no consumer generation (before 1.28)."""

    def __repr__(self):
        return 'UNCHECKED'


UNCHECKED = _Unchecked()


@dataclasses.dataclass
class ConsumerWrite:
    """The complete new allocations of one consumer.

    ``allocations`` is {provider uuid: {class name: amount}}; empty means
    "remove them all".  Before 1.8 ``project_id``/``user_id`` are the
    configured placeholders, and like any owner they replace an existing
    consumer's (as upstream does).  ``consumer_type`` None leaves an
    existing consumer's type as it is (before 1.38).
    """
    uuid: str
    allocations: dict
    project_id: str
    user_id: str
    generation: typing.Any = UNCHECKED
    consumer_type: typing.Optional[str] = None


class NewAllocation(typing.NamedTuple):
    """One allocation row about to be written."""
    rp_id: int
    rc_id: int
    amount: int
    consumer: str


def providers_named(writes):
    return {uuid for write in writes for uuid in write.allocations}


def write(conn, writes, bulk=False):
    """Replace the allocations of every consumer in ``writes``; ``bulk``
    for POST /allocations, which words an unknown class differently."""
    apply(conn, writes,
          base.lock_providers_by_uuid(conn, providers_named(writes)), bulk)


def apply(conn, writes, provider_ids, bulk=False):
    """Steps 2-4 of the module docstring; providers already locked.

    ``provider_ids`` maps (at least) every provider the writes name to
    its id; a name missing from it is a provider that does not exist.
    """
    _check_providers(writes, provider_ids)
    # A consumer given no allocations releases what it holds, and the
    # providers it releases move a generation, as upstream's do.
    released = _held_providers(
        conn, [w.uuid for w in writes if not w.allocations])
    # Providers may have changed earlier in this transaction (reshaper);
    # re-locking them is free and gives their current generations.
    generations = base.lock_providers(
        conn, sorted({provider_ids[u] for u in providers_named(writes)}
                     | released))
    _update_consumers(conn, writes)
    # Read again under the consumers' locks: every provider the old
    # allocations leave changes for the feed, though only the released
    # ones move a generation (as upstream's do).
    feed.touch(conn, _held_providers(conn, [w.uuid for w in writes]))
    class_ids = _class_ids(conn, writes, bulk)
    for chunk in base.chunks(w.uuid for w in writes):
        conn.execute(ALLOC.delete().where(ALLOC.c.consumer_id.in_(chunk)))
    rows = _rows(writes, provider_ids, class_ids)
    _check_capacity(conn, rows, {v: k for k, v in provider_ids.items()},
                    {v: k for k, v in class_ids.items()})
    if rows:
        now = base.now()
        conn.execute(ALLOC.insert(), [
            {'resource_provider_id': row.rp_id,
             'resource_class_id': row.rc_id, 'used': row.amount,
             'consumer_id': row.consumer, 'created_at': now}
            for row in rows])
    # Exactly the providers _check_capacity read: on Galera this write to
    # each of their rows is what makes racing claims conflict at commit
    # (objects/base.py), so it must cover every provider checked.
    for rp_id in sorted({row.rp_id for row in rows} | released):
        base.bump_generation(conn, rp_id, generations[rp_id])
    consumer_obj.delete(conn, [w.uuid for w in writes if not w.allocations])


def check_room(conn, writes):
    """Lock the providers ``writes`` name and refuse them as ``write``
    would (the capacity 409) unless they fit beside everybody else's
    allocations, the consumers' own released; write nothing.  A caller
    may then choose again in the same transaction without a savepoint,
    whose rolled-back rows Galera would still replicate."""
    provider_ids = base.lock_providers_by_uuid(conn, providers_named(writes))
    _check_providers(writes, provider_ids)
    class_ids = _class_ids(conn, writes, False)
    _check_capacity(conn, _rows(writes, provider_ids, class_ids),
                    {v: k for k, v in provider_ids.items()},
                    {v: k for k, v in class_ids.items()},
                    held(conn, [w.uuid for w in writes]))


def _check_providers(writes, provider_ids):
    """400 for a provider ``provider_ids`` {uuid: id} lacks."""
    for consumer_write in writes:
        for uuid in consumer_write.allocations:
            if uuid not in provider_ids:
                raise errors.BadRequest(
                    "Allocation for resource provider '%s' that does not "
                    "exist." % uuid)


def _rows(writes, provider_ids, class_ids):
    """The NewAllocation rows of ``writes``."""
    return [NewAllocation(provider_ids[uuid], class_ids[name], amount,
                          consumer_write.uuid)
            for consumer_write in writes
            for uuid, resources in consumer_write.allocations.items()
            for name, amount in resources.items()]


def _held_providers(conn, consumers):
    """The ids of the providers holding allocations of ``consumers``
    (uuids)."""
    held = set()
    for chunk in base.chunks(consumers):
        held.update(conn.execute(
            sa.select(ALLOC.c.resource_provider_id).distinct()
            .where(ALLOC.c.consumer_id.in_(chunk))).scalars())
    return held


def _generation_conflict(current, given):
    # Upstream writes a new consumer's generation as JSON (null) and the
    # client's as Python (None).
    return errors.Conflict(
        'consumer generation conflict - expected %s but got %s'
        % ('null' if current is None else current, given),
        code=errors.CONCURRENT_UPDATE, kind=errors.CONSUMER_GENERATION)


def _update_consumers(conn, writes):
    """Check each consumer's generation; bump (or create) the ones that
    keep (or get) allocations.

    A few statements for any number of consumers: the projects, users and
    types they name are looked up (and created) all at once, new consumers
    are inserted in one statement and like updates share one.
    """
    locked = consumer_obj.lock(conn, [w.uuid for w in writes])
    for consumer_write in writes:
        row = locked.get(consumer_write.uuid)
        current = row.generation if row is not None else None
        generation = consumer_write.generation
        if generation is not UNCHECKED and generation != current:
            raise _generation_conflict(current, generation)
    # Every project, user and type named gets its row, even for a consumer
    # that is being removed: upstream creates them before anything else.
    projects = consumer_obj.ensure_projects(conn,
                                            {w.project_id for w in writes})
    users = consumer_obj.ensure_users(conn, {w.user_id for w in writes})
    types = consumer_obj.ensure_types(
        conn, {w.consumer_type for w in writes
               if w.consumer_type is not None})
    # Consumers left without allocations are deleted below, once their
    # allocations are gone.
    kept = [w for w in writes if w.allocations]
    new, changed = [], []
    for consumer_write in kept:
        values = {'project_id': projects[consumer_write.project_id],
                  'user_id': users[consumer_write.user_id]}
        row = locked.get(consumer_write.uuid)
        if consumer_write.consumer_type is not None:
            values['consumer_type_id'] = types[consumer_write.consumer_type]
        if row is None:
            new.append(dict({'consumer_type_id': None},
                            uuid=consumer_write.uuid, **values))
        else:
            changed.append((row, values))
    consumer_obj.create(conn, new)
    consumer_obj.update(conn, changed)


def _class_ids(conn, writes, bulk):
    """{name: id} of the classes the writes use; 400 for an unknown one."""
    names = {name for w in writes for res in w.allocations.values()
             for name in res}
    ids = base.resource_class_ids(conn, names)
    for consumer_write in writes:
        for resources in consumer_write.allocations.values():
            for name in resources:
                if name not in ids:
                    raise errors.BadRequest(
                        ('Unable to allocate inventory %s' if bulk else
                         'Unable to allocate inventory for consumer %s: %%s'
                         % consumer_write.uuid)
                        % ('No such resource class %s.' % name))
    return ids


def _cannot_allocate(detail):
    return errors.Conflict('Unable to allocate inventory: %s' % detail,
                           kind=errors.CAPACITY)


def _where(class_name, provider_uuid):
    return "'%s' on resource provider '%s'" % (class_name, provider_uuid)


def _check_capacity(conn, rows, provider_uuids, class_names,
                    released=None):
    """409 unless every new allocation fits its provider's inventory.

    ``rows`` are the NewAllocation rows; the usage read here less
    ``released`` {(provider id, class id): amount} (the consumers' previous
    allocations, when not deleted yet) is everybody else's.  Each amount
    must pass the units rule, then all amounts of a (provider, class)
    together the room rule (figures.fits_units_of, fits_room_of: the
    rules the read path's SQL applies).
    """
    if not rows:
        return
    inventories = {}
    for chunk in base.chunks(sorted({row.rp_id for row in rows})):
        inventories.update(
            ((inv.resource_provider_id, inv.resource_class_id), inv)
            for inv in conn.execute(
                sa.select(INV, figures.used(INV).label('used'))
                .where(INV.c.resource_provider_id.in_(chunk))))
    wanted = collections.Counter()
    for row in rows:
        key = (row.rp_id, row.rc_id)
        inv = inventories.get(key)
        if inv is None:
            raise _cannot_allocate('Inventory for %s invalid.' % _where(
                class_names[row.rc_id], provider_uuids[row.rp_id]))
        if not figures.fits_units_of(inv.min_unit, inv.max_unit,
                                     inv.step_size, row.amount):
            raise _cannot_allocate(
                'Unable to create allocation for %s. The requested amount '
                'would violate inventory constraints.' % _where(
                    class_names[row.rc_id], provider_uuids[row.rp_id]))
        wanted[key] += row.amount
    for (rp_id, rc_id), amount in wanted.items():
        inv = inventories[rp_id, rc_id]
        used = (inv.used or 0) - (released or {}).get((rp_id, rc_id), 0)
        free_space = figures.free_of(
            figures.capacity_of(inv.total, inv.reserved,
                                inv.allocation_ratio), used)
        if not figures.fits_room_of(free_space, amount):
            raise _cannot_allocate(
                'Unable to create allocation for %s. The requested amount '
                'would exceed the capacity.' % _where(
                    class_names[rc_id], provider_uuids[rp_id]))


def held(conn, consumers):
    """{(provider id, class id): amount} the ``consumers`` (uuids) hold
    together: what writing their new allocations releases first."""
    found = collections.Counter()
    for chunk in base.chunks(sorted(set(consumers))):
        for rp_id, rc_id, used in conn.execute(
                sa.select(ALLOC.c.resource_provider_id,
                          ALLOC.c.resource_class_id, ALLOC.c.used)
                .where(ALLOC.c.consumer_id.in_(chunk))):
            found[rp_id, rc_id] += used
    return found


def delete_for_consumer(conn, uuid):
    """Remove all allocations of ``uuid`` and the consumer; 404 if none."""
    consumer_obj.lock(conn, [uuid])
    # No generation moves here: the feed hears of the providers as read
    # under the consumer's lock, before they are gone.
    feed.touch(conn, _held_providers(conn, [uuid]))
    deleted = conn.execute(
        ALLOC.delete().where(ALLOC.c.consumer_id == uuid)).rowcount
    if not deleted:
        raise errors.NotFound("No allocations for consumer '%s'" % uuid)
    consumer_obj.delete(conn, [uuid])


def get_for_consumer(conn, uuid):
    """(consumer dict or None, {provider uuid: {generation, resources}},
    last change); the consumer is None when it has no allocations."""
    rows = conn.execute(
        sa.select(RP.c.uuid, RP.c.generation, ALLOC.c.resource_class_id,
                  ALLOC.c.used, ALLOC.c.created_at, ALLOC.c.updated_at)
        .select_from(ALLOC.join(RP, ALLOC.c.resource_provider_id == RP.c.id))
        .where(ALLOC.c.consumer_id == uuid)).all()
    if not rows:
        return None, {}, None
    names = base.resource_class_names(conn, {r.resource_class_id
                                             for r in rows})
    by_provider = {}
    for row in rows:
        entry = by_provider.setdefault(
            row.uuid, {'generation': row.generation, 'resources': {}})
        entry['resources'][names[row.resource_class_id]] = row.used
    return (consumer_obj.get(conn, uuid), by_provider,
            timestamps.last_change(rows))


def get_for_provider(conn, uuid):
    """(provider generation, {consumer uuid: {resources}}, consumer
    generations {uuid: generation}, last change of the allocations, None
    without any); 404 without provider."""
    provider = base.get_provider(
        conn, uuid, "Resource provider '%s' not found: {0}" % uuid)
    rows = conn.execute(
        sa.select(ALLOC.c.consumer_id, ALLOC.c.resource_class_id,
                  ALLOC.c.used, ALLOC.c.created_at, ALLOC.c.updated_at)
        .where(ALLOC.c.resource_provider_id == provider.id)).all()
    names = base.resource_class_names(conn, {r.resource_class_id
                                             for r in rows}) if rows else {}
    by_consumer = {}
    for row in rows:
        by_consumer.setdefault(row.consumer_id, {'resources': {}})[
            'resources'][names[row.resource_class_id]] = row.used
    return (provider.generation, by_consumer,
            consumer_obj.generations(conn, by_consumer),
            timestamps.last_change(rows))
