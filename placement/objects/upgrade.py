"""SQL behind the upgrade tools: checks of ``placement-status`` and the
data migrations of ``placement-manage db online_data_migrations``, for
databases written by very old releases."""
import sqlalchemy as sa

from placement.data import feed
from placement.data import tables
from placement.objects import consumer


def rootless_providers():
    """Providers without a root provider id (written by very old
    releases); ``db online_data_migrations`` fills them in."""
    rps = tables.resource_providers
    return sa.select(rps.c.id, rps.c.parent_provider_id).where(
        rps.c.root_provider_id.is_(None)).order_by(rps.c.id)


def orphaned_consumers():
    """Consumer uuids that have allocations but no consumer record;
    ``db online_data_migrations`` creates the records."""
    allocations = tables.allocations
    consumers = tables.consumers
    return (sa.select(allocations.c.consumer_id).distinct()
            .select_from(allocations.outerjoin(
                consumers, allocations.c.consumer_id == consumers.c.uuid))
            .where(consumers.c.id.is_(None))
            .order_by(allocations.c.consumer_id))


def count(conn, query):
    return conn.execute(sa.select(sa.func.count()).select_from(
        query.subquery())).scalar()


def count_consumers_of_project(conn, project_external_id):
    consumers = tables.consumers
    projects = tables.projects
    return conn.execute(
        sa.select(sa.func.count())
        .select_from(consumers.join(
            projects, consumers.c.project_id == projects.c.id))
        .where(projects.c.external_id == project_external_id)).scalar()


def set_root_provider_ids(conn, conf, max_count):
    """Providers from releases before nested providers: a provider without
    a parent is its own root, a child shares its parent's root."""
    rps = tables.resource_providers
    rows = conn.execute(rootless_providers()).all()
    roots = dict(conn.execute(
        sa.select(rps.c.id, rps.c.root_provider_id)
        .where(rps.c.root_provider_id.isnot(None))).all())
    pending = [(row.id, row.parent_provider_id) for row in rows]
    done = 0
    # Parents before children; a child whose parent has no root yet waits
    # for the next pass.
    while pending and done < max_count:
        waiting = []
        for rp_id, parent_id in pending:
            root = rp_id if parent_id is None else roots.get(parent_id)
            if root is None or done >= max_count:
                waiting.append((rp_id, parent_id))
                continue
            conn.execute(rps.update().where(rps.c.id == rp_id)
                         .values(root_provider_id=root))
            feed.touch(conn, [rp_id])
            roots[rp_id] = root
            done += 1
        if len(waiting) == len(pending):
            break
        pending = waiting
    return len(rows), done


def create_incomplete_consumers(conn, conf, max_count):
    """Consumer records, with the placeholder project and user, for
    allocations written before consumers were recorded."""
    found = count(conn, orphaned_consumers())
    uuids = conn.execute(
        orphaned_consumers().limit(max_count)).scalars().all()
    if uuids:
        project = conf.placement.incomplete_consumer_project_id
        user = conf.placement.incomplete_consumer_user_id
        project_id = consumer.ensure_projects(conn, [project])[project]
        user_id = consumer.ensure_users(conn, [user])[user]
        consumer.create(conn, [
            {'uuid': uuid, 'project_id': project_id, 'user_id': user_id,
             'consumer_type_id': None} for uuid in uuids])
    return found, len(uuids)
