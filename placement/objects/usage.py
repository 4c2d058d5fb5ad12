"""Usages: allocation totals of a provider, or of a project (and user).

Every aggregate groups by plain columns only and names no ungrouped
column, which PostgreSQL requires.
"""
import sqlalchemy as sa

from placement import tables
from placement.objects import base
from placement.objects import consumer as consumer_obj

ALLOC = tables.allocations
INV = tables.inventories
CONSUMERS = tables.consumers

# consumer_type filter values with a meaning of their own (lower case, so
# they cannot clash with a real type name).
ALL_TYPES = 'all'


def for_provider(conn, uuid):
    """(generation, {class: used}) for every class the provider has
    inventory of (0 when unused), or allocations of; 404 without it."""
    provider = base.get_provider(conn, uuid, base.REPEATED)
    used = dict(conn.execute(
        sa.select(ALLOC.c.resource_class_id, sa.func.sum(ALLOC.c.used))
        .where(ALLOC.c.resource_provider_id == provider.id)
        .group_by(ALLOC.c.resource_class_id)).all())
    class_ids = set(used) | set(conn.execute(
        sa.select(INV.c.resource_class_id)
        .where(INV.c.resource_provider_id == provider.id)).scalars())
    names = base.resource_class_names(conn, class_ids) if class_ids else {}
    return provider.generation, {names[cid]: int(used.get(cid) or 0)
                                 for cid in class_ids}


def _consumers_of(project_id, user_id):
    """The join and conditions selecting allocations of a project/user."""
    projects, users = tables.projects, tables.users
    source = (ALLOC.join(CONSUMERS, ALLOC.c.consumer_id == CONSUMERS.c.uuid)
              .join(projects, CONSUMERS.c.project_id == projects.c.id))
    conditions = [projects.c.external_id == project_id]
    if user_id is not None:
        source = source.join(users, CONSUMERS.c.user_id == users.c.id)
        conditions.append(users.c.external_id == user_id)
    return source, conditions


def for_project(conn, project_id, user_id=None):
    """{class: used} over the consumers of a project (and user)."""
    source, conditions = _consumers_of(project_id, user_id)
    used = conn.execute(
        sa.select(ALLOC.c.resource_class_id, sa.func.sum(ALLOC.c.used))
        .select_from(source).where(*conditions)
        .group_by(ALLOC.c.resource_class_id)).all()
    names = base.resource_class_names(conn, {cid for cid, _ in used})
    return {names[cid]: int(total) for cid, total in used}


def for_project_by_type(conn, project_id, user_id=None, consumer_type=None):
    """{type: {'consumer_count': n, class: used}} (1.38).

    Consumers without a type are grouped under ``unknown``.  With
    ``consumer_type`` only that group is reported; ``all`` puts every
    consumer in one group named ``all``.
    """
    source, conditions = _consumers_of(project_id, user_id)
    types = tables.consumer_types
    source = source.outerjoin(
        types, CONSUMERS.c.consumer_type_id == types.c.id)
    group = [types.c.name]
    if consumer_type == ALL_TYPES:
        group = []      # one group; a constant in GROUP BY upsets PostgreSQL
    elif consumer_type == consumer_obj.UNKNOWN_TYPE:
        conditions.append(CONSUMERS.c.consumer_type_id.is_(None))
    elif consumer_type is not None:
        conditions.append(types.c.name == consumer_type)
    used = conn.execute(
        sa.select(*group, ALLOC.c.resource_class_id,
                  sa.func.sum(ALLOC.c.used))
        .select_from(source).where(*conditions)
        .group_by(*group, ALLOC.c.resource_class_id)).all()
    counts = conn.execute(
        sa.select(*group, sa.func.count(sa.distinct(CONSUMERS.c.id)))
        .select_from(source).where(*conditions).group_by(*group)).all()

    def key(row):
        if not group:
            return ALL_TYPES
        return row[0] or consumer_obj.UNKNOWN_TYPE

    names = base.resource_class_names(conn, {row[-2] for row in used})
    usages = {}
    for row in counts:
        if row[-1]:
            usages[key(row)] = {'consumer_count': row[-1]}
    for row in used:
        usages[key(row)][names[row[-2]]] = int(row[-1])
    return usages
