"""The running constraints of one tree's search (steps 2 and 3 of
``candidate_search``): the amounts placed per (provider, class) against
their limits, isolation, one provider per tree before nested providers,
``same_subtree`` (each calling its rule of ``tree_rules.py``), and the
look-ahead matching of the groups still to place.  Pure, like the search
it serves.
"""


class SearchState:
    """The running totals of one tree's search: amounts placed per
    (provider, class) with a limit, suffixed groups per provider, and
    providers per tree root (before nested providers)."""

    def __init__(self, request, tree):
        self.request = request
        self.groups = request.groups
        self.limits = tree.limits
        if request.sharing.limits:
            self.limits = {**request.sharing.limits, **tree.limits}
        self.placed = {}
        self.taken = {}
        self.isolate = request.isolate
        self.root = tree.root
        self.parents = tree.parents or {}
        self.sharing_roots = request.sharing.roots
        self.per_root = {} if request.one_per_tree else None
        # same_subtree sets (tree_rules.SameSubtree) by their last group
        self.subtrees = {}
        for rule in request.same_subtree:
            self.subtrees.setdefault(rule.last, []).append(rule)
        # Only limits and isolation tie the groups together.
        self.tied = bool(self.limits) or self.isolate is not None
        self.picks = None
        self.matched = {}     # depth -> {dim: (holding, least)}; see ahead

    def _parts(self, index, choice):
        group = self.groups[index]
        if group.spread:
            return choice[0].items()
        return ((choice, group.amounts),)

    def place(self, index, choice, picks):
        """Add ``choice`` for group ``index``; False when it breaks a
        constraint (the caller then calls ``remove``)."""
        ok = True
        for rp, amounts in self._parts(index, choice):
            for rc, amount in amounts.items():
                key = (rp, rc)
                limit = self.limits.get(key)
                if limit is not None:
                    total = self.placed.get(key, 0) + amount
                    self.placed[key] = total
                    if total > limit:
                        ok = False
            if self.per_root is not None and amounts:
                root = self.sharing_roots.get(rp, self.root)
                held = self.per_root.setdefault(root, {})
                held[rp] = held.get(rp, 0) + 1
                if len(held) > 1:
                    ok = False
        if not self.groups[index].spread:
            taken = self.taken.get(choice, 0)
            self.taken[choice] = taken + 1
            if self.isolate is not None and not self.isolate.admits(taken):
                ok = False
        if ok:
            for rule in self.subtrees.get(index, ()):
                if not rule.holds(self.parents, picks, index, choice):
                    return False
        return ok

    def remove(self, index, choice):
        for rp, amounts in self._parts(index, choice):
            for rc, amount in amounts.items():
                key = (rp, rc)
                if key in self.limits:
                    self.placed[key] -= amount
            if self.per_root is not None and amounts:
                root = self.sharing_roots.get(rp, self.root)
                held = self.per_root[root]
                held[rp] -= 1
                if not held[rp]:
                    del held[rp]
        if not self.groups[index].spread:
            self.taken[choice] -= 1

    def _fits(self, index, rp):
        """Whether suffixed group ``index`` can still go on ``rp``."""
        if self.isolate is not None and \
                not self.isolate.admits(self.taken.get(rp, 0)):
            return False
        for rc, amount in self.groups[index].amounts.items():
            limit = self.limits.get((rp, rc))
            if limit is not None and \
                    self.placed.get((rp, rc), 0) + amount > limit:
                return False
        return True

    def ahead(self, options, start):
        """Whether the groups from ``start`` on can still all be placed
        (step 3); a necessary condition, exact for groups of one class
        and equal amounts.

        The matching found is kept per depth: when the group just placed
        went where that matching had put it, and what the matching put
        beside it there still fits, the rest of it still holds and
        nothing is searched again.
        """
        if not self.tied or start >= len(options):
            return True
        if start and self._still_matched(start - 1, self.picks[start - 1]):
            self.matched[start] = self.matched[start - 1]
            return True
        usable = []
        for index in range(start, len(options)):
            if self.groups[index].spread:
                # Always the first group, so never ahead of another.
                continue
            found = [rp for rp in options[index] if self._fits(index, rp)]
            if not found:
                return False
            usable.append((index, found))
        dims = {}
        if self.isolate is not None:
            dims[None] = (usable, 1)
        else:
            for rc in {rc for index, _ in usable
                       for rc in self.groups[index].amounts}:
                needing = [(index, found) for index, found in usable
                           if rc in self.groups[index].amounts]
                dims[rc] = (needing, min(self.groups[index].amounts[rc]
                                         for index, _ in needing))
        matched = {}
        for dim, (needing, least) in dims.items():
            holding = _matched(needing, lambda rp: self._slots(dim, least, rp))
            if holding is None:
                return False
            matched[dim] = (holding, least)
        self.matched[start] = matched
        return True

    def _slots(self, dim, least, rp):
        """How many more groups ``rp`` may take in matching ``dim``: as
        isolation allows, else as many of ``least`` of class ``dim`` as
        are left."""
        if dim is None:
            return self.isolate.slots
        limit = self.limits.get((rp, dim))
        if limit is None:
            return float('inf')
        return (limit - self.placed.get((rp, dim), 0)) // least

    def _still_matched(self, index, rp):
        """Whether the matching kept for groups from ``index`` on still
        holds for those after it, group ``index`` being placed on
        ``rp``."""
        matched = self.matched.get(index)
        if matched is None or self.groups[index].spread:
            return False
        for dim, (holding, least) in matched.items():
            there = holding.get(rp, ())
            if (dim is None or dim in self.groups[index].amounts) \
                    and index not in there:
                return False
            others = [other for other in there if other > index]
            if others and (len(others) > self._slots(dim, least, rp)
                           or not all(self._fits(other, rp)
                                      for other in others)):
                return False
        return True


def _matched(usable, slots):
    """{rp: [group index, ...]} giving every group of ``usable`` [(index,
    [rp, ...])] a provider, a provider taking at most ``slots(rp)``
    groups, or None when there is no such matching (augmenting paths)."""
    holding = {}
    room = {}
    found_of = dict(usable)

    def free(rp):
        if rp not in room:
            room[rp] = slots(rp)
        return len(holding.setdefault(rp, [])) < room[rp]

    for index, found in usable:
        # Most groups find a free provider at once; the full search only
        # runs when they compete.
        for rp in found:
            if free(rp):
                holding[rp].append(index)
                break
        else:
            if not _augment(index, set(), found_of, holding, free):
                return None
    return holding


def _augment(index, visited, found_of, holding, free):
    """Whether group ``index`` gets a provider of ``found_of[index]``,
    moving the groups ``holding`` one along a path not yet ``visited``
    (a function of the module's: a closure calling itself would be a
    cycle for the collector)."""
    for rp in found_of[index]:
        if rp in visited:
            continue
        visited.add(rp)
        if free(rp):
            holding[rp].append(index)
            return True
        held = holding[rp]
        for position, other in enumerate(held):
            if _augment(other, visited, found_of, holding, free):
                held[position] = index
                return True
    return False

