"""Allocation candidates: the sets of providers that can satisfy a request.

How a request is answered:

1. Names are resolved to ids (an unknown trait or resource class is a 400).
2. Each request group becomes one SQL statement over providers, their
   inventories and summed allocations.  It returns a row per provider
   passing the group's trait, aggregate and tree filters, with a bit mask
   of the requested classes it can serve - min/max unit, step size and
   capacity are checked in SQL - ordered by tree root.
3. Sharing providers (trait MISC_SHARES_VIA_AGGREGATE) are read up front
   with the roots of the trees they serve: every tree with a provider in
   one of their aggregates.
4. Trees are walked in root order, merging the groups' row streams.  In
   each tree (the "anchor") a candidate is one choice per group - a single
   provider for a suffixed group; one provider per resource class for the
   unsuffixed group - that passes the checks spanning groups (isolation,
   summed capacity, same_subtree, root traits).  The walk is a generator,
   so a limit stops reading rows early, and a candidate is only plain
   dicts and tuples.
5. Summaries of the providers that appear are read in a few bulk queries.
"""
import dataclasses
import heapq
import itertools
import operator
import random

import sqlalchemy as sa

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


@dataclasses.dataclass
class _Group:
    suffix: str
    amounts: dict          # rc_id -> amount; bit i of a class mask is the
                           # i-th class of this dict
    spread: bool           # unsuffixed: one provider per resource class
    required: tuple = ()   # trait id sets the spread providers must meet
    filters: list = None   # SQL conditions on resource_providers
    stmt: object = None

    @property
    def full(self):
        """The class mask of a provider serving every class."""
        return (1 << len(self.amounts)) - 1


def list_candidates(conn, query, version, conf):
    """Answer a parsed CandidateQuery; ``conf`` is the [placement] group."""
    search = _Search(conn, query, version)
    generated = search.candidates(
        breadth_first=conf.allocation_candidates_generation_strategy
        == 'breadth-first' and conf.max_allocation_candidates > 0)
    if conf.max_allocation_candidates > 0:
        generated = itertools.islice(generated, conf.max_allocation_candidates)
    if conf.randomize_allocation_candidates:
        chosen = _sample(generated, query.limit)
    else:
        chosen = list(itertools.islice(generated, query.limit))
    search.close()
    return search.result(chosen)


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


class _Search:

    def __init__(self, conn, query, version):
        self.conn = conn
        self.version = version
        self.query = query
        self.isolate = query.group_policy == 'isolate'
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
        # Amounts of two groups add up on a provider only for a class both
        # request; only then is capacity needed beyond the SQL check.
        requested = [rc for group in self.groups for rc in group.amounts]
        with_capacity = len(requested) != len(set(requested))
        for group in self.groups:
            group.stmt = _statement(group.amounts, group.filters,
                                    conn.dialect.name, with_capacity,
                                    group.required)
        # {(rp, rc): (room, max_unit)} when ``with_capacity``
        self.capacity = {}
        self.root_filter = None
        if query.root_required:
            self.root_filter = provider_filter.traits_clause(
                RP.c.root_provider_id, *provider_filter.trait_id_filter(
                    query.root_required, self.trait_ids))
        # {rp: bit mask of the unsuffixed group's trait sets it has}
        self.masks = {}
        # Sharing providers: {rp: own root}, and per group the sharing
        # providers able to serve it, by the roots of the trees served.
        self.sharing_root = {}
        self.shared = [{} for _ in self.groups]
        self._load_sharing()
        self.seen = set()
        self.simple = (len(self.groups) == 1 and not query.same_subtree)
        self.nested = version >= microversions.NESTED_CANDIDATES
        # Whether candidates need ``_finish``.
        self.checked = bool(self.sharing_root) or not self.nested

    # -- request set-up -------------------------------------------------

    def _group(self, request):
        spread = request.suffix == ''
        amounts = {self.rc_ids[name]: amount
                   for name, amount in request.resources.items()}
        required, forbidden = provider_filter.trait_id_filter(
            request.traits, self.trait_ids)
        group = _Group(request.suffix, amounts, spread,
                       required if spread else ())
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

    def _load_sharing(self):
        """Fill ``sharing_root`` and ``shared`` (see __init__)."""
        member = RP.alias('member')
        mine = RPA.alias('mine')
        theirs = RPA.alias('theirs')
        served = {}
        rows = _fetch(self.conn,
            sa.select(RPT.c.resource_provider_id, member.c.root_provider_id)
            .select_from(
                RPT.join(mine, mine.c.resource_provider_id
                         == RPT.c.resource_provider_id)
                .join(theirs, theirs.c.aggregate_id == mine.c.aggregate_id)
                .join(member, member.c.id == theirs.c.resource_provider_id))
            .where(RPT.c.trait_id == self.trait_ids[SHARING_TRAIT])
            .distinct())
        for rp, root in rows:
            served.setdefault(rp, set()).add(root)
        if not served:
            return
        for index, group in enumerate(self.groups):
            if not group.amounts:
                continue
            # On the inventory side: PostgreSQL then reads these providers'
            # rows by index instead of scanning all providers once per
            # inventory row of the class (its row estimate here is 1).
            stmt = group.stmt.where(
                INV.c.resource_provider_id.in_(sorted(served)))
            for root, rp, fit in self._rows(_fetch(self.conn, stmt), group):
                self.sharing_root[rp] = root
                for anchor in served[rp]:
                    # In its own tree it is an ordinary member.
                    if anchor != root:
                        self.shared[index].setdefault(anchor, []).append(
                            (rp, fit))

    def _rows(self, rows, group):
        """(root, rp, class mask) from rows of ``_statement``, noting the
        trait masks and capacities they carry."""
        classes = list(group.amounts)
        for row in rows:
            root, rp, traits, fit = row[:4]
            fit = int(fit)   # MySQL sums to a Decimal
            if traits:
                self.masks[rp] = traits
            if len(row) > 4:
                for bit, rc in enumerate(classes):
                    if fit >> bit & 1:
                        self.capacity[(rp, rc)] = row[4 + 2 * bit:
                                                      6 + 2 * bit]
            yield root, rp, fit

    # -- the walk ---------------------------------------------------------

    def _streams(self):
        """Iterators of (root, index, data) in root order: per group
        (index >= 0) its providers {rp: class mask} in the tree;
        the trees that sharing providers serve (index -1, no data); with
        same_subtree the tree's {rp: parent} (index -2)."""
        streams = [_by_root(self._rows(self._group_rows(group), group), index)
                   for index, group in enumerate(self.groups)]
        anchored = {root for by_root in self.shared for root in by_root}
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
        return streams

    def _group_rows(self, group):
        stmt = group.stmt
        if self.root_filter is not None:
            stmt = stmt.where(self.root_filter)
        return self._execute(stmt)

    def _execute(self, stmt):
        result = self.conn.execute(stmt)
        self.results.append(result)
        return result.cursor

    def _trees(self):
        """(root, [own providers per group], {rp: parent}) for each tree
        that may anchor candidates."""
        count = len(self.groups)
        streams = self._streams()
        if len(streams) == 1:
            for root, _, providers in streams[0]:
                yield root, [providers], None
            return
        merged = heapq.merge(*streams, key=operator.itemgetter(0))
        for root, items in itertools.groupby(merged,
                                             key=operator.itemgetter(0)):
            own = [None] * count
            parents = None
            for _, index, data in items:
                if index >= 0:
                    own[index] = data
                elif index == -2:
                    parents = data
            yield root, own, parents

    def candidates(self, breadth_first=False):
        """Generate (allocations, mappings) tree by tree.

        Breadth-first takes one candidate of each tree in turn, so that a
        bounded number of candidates spreads over many trees.
        """
        if self.simple and not self.checked and not breadth_first:
            return self._lone_group()
        per_tree = itertools.starmap(self._tree_candidates, self._trees())
        if not breadth_first:
            return itertools.chain.from_iterable(per_tree)
        return _round_robin([iter(found) for found in per_tree])

    def _lone_group(self):
        """The candidates of a lone group without sharing providers, tree
        by tree in the same order as ``_tree_candidates`` gives them: a
        tree of one provider, the common case, is judged on its row."""
        group = self.groups[0]
        full = group.full
        traits = (1 << len(group.required)) - 1
        amounts = group.amounts
        suffix = group.suffix
        for root, rows in itertools.groupby(self._group_rows(group),
                                            key=operator.itemgetter(0)):
            first = next(rows)
            second = next(rows, None)
            if second is None:
                # (root, rp, trait mask, class mask); MySQL's masks are
                # Decimals, which compare equal to ints.
                if first[3] == full and first[2] == traits:
                    rp = first[1]
                    yield {rp: amounts}, {suffix: (rp,)}
                continue
            providers = {rp: fit for _, rp, fit in self._rows(
                itertools.chain((first, second), rows), group)}
            yield from self._tree_candidates(root, [providers], None)

    def _tree_candidates(self, root, own, parents):
        """The candidates anchored in the tree of ``root``: a list, or a
        generator when groups combine (their product can be large)."""
        options = []
        for index, group in enumerate(self.groups):
            mine = own[index] or {}
            shared = self.shared[index].get(root, ())
            if group.spread:
                choices = self._spread_choices(group, mine, shared)
            elif not group.amounts:
                choices = list(mine)
            else:
                full = group.full
                choices = [rp for rp, fit in mine.items() if fit == full]
                choices += [rp for rp, fit in shared if fit == full]
            if not choices:
                return ()
            options.append(choices)
        if not self.simple:
            return self._combined(root, own, parents, options)
        group = self.groups[0]
        if group.spread:
            found = [(allocations, {'': providers})
                     for allocations, providers in options[0]]
        else:
            found = [({rp: group.amounts}, {group.suffix: (rp,)})
                     for rp in options[0]]
        if self.checked:
            found = [candidate for candidate in found
                     if self._finish(root, *candidate)]
        return found

    def _combined(self, root, own, parents, options):
        for choice in itertools.product(*options):
            candidate = self._combine(root, own, parents, choice)
            if candidate is not None and self._finish(root, *candidate):
                yield candidate

    def _spread_choices(self, group, mine, shared):
        """Ways to serve the unsuffixed group in one tree: one provider
        per resource class, from the tree or sharing providers."""
        if len(mine) == 1 and not shared:
            # The common case: a tree of one provider.
            (rp, fit), = mine.items()
            if fit == group.full and self._meets(group.required, (rp,)):
                return [({rp: group.amounts}, (rp,))]
            return []
        per_class = []
        classes = list(group.amounts)
        for bit in range(len(classes)):
            choices = [rp for rp, fit in mine.items() if fit >> bit & 1]
            choices += [rp for rp, fit in shared if fit >> bit & 1]
            if not choices:
                return []
            per_class.append(choices)
        found = []
        for picks in itertools.product(*per_class):
            providers = tuple(dict.fromkeys(picks))
            if not self._meets(group.required, providers):
                continue
            allocations = {}
            for rc, rp in zip(classes, picks):
                amounts = allocations.get(rp)
                if amounts is None:
                    allocations[rp] = {rc: group.amounts[rc]}
                else:
                    amounts[rc] = group.amounts[rc]
            found.append((allocations, providers))
        return found

    def _meets(self, required, providers):
        """Whether the providers together have a trait of each set."""
        if not required:
            return True
        have = 0
        for rp in providers:
            have |= self.masks.get(rp, 0)
        return have == (1 << len(required)) - 1

    def _combine(self, root, own, parents, choice):
        """Merge one choice per group into a candidate, or None.  The
        checks on providers alone come before amounts are merged."""
        mappings = {}
        singles = []
        for group, pick in zip(self.groups, choice):
            if group.spread:
                mappings[''] = pick[1]
            else:
                mappings[group.suffix] = (pick,)
                singles.append(pick)
        if self.isolate and len(set(singles)) != len(singles):
            return None
        for suffixes in self.query.same_subtree:
            if not _same_subtree(parents or {},
                                 [mappings[s][0] for s in suffixes]):
                return None
        # The groups' amounts dicts are shared, never changed (so the
        # handler renders each once): a provider gets its own copy only
        # when a second group allocates from it.
        allocations = {}
        copied = set()
        summed = []
        for group, pick in zip(self.groups, choice):
            if group.spread:
                parts = pick[0]
            elif group.amounts:
                parts = {pick: group.amounts}
            else:
                continue
            for rp, amounts in parts.items():
                target = allocations.get(rp)
                if target is None:
                    allocations[rp] = amounts
                    continue
                if rp not in copied:
                    copied.add(rp)
                    target = allocations[rp] = dict(target)
                for rc, amount in amounts.items():
                    if rc in target:
                        target[rc] += amount
                        summed.append((rp, rc))
                    else:
                        target[rc] = amount
        for rp, rc in summed:
            room, max_unit = self.capacity[(rp, rc)]
            if allocations[rp][rc] > min(room, max_unit):
                return None
        return allocations, mappings

    def _finish(self, root, allocations, mappings):
        """Whether a candidate passes the checks that need neither the
        group structure nor the capacities (see ``checked``)."""
        if not self.nested:
            # Before nested providers a candidate has one provider per
            # tree at most.
            roots = [self.sharing_root.get(rp, root) for rp in allocations]
            if len(set(roots)) != len(roots):
                return False
        if self.sharing_root and all(
                rp in self.sharing_root for providers in mappings.values()
                for rp in providers):
            # Made of sharing providers only: the same candidate comes
            # from every tree they serve.
            key = (tuple(sorted((rp, tuple(sorted(amounts.items())))
                                for rp, amounts in allocations.items())),
                   tuple(sorted(mappings.items())))
            if key in self.seen:
                return False
            self.seen.add(key)
        return True

    def close(self):
        for result in self.results:
            result.close()

    # -- summaries --------------------------------------------------------

    def result(self, candidates):
        ids = set()
        for allocations, _ in candidates:
            ids.update(allocations)
        if not all(group.amounts for group in self.groups):
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
            requested = {rc for group in self.groups for rc in group.amounts}
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
    """(root, index, {rp: class mask}) from (root, rp, class mask): the
    providers of one tree at a time."""
    for root, group in itertools.groupby(rows, key=operator.itemgetter(0)):
        yield root, index, {rp: fit for _, rp, fit in group}


def _parents_by_root(rows):
    """(root, -2, {rp: parent}) per tree from (root, rp, parent) rows."""
    for root, group in itertools.groupby(rows, key=operator.itemgetter(0)):
        yield root, -2, {rp: parent for _, rp, parent in group}


def _same_subtree(parents, providers):
    """Whether one of ``providers`` is an ancestor of (or is) all the
    others, in a tree given as {rp: parent}."""
    for top in providers:
        if all(_descends(parents, rp, top) for rp in providers):
            return True
    return False


def _descends(parents, rp, ancestor):
    while rp is not None:
        if rp == ancestor:
            return True
        rp = parents.get(rp)
    return False


def _round_robin(generators):
    while generators:
        alive = []
        for gen in generators:
            item = next(gen, None)
            if item is not None:
                yield item
                alive.append(gen)
        generators = alive


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
