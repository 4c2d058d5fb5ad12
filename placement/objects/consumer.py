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
from placement import tables
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


def _lost_race():
    return errors.RetryableConflict(
        'Another request created the same consumer, project, user or '
        'consumer type concurrently.')


def lock(conn, uuids):
    """Lock the existing consumers among ``uuids``; return {uuid: row}.

    Rows are locked in uuid order, so writers of several consumers do not
    deadlock on each other.
    """
    uuids = sorted(set(uuids))
    if not uuids:
        return {}
    stmt = (sa.select(*_COLUMNS).where(CONSUMERS.c.uuid.in_(uuids))
            .order_by(CONSUMERS.c.uuid))
    return {row.uuid: row
            for row in conn.execute(base.for_update(conn, stmt))}


def _ensure(conn, table, column, value):
    """The id of the row of ``table`` whose ``column`` is ``value``."""
    found = conn.execute(
        sa.select(table.c.id).where(column == value)).scalar()
    if found is not None:
        return found
    try:
        return conn.execute(table.insert().values(
            {column.name: value, 'created_at': base.now()})
        ).inserted_primary_key[0]
    except sa_exc.IntegrityError:
        raise _lost_race() from None


def ensure_project(conn, external_id):
    return _ensure(conn, PROJECTS, PROJECTS.c.external_id, external_id)


def ensure_user(conn, external_id):
    return _ensure(conn, USERS, USERS.c.external_id, external_id)


def ensure_type(conn, name):
    return _ensure(conn, TYPES, TYPES.c.name, name)


def create(conn, uuid, project_id, user_id, type_id):
    """Insert a consumer that is being given its first allocations.

    Its generation starts at 1: 0 would be the (never visible) state
    before that first write.
    """
    try:
        conn.execute(CONSUMERS.insert().values(
            uuid=uuid, project_id=project_id, user_id=user_id,
            consumer_type_id=type_id, generation=1, created_at=base.now()))
    except sa_exc.IntegrityError:
        raise _lost_race() from None


def update(conn, row, **values):
    """Bump the generation of the locked consumer ``row``; set ``values``.

    The generation compare-and-swap cannot fail while the row is locked;
    on SQLite (no row locks, but a single writer) it guards the same way.
    """
    result = conn.execute(
        CONSUMERS.update()
        .where(CONSUMERS.c.id == row.id)
        .where(CONSUMERS.c.generation == row.generation)
        .values(generation=row.generation + 1, updated_at=base.now(),
                **values))
    if result.rowcount != 1:
        raise errors.RetryableConflict(
            'Consumer %s was updated concurrently.' % row.uuid)


def delete(conn, uuids):
    """Delete the consumers ``uuids`` (their allocations are gone)."""
    if uuids:
        conn.execute(CONSUMERS.delete().where(CONSUMERS.c.uuid.in_(uuids)))


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
    if not uuids:
        return {}
    return dict(conn.execute(
        sa.select(CONSUMERS.c.uuid, CONSUMERS.c.generation)
        .where(CONSUMERS.c.uuid.in_(set(uuids)))).all())
