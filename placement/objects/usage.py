"""Usages: allocation totals of a provider, or of a project (and user).

Every aggregate groups by plain columns only and names no ungrouped
column, which PostgreSQL requires.
"""
import functools

import sqlalchemy as sa

from placement.data import tables
from placement.objects import base
from placement.objects import consumer as consumer_obj

ALLOC = tables.allocations
INV = tables.inventories
RC = tables.resource_classes
CONSUMERS = tables.consumers

# consumer_type filter values with a meaning of their own (lower case, so
# they cannot clash with a real type name).
ALL_TYPES = 'all'


# What a provider uses of each class it has inventory of (0 when unused)
# or allocations of, with the classes' names, in one statement.
_CLASS_USE = sa.union_all(
    sa.select(ALLOC.c.resource_class_id.label('class_id'), ALLOC.c.used)
    .where(ALLOC.c.resource_provider_id == sa.bindparam('provider_id')),
    sa.select(INV.c.resource_class_id, sa.literal_column('0'))
    .where(INV.c.resource_provider_id == sa.bindparam('provider_id')),
).subquery('class_use')
_PROVIDER_USAGE = (
    sa.select(RC.c.name, sa.func.sum(_CLASS_USE.c.used))
    .join_from(_CLASS_USE, RC, RC.c.id == _CLASS_USE.c.class_id)
    .group_by(RC.c.id, RC.c.name).order_by(RC.c.id))


def for_provider(conn, uuid):
    """(generation, {class: used}) for every class the provider has
    inventory of (0 when unused), or allocations of; 404 without it."""
    provider = base.get_provider(conn, uuid, base.REPEATED)
    used = conn.execute(_PROVIDER_USAGE, {'provider_id': provider.id})
    return provider.generation, {name: int(total) for name, total in used}


# How for_project_by_type filters by consumer type: not at all, ALL_TYPES
# (one group), consumer.UNKNOWN_TYPE (no type), or one named type.
_NAMED_TYPE = object()


@functools.lru_cache(maxsize=None)
def _project_usage(with_user, group_by_type, type_filter):
    """(usage statement, consumer count statement) over the allocations
    of a project (and user), built once per shape; both take the bound
    parameters ``project_id``, ``user_id`` and ``consumer_type`` and group
    by consumer type name first when ``group_by_type``."""
    projects, users = tables.projects, tables.users
    types = tables.consumer_types
    source = (ALLOC.join(CONSUMERS, ALLOC.c.consumer_id == CONSUMERS.c.uuid)
              .join(projects, CONSUMERS.c.project_id == projects.c.id))
    conditions = [projects.c.external_id == sa.bindparam('project_id')]
    if with_user:
        source = source.join(users, CONSUMERS.c.user_id == users.c.id)
        conditions.append(users.c.external_id == sa.bindparam('user_id'))
    if group_by_type or type_filter is _NAMED_TYPE:
        source = source.outerjoin(
            types, CONSUMERS.c.consumer_type_id == types.c.id)
    if type_filter == consumer_obj.UNKNOWN_TYPE:
        conditions.append(CONSUMERS.c.consumer_type_id.is_(None))
    elif type_filter is _NAMED_TYPE:
        conditions.append(types.c.name == sa.bindparam('consumer_type'))
    # A constant in GROUP BY upsets PostgreSQL: without types, no column.
    group = [types.c.name] if group_by_type else []
    usage = (sa.select(*group, RC.c.name, sa.func.sum(ALLOC.c.used))
             .select_from(source.join(
                 RC, RC.c.id == ALLOC.c.resource_class_id))
             .where(*conditions)
             .group_by(*group, RC.c.id, RC.c.name)
             .order_by(*group, RC.c.id))
    counts = (sa.select(*group, sa.func.count(sa.distinct(CONSUMERS.c.id)))
              .select_from(source).where(*conditions)
              .group_by(*group).order_by(*group))
    return usage, counts


def for_project(conn, project_id, user_id=None):
    """{class: used} over the consumers of a project (and user)."""
    usage, _ = _project_usage(user_id is not None, False, None)
    used = conn.execute(usage, {'project_id': project_id,
                                'user_id': user_id})
    return {name: int(total) for name, total in used}


def for_project_by_type(conn, project_id, user_id=None, consumer_type=None):
    """{type: {'consumer_count': n, class: used}} (1.38).

    Consumers without a type are grouped under ``unknown``.  With
    ``consumer_type`` only that group is reported; ``all`` puts every
    consumer in one group named ``all``.
    """
    if consumer_type in (None, ALL_TYPES, consumer_obj.UNKNOWN_TYPE):
        type_filter = consumer_type
    else:
        type_filter = _NAMED_TYPE
    by_type = consumer_type != ALL_TYPES
    usage, counts = _project_usage(user_id is not None, by_type, type_filter)
    params = {'project_id': project_id, 'user_id': user_id,
              'consumer_type': consumer_type}

    def key(row):
        if not by_type:
            return ALL_TYPES
        return row[0] or consumer_obj.UNKNOWN_TYPE

    usages = {}
    for row in conn.execute(counts, params):
        if row[-1]:
            usages[key(row)] = {'consumer_count': row[-1]}
    for row in conn.execute(usage, params):
        usages[key(row)][row[-2]] = int(row[-1])
    return usages
