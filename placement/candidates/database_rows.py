"""The read step's rows from the database: per request group one SQL
statement built from its checks (``statements.group_statement``), read
as a reader.Plan says.  ``memory_rows`` gives the same rows from a
worker's snapshot.

SQLite hands rows over as it finds them; PyMySQL and psycopg2 buffer
whole results, so with a limit MySQL's and PostgreSQL's rows are read in
pages: ranges of root ids of growing size (see ``DatabaseRows._paged``).
"""
import itertools

import sqlalchemy as sa

from placement.candidates import checks as checks_mod
from placement.candidates import lookup
from placement.candidates import statements
from placement.data import tables
from placement.objects import base

RP = tables.resource_providers
INV = tables.inventories

# With a limit, the first page read from MySQL or PostgreSQL: the trees
# of this many root ids per candidate asked for, of at least PAGE.
PAGE = 100
PAGE_PER_CANDIDATE = 2

# The lowest and highest root ids: the span the pages cover (both read
# from the root index's ends).
_ROOTS = sa.select(sa.func.min(RP.c.root_provider_id),
                   sa.func.max(RP.c.root_provider_id))


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

    def of_shapes(self, readings, roots=None):
        """The rows of the one group of ``readings`` (RequestSearch values
        of shapes alike but for their amounts, this one's the first) in
        one statement (statements.group_statement's ``each``), of the
        trees of ``roots`` (sorted) only when given."""
        stmt = self.every_tree(self.statement(
            self.search.groups[0], every_row=True,
            each=[reading.groups[0].spec.amounts for reading in readings]))
        if roots is None:
            return lookup.fetch(self.conn, stmt)
        return self._read(stmt, roots)

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
