"""SQL building blocks that filter resource providers by the query-string
filters parsed in ``placement/candidates/query.py``.

The ``*_clause`` functions return boolean SQLAlchemy expressions
correlated on a provider id column (usually ``resource_providers.c.id``
of the outer statement), to be ANDed into a WHERE.  Names are resolved to
ids first (``base.resolve_traits``, ``resolve_resource_classes``), which
raise the upstream 400s for names that do not exist.
"""
import sqlalchemy as sa

from placement import errors
from placement.data import tables
from placement.objects import base
from placement.objects import figures

RP = tables.resource_providers
INV = tables.inventories
RPT = tables.resource_provider_traits
RPA = tables.resource_provider_aggregates
AGG = tables.placement_aggregates


# The 400 of an unknown trait in a listing's ``required``.
UNKNOWN_REQUIRED_TRAIT = ('Invalid trait(s) in "required" parameter: No '
                          'such trait(s): {first}.')


def resolve_resource_classes(conn, names):
    """{name: id} for ``names``; 400 for the first unknown class."""
    return known_classes(base.resource_class_ids(conn, names), names)


def known_classes(found, names):
    """``found`` ({name: id} of the classes among ``names`` that exist);
    400 for the first of ``names`` missing from it."""
    missing = [name for name in names if name not in found]
    if missing:
        raise errors.BadRequest(
            'Invalid resource class in resources parameter: No such '
            'resource class %s.' % missing[0])
    return found


def resolve_aggregates(conn, uuids):
    """{uuid: id} for the aggregates among ``uuids`` that exist (an
    unknown aggregate simply has no members)."""
    uuids = set(uuids)
    if not uuids:
        return {}
    return dict(conn.execute(
        sa.select(AGG.c.uuid, AGG.c.id).where(AGG.c.uuid.in_(uuids))).all())


def trait_id_filter(trait_filter, trait_ids):
    """A TraitFilter's names mapped to ids: (tuple of id frozensets,
    frozenset of forbidden ids).  ``trait_ids`` comes from
    ``base.resolve_traits`` over ``trait_filter.names()``."""
    required = tuple(frozenset(trait_ids[name] for name in any_of)
                     for any_of in trait_filter.required)
    forbidden = frozenset(trait_ids[name] for name in trait_filter.forbidden)
    return required, forbidden


def traits_clause(provider_id, required, forbidden):
    """Providers having one trait of each id set in ``required`` and none
    of the ids in ``forbidden`` (see ``trait_id_filter``)."""
    clauses = []
    for any_of in required:
        clauses.append(sa.exists().where(
            RPT.c.resource_provider_id == provider_id,
            RPT.c.trait_id.in_(sorted(any_of))))
    if forbidden:
        clauses.append(~sa.exists().where(
            RPT.c.resource_provider_id == provider_id,
            RPT.c.trait_id.in_(sorted(forbidden))))
    return sa.and_(sa.true(), *clauses)


def member_of_clause(provider_id, agg_filter, agg_ids, root_id=None,
                     probe=False):
    """Providers in an aggregate of each required set of ``agg_filter`` and
    in none of its forbidden ones.

    ``agg_ids`` is ``resolve_aggregates`` over the filter's UUIDs.  With
    ``root_id`` (the provider's root id column) membership of the root
    counts too, as GET /allocation_candidates wants.  ``probe``: look
    each provider up in the memberships (see ``in_any``), for statements
    of which only the first rows are read.
    """
    columns = [provider_id] if root_id is None else [provider_id, root_id]

    def in_any(ids):
        if probe:
            # One index probe per provider read: a subquery with a LIMIT,
            # which no database turns into the list of all members (that
            # list costs as much as the aggregate is large, whatever the
            # limit of the request).
            return sa.or_(*(
                sa.select(sa.literal(1)).where(
                    RPA.c.resource_provider_id == column,
                    RPA.c.aggregate_id.in_(sorted(ids)))
                .limit(1).scalar_subquery().isnot(None)
                for column in columns))
        # The members of the aggregates, selected once and uncorrelated:
        # every database then materializes (or semi-joins) that list once
        # instead of probing the aggregate's members for each provider row,
        # which MariaDB did with a correlated EXISTS (quadratic).
        members = sa.select(RPA.c.resource_provider_id).where(
            RPA.c.aggregate_id.in_(sorted(ids)))
        return sa.or_(*(column.in_(members) for column in columns))

    clauses = []
    for any_of in agg_filter.required:
        ids = {agg_ids[uuid] for uuid in any_of if uuid in agg_ids}
        # No known aggregate in the set: nothing can be a member.
        clauses.append(in_any(ids) if ids else sa.false())
    forbidden = {agg_ids[uuid] for uuid in agg_filter.forbidden
                 if uuid in agg_ids}
    if forbidden:
        clauses.append(~in_any(forbidden))
    return sa.and_(sa.true(), *clauses)


# Aliased: inside a statement on the providers table it stays uncorrelated.
_NAMED = RP.alias('named')


def _root_of(uuid):
    return sa.select(_NAMED.c.root_provider_id).where(_NAMED.c.uuid == uuid)


def root_of(conn, uuid):
    """The root provider id of the provider ``uuid``, or None."""
    return conn.execute(_root_of(uuid)).scalar()


def in_tree_clause(root_id, tree_root_id):
    """Providers whose root (``root_id`` column) is ``tree_root_id`` (from
    ``root_of``; None when the named provider does not exist)."""
    if tree_root_id is None:
        return sa.false()
    return root_id == tree_root_id


def in_tree_of_clause(root_id, uuid):
    """Providers whose root (``root_id`` column) is that of the provider
    ``uuid`` (a value or a bind parameter); none if it does not exist.
    The same filter as ``in_tree_clause``, in the statement itself."""
    return root_id == _root_of(uuid).scalar_subquery()


def fits_clause(inventory, used, amount):
    """Whether ``amount`` more of an inventory row can be allocated."""
    return sa.and_(figures.fits_units(inventory, amount),
                   figures.fits_room(inventory, used, amount))


def capacity_clause(provider_id, rc_id, amount):
    """Providers that can allocate ``amount`` of resource class ``rc_id``
    more (GET /resource_providers?resources=...)."""
    return sa.exists().where(INV.c.resource_provider_id == provider_id,
                             INV.c.resource_class_id == rc_id,
                             fits_clause(INV, figures.used(INV), amount))
