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
from placement.objects import capacity as capacity_obj
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

_CAPACITY = sa.func.floor(figures.capacity(INV))  # whole units
_HAS_INVENTORY = sa.exists().where(INV.c.resource_provider_id == RP.c.id)
# Per class: capacity and reserved from the inventories; usage from the
# allocations (capacity_obj.USED_BY_CLASS: what the providers' GET
# .../usages add up to).
_CLASS_CAPACITY = (
    sa.select(RC.c.name, sa.func.sum(_CAPACITY), sa.func.sum(INV.c.reserved),
              sa.func.count())
    .join_from(INV, RC, RC.c.id == INV.c.resource_class_id)
    .group_by(RC.c.id, RC.c.name))

# A provider is as full as its fullest class, the one that runs out
# first; usage where nothing is left to allocate counts as if one unit
# were: full, or fuller.  Only providers with allocations are ranked in
# SQL (a join from the allocations); the others are idle, emptier than
# any of them, and listed by name.
_INVENTORY_USE = (
    sa.select(INV.c.resource_provider_id, _CAPACITY.label('capacity'),
              sa.func.sum(ALLOC.c.used).label('used'))
    .join_from(INV, ALLOC, sa.and_(
        ALLOC.c.resource_provider_id == INV.c.resource_provider_id,
        ALLOC.c.resource_class_id == INV.c.resource_class_id))
    .group_by(INV.c.id, INV.c.resource_provider_id, INV.c.total,
              INV.c.reserved, INV.c.allocation_ratio)
    .subquery('inventory_use'))
_FULLNESS = (
    sa.select(_INVENTORY_USE.c.resource_provider_id.label('provider_id'),
              sa.func.max(_INVENTORY_USE.c.used / sa.case(
                  (_INVENTORY_USE.c.capacity > 1,
                   _INVENTORY_USE.c.capacity), else_=1)).label('fullness'))
    .group_by(_INVENTORY_USE.c.resource_provider_id)
    .subquery('fullness'))
_LOADED = (sa.select(RP.c.id)
           .join_from(_FULLNESS, RP, RP.c.id == _FULLNESS.c.provider_id)
           .limit(PROVIDERS_SHOWN))
_FULLEST_LOADED = _LOADED.order_by(_FULLNESS.c.fullness.desc(), RP.c.name)
_EMPTIEST_LOADED = _LOADED.order_by(_FULLNESS.c.fullness, RP.c.name)
_IDLE = (sa.select(RP.c.id)
         .where(_HAS_INVENTORY,
                ~sa.exists().where(ALLOC.c.resource_provider_id == RP.c.id))
         .order_by(RP.c.name).limit(PROVIDERS_SHOWN))
# The inventories of the providers listed, with their usage.
_CLASSES_OF = (
    sa.select(RP.c.id, RP.c.uuid, RP.c.name,
              RC.c.name.label('resource_class'), _CAPACITY.label('capacity'),
              sa.func.coalesce(figures.used(INV), 0).label('used'))
    .select_from(INV.join(RP, RP.c.id == INV.c.resource_provider_id)
                 .join(RC, RC.c.id == INV.c.resource_class_id))
    .where(RP.c.id.in_(sa.bindparam('provider_ids', expanding=True))))

# Counted apart: a scan of each table's index, where a count of the
# providers without inventory would look up every provider's.
_PROVIDER_COUNTS = sa.select(
    sa.func.count(),
    sa.func.coalesce(sa.func.sum(sa.case(
        (RP.c.id == RP.c.root_provider_id, 1), else_=0)), 0),
    sa.select(sa.func.count(sa.distinct(INV.c.resource_provider_id)))
    .scalar_subquery())
_WITHOUT_INVENTORY = (sa.select(RP.c.uuid, RP.c.name)
                      .where(~_HAS_INVENTORY)
                      .order_by(RP.c.name).limit(PROVIDERS_SHOWN))

# Allocations with their consumer (every consumer has a project).
_CONSUMED = (ALLOC.join(CONSUMERS, ALLOC.c.consumer_id == CONSUMERS.c.uuid)
             .outerjoin(TYPES, CONSUMERS.c.consumer_type_id == TYPES.c.id))
_CONSUMER_COUNT = sa.func.count(sa.distinct(CONSUMERS.c.id))
# The projects with the most consumers, by count then name, each row
# with the number of projects in all.
_TOP_PROJECTS = (
    sa.select(PROJECTS.c.id, PROJECTS.c.external_id,
              _CONSUMER_COUNT.label('consumers'),
              sa.func.count().over().label('projects'))
    .select_from(_CONSUMED.join(
        PROJECTS, CONSUMERS.c.project_id == PROJECTS.c.id))
    .group_by(PROJECTS.c.id, PROJECTS.c.external_id)
    .order_by(_CONSUMER_COUNT.desc(), PROJECTS.c.external_id)
    .limit(PROJECTS_SHOWN))


def _usage_by_type(group):
    """(usage, consumer count) statements grouped by ``group`` columns
    of CONSUMERS then consumer type; each row ends with (class, used) or
    the count."""
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
    statement.where(CONSUMERS.c.project_id.in_(
        sa.bindparam('project_ids', expanding=True)))
    for statement in _usage_by_type([CONSUMERS.c.project_id]))


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


def _fullest_and_emptiest(conn):
    """([use of a provider's fullest class, ...] for the fullest
    providers, [...] for the emptiest), each class the first by name
    among equally full ones."""
    def ids(statement):
        return conn.execute(statement).scalars().all()
    idle = ids(_IDLE)
    fullest = ids(_FULLEST_LOADED)
    fullest = (fullest + idle)[:PROVIDERS_SHOWN]
    emptiest = idle
    if len(idle) < PROVIDERS_SHOWN:
        emptiest = (idle + ids(_EMPTIEST_LOADED))[:PROVIDERS_SHOWN]
    classes = {}
    for row in conn.execute(_CLASSES_OF,
                            {'provider_ids': fullest + emptiest}):
        classes.setdefault(row.id, []).append(row)

    def use(provider_id):
        row = min(classes[provider_id], key=lambda row: (
            -int(row.used) / max(row.capacity, 1), row.resource_class))
        return {'uuid': row.uuid, 'name': row.name,
                'resource_class': row.resource_class,
                'used': int(row.used), 'capacity': int(row.capacity)}
    return [use(i) for i in fullest], [use(i) for i in emptiest]


def _classes(conn):
    """{class: figures} of every class with inventory or usage."""
    classes = {}
    for name, capacity, reserved, count in conn.execute(_CLASS_CAPACITY):
        classes[name] = {'capacity': int(capacity), 'used': 0,
                         'reserved': int(reserved), 'providers': count}
    for name, used in conn.execute(capacity_obj.USED_BY_CLASS):
        classes.setdefault(name, {'capacity': 0, 'used': 0, 'reserved': 0,
                                  'providers': 0})['used'] = int(used)
    for figure in classes.values():
        # Usage is whole units: the floor of (capacity - used) is this.
        figure['free'] = figure['capacity'] - figure['used']
    return classes


def _projects(conn):
    """(number of projects with allocations, [the usage of each of the
    PROJECTS_SHOWN with the most consumers])."""
    top = conn.execute(_TOP_PROJECTS).all()
    if not top:
        return 0, []
    usages = _grouped(conn, _BY_PROJECT_AND_TYPE,
                      {'project_ids': [row.id for row in top]})
    return top[0].projects, [
        {'project_id': row.external_id, 'consumer_count': row.consumers,
         'usages': usages[(row.id,)]} for row in top]


def read(conn):
    """The summary, as GET /summary shows it."""
    # MariaDB sums integers as decimals.
    providers, trees, with_inventory = map(
        int, conn.execute(_PROVIDER_COUNTS).one())
    fullest, emptiest = _fullest_and_emptiest(conn)
    project_count, projects = _projects(conn)
    return {
        'resource_providers': {
            'count': providers, 'trees': trees,
            'without_inventory': providers - with_inventory},
        'resource_classes': _classes(conn),
        'fullest_providers': fullest,
        'emptiest_providers': emptiest,
        'providers_without_inventory': [
            {'uuid': uuid, 'name': name}
            for uuid, name in conn.execute(_WITHOUT_INVENTORY)],
        'usages_by_consumer_type': _grouped(conn, _BY_TYPE).get((), {}),
        'project_count': project_count,
        'usages_by_project': projects,
    }
