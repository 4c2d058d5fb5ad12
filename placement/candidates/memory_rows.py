"""The rows of the read step from a snapshot version (memory/snapshot.py),
as ``database_rows``' statements read them, in the same layouts
(layouts.Layout), decided by the same checks in their Python form
(checks.py: ``passes`` of a provider, ``fits`` of what it holds of a
class)."""
from placement.candidates import checks as checks_mod
from placement.memory import indexes
from placement.objects import figures


class MemoryRows:
    """The rows of one reader.RequestSearch from a snapshot, as the
    database's statements read them (``plan`` as there: root_required
    checked here or left to explain; without ``allocated`` nothing is
    used).  The list alone reads from memory: nothing is released."""

    def __init__(self, source, search, plan):
        self.snap = source.snap
        self.dialect = source.dialect
        self.search = search
        self.used_counts = plan.allocated
        root = checks_mod.root_required(search.query)
        self.root_check = root if plan.root_filtered else None
        self._roots_seen = {}

    def _root_passes(self, root):
        passes = self._roots_seen.get(root)
        if passes is None:
            passes = self._roots_seen[root] = (
                self.root_check is None
                or self.root_check.passes(self.search.names, self.snap, root))
        return passes

    def of_sharing(self, index, served):
        """The rows of group ``index`` of the providers of ``served``."""
        group = self.search.groups[index]
        return list(self._group_rows(index, self._ordered(served),
                                     self.key(group) + ('every root',),
                                     every_root=True))

    def of_trees(self, index, roots=None):
        """The rows of group ``index`` in root order, of the trees of
        ``roots`` when given; kept for the snapshot version unless read
        lazily."""
        group = self.search.groups[index]
        snap = self.snap
        key = carried = self.key(group)
        if roots is None:
            ids = (self._of_classes(group) if group.spec.amounts
                   else snap.providers)
        else:
            ids = indexes.filed_under(snap.indexes.trees, roots)
            key += (tuple(roots),)

        def every_row():
            return self._group_rows(index, self._ordered(ids), carried)
        if self.search.limited:
            # Read lazily: the limit may stop it after a few trees.
            return every_row()
        return snap.derived(key, lambda: list(every_row()), len)

    def key(self, group):
        """What the rows of ``group`` (a GroupSearch of this reading)
        depend on besides the providers read (and their roots), in any
        snapshot version: an ``in_tree`` provider's root as resolved."""
        layout = group.layout
        return ('rows', tuple(group.stack), group.spec.spread,
                tuple(group.spec.amounts.items()), layout.rendered,
                layout.limits, self.search.summary_classes and tuple(
                    self.search.summary_classes),
                self.root_check, self.used_counts,
                tuple(sorted(self.search.names.tree_root.items())))

    def _ordered(self, ids):
        """``ids`` (a set or dict) in root order, as the statements order
        their rows: a few sorted, many picked from the snapshot's root
        order as they are read (a read with a limit stops early)."""
        snap = self.snap
        if ids is snap.providers:
            return snap.root_order
        if len(ids) * _SORTED_BELOW < len(snap.providers):
            providers = snap.providers
            return sorted(ids, key=lambda rp: (providers[rp].root_id, rp))
        return (rp for rp in snap.root_order if rp in ids)

    def _carried(self, key, ids, row_of):
        """``row_of(rp)`` of each provider of ``ids`` that has a row (not
        None), kept under ``key`` across snapshot versions
        (Snapshot.carried)."""
        for _, row in self.snap.carried(key, ids, row_of):
            if row is not None:
                yield row

    def _group_rows(self, index, ids, key, every_root=False):
        """The rows of group ``index`` of the providers of ``ids``,
        carried under ``key`` (see ``_carried``)."""
        group = self.search.groups[index]
        layout = group.layout
        rendered = layout.rendered
        shown = self.snap.shown
        listed = self._listed if rendered and group.spec.amounts else None
        passing = self._passing(group, every_root)
        # Per distinct (per class what a provider has): its class mask
        # and the row's columns of it, built once.
        built = {}

        def row_of(rp):
            found = passing(rp)
            if found is None:
                return None
            root, traits, found = found
            held = tuple(map(id, found))
            done = built.get(held)
            if done is None:
                done = built[held] = (_fit(found), _parts(layout, found))
            fit, parts = done
            return layout.row((root, rp, traits, fit), parts,
                              -1 if listed is None else listed(rp),
                              shown[rp].uuid if rendered else None)
        return self._carried(key, ids, row_of)

    def _listed(self, rp):
        """How many inventories the provider's summary lists."""
        held = self.snap.inventories.get(rp, {})
        classes = self.search.summary_classes
        if classes is None:
            return len(held)
        return sum(1 for rc in held if rc in classes)

    def _passing(self, group, every_root=False):
        """passing(rp): (root, trait mask, per class a figures.Held or
        None) of provider ``rp`` if it passes the group's filters and can
        serve one of its classes (any provider passing them, for a group
        without amounts), else None."""
        classes = self._class_checks([group])
        decide = self._decider(classes)
        filtered = self._filtered(group, every_root)

        def passing(rp):
            seen = filtered(rp)
            if seen is None:
                return None
            root, traits, held, usage = seen
            found = []
            for at, (rc, _) in enumerate(classes):
                one, passes = decide(at, held.get(rc), usage)
                found.append(one if passes[0] else None)
            if classes and not any(found):
                return None
            return root, traits, found
        return passing

    def of_shapes(self, readings, roots=None):
        """The rows of the one group of ``readings`` (RequestSearch values
        of shapes alike but for their amounts, this one's the first) at
        once, as statements.group_statement reads them with ``each``:
        a provider when it can serve a class for one of the shapes, its
        class mask that of any, one class mask per shape at the end; of
        the trees of ``roots`` only when given."""
        group = self.search.groups[0]
        layout = group.layout
        classes = self._class_checks([reading.groups[0]
                                      for reading in readings])
        decide = self._decider(classes)
        filtered = self._filtered(group)
        count = len(readings)

        def row_of(rp):
            seen = filtered(rp)
            if seen is None:
                return None
            root, traits, held, usage = seen
            fits = [0] * count
            found = []
            for at, (rc, _) in enumerate(classes):
                one, passes = decide(at, held.get(rc), usage)
                for shape, passed in enumerate(passes):
                    if passed:
                        fits[shape] |= 1 << at
                found.append(one if any(passes) else None)
            if not any(fits):
                return None
            return layout.of_shapes(layout.row(
                (root, rp, traits, _fit(found)), _parts(layout, found), -1,
                None), fits)
        key = ('shapes', *(reading.rows.key(reading.groups[0])
                           for reading in readings))
        ids = self._of_classes(group) if roots is None else \
            indexes.filed_under(self.snap.indexes.trees, roots)
        return self._carried(key, self._ordered(ids), row_of)

    def _class_checks(self, groups):
        """[(rc id, [per group its resource checks of the class])] of
        ``groups`` (GroupSearch values asking the same classes), in their
        order."""
        rc_names = self.search.names.rc_names
        return [(rc, [[check for check in group.stack
                       if check.rc == rc_names[rc]] for group in groups])
                for rc in groups[0].spec.amounts]

    def _decider(self, classes):
        """decide(at, inventory, usage): (the figures.Held of
        ``inventory``, of the ``at``-th class of ``classes`` (as
        _class_checks gives them), whether it passes each group's
        checks), (None, none passing) without one; once per (class,
        inventory, used), the checks asked as figures.Decided asks
        them."""
        dialect = self.dialect
        checks = figures.Decided()
        found_for = {}
        missing = (None, (False,) * len(classes[0][1]) if classes else ())

        def decide(at, inventory, usage):
            if inventory is None:
                return missing
            rc, per_group = classes[at]
            used = usage.get(rc)
            key = (at, id(inventory), used)
            found = found_for.get(key)
            if found is None:
                held = figures.held(inventory, used, dialect)
                found = found_for[key] = (held, tuple(
                    all(checks.fits(check, held) for check in group_checks)
                    for group_checks in per_group))
            return found
        return decide

    def _filtered(self, group, every_root=False):
        """filtered(rp): (root, trait mask, {rc: inventory}, {rc: used})
        of provider ``rp`` if it passes the group's filters (and its root
        root_required, unless ``every_root``), else None."""
        snap = self.snap
        names = self.search.names
        filters = checks_mod.filters(group.stack, group.spec.spread)
        bits = (checks_mod.trait_bits(group.stack) if group.spec.spread
                else ())
        counted = self.used_counts

        def filtered(rp):
            root = snap.providers[rp].root_id
            if not (every_root or self._root_passes(root)):
                return None
            if not all(check.passes(names, snap, rp, root)
                       for check in filters):
                return None
            traits = 0
            for bit, check in enumerate(bits):
                if check.passes(names, snap, rp, root):
                    traits |= 1 << bit
            return (root, traits, snap.inventories.get(rp, _NONE),
                    snap.usage.get(rp, _NONE) if counted else _NONE)
        return filtered

    def roots_passing(self, roots):
        """Those of the root ids ``roots`` that root_required admits."""
        return {root for root in roots if self._root_passes(root)}

    def parents(self, roots=None):
        """(root, rp, parent) of every provider in root order, of the
        trees of ``roots`` when given."""
        snap = self.snap
        ids = snap.providers
        if roots is not None:
            ids = indexes.filed_under(snap.indexes.trees, roots)
        return [(snap.providers[rp].root_id, rp, snap.providers[rp].parent_id)
                for rp in self._ordered(ids)]

    def ranking_bounds(self, index, lowest):
        """{root: (largest free space per class..., smallest...)} of group
        ``index``, as statements.ranking_statement reads it: over the
        providers passing the group's checks, the free space as Python
        computes it."""
        group = self.search.groups[index]
        count = len(group.spec.amounts)
        largest, smallest = {}, {}
        passing = self._passing(group)
        for rp in self._of_classes(group):
            found = passing(rp)
            if found is None:
                continue
            root, _, found = found
            high = largest.setdefault(root, [None] * count)
            low = smallest.setdefault(root, [None] * count)
            for at, held in enumerate(found):
                if held is None:
                    continue
                inventory, used = held.inventory, held.used
                free = figures.free_of(figures.capacity_of(
                    inventory.total, inventory.reserved,
                    inventory.allocation_ratio), used)
                if high[at] is None or free > high[at]:
                    high[at] = free
                if low[at] is None or free < low[at]:
                    low[at] = free
        return {root: tuple(high) + (tuple(smallest[root]) if lowest else ())
                for root, high in largest.items()}

    def _of_classes(self, group):
        """The providers with an inventory of one of the group's
        classes."""
        return indexes.filed_under(self.snap.indexes.classes,
                                   group.spec.amounts)

    def close(self):
        pass


# No inventories, no usage (shared, never changed).
_NONE = {}
# Fewer providers than one in this many of the snapshot's are sorted
# rather than picked from its root order.
_SORTED_BELOW = 8


def _parts(layout, found):
    """The columns of a row after its class mask (layouts.Layout.parts)
    of ``found``, per class a figures.Held or None."""
    return layout.parts([
        None if held is None else (layout.values(held.inventory, held.used),
                                   (held.room, held.inventory.max_unit))
        for held in found])


def _fit(found):
    """The class mask of a provider's classes (None where it cannot serve
    the class)."""
    fit = 0
    for bit, held in enumerate(found):
        if held is not None:
            fit |= 1 << bit
    return fit
