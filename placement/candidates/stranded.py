"""The free space a capacity count leaves (``stranded`` and
``stranded_elsewhere`` of GET and POST /capacity): over every inventory
of a class the shapes request, split by whether a shape's filters let it
draw on that inventory at all.

A shape's *scopes* say which inventories it may draw on: per request
group with amounts, its classes and its filters (tree, aggregates,
traits a provider must have itself, ``root_required``), the very checks
its rows are read with, but not the resource checks: an inventory too
small for one more instance is still within the shape's reach, and its
free space is what the shape strands.  The database sums the free space
in one statement (``free``), a snapshot in Python (``free_in``), each
scope asked in the matching form (``Scope.clause``, ``Scope.holds``); a
what-if's changes are summed in the same order by both.
"""
import math
import typing

import sqlalchemy as sa

from placement.candidates import checks as checks_mod
from placement.data import tables
from placement.objects import base
from placement.objects import figures

INV = tables.inventories
RP = tables.resource_providers


_SITE = checks_mod.Site(RP.c.id, RP.c.root_provider_id)


class Scope(typing.NamedTuple):
    """What one group with amounts may draw on: its ``classes`` (rc ids)
    from the providers passing its ``filters`` (checks, keyed by
    ``names``) whose root passes ``root`` (a checks.RootRequired, or
    None), or that are among the sharing providers ``served`` (they
    serve other trees whatever their own root is); ``named_tree``: it
    names a tree (in_tree), which no copy a what-if adds is in."""
    classes: frozenset
    filters: tuple
    names: object
    root: object
    served: frozenset
    named_tree: bool

    def everywhere(self):
        """Whether it takes every provider."""
        return not self.filters and self.root is None

    def clause(self):
        """Its providers as an SQL condition on RP (None: every one)."""
        clauses = [check.clause(self.names, _SITE) for check in self.filters]
        if self.root is not None:
            clauses.append(sa.or_(self.root.clause(self.names, _SITE),
                                  RP.c.id.in_(sorted(self.served))))
        return sa.and_(*clauses) if clauses else None

    def holds(self, snap, rp, root):
        """Whether provider ``rp`` of the tree of ``root`` is one of its
        providers, in a snapshot."""
        return all(check.passes(self.names, snap, rp, root)
                   for check in self.filters) and (
            self.root is None or rp in self.served
            or self.root.passes(self.names, snap, root))


def scopes(reading):
    """[Scope] of a reader.RequestSearch, one per group with amounts."""
    root = checks_mod.root_required(reading.query)
    if not reading.plan.root_filtered:
        root = None
    served = frozenset(reading.served)
    return [Scope(frozenset(group.spec.amounts),
                  tuple(checks_mod.filters(group.stack, group.spec.spread)),
                  reading.names, root, served, bool(asked.in_tree))
            for group, asked in zip(reading.groups,
                                    reading.query.groups.values())
            if group.spec.amounts]


def free(conn, classes, scoped, changed=None):
    """({rc id: free space}, {key: {rc id: free space within its
    scopes}}) of ``classes`` {rc id: name}, summed over every inventory of
    the cloud (over-used inventories count none); ``scoped`` {key: scopes}
    names the scopes to sum within.  One statement; keys whose scopes all
    take every provider are not summed again (they take it all).  As
    ``changed`` (a changes.Changed) says, if given: without the trees
    taken out, with the copies' space, less what the evacuation took."""
    if not classes:
        return {}, {key: {} for key in scoped}
    usage = figures.usage_table(classes)
    room = figures.free(INV, usage.c.used)
    filtered = _filtered(scoped)
    stmt = _summed(room, scoped, filtered).select_from(
        INV.join(RP, RP.c.id == INV.c.resource_provider_id)
        .outerjoin(usage, sa.and_(
            usage.c.resource_provider_id == INV.c.resource_provider_id,
            usage.c.resource_class_id == INV.c.resource_class_id)))
    if changed is not None and changed.out:
        stmt = stmt.where(RP.c.root_provider_id.notin_(sorted(changed.out)))
    total = {}
    within = {key: {} for key in filtered}
    for rc, whole, *parts in conn.execute(
            stmt.where(INV.c.resource_class_id.in_(sorted(classes)))
            .group_by(INV.c.resource_class_id)):
        total[rc] = float(whole)
        for key, part in zip(filtered, parts):
            within[key][rc] = float(part)
    if changed is not None:
        _add_copies(_copied(conn, classes, scoped, filtered, changed),
                    _copy_counts(changed), filtered, total, within)
        taken = _taken_of(changed, classes)
        _take(taken, _taken(conn, scoped, filtered, taken) if taken else {},
              total, within)
    return total, {key: within.get(key, total) for key in scoped}


def free_in(snap, classes, scoped, dialect, changed=None):
    """``free`` of a snapshot version, as the database of ``dialect``
    computes it; the sums before the changes are kept for the life of
    the version, by the scopes they are within."""
    filtered = _filtered(scoped)
    inside = _Inside(snap, scoped, filtered)
    out = frozenset() if changed is None else changed.out
    total, sums = snap.derived(
        ('free space', tuple(sorted(classes)), inside.lists, out),
        lambda: _summed_in(snap, classes, inside, out, dialect))
    within = {key: sums[inside.number[found]]
              for key, found in inside.of_key.items()}
    if changed is not None:
        # What is kept is never changed: the changes go into copies.
        total = dict(total)
        within = {key: dict(part) for key, part in within.items()}
        _add_copies(_copied_in(snap, classes, filtered, inside, changed,
                               dialect),
                    _copy_counts(changed), filtered, total, within)
        taken = _taken_of(changed, classes)
        _take(taken, _taken_in(snap, inside, taken), total, within)
    return total, {key: within.get(key, total) for key in scoped}


def _summed_in(snap, classes, inside, out, dialect):
    """({rc id: free space}, [{rc id: free space within them}, ...] per
    scope list of ``inside.lists``) of ``classes`` in a snapshot, the
    trees of ``out`` left out; each provider's part carried across
    versions (Snapshot.carried)."""
    total = {}
    within = [{} for _ in inside.lists]
    providers = snap.providers
    for rc in classes:
        def part(rp):
            # Its free space and the lists holding it.
            inventory = snap.inventories[rp][rc]
            return (max(figures.room_of(
                inventory, snap.usage.get(rp, {}).get(rc), dialect), 0),
                inside.holding(rp, providers[rp].root_id, rc))
        ids = (rp for rp in sorted(snap.indexes.classes.get(rc, ()))
               if providers[rp].root_id not in out)
        for _, (room, numbers) in snap.carried(
                ('free space', rc, inside.key), ids, part):
            total[rc] = total.get(rc, 0) + room
            for number in numbers:
                within[number][rc] = within[number].get(rc, 0) + room
    return total, within


class _Inside:
    """Which keys' scopes hold an inventory of a snapshot (``Scope.holds``
    as ``_within`` asks it).  Shapes alike share scopes whatever request
    names them (a scope's ``names`` are its request's): ``lists`` are the
    distinct lists of scopes without their names, ``of_key`` each key's
    and ``number`` each list's place; each distinct scope is asked once
    per provider, when a list needs it."""

    def __init__(self, snap, scoped, filtered):
        self.snap = snap
        self._named = {}
        self.of_key = {}
        for key in filtered:
            bare = []
            for scope in scoped[key]:
                bare.append(scope._replace(names=None))
                self._named.setdefault(bare[-1], scope)
            self.of_key[key] = tuple(dict.fromkeys(bare))
        self.lists = tuple(dict.fromkeys(self.of_key.values()))
        # What which lists hold a provider depends on besides it and its
        # root: the lists and the ``in_tree`` providers' roots.
        self.key = (self.lists, tuple(sorted({
            item for scope in self._named.values()
            for item in scope.names.tree_root.items()})))
        self.number = {found: number
                       for number, found in enumerate(self.lists)}
        self._holds = {}

    def holding(self, rp, root, rc, copies=False):
        """The numbers of the lists whose scopes hold provider ``rp``'s
        inventory of ``rc`` (``copies`` as ``_within`` takes it)."""
        found = []
        for number, scopes in enumerate(self.lists):
            for scope in scopes:
                if rc not in scope.classes or (copies and scope.named_tree):
                    continue
                holds = self._holds.get((rp, scope))
                if holds is None:
                    holds = self._holds[rp, scope] = self._named[
                        scope].holds(self.snap, rp, root)
                if holds:
                    found.append(number)
                    break
        return found

    def keys(self, rp, root, rc, copies=False):
        """The keys whose scopes hold provider ``rp``'s inventory of
        ``rc`` (``copies`` as ``_within`` takes it)."""
        numbers = set(self.holding(rp, root, rc, copies))
        return [key for key, found in self.of_key.items()
                if self.number[found] in numbers]


def _taken_in(snap, inside, taken):
    """``_taken`` of a snapshot version (``inside``: its _Inside)."""
    return {(rp, rc, copy): inside.keys(rp, snap.providers[rp].root_id, rc,
                                        copy)
            for (rp, copy), amounts in taken.items() for rc, _ in amounts
            if rc in snap.inventories.get(rp, ())}


def _filtered(scoped):
    """The keys of ``scoped`` whose scopes do not all take every
    provider (the others take the whole cloud's free space)."""
    return [key for key, found in scoped.items()
            if not all(scope.everywhere() for scope in found)]


def _summed(room, scoped, filtered, by=(), copies=False):
    """The statement summing ``room`` (counted 0 where negative) per
    class, and within the scopes of each key of ``filtered`` (``copies``
    as ``_within`` takes it); grouped by the columns ``by`` too."""
    room = sa.case((room > 0, room), else_=0)
    return sa.select(*by, INV.c.resource_class_id, sa.func.sum(room), *(
        sa.func.sum(sa.case((_within(scoped[key], copies), room), else_=0))
        for key in filtered))


def _within(scopes, copies=False):
    """Whether an inventory row is within ``scopes``, as SQL; with
    ``copies``, the row of an original standing for its copies (in no
    tree an in_tree names)."""
    return sa.or_(sa.false(), *(
        INV.c.resource_class_id.in_(sorted(scope.classes))
        if scope.everywhere() else
        sa.and_(INV.c.resource_class_id.in_(sorted(scope.classes)),
                scope.clause())
        for scope in scopes if not (copies and scope.named_tree)))


def _copy_counts(changed):
    """{root of a tree copied: how many copies ``changed`` adds}."""
    copies = {}
    for copy in changed.copies:
        copies[copy.like] = copies.get(copy.like, 0) + 1
    return copies


def _add_copies(rows, copies, filtered, total, within):
    """Add to ``total`` and ``within`` the ``copies`` of each tree, from
    ``rows`` (root, rc, its whole capacity, its part within the scopes of
    each key of ``filtered``) in (root, rc) order."""
    for root, rc, whole, *parts in rows:
        total[rc] = total.get(rc, 0) + copies[root] * float(whole)
        for key, part in zip(filtered, parts):
            within[key][rc] = (within[key].get(rc, 0)
                               + copies[root] * float(part))


def _copied(conn, classes, scoped, filtered, changed):
    """The rows ``_add_copies`` takes: per tree copied and class, the
    capacity of its inventories (a copy is within the scopes its
    original is in)."""
    copies = _copy_counts(changed)
    if not copies:
        return []
    return conn.execute(
        _summed(figures.capacity(INV), scoped, filtered,
                by=[RP.c.root_provider_id], copies=True)
        .select_from(INV.join(RP, RP.c.id == INV.c.resource_provider_id))
        .where(INV.c.resource_class_id.in_(sorted(classes)),
               RP.c.root_provider_id.in_(sorted(copies)))
        .group_by(RP.c.root_provider_id, INV.c.resource_class_id)
        .order_by(RP.c.root_provider_id, INV.c.resource_class_id))


def _copied_in(snap, classes, filtered, inside, changed, dialect):
    """``_copied`` of a snapshot version."""
    rows = []
    for root in sorted(_copy_counts(changed)):
        whole, parts = {}, {}
        for rp in sorted(snap.indexes.trees[root]):
            for rc, inventory in snap.inventories.get(rp, {}).items():
                if rc not in classes:
                    continue
                capacity = max(figures.capacity_in_sql(
                    inventory.total, inventory.reserved,
                    inventory.allocation_ratio, dialect), 0)
                whole[rc] = whole.get(rc, 0) + capacity
                part = parts.setdefault(rc, dict.fromkeys(filtered, 0))
                for key in inside.keys(rp, root, rc, copies=True):
                    part[key] += capacity
        rows += [(root, rc, whole[rc], *parts[rc].values())
                 for rc in sorted(whole)]
    return rows


def _taken_of(changed, classes):
    """{(provider, on a copy or not): [(rc, amount)]} of what the
    evacuation placed of ``classes``: on a copy, by its original."""
    original = {new: rp for copy in changed.copies
                for rp, new in copy.ids.items()}
    taken = {}
    for (rp, rc), amount in changed.taken.items():
        if rc in classes:
            taken.setdefault((original.get(rp, rp), rp in original),
                             []).append((rc, amount))
    return taken


def _take(taken, inside, total, within):
    """Take ``taken`` (``_taken_of``) off ``total`` and ``within``;
    ``inside`` {(rp, rc, on a copy or not): keys whose scopes hold the
    inventory}."""
    for (rp, copy), amounts in taken.items():
        for rc, amount in amounts:
            total[rc] = total.get(rc, 0) - amount
            for key in inside.get((rp, rc, copy), ()):
                within[key][rc] = within[key].get(rc, 0) - amount


def _taken(conn, scoped, filtered, taken):
    """The ``inside`` of ``_take`` from the database."""
    inside = {}
    for chunk in base.chunks(sorted({rp for rp, _ in taken})):
        for rp, rc, *flags in conn.execute(
                sa.select(INV.c.resource_provider_id,
                          INV.c.resource_class_id, *(
                              sa.case((_within(scoped[key], copy), 1),
                                      else_=0)
                              for copy in (False, True)
                              for key in filtered))
                .select_from(INV.join(
                    RP, RP.c.id == INV.c.resource_provider_id))
                .where(INV.c.resource_provider_id.in_(chunk))):
            for at, copy in enumerate((False, True)):
                inside[rp, rc, copy] = {key for key, flag in zip(
                    filtered, flags[at * len(filtered):]) if flag}
    return inside


def _most(placed):
    """{rp: the most any of ``placed`` [{rp: amount}, ...] holds}."""
    if len(placed) == 1:
        return placed[0]
    most = dict(placed[0])
    for one in placed[1:]:
        get = most.get
        most.update({rp: amount for rp, amount in one.items()
                     if amount > get(rp, 0)})
    return most


def split(total, within, filled, classes):
    """(stranded, stranded_elsewhere), each {class name: amount}: the
    free space ``within`` the scopes that none of ``filled`` (Filled
    values) takes, per provider and class the free space less the most
    any of them placed there; and the free space of ``total`` outside
    the scopes.  Each summed over the cloud and rounded down."""
    taken = dict.fromkeys(classes, 0)
    for rc in taken:
        placed = [one.placed[rc] for one in filled if rc in one.placed]
        if placed:
            taken[rc] = sum(_most(placed).values())
    stranded, elsewhere = {}, {}
    for rc, name in classes.items():
        inside = within.get(rc, 0)
        stranded[name] = max(math.floor(inside - taken[rc]), 0)
        elsewhere[name] = max(math.floor(total.get(rc, 0) - inside), 0)
    return stranded, elsewhere
