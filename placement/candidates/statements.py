"""The SQL of a request group: one statement built from its checks.

Each database-specific trick has a name here that says what it is for.
"""
import sqlalchemy as sa

from placement.candidates import checks as checks_mod
from placement.data import tables
from placement.objects import figures

RP = tables.resource_providers
INV = tables.inventories
# The inventories a provider's summary lists, counted (built once).
_LISTED = INV.alias('listed')
_NAMED = RP.alias('named')


def _uuid_of(rp_id):
    """A provider's uuid, looked up by id: read from the providers
    themselves, it would keep MariaDB from walking them in the order of
    the root index alone (a covering index), so it would read them all
    and sort them before the first row."""
    return (sa.select(_NAMED.c.uuid).where(_NAMED.c.id == rp_id)
            .scalar_subquery())


def walk_in_root_order(column, dialect):
    """``column`` as an expression on SQLite: the planner then cannot
    drive the statement from that column's own index (finding aggregate
    members, or one class's inventories, and sorting them all before the
    first row); it walks providers in root order instead, so rows stream
    and a limit stops the scan early."""
    return column + 0 if dialect == 'sqlite' else column


def probe_members(dialect, limited):
    """Whether a statement tests aggregate membership provider by provider
    (see provider_filter.member_of_clause): where a limit stops the
    reading early (SQLite streams, MySQL pages), so that only the
    providers read are looked up."""
    return limited and dialect in ('sqlite', 'mysql', 'mariadb')


def usage_summed_once(every_row, dialect, amounts_checked=1):
    """Whether a statement reading ``every_row`` of the cloud joins the
    usage summed once per (provider, class) rather than looking it up per
    inventory row: on PostgreSQL the lookup, written three times (figures,
    room, capacity check), runs each time, and costed per row it makes
    the statement look dear enough to be compiled to machine code first.
    SQLite's lookups by index cost no more than the join until a row's
    capacity is checked against more than two shapes' amounts
    (``amounts_checked``), each check looking the usage up again."""
    return every_row and (dialect != 'sqlite' or amounts_checked > 2)


def ratio_as_read(inventory, dialect):
    """allocation_ratio as the double Python reads: MySQL and PostgreSQL
    keep it in single precision and their drivers hand over its shortest
    decimal form, so SQL reads it through that text to compute the very
    free space Python would (see layouts.Layout)."""
    ratio = inventory.c.allocation_ratio
    if dialect == 'sqlite':
        return ratio
    text = sa.cast(ratio, sa.String)
    if dialect == 'postgresql':
        return sa.cast(text, sa.Double)
    # MySQL casts to no floating type; a string plus a double is one.
    return sa.type_coerce(text, sa.Double) + sa.literal_column('0e0')


def providers_first(stmt):
    """MariaDB would scan the inventories of several classes and sort
    the groups; joined providers first (by the root index) the rows come
    in order and a LIMIT stops the scan."""
    return (stmt.prefix_with('STRAIGHT_JOIN', dialect='mysql')
            .prefix_with('STRAIGHT_JOIN', dialect='mariadb'))


def _provider_site(dialect, limited):
    """The Site of the provider checks (see ``walk_in_root_order``,
    ``probe_members``)."""
    return checks_mod.Site(
        RP.c.id, RP.c.root_provider_id,
        member_rp=walk_in_root_order(RP.c.id, dialect),
        member_root=walk_in_root_order(RP.c.root_provider_id, dialect),
        probe_members=probe_members(dialect, limited))


def _resource_conditions(ids, stack, amounts, dialect, used):
    """The resource checks of the classes of ``amounts`` over the
    inventory rows, ``used`` being a row's usage: HasInventory of every
    class is one IN list; the units and capacity conditions serve every
    class at once, the amount being a CASE over the class."""
    return [_has_inventory(amounts, dialect),
            *_amount_conditions(ids, stack, amounts, used)]


def _has_inventory(amounts, dialect):
    """HasInventory's own condition for every class of ``amounts``."""
    return checks_mod.HasInventory.of_classes(
        walk_in_root_order(INV.c.resource_class_id, dialect), amounts)


def _amount_conditions(ids, stack, amounts, used):
    """The units and capacity conditions of ``_resource_conditions``."""
    if len(amounts) == 1:
        amount = sa.literal(next(iter(amounts.values())))
    else:
        amount = sa.case(amounts, value=INV.c.resource_class_id)
    site = checks_mod.Site(RP.c.id, RP.c.root_provider_id, inventory=INV,
                           used=used, amount=amount)
    merged = {}
    for check in stack:
        if check.merges_classes:
            merged.setdefault(type(check), check)
    return [check.clause(ids, site) for check in merged.values()]


def _class_mask(classes, passing=None):
    """A provider's class mask: bit i set when it passes the resource
    checks of the i-th of ``classes`` (and the condition ``passing``,
    when given, on that class's inventory row)."""
    bits = sa.case({rc: 1 << bit for bit, rc in enumerate(classes)},
                   value=INV.c.resource_class_id)
    if passing is not None:
        bits = sa.case((passing, bits), else_=0)
    # MySQL sums to a DECIMAL, which its driver parses slowly.
    return sa.cast(sa.func.sum(bits), sa.BigInteger)


def group_statement(ids, stack, spread, amounts, layout, dialect,
                    summary_classes=None, limited=False, every_row=False,
                    each=None, released=(), allocated=True):
    """Rows (root, rp, trait mask, class mask, figures..., listed,
    limits...) of the providers passing the group's filters and able to
    serve some of ``amounts`` {rc id: amount}, ordered by root; ``stack``
    is the group's checks, ``layout`` (a layouts.Layout) says which
    columns.

    Bit i of the class mask: the provider passes the resource checks of
    the i-th class of ``amounts``; bit i of the trait mask (the
    unsuffixed group, whose required traits spread over its providers):
    it passes the i-th RequiredTraits check.  The figures of a class are
    NULL where its bit is not set; ``listed`` counts the provider's
    inventories (of ``summary_classes`` when given): the summaries need no
    second read of a provider whose figures are all there.  With
    ``layout.limits`` each row goes on with (room, max_unit) per class:
    what is left of its capacity, and the largest single allocation.  A
    group without amounts (traits or aggregates only) gets every provider
    passing its filters, with a class mask of 0 (and -1 listed: it never
    has them all).  ``limited``: the request has a limit; ``every_row``:
    every row is read (see ``usage_summed_once``).

    ``each``: several amounts {rc id: amount} of the classes of
    ``amounts``, in their order (shapes alike but for their amounts, read
    once): a provider is read when it passes the resource checks for one
    of them, its class mask is that of any, and the row ends with one
    class mask per entry of ``each``, after the uuid.  ``released``:
    consumers whose allocations count as free (figures.used); without
    ``allocated`` no usage is counted at all (reader.Plan).
    """
    site = _provider_site(dialect, limited)
    where = [check.clause(ids, site)
             for check in checks_mod.filters(stack, spread)]
    order = (RP.c.root_provider_id, RP.c.id)
    traits = sa.literal(0)
    if spread:
        for bit, check in enumerate(checks_mod.trait_bits(stack)):
            traits = traits + sa.case((check.clause(ids, site), 1 << bit),
                                      else_=0)
    if not amounts:
        return (sa.select(*order, traits, sa.literal(0), sa.literal(-1),
                          _uuid_of(RP.c.id))
                .where(*where).order_by(*order))
    classes = list(amounts)
    joined = RP.join(INV, INV.c.resource_provider_id == RP.c.id)
    if not allocated:
        used = sa.null()
    elif usage_summed_once(every_row, dialect, len(each or ())):
        usage = figures.usage_table(classes, released)
        joined = joined.outerjoin(usage, sa.and_(
            usage.c.resource_provider_id == INV.c.resource_provider_id,
            usage.c.resource_class_id == INV.c.resource_class_id))
        used = usage.c.used
    else:
        used = figures.used(INV, released)
    if each is None:
        where = [*_resource_conditions(ids, stack, amounts, dialect, used),
                 *where]
    else:
        passing = [sa.and_(*_amount_conditions(ids, stack, one, used))
                   for one in each]
        where = [_has_inventory(amounts, dialect), sa.or_(*passing), *where]
    # The trait mask depends on the grouped provider only, so it needs no
    # aggregate (and is then computed once per provider, not per row).
    columns = [*order, traits, _class_mask(classes)]
    for rc in classes:
        mine = INV.c.resource_class_id == rc
        columns += [sa.func.max(sa.case((mine, column)))
                    for column in layout.columns(
                        INV, used, ratio_as_read(INV, dialect))]
    count = sa.select(sa.func.count()).where(
        _LISTED.c.resource_provider_id == RP.c.id)
    if summary_classes is not None:
        count = count.where(_LISTED.c.resource_class_id.in_(summary_classes))
    columns.append(count.scalar_subquery() if layout.rendered
                   else sa.literal(-1))
    if layout.limits:
        room = figures.free(INV, used)
        for rc in classes:
            mine = INV.c.resource_class_id == rc
            columns += [sa.func.max(sa.case((mine, room))),
                        sa.func.max(sa.case((mine, INV.c.max_unit)))]
    columns.append(_uuid_of(RP.c.id) if layout.rendered else sa.null())
    if each is not None:
        columns += [_class_mask(classes, one) for one in passing]
    return (
        sa.select(*columns)
        .select_from(joined)
        .where(*where)
        .group_by(*order)
        .order_by(*order))


def ranking_statement(ids, stack, spread, amounts, dialect, smallest,
                      released=()):
    """One row per tree: (root, per class of ``amounts`` the largest free
    space of a provider of the tree passing the group's checks (those of
    ``group_statement``), then with ``smallest`` per class the smallest),
    NULL where none of its providers can serve the class; in no order:
    what the weigh stage bounds trees by (candidates/ranking.py).  The
    free space is the one Python computes (``ratio_as_read``); the usage
    is summed once for all inventories rather than looked up per row
    (``released`` as for ``group_statement``)."""
    usage = figures.usage_table(amounts, released)
    inventory = RP.join(INV, INV.c.resource_provider_id == RP.c.id).outerjoin(
        usage, sa.and_(
            usage.c.resource_provider_id == INV.c.resource_provider_id,
            usage.c.resource_class_id == INV.c.resource_class_id))
    where = [*_resource_conditions(ids, stack, amounts, dialect,
                                   usage.c.used),
             *(check.clause(ids, _provider_site(dialect, False))
               for check in checks_mod.filters(stack, spread))]
    free = figures.free(INV, usage.c.used, ratio_as_read(INV, dialect))
    per_class = [sa.case((INV.c.resource_class_id == rc, free))
                 for rc in amounts]
    columns = [RP.c.root_provider_id, *map(sa.func.max, per_class)]
    if smallest:
        columns += map(sa.func.min, per_class)
    return (sa.select(*columns).select_from(inventory).where(*where)
            .group_by(RP.c.root_provider_id))


def ranking_bounds(rows):
    """{root: (largest free space per class..., smallest...)} of the rows
    of a ``ranking_statement``."""
    return {row[0]: row[1:] for row in rows}
