"""The whole cloud at a glance (GET /summary): capacity and usage per
resource class, the fullest and emptiest providers, usage by consumer
type and by project, provider and tree counts.

Every figure is an aggregate query over whole tables, so the read costs a
few index scans however many providers there are, and the console's
overview needs one request instead of two per provider.  The figures are
those of the REST API: per inventory the capacity is
``int((total - reserved) * allocation_ratio)`` as provider summaries show
it, summed per class; usage by consumer type and project is grouped as
``GET /usages`` groups it from 1.38.
"""
import sqlalchemy as sa

from placement import tables
from placement.objects import consumer as consumer_obj
from placement.objects import figures

ALLOC = tables.allocations
INV = tables.inventories
RC = tables.resource_classes
RP = tables.resource_providers
CONSUMERS = tables.consumers
PROJECTS = tables.projects
TYPES = tables.consumer_types

# How many providers each bounded list names, and how many projects the
# usage by project covers (those with the most consumers).
PROVIDERS_SHOWN = 10
PROJECTS_SHOWN = 50

# Usage of each (provider, class) that has allocations.
_USED = (sa.select(ALLOC.c.resource_provider_id, ALLOC.c.resource_class_id,
                   sa.func.sum(ALLOC.c.used).label('used'))
         .group_by(ALLOC.c.resource_provider_id, ALLOC.c.resource_class_id)
         .subquery('used'))
# Each inventory with its usage: what the REST API shows of a provider's
# inventories and usages, one row per (provider, class).
_INVENTORY_USE = (
    sa.select(INV.c.resource_provider_id.label('provider_id'),
              INV.c.resource_class_id.label('class_id'),
              INV.c.reserved,
              # Whole units, as provider summaries count capacity.
              sa.func.floor(figures.capacity(INV)).label('capacity'),
              sa.func.floor(figures.free(INV, _USED.c.used)).label('free'),
              sa.func.coalesce(_USED.c.used, 0).label('used'))
    .select_from(INV.outerjoin(_USED, sa.and_(
        _USED.c.resource_provider_id == INV.c.resource_provider_id,
        _USED.c.resource_class_id == INV.c.resource_class_id)))
    .subquery('inventory_use'))

_CLASSES = (
    sa.select(RC.c.name, sa.func.sum(_INVENTORY_USE.c.capacity),
              sa.func.sum(_INVENTORY_USE.c.used),
              sa.func.sum(_INVENTORY_USE.c.reserved),
              sa.func.sum(_INVENTORY_USE.c.free), sa.func.count())
    .join_from(_INVENTORY_USE, RC, RC.c.id == _INVENTORY_USE.c.class_id)
    .group_by(RC.c.id, RC.c.name).order_by(RC.c.name))

# A provider is as full as its fullest class (the first by name among
# equals): the one that runs out first.  Usage without any capacity
# counts as fuller than any ratio.
_OVERFLOW = sa.case((sa.and_(_INVENTORY_USE.c.capacity <= 0,
                             _INVENTORY_USE.c.used > 0), 1), else_=0)
_FRACTION = sa.case(
    (_INVENTORY_USE.c.capacity > 0,
     _INVENTORY_USE.c.used / _INVENTORY_USE.c.capacity), else_=0)
_BY_FULLNESS = (
    sa.select(_INVENTORY_USE.c.provider_id,
              RC.c.name.label('resource_class'),
              _INVENTORY_USE.c.used, _INVENTORY_USE.c.capacity,
              _OVERFLOW.label('overflow'), _FRACTION.label('fraction'),
              sa.func.row_number().over(
                  partition_by=_INVENTORY_USE.c.provider_id,
                  order_by=(_OVERFLOW.desc(), _FRACTION.desc(),
                            RC.c.name)).label('rank'))
    .join_from(_INVENTORY_USE, RC, RC.c.id == _INVENTORY_USE.c.class_id)
    .subquery('by_fullness'))
_FULLEST_CLASS = (
    sa.select(RP.c.uuid, RP.c.name, _BY_FULLNESS.c.resource_class,
              _BY_FULLNESS.c.used, _BY_FULLNESS.c.capacity)
    .join_from(_BY_FULLNESS, RP, RP.c.id == _BY_FULLNESS.c.provider_id)
    .where(_BY_FULLNESS.c.rank == 1)
    .limit(PROVIDERS_SHOWN))
_FULLEST = _FULLEST_CLASS.order_by(
    _BY_FULLNESS.c.overflow.desc(), _BY_FULLNESS.c.fraction.desc(),
    RP.c.name)
_EMPTIEST = _FULLEST_CLASS.order_by(
    _BY_FULLNESS.c.overflow, _BY_FULLNESS.c.fraction, RP.c.name)

_HAS_INVENTORY = sa.exists().where(INV.c.resource_provider_id == RP.c.id)
_PROVIDER_COUNTS = sa.select(
    sa.func.count(),
    sa.func.coalesce(sa.func.sum(sa.case(
        (RP.c.id == RP.c.root_provider_id, 1), else_=0)), 0),
    sa.func.coalesce(sa.func.sum(sa.case(
        (_HAS_INVENTORY, 0), else_=1)), 0))
_WITHOUT_INVENTORY = (sa.select(RP.c.uuid, RP.c.name)
                      .where(~_HAS_INVENTORY)
                      .order_by(RP.c.name).limit(PROVIDERS_SHOWN))

# Allocations with their consumer, as GET /usages reads them.
_CONSUMED = (ALLOC.join(CONSUMERS, ALLOC.c.consumer_id == CONSUMERS.c.uuid)
             .join(PROJECTS, CONSUMERS.c.project_id == PROJECTS.c.id)
             .outerjoin(TYPES, CONSUMERS.c.consumer_type_id == TYPES.c.id))
_CONSUMER_COUNT = sa.func.count(sa.distinct(CONSUMERS.c.id))
# The projects with the most consumers, by count then name.
_TOP_PROJECTS = (
    sa.select(PROJECTS.c.id, PROJECTS.c.external_id,
              _CONSUMER_COUNT.label('consumers'))
    .select_from(_CONSUMED)
    .group_by(PROJECTS.c.id, PROJECTS.c.external_id)
    .order_by(_CONSUMER_COUNT.desc(), PROJECTS.c.external_id)
    .limit(PROJECTS_SHOWN))
_PROJECT_COUNT = sa.select(sa.func.count(sa.distinct(CONSUMERS.c.project_id))
                           ).select_from(_CONSUMED)


def _usage_by_type(group):
    """(usage, consumer count) statements grouped by ``group`` columns
    then consumer type; each row ends with (class, used) or the count."""
    usage = (sa.select(*group, TYPES.c.name, RC.c.name,
                       sa.func.sum(ALLOC.c.used))
             .select_from(_CONSUMED.join(
                 RC, RC.c.id == ALLOC.c.resource_class_id))
             .group_by(*group, TYPES.c.name, RC.c.id, RC.c.name))
    counts = (sa.select(*group, TYPES.c.name, _CONSUMER_COUNT)
              .select_from(_CONSUMED).group_by(*group, TYPES.c.name))
    return usage, counts


_BY_TYPE = _usage_by_type([])
_BY_PROJECT_AND_TYPE = tuple(
    statement.where(PROJECTS.c.id.in_(sa.bindparam('project_ids',
                                                   expanding=True)))
    for statement in _usage_by_type([PROJECTS.c.id]))


def _grouped(conn, statements, params=None):
    """{group: {type: {'consumer_count': n, class: used}}} from the
    statements of ``_usage_by_type``; the group is () without one."""
    usage, counts = statements
    grouped = {}
    for *group, type_name, count in conn.execute(counts, params):
        type_name = type_name or consumer_obj.UNKNOWN_TYPE
        grouped.setdefault(tuple(group), {})[type_name] = {
            'consumer_count': count}
    for *group, type_name, class_name, used in conn.execute(usage, params):
        type_name = type_name or consumer_obj.UNKNOWN_TYPE
        grouped[tuple(group)][type_name][class_name] = int(used)
    return grouped


def _provider_use(row):
    return {'uuid': row.uuid, 'name': row.name,
            'resource_class': row.resource_class, 'used': int(row.used),
            'capacity': int(row.capacity)}


def _projects(conn):
    top = conn.execute(_TOP_PROJECTS).all()
    usages = _grouped(conn, _BY_PROJECT_AND_TYPE,
                      {'project_ids': [row.id for row in top]}) if top else {}
    return [{'project_id': row.external_id, 'consumer_count': row.consumers,
             'usages': usages[(row.id,)]} for row in top]


def read(conn):
    """The summary, as GET /summary shows it."""
    # MariaDB sums integers as decimals.
    providers, trees, without_inventory = map(
        int, conn.execute(_PROVIDER_COUNTS).one())
    return {
        'resource_providers': {
            'count': providers, 'trees': trees,
            'without_inventory': without_inventory},
        'resource_classes': {
            name: {'capacity': int(capacity), 'used': int(used),
                   'reserved': int(reserved), 'free': int(free),
                   'providers': count}
            for name, capacity, used, reserved, free, count
            in conn.execute(_CLASSES)},
        'fullest_providers': [
            _provider_use(row) for row in conn.execute(_FULLEST)],
        'emptiest_providers': [
            _provider_use(row) for row in conn.execute(_EMPTIEST)],
        'providers_without_inventory': [
            {'uuid': uuid, 'name': name}
            for uuid, name in conn.execute(_WITHOUT_INVENTORY)],
        'usages_by_consumer_type': _grouped(conn, _BY_TYPE).get((), {}),
        'project_count': conn.execute(_PROJECT_COUNT).scalar(),
        'usages_by_project': _projects(conn),
    }
