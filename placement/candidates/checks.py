"""Every rule of GET /allocation_candidates, declared once.

A request group's rules are an ordered stack of checks (``group_stack``):
its tree, aggregates and traits, then per resource class its inventory,
units and capacity.  The rules over whole trees follow them
(``tree_rules.py``).  Each check owns

- its label, as the query string names it;
- its SQL condition (``clause``), evaluated at a ``Site``: the reader
  ANDs the conditions into its statements, the explanation counts them;
- the same condition in Python over a snapshot (``passes`` of a
  provider, ``fits`` of what it holds of a class, a figures.Held), for
  the reads from memory;
- whether a provider failing it is *filtered* (it may not serve the
  group) or *exhausted* (it has the class, too little of it is left);
- its words in an explanation (``detail``, ``reason``, ``nearness``).

Nothing else knows a rule: callers ask the check, never its kind.
"""
import dataclasses

from placement.candidates import query_filters
from placement.objects import figures
from placement.objects import provider_filter

FILTERED = 'filtered'
EXHAUSTED = 'exhausted'
# How near a miss is unless a shortfall (the share missing, up to 1).
NEAR, FAR = 1.0, 2.0


@dataclasses.dataclass(frozen=True)
class Site:
    """What a condition is evaluated against: the provider's id and root
    id columns; for the resource checks its inventory row of the class
    (a table or alias), the usage of that row and the amount asked (an
    int, or an expression when one statement serves several classes).
    ``member_rp``/``member_root``: the columns compared with aggregate
    member lists (see statements.walk_in_root_order), by default
    ``rp``/``root``; ``probe_members``: membership looked up per provider
    rather than listed (see provider_filter.member_of_clause)."""
    rp: object
    root: object
    member_rp: object = None
    member_root: object = None
    probe_members: bool = False
    inventory: object = None
    used: object = None
    amount: object = None

    def members(self):
        """The (provider, root) columns aggregate membership is tested
        on."""
        return (self.rp if self.member_rp is None else self.member_rp,
                self.root if self.member_root is None else self.member_root)


def _in_any(snap, rp, root, with_root, keys):
    """Whether provider ``rp`` in a snapshot, or its root with
    ``with_root`` (see Check), is in one of the aggregates ``keys``."""
    return not snap.aggregates_of(rp).isdisjoint(keys) or (
        with_root and not snap.aggregates_of(root).isdisjoint(keys))


def _list_label(prefix, names):
    """``member_of=in:A,B`` style: ``in:`` only for more than one name."""
    names = sorted(names)
    return prefix + ('in:' if len(names) > 1 else '') + ','.join(names)


def number(count):
    """``count`` with thousands separators, as the summaries write it."""
    return '{:,}'.format(count)


def _providers(count):
    """``count`` and its noun: '1 provider', '2,000 providers'."""
    return '%s provider%s' % (number(count), '' if count == 1 else 's')


@dataclasses.dataclass(frozen=True)
class Check:
    """One rule of a request group.  ``names``: the aggregate UUIDs or
    trait names it is about; ``rc``/``amount`` for the resource checks;
    ``with_root``: the unsuffixed group, whose providers also take the
    aggregates of their root."""
    label: str
    names: frozenset = frozenset()
    rc: str = None
    amount: int = None
    with_root: bool = False

    outcome = FILTERED
    # Whether the unsuffixed group needs it of one provider of the tree
    # (the resources and required traits) rather than of every provider
    # it uses (the filters).
    spreads = False
    # Whether one statement tests it for several classes at once, the
    # Site's amount being that of the row's class.
    merges_classes = False
    # Whether its Python form (``fits``) reads the usage: those that do
    # not decide alike for every provider of one inventory.
    reads_usage = False

    @property
    def figures_class(self):
        """The class whose figures word a miss of it, or None."""
        return self.rc

    def free_left(self, found):
        """The free space a miss leaves, where ``reason`` needs it."""

    def nearness(self, found):
        """How near a miss of it alone comes to serving (lower: nearer)."""
        return NEAR

    def need(self):
        """The key of what one provider of a spread group must pass this
        check for: its class, or its trait set."""
        return self.rc or self.label

    def detail(self, found=None):
        """How one provider misses it; ``found`` is what the explanation
        read of the provider (resource checks only)."""
        return '%s (%s)' % (self.missing, self.label)

    def shortfall(self, found=None):
        """How one named provider misses it, after its name."""
        return self.detail(found)

    def _verb(self, count, one, many):
        return '%s %s' % (_providers(count), one if count == 1 else many)


class InTree(Check):
    missing = 'outside the tree'

    def clause(self, ids, site):
        (uuid,) = self.names
        return provider_filter.in_tree_clause(site.root, ids.tree_root[uuid])

    def passes(self, ids, snap, rp, root):
        (uuid,) = self.names
        return root == ids.tree_root[uuid]

    def reason(self, count, largest_free=None):
        (uuid,) = self.names
        return '%s outside the tree of %s' % (
            self._verb(count, 'is', 'are'), uuid)


class MemberOf(Check):
    missing = 'not in the aggregate(s)'

    def clause(self, ids, site):
        rp, root = site.members()
        return provider_filter.member_of_clause(
            rp, query_filters.AggregateFilter(required=(self.names,)),
            ids.agg, root_id=root if self.with_root else None,
            probe=site.probe_members)

    def passes(self, ids, snap, rp, root):
        return _in_any(snap, rp, root, self.with_root,
                       ids.aggregates(self.names))

    def reason(self, count, largest_free=None):
        return '%s in none of the aggregates %s' % (
            self._verb(count, 'is', 'are'), ', '.join(sorted(self.names)))


class ForbiddenAggregates(Check):
    missing = 'in a forbidden aggregate'

    def clause(self, ids, site):
        rp, root = site.members()
        return provider_filter.member_of_clause(
            rp, query_filters.AggregateFilter(forbidden=self.names),
            ids.agg, root_id=root if self.with_root else None,
            probe=site.probe_members)

    def passes(self, ids, snap, rp, root):
        return not _in_any(snap, rp, root, self.with_root,
                           ids.aggregates(self.names))

    def reason(self, count, largest_free=None):
        return '%s in a forbidden aggregate of %s' % (
            self._verb(count, 'is', 'are'), ', '.join(sorted(self.names)))


class RequiredTraits(Check):
    """One trait of an any-of set (a plain trait is a set of one)."""
    missing = 'lacks the trait(s)'
    spreads = True

    def clause(self, ids, site):
        return provider_filter.traits_clause(
            site.rp, (ids.traits(self.names),), ())

    def passes(self, ids, snap, rp, root):
        return not snap.traits_of(rp).isdisjoint(ids.traits(self.names))

    def reason(self, count, largest_free=None):
        names = ', '.join(sorted(self.names))
        if len(self.names) == 1:
            return '%s the required trait %s' % (
                self._verb(count, 'lacks', 'lack'), names)
        return '%s none of the traits %s' % (
            self._verb(count, 'has', 'have'), names)


class ForbiddenTrait(Check):
    missing = 'has the forbidden trait'

    def clause(self, ids, site):
        return provider_filter.traits_clause(
            site.rp, (), ids.traits(self.names))

    def passes(self, ids, snap, rp, root):
        return snap.traits_of(rp).isdisjoint(ids.traits(self.names))

    def reason(self, count, largest_free=None):
        return '%s the forbidden trait %s' % (
            self._verb(count, 'has', 'have'), ', '.join(sorted(self.names)))


class HasInventory(Check):
    spreads = True
    figures_class = None

    def clause(self, ids, site):
        return self.of_classes(site.inventory.c.resource_class_id,
                               [ids.rc[self.rc]])

    @staticmethod
    def of_classes(column, rc_ids):
        """Its condition on the class ``column`` for several classes at
        once (one statement serving them): one IN list."""
        return column.in_(sorted(rc_ids))

    def fits(self, held):
        # Asked of an inventory the provider has.
        return True

    def nearness(self, found):
        return FAR

    def detail(self, found=None):
        return '%s: no inventory' % self.rc

    def shortfall(self, found=None):
        return 'has no %s inventory' % self.rc

    def reason(self, count, largest_free=None):
        return '%s no %s inventory' % (self._verb(count, 'has', 'have'),
                                       self.rc)


class Units(Check):
    """min_unit, max_unit and step_size of one allocation."""
    spreads = True
    merges_classes = True

    def clause(self, ids, site):
        return figures.fits_units(site.inventory, site.amount)

    def fits(self, held):
        inventory = held.inventory
        return figures.fits_units_of(inventory.min_unit, inventory.max_unit,
                                     inventory.step_size, self.amount)

    def detail(self, found=None):
        return '%s: %d requested, %s' % (self.rc, self.amount,
                                         self._units(found))

    def shortfall(self, found=None):
        return 'cannot take %s:%d in one allocation (%s)' % (
            self.rc, self.amount, self._units(found))

    @staticmethod
    def _units(found):
        return 'min_unit %d, max_unit %d, step_size %d' % (
            found.min_unit, found.max_unit, found.step_size)

    def reason(self, count, largest_free=None):
        return ('%s take %s:%d in one allocation (min_unit, max_unit, '
                'step_size)' % (self._verb(count, 'cannot', 'cannot'),
                                self.rc, self.amount))


class Capacity(Check):
    outcome = EXHAUSTED
    spreads = True
    merges_classes = True
    reads_usage = True

    def clause(self, ids, site):
        return figures.fits_room(site.inventory, site.used, site.amount)

    def fits(self, held):
        return figures.fits_room_of(held.room, self.amount)

    def detail(self, found=None):
        return '%s: %s' % (self.rc, self._room(found))

    def shortfall(self, found=None):
        return 'lacks capacity for %s (%s)' % (self.rc, self._room(found))

    def _room(self, found):
        return '%d free, %d requested' % (max(found.free, 0), self.amount)

    def free_left(self, found):
        return int(max(found.free, 0))

    def nearness(self, found):
        return (self.amount - max(found.free, 0)) / self.amount

    def reason(self, count, largest_free=None):
        return '%s capacity for %s (largest free %d, requested %d)' % (
            self._verb(count, 'lacks', 'lack'), self.rc, largest_free or 0,
            self.amount)


RESOURCE_CHECKS = (HasInventory, Units, Capacity)


def group_stack(group):
    """The checks of one query.RequestGroup, in the order a provider is
    counted at its first failure: tree, aggregates, traits, then each
    class's inventory, units and capacity."""
    spread = group.suffix == ''
    checks = []
    if group.in_tree:
        checks.append(InTree('in_tree=' + group.in_tree,
                             frozenset([group.in_tree])))
    for any_of in group.member_of.required:
        checks.append(MemberOf(_list_label('member_of=', any_of), any_of,
                               with_root=spread))
    if group.member_of.forbidden:
        checks.append(ForbiddenAggregates(
            _list_label('member_of=!', group.member_of.forbidden),
            group.member_of.forbidden, with_root=spread))
    for any_of in group.traits.required:
        checks.append(RequiredTraits(_list_label('required=', any_of),
                                     any_of))
    for name in sorted(group.traits.forbidden):
        checks.append(ForbiddenTrait('required=!' + name,
                                     frozenset([name])))
    for rc, amount in group.resources.items():
        request = 'resources=%s:%d' % (rc, amount)
        for check, what in zip(RESOURCE_CHECKS, (
                'inventory', 'min_unit, max_unit, step_size', 'capacity')):
            checks.append(check('%s (%s)' % (request, what), rc=rc,
                                amount=amount))
    return checks


def filters(stack, spread):
    """The checks every provider serving the group must pass: all of a
    suffixed group's provider checks; the unsuffixed group spreads its
    resources and required traits over the providers it uses."""
    return [check for check in stack if not isinstance(
        check, RESOURCE_CHECKS) and not (spread and check.spreads)]


def trait_bits(stack):
    """The unsuffixed group's RequiredTraits checks, in the order of the
    bits of its trait mask (see statements.group_statement)."""
    return [check for check in stack if isinstance(check, RequiredTraits)]


def needs(stack):
    """What the unsuffixed group needs of some provider of a tree passing
    its filters: {need key: [checks one provider must pass]}."""
    found = {}
    for check in stack:
        if check.spreads:
            found.setdefault(check.need(), []).append(check)
    return found


# -- the rules over whole trees ---------------------------------------------

@dataclasses.dataclass(frozen=True)
class RootRequired:
    """``root_required``: traits the root of a candidate's tree has."""
    filter: query_filters.TraitFilter

    @property
    def label(self):
        names = sorted(name for any_of in self.filter.required
                       for name in any_of)
        names += sorted('!' + name for name in self.filter.forbidden)
        return 'root_required=' + ','.join(names)

    def clause(self, ids, site):
        required = tuple(ids.traits(any_of)
                         for any_of in self.filter.required)
        return provider_filter.traits_clause(
            site.root, required, ids.traits(self.filter.forbidden))

    def passes(self, ids, snap, root):
        held = snap.traits_of(root)
        return (all(held & ids.traits(any_of)
                    for any_of in self.filter.required)
                and not held & ids.traits(self.filter.forbidden))


def root_required(query):
    """The query's RootRequired, or None."""
    return RootRequired(query.root_required) if query.root_required else None

