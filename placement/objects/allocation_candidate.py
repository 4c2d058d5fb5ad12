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
   early, and a candidate is only plain dicts and tuples.
5. Summaries of the providers that appear are read in a few bulk queries.
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
from placement.objects import provider_filter

RP = tables.resource_providers
INV = tables.inventories
RPT = tables.resource_provider_traits
RPA = tables.resource_provider_aggregates
TRAITS = tables.traits

SHARING_TRAIT = 'MISC_SHARES_VIA_AGGREGATE'
# How provider rows are looked up by id (see _rows_for): a range when
# the ids fill at least 1/DENSE of it; else up to SCAN ids in IN lists of
# CHUNK; else whole tables, filtered in Python.
DENSE = 4
SCAN = 5000
CHUNK = 500


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
        for group in (self.groups[index] for index in self.reading):
            group.stmt = _statement(group.spec.amounts, group.filters,
                                    conn.dialect.name, self.with_capacity,
                                    group.required)
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
            # a suffixed group's provider must be a member itself.
            filters.append(provider_filter.member_of_clause(
                RP.c.id, request.member_of, self.agg_ids,
                root_id=RP.c.root_provider_id if spread else None))
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
        """ProviderRow values from the driver's rows of ``group.stmt``."""
        classes = list(group.spec.amounts)
        for row in rows:
            fit = int(row[3])   # MySQL sums to a Decimal
            limits = {}
            if self.with_capacity:
                # (room, max_unit) per class follow the four columns.
                for bit, rc in enumerate(classes):
                    if fit >> bit & 1:
                        room, max_unit = row[4 + 2 * bit:6 + 2 * bit]
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
            streams.append(_parents_by_root(self._execute(
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
        stmt = group.stmt
        if self.root_filter is not None:
            stmt = stmt.where(self.root_filter)
        return self._execute(stmt)

    def _execute(self, stmt):
        result = self.conn.execute(stmt)
        self.results.append(result)
        return result.cursor

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

        resources = {rp: {} for rp in providers}
        stmt = sa.select(INV.c.resource_provider_id, INV.c.resource_class_id,
                         INV.c.total, INV.c.reserved, INV.c.allocation_ratio,
                         provider_filter.used_from(INV))
        if self.version < microversions.ALL_CLASSES_IN_SUMMARY:
            requested = {rc for group in self.groups
                         for rc in group.spec.amounts}
            stmt = stmt.where(INV.c.resource_class_id.in_(sorted(requested)))
        names = self.rc_names
        # Inventories alike render alike, and the rendering is only
        # serialized: such providers share one dict.
        rendered = {}
        for row in _rows_for(self.conn, stmt, providers,
                             INV.c.resource_provider_id):
            found = resources.get(row[0])
            if found is not None:
                figures = row[2:]
                summary = rendered.get(figures)
                if summary is None:
                    total, reserved, ratio, used = figures
                    summary = rendered[figures] = {
                        'capacity': int((total - reserved) * ratio),
                        'used': int(used or 0)}
                found[names[row[1]]] = summary
        return providers, resources


def _statement(amounts, filters, dialect, with_capacity, trait_sets=()):
    """Rows (root, rp, trait mask, class mask) of the providers able to
    serve some of ``amounts`` {rc: amount}, ordered by root.

    Bit i of the class mask: the provider can serve the i-th class of
    ``amounts``; bit i of the trait mask: it has a trait of
    ``trait_sets[i]``.  With ``with_capacity`` each row goes on with
    (room, max_unit) per class: what is left of its capacity, and the
    largest single allocation.  A group without amounts (traits or
    aggregates only) gets every provider passing its filters, with a class
    mask of 0.
    """
    order = (RP.c.root_provider_id, RP.c.id)
    traits = sa.literal(0)
    for bit, any_of in enumerate(trait_sets):
        traits = traits + sa.case(
            (provider_filter.traits_clause(RP.c.id, (any_of,), ()),
             1 << bit), else_=0)
    if not amounts:
        return (sa.select(*order, traits, sa.literal(0)).where(*filters)
                .order_by(*order))
    classes = list(amounts)
    if len(amounts) == 1:
        amount = sa.literal(amounts[classes[0]])
    else:
        amount = sa.case(amounts, value=INV.c.resource_class_id)
    rc_id = INV.c.resource_class_id
    if dialect == 'sqlite':
        # An expression rather than the column: SQLite then walks providers
        # in root order (an index) instead of sorting every row first, so
        # rows stream and a limit stops the scan early.
        rc_id = rc_id + 0
    used = provider_filter.used_from(INV)
    # The trait mask depends on the grouped provider only, so it needs no
    # aggregate (and is then computed once per provider, not per row).
    columns = [*order, traits, sa.func.sum(sa.case(
        {rc: 1 << bit for bit, rc in enumerate(classes)},
        value=INV.c.resource_class_id))]
    if with_capacity:
        room = ((INV.c.total - INV.c.reserved) * INV.c.allocation_ratio
                - sa.func.coalesce(used, 0))
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
    ids = sorted(ids)
    rows = []
    for start in range(0, len(ids), CHUNK):
        rows += _fetch(conn, stmt.where(
            wrap(column.in_(ids[start:start + CHUNK]))))
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
