"""The weighed order of a limited answer (weigh.py) without reading every
tree in full.

Per group a slim statement (``statements.ranking_statement``: the
group's own checks, no summary columns) gives per tree the largest and
the smallest free space of each requested class among its providers
passing them: one row per tree, reduced in SQL.  From it each tree gets
bounds on what its candidates can leave free of a class: at most k times
its largest free space less the amounts, k being the number of groups
asking for the class; at least its smallest less the amounts, and never
below 0.  A tree lacking some group or class has no candidate.  Trees
are then read in full and combined band by band, only as far as the
weighing needs:

1. ``top`` (the largest free space of a class, see weigh.py) is known
   once every tree that could leave more free than the best candidate
   read has been read;
2. then trees in the order of their bounds' scores (``spread``: upper
   bounds, highest first; ``pack``: lower bounds, lowest first; bands
   within ``weight_tolerance`` shuffled), until ``limit`` trees gave
   candidates and no tree left could weigh better than the limit-th by
   more than the tolerance.

A tree ranked high that fails the rules over whole trees (combining,
same_subtree, isolate, traits spread over the providers used) gives no
candidate, and the next band is read.  The candidates read are weighed
and ordered as weigh.ranked does.  Sharing providers serving a tree
count in its bounds as its own providers do.  Requests whose candidates
may be made of sharing providers only (each group's classes served by
sharing providers: such a candidate belongs to the tree of its first
provider, not to the one read) and ``max_allocation_candidates`` (which
cuts the combiner's output in its own order) keep the whole read
(``applies``).
"""
import itertools
import operator
import random

from placement.candidates import weigh


def applies(query, reading, conf):
    """Whether a weighed answer can be read band by band."""
    return (query.limit is not None
            and conf.max_allocation_candidates <= 0
            and any(group.spec.amounts for group in reading.groups)
            and not _sharing_only(reading))


def _sharing_only(reading):
    """Whether a candidate may be made of sharing providers only: its
    tree is then the first provider's (weigh.py), which need not be the
    tree read nor give it when read."""
    if not reading.sharing.roots:
        return False
    for group, fits in zip(reading.groups, reading.sharing_fits):
        covered = 0
        for fit in fits.values():
            covered |= fit
        if group.spec.amounts and covered != group.spec.full:
            return False
    return True


def bounds(reading, groups, lowest):
    """[(high, low, [roots])]: per set of trees with alike ranking rows
    their bounds, each {rc: bound} on the free space their candidates
    leave (see the module docstring; ``low`` only when ``lowest``, else
    None), from the groups' ranking rows (reader.ranking_rows);
    ``groups`` are the combiner's."""
    counts = {}
    amounts = {}
    for group in groups:
        for rc, amount in group.amounts.items():
            counts[rc] = counts.get(rc, 0) + 1
            amounts[rc] = amounts.get(rc, 0) + amount
    # Only the sharing providers' rows are read yet.
    free = reading.free_space() if reading.sharing.roots else {}
    classes = []
    trees = None
    for spec, serving, per_root in reading.ranking_rows(lowest):
        classes.append(list(spec.amounts))
        if free:
            _add_sharing(per_root, spec, serving, free, lowest)
        if trees is None:
            trees = {root: (own,) for root, own in per_root.items()}
        else:
            trees = {root: trees[root] + (own,)
                     for root, own in per_root.items() if root in trees}
    alike = {}
    for root, parts in (trees or {}).items():
        found = alike.get(parts)
        if found is None:
            found = alike[parts] = [root]
        else:
            found.append(root)
    result = []
    for parts, roots in alike.items():
        found = _bounds(parts, classes, counts, amounts, lowest)
        if found is not None:
            result.append((*found, roots))
    return result


def _add_sharing(per_root, spec, serving, free, lowest):
    """Fold into a group's ranking rows ``per_root`` {root: row} the free
    space of the sharing providers serving each tree (``serving``, the
    group's part of reading.Sharing.serving; ``free`` the free space of
    theirs), as if they were the tree's own: a candidate may take them."""
    count = len(spec.amounts)
    made = {}
    for root, providers in serving.items():
        key = tuple(providers)
        shared = made.get(key)
        if shared is None:
            shared = made[key] = _shared_row(providers, spec, free, lowest)
        own = per_root.get(root)
        if own is None:
            per_root[root] = shared
            continue
        per_root[root] = tuple(
            mine if theirs is None else theirs if mine is None
            else (max if at < count else min)(mine, theirs)
            for at, (mine, theirs) in enumerate(zip(own, shared)))


def _shared_row(providers, spec, free, lowest):
    """A ranking row (see statements.ranking_statement) of the sharing
    ``providers`` [(rp, class mask)] able to serve the group ``spec``."""
    if not spec.spread:
        # A suffixed group takes a provider serving all its classes.
        providers = [item for item in providers if item[1] == spec.full]
    values = [[free[rp][rc] for rp, fit in providers if fit >> bit & 1]
              for bit, rc in enumerate(spec.amounts)]
    row = tuple(max(found) if found else None for found in values)
    if lowest:
        row += tuple(min(found) if found else None for found in values)
    return row


def _bounds(parts, classes, counts, amounts, lowest):
    """(high, low) of a tree from its groups' ranking rows ``parts`` (by
    ``classes``, each group's), or None when it lacks a class."""
    largest = {}
    smallest = {}
    for part, mine in zip(parts, classes):
        for at, rc in enumerate(mine):
            value = part[at]
            if value is None:
                continue
            largest[rc] = max(largest.get(rc, value), value)
            if lowest:
                least = part[len(mine) + at]
                smallest[rc] = min(smallest.get(rc, least), least)
    if len(largest) < len(counts):
        return None
    high = {rc: counts[rc] * largest[rc] - amounts[rc] for rc in counts}
    if not lowest:
        return high, None
    return high, {rc: max(smallest[rc] - amounts[rc], 0) for rc in counts}


class Bands:
    """The weighed order of a limited answer, band by band: ``wanted``
    says which trees to read next, ``took`` is given their candidates,
    ``chosen`` is the answer's first ``limit`` candidates.  Reading and
    combining are the stack's (stacks.py)."""

    def __init__(self, reading, request, conf, limit, rng=random):
        self.conf = conf
        self.limit = limit
        self.rng = rng
        self.multipliers = weigh.multipliers(reading.names, conf)
        self.highest = conf.candidate_order == weigh.SPREAD
        self.alike = bounds(reading, request.groups, not self.highest)
        # The trees read so far, their candidates with what each leaves
        # free, and ``top`` of these.
        self.roots = set()
        self.found = []
        self.top = {}
        self.drawn = set()
        self.shares = None

    def took(self, candidates, reading):
        """The candidates of the trees last ``wanted``, and the reading
        they came from."""
        candidates = list(candidates)
        self.found += weigh.lefts(candidates, reading.roots,
                                  reading.free_space(),
                                  reading.sharing.roots, self.top)

    def _weights(self, among):
        """{root: its weight} of the trees of ``among`` read that gave
        candidates."""
        best = max if self.highest else min
        found = {}
        for _, root, left in self.found:
            if root not in among:
                continue
            value = weigh.score(self.shares, left)
            found[root] = best(found.get(root, value), value)
        return found

    def wanted(self):
        """[root, ...] of the trees to read next, until the order is
        known (see the module docstring); ``took`` is called between."""
        highest, limit = self.highest, self.limit
        yield from self._find_top([rc for rc, value
                                   in self.multipliers.items() if value > 0])
        self.shares = weigh.factors(self.top, self.multipliers)
        tolerance = self.conf.weight_tolerance
        scored = []
        for high, low, roots in self.alike:
            value = weigh.score(self.shares, high if highest else low)
            scored += [(value, root) for root in roots]
        # The trees read to find ``top`` are drawn like the others: the
        # answer holds them only if drawn, so a band's trees are equally
        # likely.
        draws = weigh.draws(scored, operator.itemgetter(0), highest,
                            tolerance, self.rng)
        drawn = self.drawn
        # The next tree to take, and the bound of its band's first: no
        # tree left weighs better.
        pending = next(draws, None)
        step = max(limit // 8, 1)
        while pending is not None:
            weights = self._weights(drawn)
            if len(weights) >= limit:
                kth = sorted(weights.values(), reverse=highest)[limit - 1]
                if (pending[0] <= kth + tolerance if highest
                        else pending[0] >= kth - tolerance):
                    break
            batch = []
            while pending is not None and len(batch) < max(
                    limit - len(weights), step):
                drawn.add(pending[1][1])
                if pending[1][1] not in self.roots:
                    batch.append(pending[1][1])
                pending = next(draws, None)
            if batch:
                yield from self._read(batch)
            step *= 2

    def _read(self, roots):
        self.roots.update(roots)
        yield sorted(roots)

    def chosen(self):
        """The first ``limit`` candidates of the answer's order."""
        weighed = [weigh.Weighed(candidate, root,
                                 weigh.score(self.shares, left), left,
                                 self.shares)
                   for candidate, root, left in self.found
                   if root in self.drawn]
        return itertools.islice((item.candidate for item in weigh.ordered(
            weighed, self.conf.candidate_order, self.conf.weight_tolerance,
            self.rng)), self.limit)

    def _find_top(self, classes):
        """Read the trees that could leave more of one of ``classes``
        free than any candidate read, most first, until none is left."""
        # {rc: {upper bound: [roots]}}
        highs = {rc: {} for rc in classes}
        for high, _, roots in self.alike:
            for rc, by_value in highs.items():
                by_value.setdefault(high.get(rc, 0), []).extend(roots)
        top = self.top
        for rc, by_value in highs.items():
            size = 1
            for value in sorted(by_value, reverse=True):
                roots = by_value[value]
                while roots and value > top.get(rc, 0):
                    batch = [root for root in roots[:size]
                             if root not in self.roots]
                    del roots[:size]
                    if batch:
                        yield from self._read(batch)
                    size *= 2
                if value <= top.get(rc, 0):
                    break
