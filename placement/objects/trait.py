"""Traits and the traits of providers.

Standard traits come from os-traits (synced at start-up); only ``CUSTOM_``
traits are created and deleted through the API.  Lists are sorted by name
so that no answer depends on the database's row order.
"""
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from placement import errors
from placement.data import feed
from placement.data import tables
from placement.objects import base

TRAITS = tables.traits
RP_TRAITS = tables.resource_provider_traits
CUSTOM_PREFIX = 'CUSTOM_'


def list_traits(conn, name_in=None, prefix=None, associated=None):
    """Trait rows (name, created_at, updated_at) matching every filter.

    ``associated`` True keeps traits some provider has, False those none
    has, None does not filter.
    """
    stmt = sa.select(TRAITS.c.name, TRAITS.c.created_at, TRAITS.c.updated_at)
    if name_in is not None:
        name_in = set(name_in)
        stmt = stmt.where(TRAITS.c.name.in_(name_in))
    if prefix is not None:
        stmt = stmt.where(TRAITS.c.name.startswith(prefix, autoescape=True))
    if associated is not None:
        used = sa.select(RP_TRAITS.c.trait_id).distinct()
        stmt = stmt.where(TRAITS.c.id.in_(used) if associated
                          else TRAITS.c.id.not_in(used))
    # MySQL compares names without regard to case; match exactly anywhere.
    return _by_name(row for row in conn.execute(stmt)
                    if (name_in is None or row.name in name_in)
                    and (prefix is None or row.name.startswith(prefix)))


def _by_name(rows):
    """Rows sorted by code point, not by the database's collation (which
    may ignore case or underscores)."""
    return sorted(rows, key=lambda row: row.name)


def get_trait(conn, name):
    """The trait row (name, created_at, updated_at), or None."""
    rows = conn.execute(
        sa.select(TRAITS.c.name, TRAITS.c.created_at, TRAITS.c.updated_at)
        .where(TRAITS.c.name == name)).all()
    # Exactly, even where the database's collation ignores case.
    return next((row for row in rows if row.name == name), None)


def create_trait(conn, name):
    """Create trait ``name`` unless it exists.

    Return (trait row, True if it was created now).
    """
    row = get_trait(conn, name)
    if row is not None:
        return row, False
    try:
        conn.execute(TRAITS.insert().values(name=name, created_at=base.now()))
    except sa_exc.IntegrityError:
        # A concurrent request created it; the retry answers "exists".
        raise errors.RetryableConflict(
            'Trait %s was created concurrently.' % name) from None
    feed.touch_names(conn)
    return get_trait(conn, name), True


def delete_trait(conn, name):
    """Delete a custom trait that no provider has."""
    trait_id = base.trait_ids(conn, [name]).get(name)
    if trait_id is None:
        raise errors.NotFound('No such trait(s): %s.' % name)
    if not name.startswith(CUSTOM_PREFIX):
        raise errors.BadRequest('Cannot delete standard trait %s.' % name)
    in_use = conn.execute(sa.select(RP_TRAITS.c.trait_id)
                          .where(RP_TRAITS.c.trait_id == trait_id)
                          .limit(1)).first()
    if in_use is not None:
        raise errors.Conflict(
            'The trait %s is in use by a resource provider.' % name)
    try:
        conn.execute(TRAITS.delete().where(TRAITS.c.id == trait_id))
    except sa_exc.IntegrityError:
        # A provider took the trait meanwhile (foreign key); the retry
        # answers "in use".
        raise errors.RetryableConflict(
            'Trait %s was taken concurrently.' % name) from None
    feed.touch_names(conn)


# One row per trait, or a single row with a NULL name.  The times are the
# traits' own, not the association's: upstream's Last-Modified is theirs.
_PROVIDER_TRAITS = base.generation_and_links(
    RP_TRAITS, TRAITS, RP_TRAITS.c.trait_id == TRAITS.c.id,
    TRAITS.c.name, TRAITS.c.created_at, TRAITS.c.updated_at)


def provider_traits(conn, uuid):
    """(generation, rows (name, created_at, updated_at of the trait) of
    its traits by name) of provider ``uuid``; 404 without it."""
    generation, rows = base.read_generation_and_links(
        conn, _PROVIDER_TRAITS, uuid, 'name', base.REPEATED)
    return generation, _by_name(rows)


def _replace_provider_traits(conn, provider_id, trait_ids):
    """Make ``trait_ids`` the provider's traits, keeping unchanged rows."""
    current = set(conn.execute(
        sa.select(RP_TRAITS.c.trait_id)
        .where(RP_TRAITS.c.resource_provider_id == provider_id)).scalars())
    wanted = set(trait_ids)
    gone = current - wanted
    if gone:
        conn.execute(RP_TRAITS.delete()
                     .where(RP_TRAITS.c.resource_provider_id == provider_id)
                     .where(RP_TRAITS.c.trait_id.in_(gone)))
    added = wanted - current
    if added:
        now = base.now()
        try:
            conn.execute(RP_TRAITS.insert(), [
                {'resource_provider_id': provider_id, 'trait_id': trait_id,
                 'created_at': now} for trait_id in sorted(added)])
        except sa_exc.IntegrityError:
            # A trait was deleted meanwhile (foreign key); the retry
            # reports it as unknown.
            raise errors.RetryableConflict(
                'Traits changed concurrently.') from None


def set_provider_traits(conn, uuid, names, generation):
    """Replace the traits of provider ``uuid`` as of ``generation``.

    Return (sorted trait names, new generation).
    """
    provider_id, _ = base.lock_provider(conn, uuid, generation)
    trait_ids = base.resolve_traits(conn, names, 'No such trait {all}')
    _replace_provider_traits(conn, provider_id, trait_ids.values())
    new_generation = base.bump_generation(conn, provider_id, generation)
    return sorted(trait_ids), new_generation


def delete_provider_traits(conn, uuid):
    """Remove every trait of provider ``uuid``; bump its generation."""
    provider_id, generation = base.lock_provider(conn, uuid)
    _replace_provider_traits(conn, provider_id, ())
    base.bump_generation(conn, provider_id, generation)
