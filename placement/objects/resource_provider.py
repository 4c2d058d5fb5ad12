"""Resource providers: create, read, list, rename/re-parent, delete.

A provider row knows its parent and its root; a root is its own root.  The
functions here return rows carrying the parent's and root's UUIDs, which
is what the API shows.
"""
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from placement import errors
from placement.data import feed
from placement.data import tables
from placement.objects import base
from placement.objects import provider_filter

RP = tables.resource_providers
_PARENT = RP.alias('parent')
_ROOT = RP.alias('root')
_WITH_PARENT_AND_ROOT = (
    RP.outerjoin(_PARENT, RP.c.parent_provider_id == _PARENT.c.id)
    .outerjoin(_ROOT, RP.c.root_provider_id == _ROOT.c.id))
# What the API shows of a provider and when it last changed, in this
# order: listings read rows by position (on thousands of rows, attribute
# access costs more than the rest of the rendering).
SHOWN = ('uuid', 'name', 'generation', 'parent_provider_uuid',
         'root_provider_uuid', 'changed')
_SHOWN = (RP.c.uuid, RP.c.name, RP.c.generation,
          _PARENT.c.uuid.label('parent_provider_uuid'),
          _ROOT.c.uuid.label('root_provider_uuid'),
          sa.func.coalesce(RP.c.updated_at, RP.c.created_at).label('changed'))
_BY_UUID = (sa.select(*_SHOWN, RP.c.id, RP.c.root_provider_id,
                      RP.c.parent_provider_id)
            .select_from(_WITH_PARENT_AND_ROOT)
            .where(RP.c.uuid == sa.bindparam('uuid')))


def get(conn, uuid):
    """The provider row ``uuid``: ``SHOWN``, then its id,
    root_provider_id and parent_provider_id; 404 if there is none."""
    provider = conn.execute(_BY_UUID, {'uuid': uuid}).first()
    if provider is None:
        raise base.provider_not_found(uuid)
    return provider


_ALL = sa.select(*_SHOWN).select_from(_WITH_PARENT_AND_ROOT).order_by(RP.c.id)
# A provider's tree, which every nova-compute reads on each refresh: built
# once, since building and keying a statement costs more than running it.
_TREE = _ALL.where(provider_filter.in_tree_of_clause(
    RP.c.root_provider_id, sa.bindparam('in_tree')))


def get_all(conn, **filters):
    """Rows (``SHOWN``) of the providers matching every filter given
    (see ``filtered``), by id."""
    if filters.keys() == {'in_tree'}:
        return conn.execute(_TREE, filters).all()
    return conn.execute(filtered(conn, _ALL, **filters)).all()


def filtered(conn, stmt, name=None, uuid=None, in_tree=None,
             resources=None, traits=None, member_of=None):
    """``stmt``, a select from the providers table, narrowed to the
    providers matching every filter given.

    ``resources`` is {class name: amount} each provider must be able to
    take on its own; ``traits`` a query_filters.TraitFilter;
    ``member_of`` a query_filters.AggregateFilter; ``in_tree`` the UUID of
    any provider of a tree.
    Unknown classes and traits are a 400, unknown aggregates match nothing.
    """
    if name is not None:
        stmt = stmt.where(RP.c.name == name)
    if uuid is not None:
        stmt = stmt.where(RP.c.uuid == uuid)
    if in_tree is not None:
        stmt = stmt.where(provider_filter.in_tree_of_clause(
            RP.c.root_provider_id, in_tree))
    if resources:
        class_ids = provider_filter.resolve_resource_classes(conn, resources)
        for class_name, amount in resources.items():
            stmt = stmt.where(provider_filter.capacity_clause(
                RP.c.id, class_ids[class_name], amount))
    if traits:
        required, forbidden = provider_filter.trait_id_filter(
            traits, base.resolve_traits(
                conn, traits.names(), provider_filter.UNKNOWN_REQUIRED_TRAIT))
        stmt = stmt.where(
            provider_filter.traits_clause(RP.c.id, required, forbidden))
    if member_of:
        uuids = set(member_of.forbidden).union(*member_of.required)
        stmt = stmt.where(provider_filter.member_of_clause(
            RP.c.id, member_of, provider_filter.resolve_aggregates(conn, uuids)))
    return stmt


def _check_unique(conn, name, uuid=None, provider_id=None):
    """409 if a provider other than ``provider_id`` has ``uuid``/``name``.

    The unique indexes are the final word (see ``_raced_duplicate``);
    checking first gives the client an error that says which one clashed.
    """
    if uuid is not None and base.find_provider(conn, uuid) is not None:
        raise errors.Conflict(
            'Conflicting resource provider uuid: %s already exists.' % uuid,
            code=errors.DUPLICATE_NAME)
    stmt = sa.select(RP.c.id).where(RP.c.name == name)
    if provider_id is not None:
        stmt = stmt.where(RP.c.id != provider_id)
    if conn.execute(stmt).first() is not None:
        if provider_id is not None:
            # A rename words it as a lost race on the unique index does.
            raise _raced_duplicate(name)
        raise errors.Conflict(
            'Conflicting resource provider name: %s already exists.' % name,
            code=errors.DUPLICATE_NAME)


# Upstream words these as failed object actions; clients match the text.
_CREATE_FAILED = 'Object action create failed because: %s'
_UPDATE_FAILED = 'Object action update failed because: %s'
_NO_PARENT = _CREATE_FAILED % 'parent provider UUID does not exist.'


def _raced_duplicate(name):
    """A concurrent create or rename won the unique index."""
    return errors.Conflict(
        'Conflicting resource provider %s already exists.' % name,
        code=errors.DUPLICATE_NAME)


def create(conn, uuid, name, parent_uuid=None):
    """Insert a provider (generation 0) and return it."""
    def fail(reason):
        return errors.BadRequest(
            'Unable to create resource provider "%s", %s: %s'
            % (name, uuid, reason))

    if parent_uuid is not None and parent_uuid == uuid:
        raise fail(_CREATE_FAILED % (
            'parent provider UUID cannot be same as UUID. Please set '
            'parent provider UUID to None if there is no parent.'))
    parent = None
    if parent_uuid is not None:
        # Locked first, so it can be neither deleted nor moved while it
        # gains a child, and the reads below see its latest state.
        if not base.lock_providers_by_uuid(conn, [parent_uuid]):
            raise fail(_NO_PARENT)
        parent = base.get_provider(conn, parent_uuid)
    _check_unique(conn, name, uuid)
    now = base.now()
    try:
        provider_id = conn.execute(RP.insert().values(
            uuid=uuid, name=name, generation=0, created_at=now,
            updated_at=None,
            parent_provider_id=parent.id if parent else None,
            root_provider_id=parent.root_provider_id if parent else None,
        )).inserted_primary_key[0]
    except sa_exc.IntegrityError:
        raise _raced_duplicate(name) from None
    if parent is None:
        conn.execute(RP.update().where(RP.c.id == provider_id)
                     .values(root_provider_id=provider_id))
    feed.touch(conn, [provider_id, parent.id if parent else None])
    return get(conn, uuid)


def _subtree_ids(conn, provider_id):
    """Ids of the provider and all its descendants."""
    found = {provider_id}
    level = [provider_id]
    while level:
        children = conn.execute(sa.select(RP.c.id).where(
            RP.c.parent_provider_id.in_(level))).scalars()
        level = [i for i in children if i not in found]
        found.update(level)
    return found


def _locked_subtree(conn, provider):
    """Ids of ``provider`` and its descendants, read once every provider
    of its tree is locked (in id order).

    A child being created under one of them holds its parent's lock
    (``create``): the lock waits for that transaction, and the read after
    it sees the new child; a create that comes later waits for this
    transaction and then reads its parent's new root.
    """
    base.lock_tree(conn, provider.root_provider_id)
    return _subtree_ids(conn, provider.id)


def update(conn, uuid, name, parent_uuid, *, change_parent, allow_reparent):
    """Rename a provider and, if ``change_parent``, move it in the forest.

    Without ``allow_reparent`` (before microversion 1.37) a provider may
    only gain a parent, never lose or swap it.  The generation does not
    change: renaming and moving do not touch what is allocated.  Returns
    the provider (as ``get``) and its updated_at, which changes only when
    the name or the parent does (upstream dates the answer by it).
    """
    def fail(reason):
        return errors.BadRequest(
            'Unable to save resource provider %s: %s' % (uuid, reason))

    # Lock the provider and its would-be parent before any plain read.
    moving_under = parent_uuid if change_parent else None
    locked = base.lock_providers_by_uuid(conn, [uuid, moving_under] if
                                         moving_under else [uuid])
    if uuid not in locked:
        raise base.provider_not_found(uuid)
    current = base.get_provider(conn, uuid)
    _check_unique(conn, name, provider_id=current.id)
    values = {'name': name}
    new_root = subtree = None
    old_parent_id = current.parent_provider_id
    if change_parent and parent_uuid is None and old_parent_id is not None:
        if not allow_reparent:
            raise fail(_UPDATE_FAILED
                       % 'un-parenting a provider is not currently allowed.')
        values['parent_provider_id'] = None
        new_root = current.id
        subtree = _locked_subtree(conn, current)
    elif moving_under is not None:
        if moving_under not in locked:
            raise fail(_NO_PARENT)
        parent = base.get_provider(conn, moving_under)
        if parent.id != old_parent_id:
            if old_parent_id is not None and not allow_reparent:
                raise fail(_UPDATE_FAILED % 're-parenting a provider is '
                           'not currently allowed.')
            subtree = _locked_subtree(conn, current)
            if parent.id in subtree:
                raise fail(_UPDATE_FAILED % 'creating loop in the provider '
                           'tree is not allowed.')
            values['parent_provider_id'] = parent.id
            new_root = parent.root_provider_id
    updated_at = current.updated_at
    if name != current.name or 'parent_provider_id' in values:
        updated_at = values['updated_at'] = base.now()
        try:
            conn.execute(RP.update().where(RP.c.id == current.id)
                         .values(values))
        except sa_exc.IntegrityError:
            raise _raced_duplicate(name) from None
        feed.touch(conn, [current.id])
    if 'parent_provider_id' in values:
        # The moved subtree's roots change, and both parents' children.
        feed.touch(conn, subtree | {old_parent_id,
                                    values['parent_provider_id']})
    if new_root is not None and new_root != current.root_provider_id:
        conn.execute(RP.update().where(RP.c.id.in_(subtree))
                     .values(root_provider_id=new_root))
    return get(conn, uuid), updated_at


def delete(conn, uuid):
    """Delete a childless, unallocated provider and what hangs off it."""
    provider_id = base.lock_providers_by_uuid(conn, [uuid]).get(uuid)
    if provider_id is None:
        raise errors.NotFound(
            'No resource provider with uuid %s found for delete' % uuid)
    child = conn.execute(sa.select(RP.c.id)
                         .where(RP.c.parent_provider_id == provider_id)
                         .limit(1)).first()
    if child is not None:
        raise errors.Conflict(
            'Unable to delete parent resource provider %s: It has child '
            'resource providers.' % uuid,
            code=errors.PROVIDER_CANNOT_DELETE_PARENT)
    alloc = tables.allocations
    used = conn.execute(sa.select(alloc.c.id)
                        .where(alloc.c.resource_provider_id == provider_id)
                        .limit(1)).first()
    if used is not None:
        raise errors.Conflict(
            'Unable to delete resource provider %s: Resource provider has '
            'allocations.' % uuid, code=errors.PROVIDER_IN_USE)
    for table in (tables.inventories, tables.resource_provider_traits,
                  tables.resource_provider_aggregates):
        conn.execute(table.delete()
                     .where(table.c.resource_provider_id == provider_id))
    # A root refers to itself; InnoDB checks that foreign key even for
    # the row being deleted, so drop the self-reference first.
    parent_id = conn.execute(sa.select(RP.c.parent_provider_id).where(
        RP.c.id == provider_id)).scalar()
    conn.execute(RP.update().where(RP.c.id == provider_id)
                 .values(root_provider_id=None))
    conn.execute(RP.delete().where(RP.c.id == provider_id))
    feed.touch(conn, [provider_id, parent_id])
