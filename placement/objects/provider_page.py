"""One page of the provider list with each provider's traits and usage
(GET /summary/providers), for lists too long to read whole.

Upstream's GET /resource_providers has no paging: at 10,000 providers a
client reads them all, then three more requests per provider it shows.
Here the database filters (the same filters), searches, sorts and pages,
and three statements read the page's providers, traits and inventories.
"""
import sqlalchemy as sa

from placement.data import tables
from placement.objects import figures
from placement.objects import resource_provider as rp_obj

INV = tables.inventories
RC = tables.resource_classes
RP = tables.resource_providers
PARENT = RP.alias('parent')
ROOT = RP.alias('root')
PROVIDER_TRAITS = tables.resource_provider_traits
TRAITS = tables.traits

# Names in any case together, whatever the database's collation.
SORT_KEYS = {'name': sa.func.lower(RP.c.name), 'uuid': RP.c.uuid,
             'generation': RP.c.generation}

_PAGE = (sa.select(RP.c.id, RP.c.uuid, RP.c.name, RP.c.generation,
                   PARENT.c.uuid.label('parent_uuid'),
                   PARENT.c.name.label('parent_name'),
                   ROOT.c.uuid.label('root_uuid'))
         .select_from(RP.outerjoin(PARENT, RP.c.parent_provider_id
                                   == PARENT.c.id)
                      .outerjoin(ROOT, RP.c.root_provider_id == ROOT.c.id)))
_IDS = sa.bindparam('provider_ids', expanding=True)
_TRAITS_OF = (sa.select(PROVIDER_TRAITS.c.resource_provider_id, TRAITS.c.name)
              .join_from(PROVIDER_TRAITS, TRAITS,
                         TRAITS.c.id == PROVIDER_TRAITS.c.trait_id)
              .where(PROVIDER_TRAITS.c.resource_provider_id.in_(_IDS))
              .order_by(TRAITS.c.name))
_INVENTORIES_OF = (
    sa.select(INV.c.resource_provider_id, RC.c.name, INV.c.total,
              INV.c.reserved, INV.c.allocation_ratio,
              # Whole units, as provider summaries count capacity.
              sa.func.floor(figures.capacity(INV)),
              sa.func.coalesce(figures.used(INV), 0))
    .join_from(INV, RC, RC.c.id == INV.c.resource_class_id)
    .where(INV.c.resource_provider_id.in_(_IDS))
    .order_by(RC.c.name))


def read(conn, filters, search, sort, offset, limit):
    """(how many providers match, [the page's providers]).

    ``filters`` as ``resource_provider.filtered`` takes them; ``search``
    a part of the name or uuid (any case), or None; ``sort`` a key of
    SORT_KEYS, with a leading ``-`` for descending order.
    """
    matching = rp_obj.filtered(conn, _PAGE, **filters)
    if search:
        matching = matching.where(sa.or_(
            RP.c.name.icontains(search, autoescape=True),
            RP.c.uuid.icontains(search, autoescape=True)))
    count = conn.execute(sa.select(sa.func.count()).select_from(
        matching.subquery())).scalar()
    key = SORT_KEYS[sort.lstrip('-')]
    order = key.desc() if sort.startswith('-') else key
    rows = conn.execute(matching.order_by(order, RP.c.id)
                        .offset(offset).limit(limit)).all()
    providers = {row.id: {
        'uuid': row.uuid, 'name': row.name, 'generation': row.generation,
        'parent_provider_uuid': row.parent_uuid,
        'parent_provider_name': row.parent_name,
        'root_provider_uuid': row.root_uuid,
        'traits': [], 'inventories': {}} for row in rows}
    if providers:
        params = {'provider_ids': list(providers)}
        for provider_id, name in conn.execute(_TRAITS_OF, params):
            providers[provider_id]['traits'].append(name)
        for (provider_id, name, total, reserved, ratio, capacity,
             used) in conn.execute(_INVENTORIES_OF, params):
            providers[provider_id]['inventories'][name] = {
                'total': total, 'reserved': reserved,
                'allocation_ratio': ratio, 'capacity': int(capacity),
                'used': int(used)}
    return count, list(providers.values())
