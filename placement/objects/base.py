"""SQL helpers every object module uses: lookups, locks, generations.

The locking rule and why it holds: docs/developing.md, docs/galera.md.
"""
import datetime

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from placement import errors
from placement.data import feed
from placement.data import tables

RP = tables.resource_providers
# Names of the classes operators define; only these can be deleted.
CUSTOM_PREFIX = 'CUSTOM_'


# How many values one ``IN (...)`` list holds at most: SQLite refuses a
# statement with more than 32,766 parameters, and a few thousand keep
# each statement (and MariaDB's packet) a sensible size.
IN_CHUNK = 1000


def chunks(values, size=IN_CHUNK):
    """``values`` (any iterable) as lists of at most ``size`` items, in
    their order."""
    values = list(values)
    for start in range(0, len(values), size):
        yield values[start:start + size]


def now():
    return datetime.datetime.now(datetime.timezone.utc).replace(
        tzinfo=None, microsecond=0)


PROVIDER_COLUMNS = (RP.c.id, RP.c.uuid, RP.c.name, RP.c.generation,
                    RP.c.root_provider_id, RP.c.parent_provider_id,
                    RP.c.created_at, RP.c.updated_at)

# Statements of the hottest lookups are built once, with bound parameters:
# building a select costs several times what executing a cached one does.
_PROVIDER_BY_UUID = sa.select(*PROVIDER_COLUMNS).where(
    RP.c.uuid == sa.bindparam('uuid'))


# How some reads word a missing provider: upstream repeats or wraps the
# plain text there, and clients match it.
REPEATED = '{0}: {0}'
REPEATED_SPACED = '{0} : {0}'


def provider_not_found(uuid, wording='{0}'):
    """The 404 of a missing provider; ``wording`` wraps the plain text."""
    return errors.NotFound(wording.format(
        'No resource provider with uuid %s found' % uuid))


def generation_and_links(link, named, link_to_named, *columns):
    """A statement reading a provider's generation and what ``link`` (a
    table of provider_id, named_id rows) joins it to in ``named``, in
    one go (the refresh calls of every compute node): ``generation`` and
    ``columns``, a row per link, or a single row of NULL ``columns`` for
    a provider without any.  Run it with ``read_generation_and_links``.
    """
    return (sa.select(RP.c.generation, *columns)
            .select_from(
                RP.outerjoin(link, link.c.resource_provider_id == RP.c.id)
                .outerjoin(named, link_to_named))
            .where(RP.c.uuid == sa.bindparam('uuid')))


def read_generation_and_links(conn, stmt, uuid, present, wording='{0}'):
    """(generation, rows) of provider ``uuid`` from a
    ``generation_and_links`` statement; ``present`` names the column that
    is NULL on the row of a provider without links.  404 (``wording``,
    see ``provider_not_found``) without the provider."""
    rows = conn.execute(stmt, {'uuid': uuid}).all()
    if not rows:
        raise provider_not_found(uuid, wording)
    return rows[0].generation, [row for row in rows
                                if getattr(row, present) is not None]


def find_provider(conn, uuid):
    """The provider row with ``uuid``, or None."""
    return conn.execute(_PROVIDER_BY_UUID, {'uuid': uuid}).first()


def get_provider(conn, uuid, wording='{0}'):
    """The provider row with ``uuid``; 404 if there is none (see
    ``provider_not_found``)."""
    row = find_provider(conn, uuid)
    if row is None:
        raise provider_not_found(uuid, wording)
    return row


def for_update(conn, stmt, *, shared=False):
    """``stmt`` as a locking read, exclusive or ``shared`` (SQLite
    writers already hold the lock)."""
    if conn.dialect.name == 'sqlite':
        return stmt
    return stmt.with_for_update(read=shared)


def lock_providers(conn, provider_ids):
    """Lock provider rows in id order; return {id: generation}.

    Providers that vanished meanwhile are simply absent from the result.
    """
    ids = sorted(set(provider_ids))
    if not ids:
        return {}
    stmt = (sa.select(RP.c.id, RP.c.generation)
            .where(RP.c.id.in_(ids)).order_by(RP.c.id))
    return dict(conn.execute(for_update(conn, stmt)).all())


def lock_tree(conn, root_id):
    """Lock every provider of the tree rooted at ``root_id``, in id order
    (for a write that moves part of the tree)."""
    conn.execute(for_update(conn, sa.select(RP.c.id).where(
        RP.c.root_provider_id == root_id).order_by(RP.c.id))).all()


def lock_providers_by_uuid(conn, uuids):
    """Lock the providers named by ``uuids``; return {uuid: id}.

    For writes that only know their providers by uuid: the lookup itself
    is the locking read, so when it is a transaction's first statement no
    plain read (on MariaDB: no REPEATABLE-READ snapshot) precedes the
    lock.  The locks are taken in uuid order on every database: without
    ORDER BY, PostgreSQL locks in the order a scan meets the rows, which
    moves as updates rewrite them, and two writers naming the same
    providers deadlock.  A deadlock with an id-ordered locker is detected
    and retried by ``Database.write``.  Providers that do not exist are
    absent from the result.
    """
    uuids = set(uuids)
    if not uuids:
        return {}
    stmt = (sa.select(RP.c.uuid, RP.c.id).where(RP.c.uuid.in_(uuids))
            .order_by(RP.c.uuid))
    return dict(conn.execute(for_update(conn, stmt)).all())


def bump_generation(conn, provider_id, expected_generation):
    """Compare-and-swap a provider's generation; return the new one.

    The expected value was read inside this transaction (a client's stale
    generation is refused before, by ``lock_provider``), so a mismatch
    means another writer slipped in: ``Database.write`` runs it again.
    """
    result = conn.execute(
        RP.update()
        .where(RP.c.id == provider_id)
        .where(RP.c.generation == expected_generation)
        .values(generation=expected_generation + 1, updated_at=now()))
    if result.rowcount != 1:
        raise errors.RetryableConflict(
            'A resource provider was updated concurrently.')
    # Every write of a provider's inventories, allocations, traits or
    # aggregates passes here: the change feed hears of them all.
    feed.touch(conn, [provider_id])
    return expected_generation + 1


def ids_by(conn, column, values):
    """{value: id} of the rows of ``column``'s table whose ``column`` is
    among ``values`` (names, UUIDs, external ids)."""
    found = {}
    for chunk in chunks(set(values)):
        found.update(conn.execute(
            sa.select(column, column.table.c.id).where(column.in_(chunk))
        ).all())
    return found


def ensure_ids(conn, column, values, raced):
    """{value: id} for every value of ``values``, inserting (in one
    statement) the rows of ``column``'s table that are missing.  Another
    transaction inserting one of them meanwhile is a lost race, worded
    ``raced``: the write runs again and then finds it."""
    values = sorted(set(values))
    found = ids_by(conn, column, values)
    missing = [value for value in values if value not in found]
    if missing:
        stamp = now()
        try:
            conn.execute(column.table.insert(), [
                {column.name: value, 'created_at': stamp}
                for value in missing])
        except sa_exc.IntegrityError:
            raise errors.RetryableConflict(raced) from None
        found.update(ids_by(conn, column, missing))
    return found


def resource_class_ids(conn, names):
    """{name: id} for the resource classes among ``names`` that exist."""
    return ids_by(conn, tables.resource_classes.c.name, names)


def referenced_class_ids(conn, names, known=()):
    """{name: id} for the classes among ``names`` that exist, for a write
    about to store references to them (inventory records); ``known``:
    ids of classes the provider already has inventory of.

    The custom classes it does not know yet are held until the write
    commits: ``resource_class.delete_class`` locks the class row before
    it checks for inventory, so here the row is locked too, and written
    (to a changed value, then back to its own), because a Galera cluster
    with several writing nodes orders only transactions that wrote a
    common row; its locks are local to one node.  The row ends as it was
    (upstream's answers show its timestamps).  So a delete either commits
    first, and the class is not found here, or sees the new inventory.
    Standard classes cannot be deleted and are not held.
    """
    found = resource_class_ids(conn, names)
    held = sorted(cid for name, cid in found.items()
                  if name.startswith(CUSTOM_PREFIX) and cid not in known)
    if not held:
        return found
    rc = tables.resource_classes
    stamps = dict(conn.execute(for_update(conn, sa.select(
        rc.c.id, rc.c.updated_at).where(rc.c.id.in_(held))
        .order_by(rc.c.id))).all())
    conn.execute(rc.update().where(rc.c.id.in_(held)).values(
        updated_at=sa.case((rc.c.updated_at.is_(None), _HELD_STAMP),
                           else_=None)))
    for cid, stamp in stamps.items():
        conn.execute(rc.update().where(rc.c.id == cid).values(
            updated_at=stamp))
    # A class deleted since the look-up is unknown to this write.
    return {name: cid for name, cid in found.items()
            if cid not in held or cid in stamps}


# Any value: a class row holds it only inside referenced_class_ids.
_HELD_STAMP = datetime.datetime(1970, 1, 2)


_CLASS_NAMES = sa.select(tables.resource_classes.c.id,
                         tables.resource_classes.c.name)
_CLASS_NAMES_OF = _CLASS_NAMES.where(tables.resource_classes.c.id.in_(
    sa.bindparam('ids', expanding=True)))


def resource_class_names(conn, ids=None):
    """{id: name} for the given resource class ids (all when None)."""
    if ids is None:
        return dict(conn.execute(_CLASS_NAMES).all())
    return dict(conn.execute(_CLASS_NAMES_OF, {'ids': list(set(ids))}).all())


def trait_ids(conn, names):
    """{name: id} for the traits among ``names`` that exist."""
    return ids_by(conn, tables.traits.c.name, names)


def resolve_traits(conn, names, text='No such trait(s): {first}.'):
    """{name: id} for the list ``names``; 400 if some do not exist, its
    ``text`` naming the ``{first}`` missing one (in ``names`` order) or
    ``{all}`` of them, as upstream words it for the caller's route."""
    return known_traits(trait_ids(conn, names), names, text)


def known_traits(found, names, text='No such trait(s): {first}.'):
    """``found`` ({name: id} of the traits among ``names`` that exist);
    400 worded as for ``resolve_traits`` if some are missing."""
    missing = [name for name in names if name not in found]
    if missing:
        raise errors.BadRequest(text.format(
            first=missing[0], all=', '.join(sorted(missing))))
    return found


GENERATION_CONFLICT = ("Resource provider's generation already changed. "
                       "Please update the generation and try again.")


def lock_provider(conn, uuid, generation=None,
                  conflict=GENERATION_CONFLICT):
    """Lock provider ``uuid``; 404 if absent; return (id, generation).

    With ``generation`` (what a client sent) a stale one is a 409 worded
    ``conflict``: upstream words it differently per route.  The locking
    lookup comes first, so reads after it see what competing writers
    committed (see ``lock_providers_by_uuid``); the caller then bumps the
    generation with ``bump_generation``.
    """
    row = conn.execute(for_update(conn, sa.select(
        RP.c.id, RP.c.generation).where(RP.c.uuid == uuid))).first()
    if row is None:
        raise provider_not_found(uuid)
    if generation is not None and generation != row.generation:
        raise errors.Conflict(conflict, code=errors.CONCURRENT_UPDATE,
                              kind=errors.PROVIDER_GENERATION)
    return row.id, row.generation
