"""Aggregates a provider belongs to.

An aggregate is only a UUID (``placement_aggregates``); membership rows
link it to providers.  Aggregates left without members are kept, as
upstream does: they cost a row and may be reused.
"""
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from placement import errors
from placement import tables
from placement.objects import base

AGG = tables.placement_aggregates
RP_AGG = tables.resource_provider_aggregates


# A provider's generation and aggregates in one statement (the refresh
# call of every compute node): one row per aggregate, or a single row with
# a NULL uuid for a provider without any.
_PROVIDER_AGGREGATES = (
    sa.select(base.RP.c.generation, AGG.c.uuid, RP_AGG.c.created_at,
              RP_AGG.c.updated_at)
    .select_from(
        base.RP.outerjoin(
            RP_AGG, RP_AGG.c.resource_provider_id == base.RP.c.id)
        .outerjoin(AGG, RP_AGG.c.aggregate_id == AGG.c.id))
    .where(base.RP.c.uuid == sa.bindparam('uuid'))
    .order_by(AGG.c.uuid))


def provider_aggregates(conn, uuid):
    """(generation, rows (uuid, created_at, updated_at) of its aggregates
    by UUID) of provider ``uuid``; 404 without it."""
    rows = conn.execute(_PROVIDER_AGGREGATES, {'uuid': uuid}).all()
    if not rows:
        raise base.provider_not_found(uuid)
    return rows[0].generation, [row for row in rows if row.uuid is not None]


def _aggregate_ids(conn, uuids):
    """{uuid: id} for ``uuids``, creating the aggregates not yet known."""
    uuids = set(uuids)
    if not uuids:
        return {}
    found = dict(conn.execute(
        sa.select(AGG.c.uuid, AGG.c.id).where(AGG.c.uuid.in_(uuids))).all())
    missing = sorted(uuids - set(found))
    if missing:
        now = base.now()
        try:
            conn.execute(AGG.insert(), [{'uuid': uuid, 'created_at': now}
                                        for uuid in missing])
        except sa_exc.IntegrityError:
            # Another provider's request created one of them; run again.
            raise errors.RetryableConflict(
                'Aggregates were created concurrently.') from None
        found.update(conn.execute(
            sa.select(AGG.c.uuid, AGG.c.id)
            .where(AGG.c.uuid.in_(missing))).all())
    return found


def set_aggregates(conn, uuid, aggregate_uuids, generation=None):
    """Make ``aggregate_uuids`` the aggregates of provider ``uuid``.

    With ``generation`` (from 1.19) the client's generation is checked and
    bumped; without it the generation is left alone, as before 1.19.
    Return the provider's generation afterwards.
    """
    checked = generation is not None
    provider_id, generation = base.lock_provider(conn, uuid, generation)
    if checked:
        generation = base.bump_generation(conn, provider_id, generation)
    wanted = set(_aggregate_ids(conn, aggregate_uuids).values())
    current = set(conn.execute(
        sa.select(RP_AGG.c.aggregate_id)
        .where(RP_AGG.c.resource_provider_id == provider_id)).scalars())
    gone = current - wanted
    if gone:
        conn.execute(RP_AGG.delete()
                     .where(RP_AGG.c.resource_provider_id == provider_id)
                     .where(RP_AGG.c.aggregate_id.in_(gone)))
    added = sorted(wanted - current)
    if added:
        now = base.now()
        conn.execute(RP_AGG.insert(), [
            {'resource_provider_id': provider_id, 'aggregate_id': agg_id,
             'created_at': now} for agg_id in added])
    return generation
