"""Allocation candidates: the sets of providers that can satisfy a request.

This module reads; ``placement/candidate_search.py`` combines (pure
functions, no connection).  How a request is answered:

1. Names are resolved to ids (an unknown trait or resource class is a 400).
2. Each request group becomes one SQL statement over providers, their
   inventories and summed allocations; groups asking the same of the same
   providers share one.  It returns a row per provider passing the group's
   trait, aggregate and tree filters, with a bit mask of the requested
   classes it can serve - min/max unit, step size and capacity are checked
   in SQL - ordered by tree root.  Rows become ProviderRow values.
3. Sharing providers (trait MISC_SHARES_VIA_AGGREGATE) are read up front
   with the roots of the trees they serve: every tree with a provider in
   one of their aggregates.
4. The groups' row streams are merged by root into one
   ``candidate_search.Tree`` per tree, which the combiner searches (see
   there).  Everything is a generator, so a limit stops reading rows
   early, and a candidate is only plain dicts and tuples.  SQLite hands
   rows over as it finds them; PyMySQL buffers whole results, so with a
   limit MySQL's rows are read in pages of growing size, from the root
   where the last page stopped.  (PostgreSQL misjudges how many
   inventory rows pass the capacity check and plans a full aggregate and
   sort for any page, so there a page would cost as much as the whole
   read: it reads at once.)
5. Summaries: the group statements also return, per provider, the
   capacity and usage of the classes it matched and how many
   inventories its summary lists; the rows read are kept by provider,
   and a provider whose summary they complete is not read again (in the
   common case, none is).  The others, and the providers' uuids and
   traits, are read in a few bulk queries.
"""
import dataclasses
import heapq
import itertools
import operator
import random
import typing

import sqlalchemy as sa

from placement import candidate_search
from placement import microversions
from placement import tables
from placement.objects import base
from placement.objects import figures
from placement.objects import provider_filter

RP = tables.resource_providers
INV = tables.inventories
RPT = tables.resource_provider_traits
RPA = tables.resource_provider_aggregates
TRAITS = tables.traits

SHARING_TRAIT = 'MISC_SHARES_VIA_AGGREGATE'
# How provider rows are looked up by id (see _rows_for): a range when
# the ids fill at least 1/DENSE of it; else up to SCAN ids in IN lists
# (base.chunks); else whole tables, filtered in Python.
DENSE = 4
SCAN = 5000
# With a limit, the first page of rows read from MySQL:
# this many per candidate asked for, at least PAGE.
PAGE = 100
PAGE_PER_CANDIDATE = 2
# The limits of a row without any (shared, never changed).
NO_LIMITS = {}


@dataclasses.dataclass
class Result:
    """Candidates and what is needed to render them, all keyed by ids.

    ``candidates``: [(allocations {rp_id: {rc_id: amount}},
    mappings {suffix: (rp_id, ...)})]; ``providers``: {rp_id: (uuid,
    parent_uuid, root_uuid)}; ``resources``: {rp_id: {rc_name: {"capacity":
    c, "used": u}}} (as rendered); ``traits``: {rp_id: [name, ...]};
    ``rc_names``: {rc_id: name}.
    """
    candidates: list
    providers: dict
    resources: dict
    traits: dict
    rc_names: dict


class ProviderRow(typing.NamedTuple):
    """A row of a group's statement (see ``_statement``): a provider of
    the tree of ``root`` able to serve some of the group's classes.

    ``fit``: bit i set when it can serve the group's i-th class;
    ``traits``: bit i set when it has a trait of the group's i-th any-of
    set; ``limits``: {rc: most that may be allocated in all} when two
    groups request the same class, else empty.
    """
    root: int
    rp: int
    traits: int
    fit: int
    limits: dict


@dataclasses.dataclass
class _Group:
    """A request group as read: the combiner's ``Group`` plus the SQL."""
    spec: candidate_search.Group
    required: tuple = ()   # trait id sets the spread providers must meet
    filters: list = None   # SQL conditions on resource_providers
    stmt: object = None
    layout: object = None  # of the statement's columns (see _Layout)


def list_candidates(conn, query, version, conf):
    """Answer a parsed CandidateQuery; ``conf`` is the [placement] group."""
    reader = _Reader(conn, query, version)
    request = reader.request()
    generated = candidate_search.candidates(
        request, reader.trees(),
        breadth_first=conf.allocation_candidates_generation_strategy
        == 'breadth-first' and conf.max_allocation_candidates > 0)
    if conf.max_allocation_candidates > 0:
        generated = itertools.islice(generated, conf.max_allocation_candidates)
    if conf.randomize_allocation_candidates:
        chosen = _sample(generated, query.limit)
    else:
        chosen = list(itertools.islice(generated, query.limit))
    reader.close()
    return reader.result(chosen)


def _sample(iterable, size):
    """A uniformly random sample of ``size`` items (all when None) in
    random order, holding no more than ``size`` items at once."""
    if size is None:
        items = list(iterable)
    else:
        items = []
        for index, item in enumerate(iterable):
            if index < size:
                items.append(item)
            else:
                slot = random.randint(0, index)
                if slot < size:
                    items[slot] = item
    random.shuffle(items)
    return items


class _Reader:
    """Reads what the combiner needs: one statement per group, streamed
    in root order, plus the sharing providers and, with same_subtree, the
    trees' shapes."""

    def __init__(self, conn, query, version):
        self.conn = conn
        self.version = version
        self.query = query
        self.results = []
        groups = query.groups.values()

        self.rc_names = base.resource_class_names(conn)
        self.rc_ids = {name: rc for rc, name in self.rc_names.items()}
        unknown = [rc for group in groups for rc in group.resources
                   if rc not in self.rc_ids]
        if unknown:
            # Raises the 400 naming the unknown class.
            provider_filter.resolve_resource_classes(conn, unknown)
        names = [SHARING_TRAIT, *query.root_required.names()]
        for group in groups:
            names += group.traits.names()
        self.trait_ids = base.resolve_traits(conn, names)
        self.agg_ids = provider_filter.resolve_aggregates(
            conn, {uuid for group in groups
                   for uuids in group.member_of.required + (
                       group.member_of.forbidden,)
                   for uuid in uuids})

        self.groups = [self._group(group) for group in groups]
        # Groups asking the same of the same providers (a request for N
        # alike devices) share one statement and its rows: per group the
        # index of the group that reads for it.
        first = {}
        self.read_by = [
            first.setdefault((group.suffix == '',
                              tuple(sorted(group.resources.items())),
                              group.traits, group.member_of, group.in_tree),
                             index)
            for index, group in enumerate(groups)]
        self.reading = sorted(set(self.read_by))
        # Amounts of two groups add up on a provider only for a class both
        # request; only then are limits needed beyond the SQL check.
        requested = [rc for group in self.groups for rc in group.spec.amounts]
        self.with_capacity = len(requested) != len(set(requested))
        # The classes a provider summary lists: all, or before 1.27 the
        # requested ones.
        self.summary_classes = None
        if version < microversions.ALL_CLASSES_IN_SUMMARY:
            self.summary_classes = sorted(set(requested))
        # Per statement read, (its _Layout, {rp: its last row}): what
        # the summaries reuse.
        self.seen = []
        for group in (self.groups[index] for index in self.reading):
            group.layout = _Layout(group.spec.amounts, conn.dialect.name,
                                   self.with_capacity)
            group.stmt = _statement(group.spec.amounts, group.filters,
                                    group.layout, group.required,
                                    self.summary_classes)
        # Rows per page of a paged read (see _paged), or None to read
        # each statement at once.
        self.page = None
        if query.limit is not None and conn.dialect.name in (
                'mysql', 'mariadb'):
            self.page = max(PAGE, PAGE_PER_CANDIDATE * query.limit)
        self.root_filter = None
        if query.root_required:
            self.root_filter = provider_filter.traits_clause(
                RP.c.root_provider_id, *provider_filter.trait_id_filter(
                    query.root_required, self.trait_ids))
        self.sharing = self._sharing()

    def request(self):
        """The combiner's Request."""
        index = {suffix: i for i, suffix in enumerate(self.query.groups)}
        return candidate_search.Request(
            groups=[group.spec for group in self.groups],
            isolate=self.query.group_policy == 'isolate',
            same_subtree=tuple(tuple(index[suffix] for suffix in suffixes)
                               for suffixes in self.query.same_subtree),
            one_per_tree=self.version < microversions.NESTED_CANDIDATES,
            sharing=self.sharing)

    # -- request set-up -------------------------------------------------

    def _group(self, request):
        spread = request.suffix == ''
        amounts = {self.rc_ids[name]: amount
                   for name, amount in request.resources.items()}
        required, forbidden = provider_filter.trait_id_filter(
            request.traits, self.trait_ids)
        trait_sets = required if spread else ()
        group = _Group(candidate_search.Group(
            request.suffix, amounts, spread, len(trait_sets)), trait_sets)
        filters = []
        if required and not spread:
            filters.append(provider_filter.traits_clause(
                RP.c.id, required, ()))
        if forbidden:
            # A provider with a forbidden trait may not serve the group.
            filters.append(provider_filter.traits_clause(
                RP.c.id, (), forbidden))
        if request.member_of:
            # The unsuffixed group also takes the aggregates of the root;
            # a suffixed group's provider must be a member itself.  On
            # SQLite as expressions, not columns: it would otherwise find
            # the members by index and sort them all before the first
            # row, where walking providers in root order streams.
            rp_id, root_id = RP.c.id, RP.c.root_provider_id
            if self.conn.dialect.name == 'sqlite':
                rp_id, root_id = rp_id + 0, root_id + 0
            filters.append(provider_filter.member_of_clause(
                rp_id, request.member_of, self.agg_ids,
                root_id=root_id if spread else None))
        if request.in_tree:
            filters.append(provider_filter.in_tree_clause(
                RP.c.root_provider_id,
                provider_filter.root_of(self.conn, request.in_tree)))
        group.filters = filters
        return group

    def _sharing(self):
        """The sharing providers (trait MISC_SHARES_VIA_AGGREGATE) with the
        roots of the trees they serve: every tree with a provider in one
        of their aggregates."""
        member = RP.alias('member')
        mine = RPA.alias('mine')
        theirs = RPA.alias('theirs')
        served = {}
        statement = (
            sa.select(RPT.c.resource_provider_id, member.c.root_provider_id)
            .select_from(
                RPT.join(mine, mine.c.resource_provider_id
                         == RPT.c.resource_provider_id)
                .join(theirs, theirs.c.aggregate_id == mine.c.aggregate_id)
                .join(member, member.c.id == theirs.c.resource_provider_id))
            .where(RPT.c.trait_id == self.trait_ids[SHARING_TRAIT])
            .distinct())
        rows = _fetch(self.conn, statement)
        for rp, root in rows:
            served.setdefault(rp, set()).add(root)
        sharing = candidate_search.Sharing(
            {}, [{} for _ in self.groups], {}, {})
        if not served:
            return sharing
        for index in self.reading:
            group = self.groups[index]
            if not group.spec.amounts:
                continue
            # On the inventory side: PostgreSQL then reads these providers'
            # rows by index instead of scanning all providers once per
            # inventory row of the class (its row estimate here is 1).
            stmt = group.stmt.where(
                INV.c.resource_provider_id.in_(sorted(served)))
            for row in self._rows(_fetch(self.conn, stmt), group):
                sharing.roots[row.rp] = row.root
                _note(row, sharing.limits, sharing.masks)
                for anchor in served[row.rp]:
                    # In its own tree it is an ordinary member.
                    if anchor != row.root:
                        sharing.serving[index].setdefault(anchor, []).append(
                            (row.rp, row.fit))
        for index, reader in enumerate(self.read_by):
            sharing.serving[index] = sharing.serving[reader]
        return sharing

    def _rows(self, rows, group):
        """ProviderRow values from the driver's rows of ``group.stmt``
        (see _Layout); the rows are kept for the summaries."""
        layout = group.layout
        seen = {}
        self.seen.append((layout, seen))
        for row in rows:
            fit = int(row[3])   # MySQL sums to a Decimal
            seen[row[1]] = row
            limits = NO_LIMITS
            if layout.limits:
                limits = {}
                for bit, rc in layout.bits:
                    if fit >> bit & 1:
                        at = layout.limits + 2 * bit
                        room, max_unit = row[at:at + 2]
                        limits[rc] = min(room, max_unit)
            yield ProviderRow(row[0], row[1], int(row[2] or 0), fit, limits)

    # -- trees ------------------------------------------------------------

    def trees(self):
        """candidate_search.Tree values in root order: every tree with
        providers for some group, or served by sharing providers."""
        streams = [_by_root(self._rows(self._group_rows(self.groups[index]),
                                       self.groups[index]), index)
                   for index in self.reading]
        anchored = {root for by_root in self.sharing.serving
                    for root in by_root}
        if anchored and self.root_filter is not None:
            anchored &= {row[0] for row in _rows_for(
                self.conn, sa.select(RP.c.id).where(
                    RP.c.id == RP.c.root_provider_id, self.root_filter),
                anchored, RP.c.id)}
        if anchored:
            streams.append((root, -1, None) for root in sorted(anchored))
        if self.query.same_subtree:
            streams.append(_parents_by_root(self._read(
                sa.select(RP.c.root_provider_id, RP.c.id,
                          RP.c.parent_provider_id)
                .order_by(RP.c.root_provider_id, RP.c.id))))
        read_by = self.read_by
        if len(streams) == 1 and len(read_by) == 1:
            for root, _, rows in streams[0]:
                yield _tree(root, [rows], None, read_by)
            return
        merged = heapq.merge(*streams, key=operator.itemgetter(0))
        for root, items in itertools.groupby(merged,
                                             key=operator.itemgetter(0)):
            own = [()] * len(read_by)
            parents = None
            for _, index, data in items:
                if index >= 0:
                    own[index] = data
                elif index == -2:
                    parents = data
            yield _tree(root, own, parents, read_by)

    def _group_rows(self, group):
        # MariaDB would scan the inventories of several classes and sort
        # the groups; providers first, by the root index, the rows come
        # in order and a LIMIT stops the scan.  (Not for the sharing
        # providers' read: a few providers, found by their inventories.)
        stmt = (group.stmt.prefix_with('STRAIGHT_JOIN', dialect='mysql')
                .prefix_with('STRAIGHT_JOIN', dialect='mariadb'))
        if self.root_filter is not None:
            stmt = stmt.where(self.root_filter)
        return self._read(stmt)

    def _read(self, stmt):
        """The rows of ``stmt`` (ordered by root first) as they are
        consumed: paged when a limit may stop the reading early."""
        if self.page is not None:
            return self._paged(stmt)
        result = self.conn.execute(stmt)
        self.results.append(result)
        return result.cursor

    def _paged(self, stmt):
        """The rows of ``stmt`` in pages of doubling size.  A page ends
        inside a tree, so its last tree's rows are held back and the next
        page starts at that root.  Each page is a statement of its own,
        so several statements' pages can be read in turn on one
        connection."""
        size = self.page
        start = None
        while True:
            page = stmt if start is None else stmt.where(
                RP.c.root_provider_id >= start)
            rows = _fetch(self.conn, page.limit(size))
            if len(rows) < size:
                yield from rows
                return
            start = rows[-1][0]
            end = len(rows)
            while end and rows[end - 1][0] == start:
                end -= 1
            yield from rows[:end]
            size *= 2

    def close(self):
        for result in self.results:
            result.close()

    # -- summaries --------------------------------------------------------

    def result(self, candidates):
        ids = set()
        for allocations, _ in candidates:
            ids.update(allocations)
        if not all(group.spec.amounts for group in self.groups):
            # A group of traits or aggregates only maps providers that
            # allocate nothing.
            for _, mappings in candidates:
                for providers in mappings.values():
                    ids.update(providers)
        providers, resources = self._summaries(ids)
        traits = {}
        if self.version >= microversions.CANDIDATE_TRAITS:
            traits = _traits(self.conn, providers)
        return Result(candidates, providers, resources, traits,
                      self.rc_names)

    def _summaries(self, ids):
        """({rp: (uuid, parent uuid, root uuid)}, {rp: {rc name:
        {capacity, used}}}) of the providers in the answer; from 1.29 of
        every provider of their trees, before 1.27 with the requested
        classes only."""
        if not ids:
            return {}, {}
        stmt = sa.select(RP.c.id, RP.c.uuid, RP.c.parent_provider_id,
                         RP.c.root_provider_id)
        if self.version >= microversions.NESTED_CANDIDATES:
            inner = RP.alias('inner')
            rows = _rows_for(self.conn, stmt, ids, inner.c.id,
                             lambda clause: RP.c.root_provider_id.in_(
                                 sa.select(inner.c.root_provider_id)
                                 .where(clause)))
            roots = {row[3] for row in rows if row[0] in ids}
            rows = [row for row in rows if row[3] in roots]
        else:
            rows = [row for row in _rows_for(self.conn, stmt, ids, RP.c.id)
                    if row[0] in ids]
        uuids = {row[0]: row[1] for row in rows}
        providers = {rp: (uuid, uuids.get(parent), uuids.get(root))
                     for rp, uuid, parent, root in rows}

        return providers, self._resources(providers)

    def _resources(self, providers):
        """{rp: {rc name: {capacity, used}}} of ``providers``: from the rows
        the group statements read where those hold all that the summary
        lists, else read here.  Inventories alike render alike, and the
        rendering is only serialized: such providers share one dict, and
        providers whose rows are alike share the whole summary."""
        names = self.rc_names
        rendered = {}

        def render(per_class):
            summary = {}
            for rc in sorted(per_class):
                found = per_class[rc]
                shown = rendered.get(found)
                if shown is None:
                    capacity, used = found
                    shown = rendered[found] = {'capacity': int(capacity),
                                               'used': int(used or 0)}
                summary[names[rc]] = shown
            return summary

        resources = {}
        unread = {}
        by_rows = {}
        seen = list(enumerate(self.seen))
        for rp in providers:
            # What the rows say of a provider, without its id and tree.
            key = tuple((number, row[3:layout.listed + 1])
                        for number, (layout, rows) in seen
                        for row in (rows.get(rp),) if row is not None)
            summary = by_rows.get(key, False)
            if summary is False:
                per_class = {}
                listed = None
                for number, (layout, rows) in seen:
                    row = rows.get(rp)
                    if row is not None:
                        listed = row[layout.listed]
                        layout.figures(row, per_class)
                summary = by_rows[key] = (
                    render(per_class) if len(per_class) == listed else None)
            if summary is None:
                unread[rp] = {}
            else:
                resources[rp] = summary
        if unread:
            stmt = sa.select(INV.c.resource_provider_id,
                             INV.c.resource_class_id, INV.c.total,
                             INV.c.reserved, INV.c.allocation_ratio,
                             figures.used(INV))
            if self.summary_classes is not None:
                stmt = stmt.where(
                    INV.c.resource_class_id.in_(self.summary_classes))
            for rp, rc, total, reserved, ratio, used in _rows_for(
                    self.conn, stmt, unread, INV.c.resource_provider_id):
                found = unread.get(rp)
                if found is not None:
                    found[rc] = (
                        figures.capacity_of(total, reserved, ratio), used)
            for rp, per_class in unread.items():
                resources[rp] = render(per_class)
        return resources


class _Layout:
    """The columns of a group's statement (see _statement): root, rp,
    trait mask, class mask; then per class its summary figures; then
    ``listed``, the number of inventories the provider's summary lists;
    then, when ``limits`` (their first index) is not 0, per class (room,
    max_unit).  ``bits``: [(bit, rc)].

    The summary figures of a class are its capacity and usage.  SQLite
    computes the capacity as Python would (both in double precision);
    MySQL and PostgreSQL store allocation_ratio in single precision, and
    their drivers hand over its shortest decimal form, so the capacity is
    computed here from (total, reserved, allocation_ratio, used).
    """

    def __init__(self, amounts, dialect, with_capacity):
        self.bits = list(enumerate(amounts))
        self.in_sql = dialect == 'sqlite'
        self.width = 2 if self.in_sql else 4
        self.listed = 4 + self.width * len(amounts)
        self.limits = self.listed + 1 if with_capacity and amounts else 0

    def columns(self, inventory, used):
        """The summary figures of one class, as SQL expressions."""
        if self.in_sql:
            return [figures.capacity(inventory), used]
        return [inventory.c.total, inventory.c.reserved,
                inventory.c.allocation_ratio, used]

    def figures(self, row, into):
        """Add {rc: (capacity, used)} of the classes ``row`` serves to
        ``into``."""
        fit = int(row[3])
        width = self.width
        for bit, rc in self.bits:
            if fit >> bit & 1:
                at = 4 + width * bit
                if self.in_sql:
                    into[rc] = (row[at], row[at + 1])
                else:
                    total, reserved, ratio, used = row[at:at + 4]
                    into[rc] = (figures.capacity_of(total, reserved, ratio),
                                used)


def _statement(amounts, filters, layout, trait_sets=(),
               summary_classes=None):
    """Rows (root, rp, trait mask, class mask, figures..., listed,
    limits...) of the providers able to serve some of ``amounts`` {rc:
    amount}, ordered by root; ``layout`` (a _Layout) says which columns.

    Bit i of the class mask: the provider can serve the i-th class of
    ``amounts``; bit i of the trait mask: it has a trait of
    ``trait_sets[i]``.  The figures of a class are NULL where its bit is
    not set; ``listed`` counts the provider's inventories (of
    ``summary_classes`` when given): the summaries need no second read of
    a provider whose figures are all there.  With ``layout.limits`` each
    row goes on with (room, max_unit) per class: what is left of its
    capacity, and the largest single allocation.  A group without amounts
    (traits or aggregates only) gets every provider passing its filters,
    with a class mask of 0 (and -1 listed: it never has them all).
    """
    order = (RP.c.root_provider_id, RP.c.id)
    traits = sa.literal(0)
    for bit, any_of in enumerate(trait_sets):
        traits = traits + sa.case(
            (provider_filter.traits_clause(RP.c.id, (any_of,), ()),
             1 << bit), else_=0)
    if not amounts:
        return (sa.select(*order, traits, sa.literal(0), sa.literal(-1))
                .where(*filters).order_by(*order))
    classes = list(amounts)
    if len(amounts) == 1:
        amount = sa.literal(amounts[classes[0]])
    else:
        amount = sa.case(amounts, value=INV.c.resource_class_id)
    rc_id = INV.c.resource_class_id
    if layout.in_sql:
        # An expression rather than the column: SQLite then walks providers
        # in root order (an index) instead of sorting every row first, so
        # rows stream and a limit stops the scan early.
        rc_id = rc_id + 0
    used = figures.used(INV)
    # The trait mask depends on the grouped provider only, so it needs no
    # aggregate (and is then computed once per provider, not per row).
    columns = [*order, traits, sa.func.sum(sa.case(
        {rc: 1 << bit for bit, rc in enumerate(classes)},
        value=INV.c.resource_class_id))]
    for rc in classes:
        mine = INV.c.resource_class_id == rc
        columns += [sa.func.max(sa.case((mine, column)))
                    for column in layout.columns(INV, used)]
    listed = INV.alias('listed')
    count = sa.select(sa.func.count()).where(
        listed.c.resource_provider_id == RP.c.id)
    if summary_classes is not None:
        count = count.where(listed.c.resource_class_id.in_(summary_classes))
    columns.append(count.scalar_subquery())
    if layout.limits:
        room = figures.free(INV, used)
        for rc in classes:
            mine = INV.c.resource_class_id == rc
            columns += [sa.func.max(sa.case((mine, room))),
                        sa.func.max(sa.case((mine, INV.c.max_unit)))]
    return (
        sa.select(*columns)
        .select_from(RP.join(INV, INV.c.resource_provider_id == RP.c.id))
        .where(rc_id.in_(sorted(amounts)),
               provider_filter.fits_clause(INV, used, amount), *filters)
        .group_by(*order)
        .order_by(*order))


def _by_root(rows, index):
    """(root, index, [ProviderRow, ...]): the rows of one tree at a time."""
    for root, group in itertools.groupby(rows, key=operator.itemgetter(0)):
        yield root, index, list(group)


def _parents_by_root(rows):
    """(root, -2, {rp: parent}) per tree from (root, rp, parent) rows."""
    for root, group in itertools.groupby(rows, key=operator.itemgetter(0)):
        yield root, -2, {rp: parent for _, rp, parent in group}


def _tree(root, own, parents, read_by):
    """A candidate_search.Tree from the ProviderRow lists of the groups
    that read (``own``, by group index; see _Reader.read_by)."""
    limits = {}
    masks = {}
    members = []
    for index, reader in enumerate(read_by):
        if reader != index:
            # Alike groups share one dict (never changed).
            members.append(members[reader])
            continue
        for row in own[index]:
            if row.limits or row.traits:
                _note(row, limits, masks)
        members.append({row.rp: row.fit for row in own[index]})
    return candidate_search.Tree(root, members, limits, masks, parents)


def _note(row, limits, masks):
    """Copy a row's limits and trait mask into the dicts of the combiner."""
    for rc, limit in row.limits.items():
        limits[(row.rp, rc)] = limit
    if row.traits:
        masks[row.rp] = row.traits


def _fetch(conn, stmt):
    """All rows of ``stmt`` as the driver's plain tuples: the columns read
    here need no conversion, and building SQLAlchemy rows for tens of
    thousands of them would cost more than the query."""
    result = conn.execute(stmt)
    try:
        return result.cursor.fetchall()
    finally:
        result.close()


def _rows_for(conn, stmt, ids, column, wrap=lambda clause: clause):
    """Rows of ``stmt`` including those whose ``column`` is in ``ids``
    (callers filter the others out); ``wrap`` turns the condition on
    ``column`` into the statement's condition."""
    low, high = min(ids), max(ids)
    if high - low < DENSE * len(ids):
        return _fetch(conn, stmt.where(wrap(column.between(low, high))))
    if len(ids) > SCAN:
        return _fetch(conn, stmt)
    rows = []
    for chunk in base.chunks(sorted(ids)):
        rows += _fetch(conn, stmt.where(wrap(column.in_(chunk))))
    return rows


def _traits(conn, providers):
    """{rp: [trait name, ...]} of ``providers`` in trait id order."""
    traits = {rp: [] for rp in providers}
    if not providers:
        return traits
    rows = _rows_for(
        conn, sa.select(RPT.c.resource_provider_id, RPT.c.trait_id)
        .order_by(RPT.c.resource_provider_id, RPT.c.trait_id),
        providers, RPT.c.resource_provider_id)
    names = dict(_fetch(conn, sa.select(TRAITS.c.id, TRAITS.c.name)
                        .where(TRAITS.c.id.in_(
                            sorted({row[1] for row in rows})))))
    for rp, trait in rows:
        found = traits.get(rp)
        if found is not None:
            found.append(names[trait])
    return traits
