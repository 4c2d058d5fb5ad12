"""Reading what the combiner needs: a search context per request and one
per group.

Each group's rows (a provider per row, with a bit mask of the classes it
can serve) come from the read step's source (``database_source`` and
``database_rows``: one statement per group; ``memory_source``: a
worker's snapshot) in root order, to the assemble step
(``assemble.py``); groups asking the same of the same providers share
one read.  Sharing providers (trait
MISC_SHARES_VIA_AGGREGATE) are read up front with the roots of the
trees they serve.  Everything is a generator, so a limit stops reading
rows early.
"""
import dataclasses
import typing
import weakref

from placement import microversions
from placement.candidates import alike as alike_mod
from placement.candidates import assemble
from placement.candidates import candidate_search
from placement.candidates import checks as checks_mod
from placement.candidates import layouts
from placement.candidates import tree_rules
from placement.objects import figures

# The limits of a row without any (shared, never changed).
NO_LIMITS = {}


class ProviderRow(typing.NamedTuple):
    """A row of a group's statement: a provider of the tree of ``root``
    able to serve some of the group's classes.

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
class GroupSearch:
    """A request group as read: its checks, the combiner's Group and the
    layout of its rows."""
    stack: list
    spec: candidate_search.Group
    layout: object = None


@dataclasses.dataclass(frozen=True)
class Plan:
    """How a use reads (each use declares its plan in stacks.py).

    ``paged``: with a limit, MySQL's and PostgreSQL's rows are read in
    pages of root ids (see ``_paged``); ``stops_early``: with a limit the
    reading may end before the last tree (the statements then probe
    aggregate membership per provider); ``root_filtered``:
    ``root_required`` is part of the SQL (explain counts the trees
    failing it itself); ``rooms``: every row carries each class's free
    space and units, and nothing only a rendered answer needs (see
    ``layouts.Layout``), for the capacity count, which places
    instance after instance on copies of the rows; ``allocated``: the
    usage counts (without it, every inventory is read as if nothing were
    allocated: the trees POST /capacity adds like existing ones).
    """
    paged: bool
    stops_early: bool
    root_filtered: bool
    rooms: bool
    allocated: bool = True


class RequestSearch:
    """The reading of one request from ``source`` (``database_source`` or
    ``memory_source``): names, the groups' rows, the sharing providers
    and the trees, as ``plan`` says.  ``served``: the sharing providers'
    reach (the source's ``served``), read once per transaction by the
    caller.  ``released``: consumers (uuids) whose
    allocations count as free (POST /claims replaces them).  The
    combiner's limits stay those of the list whatever the plan
    (``summed``: two groups request one class).
    """

    def __init__(self, source, query, version, names, served, plan,
                 released=()):
        self.released = released
        self.query = query
        self.version = version
        self.names = names
        # {rp: uuid} of every provider read: the answer is rendered as
        # candidates come.
        self.uuids = {}
        self.groups = [self._group(group) for group in query.groups.values()]
        # Groups asking the same of the same providers (a request for N
        # alike devices) share one statement and its rows: per group the
        # index of the group that reads for it.
        first = {}
        self.read_by = [
            first.setdefault((alike_mod.group_key(group),
                              tuple(group.resources.values())), index)
            for index, group in enumerate(query.groups.values())]
        self.reading = sorted(set(self.read_by))
        # Amounts of two groups add up on a provider only for a class both
        # request; only then are limits needed beyond the SQL check.
        requested = [rc for group in self.groups for rc in group.spec.amounts]
        self.summed = len(requested) != len(set(requested))
        with_capacity = plan.rooms or self.summed
        # The classes a provider summary lists: all, or before 1.27 the
        # requested ones.
        self.summary_classes = None
        if version < microversions.ALL_CLASSES_IN_SUMMARY:
            self.summary_classes = sorted(set(requested))
        # Per statement read, (its Layout, {rp: the summary part of its
        # row}): what the summaries reuse.  Alike parts are kept once.
        self.seen = []
        self._alike = {}
        # free_space(): {rp: {rc: free}} of the first ``_folded`` of seen.
        self._free = {}
        self._folded = 0
        # {rp: root} of the rows read, for the weigh stage and explain.
        self.roots = {}
        self.plan = plan
        self.limited = query.limit is not None and plan.stops_early
        self.allocated = plan.allocated
        for group in (self.groups[index] for index in self.reading):
            group.layout = layouts.Layout(group.spec.amounts, source.dialect,
                                          with_capacity,
                                          rendered=not plan.rooms)
        self.source = source
        # Held weakly there: with no cycle, reference counting frees the
        # read's rows as soon as the search goes, not the collector.
        self.rows = source.rows(weakref.proxy(self), plan)
        self.served = served
        self.sharing = self._sharing()

    def request(self):
        """The combiner's Request."""
        isolate, same_subtree = tree_rules.spanning(self.query)
        return candidate_search.Request(
            groups=[group.spec for group in self.groups],
            isolate=isolate, same_subtree=same_subtree,
            one_per_tree=self.version < microversions.NESTED_CANDIDATES,
            sharing=self.sharing)

    def _group(self, request):
        stack = checks_mod.group_stack(request)
        spread = request.suffix == ''
        amounts = {self.names.rc[name]: amount
                   for name, amount in request.resources.items()}
        trait_sets = len(request.traits.required) if spread else 0
        return GroupSearch(stack, candidate_search.Group(
            request.suffix, amounts, spread, trait_sets))

    # -- sharing providers --------------------------------------------------

    def _sharing(self):
        """The combiner's Sharing: per group, the sharing providers able
        to serve some of its classes, by the roots they serve."""
        sharing = candidate_search.Sharing(
            {}, [{} for _ in self.groups], {}, {})
        # Per group {sharing provider: class mask}, in its own tree too:
        # whether candidates of sharing providers only may come
        # (ranking.applies).
        self.sharing_fits = [{} for _ in self.groups]
        if not self.served:
            return sharing
        for index in self.reading:
            group = self.groups[index]
            if not group.spec.amounts:
                continue
            for row in self._rows(self.rows.of_sharing(index, self.served),
                                  group):
                sharing.roots[row.rp] = row.root
                self.sharing_fits[index][row.rp] = row.fit
                assemble.note(row, sharing.limits, sharing.masks)
                for anchor in self.served[row.rp]:
                    # In its own tree it is an ordinary member.
                    if anchor != row.root:
                        sharing.serving[index].setdefault(anchor, []).append(
                            (row.rp, row.fit))
        for index, reader in enumerate(self.read_by):
            sharing.serving[index] = sharing.serving[reader]
            self.sharing_fits[index] = self.sharing_fits[reader]
        return sharing

    def _rows(self, rows, group):
        """ProviderRow values from the driver's rows of ``group.stmt``
        (see layouts.Layout); the rows are kept for the summaries."""
        layout = group.layout
        seen = {}
        self.seen.append((layout, seen))
        uuids = self.uuids
        alike = self._alike
        roots = self.roots
        head, summary_part = layout.head, layout.summary_part
        limits_of = layout.limits_of if layout.limits and self.summed else None
        for row in rows:
            root, rp, traits, fit, uuid = head(row)
            part = summary_part(row)
            seen[rp] = alike.setdefault(part, part)
            roots[rp] = root
            uuids[rp] = uuid
            limits = NO_LIMITS if limits_of is None else limits_of(row, fit)
            yield ProviderRow(root, rp, int(traits or 0), fit, limits)

    # -- figures of the rows read ---------------------------------------------

    def free_space(self):
        """{rp: {rc: free space}} of every provider read so far, from the
        rows' summary parts (the weigh stage's figures)."""
        free = self._free
        for layout, parts in self.seen[self._folded:]:
            for rp, part in parts.items():
                found = {}
                layout.figures(part, found)
                mine = free.setdefault(rp, {})
                for rc, (capacity, used) in found.items():
                    mine[rc] = figures.free_of(capacity, used)
        self._folded = len(self.seen)
        return free

    def rooms(self):
        """{(rp, rc): its free space and units} of the rows read by a plan
        with ``rooms``, as filling.fill takes them."""
        found = {}
        for layout, parts in self.seen:
            if not layout.limits:
                continue
            rooms = layout.rooms
            for rp, part in parts.items():
                for rc, room in rooms(part):
                    found[rp, rc] = room
        return found

    def ranking_rows(self, lowest):
        """Per group that reads and has amounts, (its combiner Group, the
        sharing providers serving it by root, {root: its ranking row}),
        from the group's ranking read (statements.ranking_statement;
        ``lowest``: with the smallest free spaces too)."""
        for index in self.reading:
            group = self.groups[index]
            if group.spec.amounts:
                yield (group.spec, self.sharing.serving[index],
                       self.rows.ranking_bounds(index, lowest))

    # -- trees --------------------------------------------------------------

    def trees(self, roots=None, apart=(), rows=None):
        """candidate_search.Tree values in root order: every tree with
        providers for some group, or served by sharing providers; only
        those of ``roots`` (sorted) if given, none of ``apart``.
        ``rows``: those of a one-group request's statement, read already
        with other shapes' (alike.read)."""
        streams = [assemble.by_root(self._rows(
            self.rows.of_trees(index, roots) if rows is None else rows,
            self.groups[index]), index)
            for index in self.reading]
        anchored = {root for by_root in self.sharing.serving
                    for root in by_root}.difference(apart)
        if roots is not None:
            anchored &= set(roots)
        if anchored:
            anchored = self.rows.roots_passing(anchored)
        if anchored:
            streams.append((root, assemble.ANCHORED, None)
                           for root in sorted(anchored))
        if self.query.same_subtree:
            streams.append(assemble.parents_by_root(self.rows.parents(roots)))
        return assemble.trees(streams, self.read_by)

    def close(self):
        self.rows.close()
