"""The weigh stage: the answer's order under ``[placement]
candidate_order``, decided before ``limit`` cuts the answer.

``default`` leaves upstream's order (``pipeline.rank``).  With
``spread`` or ``pack`` every candidate ``c`` gets a score from 0 to 1:

    free(c, r)  = sum, over the providers p that c allocates class r
                  from (sharing providers too), of
                  capacity(p, r) - used(p, r) - amount(c, p, r)
    top(r)      = the largest free(c, r) over all candidates
    score(c)    = sum over r in K of m(r) * free(c, r) / top(r),
                  divided by the sum over r in K of m(r)

where m(r) is the class's ``weight_multipliers`` entry and K the
requested classes with m(r) > 0 and top(r) > 0 (no such class: every
score is 0).  A tree's weight is its best candidate's score: the highest
for ``spread``, the lowest for ``pack``.  Trees are ordered by weight
(highest first for ``spread``, lowest first for ``pack``) in bands: a
band starts at the first tree not yet in one and holds the trees after
it whose weights are within ``weight_tolerance`` of its first; each band
is shuffled per request, so that schedulers asking at once start on
different trees.  The candidates of a tree are ordered alike.  The answer
is breadth-first: the first candidate of every tree in tree order, then
the second of each, ...; so with ``limit`` at most the number of trees
it holds the best ``limit`` trees, one candidate each.

The figures come from the rows the reader already read
(``layouts.Layout``); everything below ``ranked`` is pure.  With a
limit the trees are read band by band in the order of their weights,
and only those weighed (ranking.py).
"""
import bisect
import operator
import random
import typing

from placement.candidates import candidate_search

DEFAULT = 'default'
SPREAD = 'spread'
PACK = 'pack'


class Weighed(typing.NamedTuple):
    """A candidate with the root of its tree, its score, per class its
    free space after the claim, and the factors of the score (shared by
    all candidates of an answer: [(rc, factor)], the score being the
    sum of factor * free)."""
    candidate: tuple
    root: int
    score: float
    free: dict
    factors: list

    def parts(self):
        """{rc: its share of the score}: what an explanation shows."""
        return {rc: factor * self.free.get(rc, 0)
                for rc, factor in self.factors}


def ranked(candidates, reading, conf, rng=random):
    """The Weighed ``candidates`` in the answer's order (see the module
    docstring); ``reading`` is the reader's RequestSearch, ``conf`` the
    [placement] group."""
    # Every tree is read (and its rows seen) before the figures are.
    candidates = list(candidates)
    weighed = weigh(candidates, reading.roots, reading.free_space(),
                    reading.sharing.roots, multipliers(reading.names, conf))
    return ordered(weighed, conf.candidate_order, conf.weight_tolerance,
                   rng)


def multipliers(names, conf):
    """{rc id: m} of ``weight_multipliers`` (classes unknown left out)."""
    return {names.rc[name]: value
            for name, value in conf.weight_multipliers.items()
            if name in names.rc}


def weigh(candidates, roots, free, sharing, multipliers):
    """[Weighed] of ``candidates``, given the providers' ``roots`` {rp:
    root} and ``free`` {rp: {rc: free}}, the ``sharing`` providers and
    ``multipliers`` {rc: m}."""
    top = {}
    found = lefts(candidates, roots, free, sharing, top)
    shares = factors(top, multipliers)
    return [Weighed(candidate, root, score(shares, left), left, shares)
            for candidate, root, left in found]


def lefts(candidates, roots, free, sharing, top):
    """[(candidate, its root, {rc: free after the claim})] of
    ``candidates`` (see ``weigh``); ``top`` {rc: the largest free} is
    raised to theirs."""
    found = []
    for candidate in candidates:
        allocations = candidate[0]
        if len(allocations) == 1:
            # One provider (the common case): nothing to add up.
            (rp, amounts), = allocations.items()
            have = free[rp]
            left = {rc: have[rc] - amount for rc, amount in amounts.items()}
        else:
            left = {}
            for rp, amounts in allocations.items():
                have = free[rp]
                for rc, amount in amounts.items():
                    left[rc] = left.get(rc, 0) + have[rc] - amount
        for rc, value in left.items():
            if value > top.get(rc, 0):
                top[rc] = value
        found.append((candidate, anchor(candidate, roots, sharing), left))
    return found


def factors(top, multipliers):
    """[(rc, factor)]: a score is the sum of factor * free (see the
    module docstring), given ``top`` {rc: largest free}."""
    counted = [rc for rc in top if multipliers.get(rc, 0) > 0]
    total = sum(multipliers[rc] for rc in counted)
    return [(rc, multipliers[rc] / top[rc] / total) for rc in counted]


def score(shares, free):
    """The score of {rc: free} by ``shares`` (see ``factors``)."""
    value = 0.0
    for rc, factor in shares:
        value += factor * free.get(rc, 0)
    return value


def anchor(candidate, roots, sharing):
    """The root of the tree a candidate is in: that of its providers
    other than sharing ones, else (sharing providers only) the first's
    own root."""
    first = None
    for providers in candidate[1].values():
        for rp in providers:
            if rp not in sharing:
                return roots[rp]
            if first is None:
                first = rp
    return roots[first]


def ordered(weighed, order, tolerance, rng=random):
    """The Weighed ``weighed`` in the answer's order: trees by weight in
    shuffled bands, candidates of a tree alike, breadth-first."""
    highest = order == SPREAD
    trees = {}
    for item in weighed:
        found = trees.get(item.root)
        if found is None:
            trees[item.root] = [item]
        else:
            found.append(item)
    score = operator.attrgetter('score')
    best = max if highest else min
    per_tree = []
    for items in trees.values():
        if len(items) > 1:
            per_tree.append((best(map(score, items)), banded(
                items, score, highest, tolerance, rng)))
        else:
            per_tree.append((items[0].score, items))
    per_tree = banded(per_tree, operator.itemgetter(0), highest, tolerance,
                      rng)
    if len(per_tree) == len(weighed):
        # A candidate per tree: breadth-first is the trees' order.
        return (items[0] for _, items in per_tree)
    return candidate_search.round_robin(items for _, items in per_tree)


def banded(items, weight, highest, tolerance, rng=random):
    """``items`` ordered by ``weight(item)`` (highest first when
    ``highest``), each band of items within ``tolerance`` of the band's
    first shuffled."""
    return [item for _, item in draws(items, weight, highest, tolerance,
                                      rng)]


def draws(items, weight, highest, tolerance, rng=random):
    """(the weight of its band's first, item) in ``banded``'s order, the
    items of a band drawn at random one at a time as they are taken: a
    large band costs what is taken of it."""
    items = sorted(items, key=weight, reverse=highest)
    # Ascending either way, so that a band ends where bisect says.
    keys = [-weight(item) if highest else weight(item) for item in items]
    start = 0
    while start < len(items):
        end = bisect.bisect_right(keys, keys[start] + tolerance, lo=start)
        first = weight(items[start])
        for at in range(start, end - 1):
            pick = rng.randrange(at, end)
            items[at], items[pick] = items[pick], items[at]
            yield first, items[at]
        yield first, items[end - 1]
        start = end
