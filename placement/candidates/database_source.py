"""The read step's rows from the database: per request group one SQL
statement built from its checks (``statements.group_statement``), and
the few bulk reads around it (names, the sharing providers' reach, the
summaries' places, figures and traits).  ``memory_source`` gives the
same rows from a worker's snapshot.

SQLite hands rows over as it finds them; PyMySQL and psycopg2 buffer
whole results, so with a limit MySQL's and PostgreSQL's rows are read in
pages: ranges of root ids of growing size (see ``DatabaseRows._paged``).
"""
import itertools

import sqlalchemy as sa

from placement import microversions
from placement.candidates import census
from placement.candidates import checks as checks_mod
from placement.candidates import lookup
from placement.candidates import names as names_mod
from placement.candidates import statements
from placement.candidates import stranded
from placement.data import tables
from placement.objects import base
from placement.objects import figures

RP = tables.resource_providers
INV = tables.inventories
RPT = tables.resource_provider_traits
RPA = tables.resource_provider_aggregates
TRAITS = tables.traits
AGG = tables.placement_aggregates

# With a limit, the first page read from MySQL or PostgreSQL: the trees
# of this many root ids per candidate asked for, of at least PAGE.
PAGE = 100
PAGE_PER_CANDIDATE = 2

# The sharing providers (with a trait, given later) and the roots of the
# trees with a provider in one of their aggregates.  Built once: aliases
# cost more to set up than the statement to run.
_MEMBER = RP.alias('member')
_MINE = RPA.alias('mine')
_THEIRS = RPA.alias('theirs')
_SERVED = (
    sa.select(RPT.c.resource_provider_id, _MEMBER.c.root_provider_id)
    .select_from(
        RPT.join(_MINE, _MINE.c.resource_provider_id
                 == RPT.c.resource_provider_id)
        .join(_THEIRS, _THEIRS.c.aggregate_id == _MINE.c.aggregate_id)
        .join(_MEMBER, _MEMBER.c.id == _THEIRS.c.resource_provider_id))
    .distinct())
# The lowest and highest root ids: the span the pages cover (both read
# from the root index's ends).
_ROOTS = sa.select(sa.func.min(RP.c.root_provider_id),
                   sa.func.max(RP.c.root_provider_id))
# The providers of an answer, whose trees are summarized (built once).
_INNER = RP.alias('inner')
# The aggregates holding a provider whose root they do not hold.
_ROOT_RPA = RPA.alias('root_rpa')
_LOOSE = (
    sa.select(AGG.c.uuid).distinct()
    .select_from(RPA.join(AGG, AGG.c.id == RPA.c.aggregate_id)
                 .join(RP, RP.c.id == RPA.c.resource_provider_id))
    .where(RP.c.id != RP.c.root_provider_id, ~sa.exists().where(
        _ROOT_RPA.c.resource_provider_id == RP.c.root_provider_id,
        _ROOT_RPA.c.aggregate_id == RPA.c.aggregate_id)))


class DatabaseSource:
    """The database as the read step's source, in the transaction of
    ``conn``."""

    def __init__(self, conn):
        self.conn = conn
        self.dialect = conn.dialect.name

    def names(self, query):
        return names_mod.read(self.conn, query)

    def served(self, names):
        """{sharing provider: {roots of the trees it serves}}: every tree
        with a provider in one of its aggregates."""
        found = {}
        statement = _SERVED.where(
            RPT.c.trait_id == names.trait[names_mod.SHARING_TRAIT])
        for rp, root in lookup.fetch(self.conn, statement):
            found.setdefault(rp, set()).add(root)
        return found

    def rows(self, search, plan):
        return DatabaseRows(self.conn, search, plan)

    def lost(self):
        """Whether the connection died (a read then answers 503)."""
        return self.conn.invalidated

    def census(self, search):
        """Explain's census.Census of ``search`` (a RequestSearch)."""
        return census.of_database(self.conn, search)

    # -- what the summaries read beyond the rows ---------------------------

    def places(self, version, ids):
        """{rp: (uuid, parent uuid, root uuid)} of ``ids``, and from 1.29
        of every provider of their trees, in id order (the summaries')."""
        conn = self.conn
        stmt = sa.select(RP.c.id, RP.c.uuid, RP.c.parent_provider_id,
                         RP.c.root_provider_id)
        if version >= microversions.NESTED_CANDIDATES:
            rows = lookup.rows_for(
                conn, stmt, ids, _INNER.c.id,
                lambda clause: RP.c.root_provider_id.in_(
                    sa.select(_INNER.c.root_provider_id).where(clause)))
            roots = {root for rp, _, _, root in rows if rp in ids}
            rows = [(rp, uuid, parent, root)
                    for rp, uuid, parent, root in rows if root in roots]
        else:
            rows = [(rp, uuid, parent, root) for rp, uuid, parent, root
                    in lookup.rows_for(conn, stmt, ids, RP.c.id)
                    if rp in ids]
        uuids = {rp: uuid for rp, uuid, _, _ in rows}
        return {rp: (uuid, uuids.get(parent), uuids.get(root))
                for rp, uuid, parent, root in sorted(rows)}

    def figures(self, providers, classes):
        """{rp: {rc: (capacity, used)}} of ``providers``' inventories (of
        ``classes`` when not None)."""
        stmt = sa.select(INV.c.resource_provider_id,
                         INV.c.resource_class_id, INV.c.total,
                         INV.c.reserved, INV.c.allocation_ratio,
                         figures.used(INV))
        if classes is not None:
            stmt = stmt.where(INV.c.resource_class_id.in_(classes))
        found = {rp: {} for rp in providers}
        for rp, rc, total, reserved, ratio, used in lookup.rows_for(
                self.conn, stmt, providers, INV.c.resource_provider_id):
            mine = found.get(rp)
            if mine is not None:
                mine[rc] = (figures.capacity_of(total, reserved, ratio),
                            used)
        return found

    def trait_lists(self, providers):
        """{rp: [trait name, ...]} of ``providers`` in trait id order."""
        conn = self.conn
        traits = {rp: [] for rp in providers}
        rows = lookup.rows_for(
            conn, sa.select(RPT.c.resource_provider_id, RPT.c.trait_id)
            .order_by(RPT.c.resource_provider_id, RPT.c.trait_id),
            providers, RPT.c.resource_provider_id)
        names = dict(lookup.fetch(
            conn, sa.select(TRAITS.c.id, TRAITS.c.name)
            .where(TRAITS.c.id.in_(sorted({trait for _, trait in rows})))))
        for rp, trait in rows:
            found = traits.get(rp)
            if found is not None:
                found.append(names[trait])
        return traits

    # -- what the capacity count reads beyond the rows ---------------------

    def labels(self, rps):
        """{rp: (uuid, name)} of the providers ``rps``."""
        if not rps:
            return {}
        wanted = set(rps)
        return {rp: (uuid, name) for rp, uuid, name in lookup.rows_for(
            self.conn, sa.select(RP.c.id, RP.c.uuid, RP.c.name), wanted,
            RP.c.id) if rp in wanted}

    def memberships(self, rps):
        """{rp: [aggregate uuid, ...]} of the providers ``rps``."""
        found = {}
        if not rps:
            return found
        wanted = set(rps)
        for rp, uuid in lookup.rows_for(
                self.conn, sa.select(RPA.c.resource_provider_id, AGG.c.uuid)
                .select_from(RPA.join(AGG, AGG.c.id == RPA.c.aggregate_id)),
                wanted, RPA.c.resource_provider_id):
            if rp in wanted:
                found.setdefault(rp, []).append(uuid)
        return found

    def loose_aggregates(self):
        """{uuid} of the aggregates holding a provider whose root they do
        not hold."""
        return {uuid for uuid, in lookup.fetch(self.conn, _LOOSE)}

    def free_space(self, classes, scoped, changed=None):
        """stranded.free: the free space of ``classes``, in all and within
        the scopes of each key of ``scoped``, as ``changed`` says."""
        return stranded.free(self.conn, classes, scoped, changed)


class DatabaseRows:
    """The rows of one reader.RequestSearch read as its ``plan`` says:
    its groups' statements, paged or not, and ``root_filter``, the
    condition of root_required (None without it, or when the plan leaves
    it to explain)."""

    def __init__(self, conn, search, plan):
        self.conn = conn
        self.search = search
        self.results = []
        self.sums_usage = statements.usage_summed_once(
            plan.rooms, conn.dialect.name)
        self._stmts = {index: self.statement(search.groups[index],
                                             every_row=plan.rooms)
                       for index in search.reading}
        # Root ids of the first page of a paged read (see _paged), or
        # None to read each statement at once.
        limit = search.query.limit
        self.page = None
        if limit is not None and plan.paged and conn.dialect.name != 'sqlite':
            self.page = max(PAGE, PAGE_PER_CANDIDATE * limit)
        self.root_filter = None
        root = checks_mod.root_required(search.query)
        if root is not None and plan.root_filtered:
            self.root_filter = root.clause(search.names, checks_mod.Site(
                RP.c.id, RP.c.root_provider_id))

    def statement(self, group, every_row, each=None):
        """The group's statement (statements.group_statement)."""
        search = self.search
        return statements.group_statement(
            search.names, group.stack, group.spec.spread, group.spec.amounts,
            group.layout, self.conn.dialect.name, search.summary_classes,
            limited=search.limited, every_row=every_row, each=each,
            released=search.released, allocated=search.allocated)

    def of_sharing(self, index, served):
        """The rows of group ``index`` of the providers of ``served``."""
        # On the inventory side: PostgreSQL then reads these providers'
        # rows by index instead of scanning all providers once per
        # inventory row of the class (its row estimate here is 1).
        # Their usage is looked up, not summed for the whole cloud.
        group = self.search.groups[index]
        stmt = (self.statement(group, every_row=False) if self.sums_usage
                else self._stmts[index])
        return lookup.fetch(self.conn, stmt.where(
            INV.c.resource_provider_id.in_(sorted(served))))

    def of_trees(self, index, roots=None):
        """The rows of group ``index`` in root order, of the trees of
        ``roots`` (sorted) when given."""
        stmt = self._stmts[index]
        if roots is not None and self.sums_usage:
            # Some trees only: their usage is looked up, not summed for
            # the whole cloud (as for the sharing providers' read).
            stmt = self.statement(self.search.groups[index], every_row=False)
        return self._read(self.every_tree(stmt), roots)

    def every_tree(self, stmt):
        """A group's statement ``stmt`` as read for the trees (not for the
        sharing providers' read: a few providers, found by their
        inventories)."""
        stmt = statements.providers_first(stmt)
        if self.root_filter is not None:
            stmt = stmt.where(self.root_filter)
        return stmt

    def of_shapes(self, readings):
        """The rows of the one group of ``readings`` (RequestSearch values
        of shapes alike but for their amounts, this one's the first) in
        one statement (statements.group_statement's ``each``)."""
        stmt = self.statement(
            self.search.groups[0], every_row=True,
            each=[reading.groups[0].spec.amounts for reading in readings])
        return lookup.fetch(self.conn, self.every_tree(stmt))

    def roots_passing(self, roots):
        """Those of the root ids ``roots`` that root_required admits."""
        if self.root_filter is None:
            return set(roots)
        return {root for root, in lookup.rows_for(
            self.conn, sa.select(RP.c.id).where(
                RP.c.id == RP.c.root_provider_id, self.root_filter),
            roots, RP.c.id) if root in roots}

    def parents(self, roots=None):
        """(root, rp, parent) of every provider in root order, of the
        trees of ``roots`` when given."""
        return self._read(
            sa.select(RP.c.root_provider_id, RP.c.id,
                      RP.c.parent_provider_id)
            .order_by(RP.c.root_provider_id, RP.c.id), roots)

    def ranking_bounds(self, index, lowest):
        """{root: its ranking row} of group ``index``
        (statements.ranking_statement)."""
        search = self.search
        group = search.groups[index]
        stmt = statements.ranking_statement(
            search.names, group.stack, group.spec.spread, group.spec.amounts,
            self.conn.dialect.name, lowest, search.released)
        if self.root_filter is not None:
            stmt = stmt.where(self.root_filter)
        return statements.ranking_bounds(lookup.fetch(self.conn, stmt))

    def _read(self, stmt, roots=None):
        """The rows of ``stmt`` (ordered by root first) as they are
        consumed: paged when a limit may stop the reading early; only
        those of the trees of ``roots`` (sorted) when given."""
        if roots is not None:
            return itertools.chain.from_iterable(
                lookup.fetch(self.conn, stmt.where(
                    RP.c.root_provider_id.in_(chunk)))
                for chunk in base.chunks(roots))
        if self.page is not None:
            return self._paged(stmt)
        result = self.conn.execute(stmt)
        self.results.append(result)
        return result.cursor

    def _paged(self, stmt):
        """The rows of ``stmt``, the trees of a range of root ids at a
        time, each range twice as wide as the one before.  A range, not a
        LIMIT: PostgreSQL misjudges how many inventory rows pass the
        capacity check, so for any LIMIT it plans the aggregate and sort
        of the whole result; a range of the root index bounds what it
        reads whatever its estimates.  Each page is a statement of its
        own, so several statements' pages can be read in turn on one
        connection."""
        low, high = lookup.fetch(self.conn, _ROOTS)[0]
        size = self.page
        while low is not None and low <= high:
            yield from lookup.fetch(self.conn, stmt.where(
                RP.c.root_provider_id.between(low, low + size - 1)))
            low += size
            size *= 2

    def close(self):
        for result in self.results:
            result.close()
