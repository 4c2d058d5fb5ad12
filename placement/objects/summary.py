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

from placement.data import tables
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
# Usage and consumers by project and type, in one pass each over the
# allocations: a consumer has one project and one type, so the totals by
# type and the projects with the most consumers follow from these rows
# (as many as projects x types x classes, whatever the providers).
_USAGE_BY_PROJECT = (
    sa.select(CONSUMERS.c.project_id, TYPES.c.name, RC.c.name,
              sa.func.sum(ALLOC.c.used))
    .select_from(_CONSUMED.join(RC, RC.c.id == ALLOC.c.resource_class_id))
    .group_by(CONSUMERS.c.project_id, TYPES.c.name, RC.c.id, RC.c.name))
_CONSUMERS_BY_PROJECT = (
    sa.select(CONSUMERS.c.project_id, PROJECTS.c.external_id, TYPES.c.name,
              sa.func.count(sa.distinct(CONSUMERS.c.id)))
    .select_from(_CONSUMED.join(
        PROJECTS, PROJECTS.c.id == CONSUMERS.c.project_id))
    .group_by(CONSUMERS.c.project_id, PROJECTS.c.external_id,
              TYPES.c.name))


def _usages(conn):
    """{project: {type: {'consumer_count': n, class: used}}}, the groups
    of GET /usages from 1.38."""
    projects, names = {}, {}
    for project_id, project, type_name, count in conn.execute(
            _CONSUMERS_BY_PROJECT):
        names[project_id] = project
        projects.setdefault(project, {})[
            type_name or consumer_obj.UNKNOWN_TYPE] = {'consumer_count': count}
    for project_id, type_name, class_name, used in conn.execute(
            _USAGE_BY_PROJECT):
        projects[names[project_id]][type_name or consumer_obj.UNKNOWN_TYPE][
            class_name] = int(used)
    return projects


def _by_type(projects):
    """The usages of every project added up by type."""
    by_type = {}
    for usages in projects.values():
        for type_name, group in usages.items():
            total = by_type.setdefault(type_name, {})
            for key, amount in group.items():
                total[key] = total.get(key, 0) + amount
    return by_type


def _top_projects(projects):
    """[usage of each of the PROJECTS_SHOWN projects with the most
    consumers], most first, then by project."""
    entries = [{'project_id': project,
                'consumer_count': sum(group['consumer_count']
                                      for group in usages.values()),
                'usages': usages}
               for project, usages in projects.items()]
    entries.sort(key=lambda entry: (-entry['consumer_count'],
                                    entry['project_id']))
    return entries[:PROJECTS_SHOWN]


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


def read(conn):
    """The summary, as GET /summary shows it."""
    # MariaDB sums integers as decimals.
    providers, trees, with_inventory = map(
        int, conn.execute(_PROVIDER_COUNTS).one())
    fullest, emptiest = _fullest_and_emptiest(conn)
    projects = _usages(conn)
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
        'usages_by_consumer_type': _by_type(projects),
        'project_count': len(projects),
        'usages_by_project': _top_projects(projects),
    }
