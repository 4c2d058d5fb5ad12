"""How many instances of one shape the candidate engine would place one
after another (GET /capacity): pure, over the rows already read.

Each placement is the first candidate of the default order (the first
tree in root order that has one, the combiner's first candidate there),
its allocation taken before the next.  Placements only ever take space,
so a tree left without a candidate never gets one back, and a candidate
stays first for as long as it stays valid.  Hence each tree is filled in
turn, and its first candidate is repeated as often as the free space of
every (provider, class) it takes allows (``figures.times_fitting``),
then the next candidate of the same search that still fits (see
``_fill_tree``).  A tree of one provider that no sharing provider
touches is done after one such run, its candidates all taking the same:
those trees are counted together, in closed form.
"""
import dataclasses
import typing

from placement import candidate_search
from placement.objects import figures


class Space(typing.NamedTuple):
    """The free space of the rows read: ``free`` {(rp, rc): what is left
    of its capacity} (taken from as instances are placed), ``max_unit``
    {(rp, rc): the largest single allocation}; ``summed``: the engine
    bounds every class by (free, max_unit), because two groups request
    one class (reader.RequestSearch.summed)."""
    free: dict
    max_unit: dict
    summed: bool


@dataclasses.dataclass
class Filled:
    """``fits`` {root: instances placed in its tree}; ``short`` {root:
    the classes whose free space ended its last run}; ``placed`` {(rp,
    rc): amount taken}."""
    fits: dict = dataclasses.field(default_factory=dict)
    short: dict = dataclasses.field(default_factory=dict)
    placed: dict = dataclasses.field(default_factory=dict)


def fill(request, trees, space, apart=()):
    """The Filled of ``trees`` (candidate_search.Tree values in root
    order, as read) for the combiner's ``request``, and of the trees set
    ``apart`` (alike.read: [(root, rp, class mask, trait mask)], each of
    one provider read for one group, that no sharing provider touches);
    ``space.free`` is taken from."""
    filled = Filled()
    lone = [(candidate_search.Tree(root, [{rp: fit}], {},
                                   {rp: traits} if traits else {}), rp)
            for root, rp, fit, traits in apart]
    for tree in trees:
        providers = _providers(request, tree)
        if len(providers) == 1 and not (
                providers & request.sharing.roots.keys()):
            lone.append((tree, *providers))
            continue
        # A tree several candidates may come from, or whose space a
        # sharing provider shares with other trees: in root order.
        _fill_tree(request, tree, space, filled, providers)
    # Each lone tree gives one candidate at most, made of its provider;
    # nothing placed before touched them, and no sharing provider does.
    # Alike lone trees (their provider read alike for every group) get
    # alike candidates: the combiner is asked once per kind.
    alone = request._replace(sharing=candidate_search.Sharing({}, [], {}, {}))
    kinds = {}
    for tree, rp in lone:
        kind = (tuple((members or {}).get(rp) for members in tree.members),
                tree.masks.get(rp),
                tuple(sorted((rc, limit)
                             for (_, rc), limit in tree.limits.items())))
        if kind not in kinds:
            found = next(candidate_search.candidates(alone, [tree]), None)
            kinds[kind] = found and found[0][rp]
        if kinds[kind] is not None:
            _run({rp: kinds[kind]}, tree.root, space, filled)
    return filled


def _providers(request, tree):
    """The providers the tree's candidates may take from: its own read
    for some group and the sharing providers serving it."""
    if len(tree.members) == 1 and tree.members[0] is not None:
        found = tree.members[0].keys()
    else:
        found = set()
        for members in tree.members:
            found |= (members or {}).keys()
    for by_root in request.sharing.serving:
        if tree.root in by_root:
            found = found | {rp for rp, _ in by_root[tree.root]}
    return found


def _fill_tree(request, tree, space, filled, providers):
    """Fill one tree from its candidates as it stands now, in the engine's
    order.  A run only takes space, so the candidates valid after it are
    the later ones still fitting, in the same order (each group's options
    stay in order, fewer of them): the one search is resumed, not asked
    again from the start."""
    served = any(tree.root in by_root for by_root in request.sharing.serving)
    if not served and providers.isdisjoint(request.sharing.roots.keys()):
        # No tree filled before took from these providers: the rows
        # stand as read.
        tree_now = tree
    else:
        tree_now = _tree_now(request, tree, space)
    free = space.free
    for allocations, _ in candidate_search.candidates(
            _now(request, tree.root, space) if served else request,
            [tree_now]):
        if any(free[rp, rc] < amount for rp, amounts in allocations.items()
               for rc, amount in amounts.items()):
            continue
        _run(allocations, tree.root, space, filled)
        if len(providers) == 1:
            return


def _run(allocations, root, space, filled):
    """Place the candidate ``allocations`` as often as it fits."""
    free = space.free
    times = [(figures.times_fitting(free[rp, rc], amount), rp, rc, amount)
             for rp, amounts in allocations.items()
             for rc, amount in amounts.items()]
    count = min(times)[0]
    placed = filled.placed
    for _, rp, rc, amount in times:
        free[rp, rc] -= count * amount
        placed[rp, rc] = placed.get((rp, rc), 0) + count * amount
    filled.fits[root] = filled.fits.get(root, 0) + count
    filled.short[root] = frozenset(rc for times_, _, rc, _ in times
                                   if times_ == count)


def _serving(group, members, free):
    """``members`` {rp: class mask} as the reader would read them now:
    a class's bit stays while its free space holds the group's amount
    (units and filters do not change); providers left with none drop."""
    if not group.amounts:
        return members
    found = {}
    for rp, fit in members.items():
        for bit, (rc, amount) in enumerate(group.amounts.items()):
            if fit >> bit & 1 and free[rp, rc] < amount:
                fit &= ~(1 << bit)
        if fit:
            found[rp] = fit
    return found


def _limits(keys, space):
    """The engine's limits {(rp, rc): most that may be allocated} of
    ``keys`` as the reader would read them now (none unless summed)."""
    if not space.summed:
        return {}
    return {key: min(space.free[key], space.max_unit[key]) for key in keys}


def _tree_now(request, tree, space):
    return tree._replace(
        members=[_serving(group, members or {}, space.free)
                 for group, members in zip(request.groups, tree.members)],
        limits=_limits(tree.limits, space))


def _now(request, root, space):
    """``request`` with the sharing providers serving the tree of
    ``root`` as read now."""
    sharing = request.sharing
    serving = [
        {root: list(_serving(group, dict(by_root[root]),
                             space.free).items())} if root in by_root else {}
        for group, by_root in zip(request.groups, sharing.serving)]
    return request._replace(sharing=sharing._replace(
        serving=serving, limits=_limits(sharing.limits, space)))
