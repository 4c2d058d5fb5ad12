"""Aggregates a provider belongs to.

An aggregate is only a UUID (``placement_aggregates``); membership rows
link it to providers.  Aggregates left without members are kept, as
upstream does: they cost a row and may be reused.
"""
import sqlalchemy as sa

from placement.data import feed
from placement.data import tables
from placement.objects import base

AGG = tables.placement_aggregates
RP_AGG = tables.resource_provider_aggregates


# One row per aggregate, or a single row with a NULL uuid.
_PROVIDER_AGGREGATES = base.generation_and_links(
    RP_AGG, AGG, RP_AGG.c.aggregate_id == AGG.c.id, AGG.c.uuid,
).order_by(AGG.c.uuid)


def provider_aggregates(conn, uuid):
    """(generation, rows (uuid) of its aggregates by UUID) of provider
    ``uuid``; 404 without it."""
    return base.read_generation_and_links(conn, _PROVIDER_AGGREGATES, uuid,
                                          'uuid')


def _aggregate_ids(conn, uuids):
    """{uuid: id} for ``uuids``, creating the aggregates not yet known."""
    # Another provider's request may create one of them meanwhile.
    return base.ensure_ids(conn, AGG.c.uuid, uuids,
                           'Aggregates were created concurrently.')


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
    # Before 1.19 no generation moves, so the feed hears of it here.
    feed.touch(conn, [provider_id])
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
