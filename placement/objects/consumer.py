"""Consumers and the projects, users and consumer types they refer to.

A consumer row exists exactly while the consumer holds allocations: the
allocation writes create it and delete it once its last allocation is
gone.  Projects, users and consumer types are created on first use, keyed
by their external id (name); they are never deleted.

Concurrency (see also ``objects/base.py``):

* An existing consumer is locked with ``lock`` (``SELECT ... FOR UPDATE``)
  before anything is decided about it, and is then updated with a
  compare-and-swap on its generation.  Two writers of one consumer are
  thus serialized; the second one sees the first one's generation and,
  when its client named an older one, gets 409 ``concurrent_update``: the
  client's expectation was wrong, so it is not retried.  A generation the
  server read itself (before 1.28) is retried instead.
* A consumer that does not exist yet cannot be locked.  Two writers that
  both create it race on the unique uuid index: on MariaDB the loser
  deadlocks on the gap lock its ``FOR UPDATE`` took, on PostgreSQL its
  INSERT waits and fails as a duplicate, on SQLite writers do not overlap.
  Either way its transaction is run again (``RetryableConflict``), sees
  the new consumer, and a client that said "new consumer" (generation
  null) gets 409.
* The same retry covers two writers creating one project, user or type.
"""
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from placement import errors
from placement.data import tables
from placement.objects import base

CONSUMERS = tables.consumers
PROJECTS = tables.projects
USERS = tables.users
TYPES = tables.consumer_types

# The consumer type shown for consumers written without one.
UNKNOWN_TYPE = 'unknown'

_COLUMNS = (CONSUMERS.c.id, CONSUMERS.c.uuid, CONSUMERS.c.generation,
            CONSUMERS.c.project_id, CONSUMERS.c.user_id,
            CONSUMERS.c.consumer_type_id)


_RACED = ('Another request created the same consumer, project, user or '
          'consumer type concurrently.')


def lock(conn, uuids):
    """Lock the existing consumers among ``uuids``; return {uuid: row}.

    Rows are locked in uuid order, so writers of several consumers do not
    deadlock on each other.
    """
    found = {}
    for chunk in base.chunks(sorted(set(uuids))):
        stmt = (sa.select(*_COLUMNS).where(CONSUMERS.c.uuid.in_(chunk))
                .order_by(CONSUMERS.c.uuid))
        found.update((row.uuid, row)
                     for row in conn.execute(base.for_update(conn, stmt)))
    return found


def _ensure(conn, column, values):
    return base.ensure_ids(conn, column, values, _RACED)


def ensure_projects(conn, external_ids):
    return _ensure(conn, PROJECTS.c.external_id, external_ids)


def ensure_users(conn, external_ids):
    return _ensure(conn, USERS.c.external_id, external_ids)


def ensure_types(conn, names):
    return _ensure(conn, TYPES.c.name, names)


def create(conn, consumers):
    """Insert consumers that are being given their first allocations.

    ``consumers``: dicts of uuid, project_id, user_id and consumer_type_id
    (ids of this database).  Their generation starts at 1: 0 would be the
    (never visible) state before that first write.
    """
    if not consumers:
        return
    now = base.now()
    try:
        conn.execute(CONSUMERS.insert(), [
            dict(consumer, generation=1, created_at=now)
            for consumer in consumers])
    except sa_exc.IntegrityError:
        raise errors.RetryableConflict(_RACED) from None


def update(conn, changes):
    """Bump the generation of locked consumers and set new values.

    ``changes``: (locked row, {column: value}) pairs.  Consumers whose
    generation and values are the same share one UPDATE (per chunk), so a
    bulk write of like consumers costs a few statements.  The generation
    compare-and-swap cannot fail while the rows are locked; on SQLite (no
    row locks, but a single writer) it guards the same way.
    """
    groups = {}
    for row, values in changes:
        key = (row.generation, tuple(sorted(values.items())))
        groups.setdefault(key, []).append(row)
    now = base.now()
    for (generation, values), rows in groups.items():
        for chunk in base.chunks(rows):
            result = conn.execute(
                CONSUMERS.update()
                .where(CONSUMERS.c.id.in_([row.id for row in chunk]))
                .where(CONSUMERS.c.generation == generation)
                .values(generation=generation + 1, updated_at=now,
                        **dict(values)))
            if result.rowcount != len(chunk):
                raise errors.RetryableConflict(
                    'A consumer was updated concurrently.')


def delete(conn, uuids):
    """Delete the consumers ``uuids`` (their allocations are gone)."""
    for chunk in base.chunks(uuids):
        conn.execute(CONSUMERS.delete().where(CONSUMERS.c.uuid.in_(chunk)))


def get(conn, uuid):
    """{generation, project_id, user_id, consumer_type} or None.

    The ids are the external ones; a consumer without a type has None.
    """
    row = conn.execute(
        sa.select(CONSUMERS.c.generation,
                  PROJECTS.c.external_id.label('project_id'),
                  USERS.c.external_id.label('user_id'),
                  TYPES.c.name.label('consumer_type'))
        .select_from(
            CONSUMERS
            .outerjoin(PROJECTS, CONSUMERS.c.project_id == PROJECTS.c.id)
            .outerjoin(USERS, CONSUMERS.c.user_id == USERS.c.id)
            .outerjoin(TYPES, CONSUMERS.c.consumer_type_id == TYPES.c.id))
        .where(CONSUMERS.c.uuid == uuid)).mappings().first()
    return dict(row) if row is not None else None


def generations(conn, uuids):
    """{uuid: generation} of the consumers among ``uuids``."""
    found = {}
    for chunk in base.chunks(set(uuids)):
        found.update(conn.execute(
            sa.select(CONSUMERS.c.uuid, CONSUMERS.c.generation)
            .where(CONSUMERS.c.uuid.in_(chunk))).all())
    return found
