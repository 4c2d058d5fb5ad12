"""Resource classes: the standard ones (os-resource-classes, synced at
start-up with id = position in its list) and ``CUSTOM_`` ones, whose ids
start at 10000 so they never collide with a future standard class."""
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from placement import errors
from placement.data import feed
from placement.data import tables
from placement.objects import base

RC = tables.resource_classes
FIRST_CUSTOM_ID = 10000

_COLUMNS = (RC.c.id, RC.c.name, RC.c.created_at, RC.c.updated_at)


def list_classes(conn):
    """Rows (id, name, created_at, updated_at) of every class, by id."""
    return conn.execute(sa.select(*_COLUMNS).order_by(RC.c.id)).all()


def get_class(conn, name, lock=False):
    """The class row named ``name``, or None; ``lock``: locked for
    update (in a writer)."""
    stmt = sa.select(*_COLUMNS).where(RC.c.name == name)
    rows = conn.execute(base.for_update(conn, stmt) if lock else stmt).all()
    # Exactly, even where the database's collation ignores case.
    return next((row for row in rows if row.name == name), None)


def _require(conn, name, lock=False):
    row = get_class(conn, name, lock)
    if row is None:
        raise errors.NotFound('No such resource class %s.' % name)
    return row


def _insert(conn, name):
    """Insert custom class ``name`` with the next free custom id."""
    highest = conn.execute(sa.select(sa.func.max(RC.c.id))).scalar() or 0
    try:
        conn.execute(RC.insert().values(
            id=max(highest + 1, FIRST_CUSTOM_ID), name=name,
            created_at=base.now()))
    except sa_exc.IntegrityError:
        # A concurrent create took the id or the name; the retry either
        # picks the next id or finds the name taken.
        raise errors.RetryableConflict(
            'Resource classes were created concurrently.') from None
    feed.touch_names(conn)
    return get_class(conn, name)


def create_class(conn, name):
    """Create custom class ``name``; 409 if it exists."""
    if get_class(conn, name) is not None:
        # Upstream gives this 409 no specific code.
        raise errors.Conflict(
            'Conflicting resource class already exists: %s' % name)
    return _insert(conn, name)


def ensure_class(conn, name):
    """Create custom class ``name`` unless it exists: (row, created)."""
    row = get_class(conn, name)
    if row is not None:
        return row, False
    return _insert(conn, name), True


def rename_class(conn, name, new_name):
    """Rename custom class ``name`` (the pre-1.7 PUT); return its row."""
    row = _require(conn, name)
    if not name.startswith(base.CUSTOM_PREFIX):
        raise errors.BadRequest(
            'Cannot update standard resource class %s' % name)
    if new_name != name:
        if get_class(conn, new_name) is not None:
            raise errors.Conflict(
                'Resource class already exists: %s' % new_name,
                code=errors.DUPLICATE_NAME)
        try:
            conn.execute(RC.update().where(RC.c.id == row.id)
                         .values(name=new_name, updated_at=base.now()))
        except sa_exc.IntegrityError:
            raise errors.RetryableConflict(
                'Resource class %s was created concurrently.'
                % new_name) from None
        feed.touch_names(conn)
    return get_class(conn, new_name)


def delete_class(conn, name):
    """Delete custom class ``name`` unless inventory or usage refers to it.

    The class row is locked before the check, and an inventory write
    that refers to the class for the first time locks and writes it too
    (``base.referenced_class_ids``): it either committed before, and the
    check sees its records, or waits (or, through another Galera node,
    fails certification and retries) and then finds the class gone.
    (Usage needs inventory of the class first.)
    """
    row = _require(conn, name, lock=True)
    if not name.startswith(base.CUSTOM_PREFIX):
        raise errors.BadRequest(
            'Error in delete resource class: Cannot delete standard '
            'resource class %s.' % name)
    for table in (tables.inventories, tables.allocations):
        used = conn.execute(sa.select(table.c.id)
                            .where(table.c.resource_class_id == row.id)
                            .limit(1)).first()
        if used is not None:
            raise errors.Conflict(
                'Error in delete resource class: Cannot delete resource '
                'class %s. Class is in use in inventory.' % name)
    conn.execute(RC.delete().where(RC.c.id == row.id))
    feed.touch_names(conn)
