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


class Apart(typing.NamedTuple):
    """Trees of one provider read for a shape's one group, that no sharing
    provider touches (alike.read): ``trees`` [(root, rp, class mask,
    trait mask, summary part)]; ``room_at`` {rc: the index of its free
    space in a summary part} (statements.Layout.room_at)."""
    trees: list
    room_at: dict


def fill(request, trees, space, apart=Apart([], {})):
    """The Filled of ``trees`` (candidate_search.Tree values in root
    order, as read) for the combiner's ``request``, and of the trees set
    ``apart`` (an Apart); ``space.free`` is taken from."""
    filled = Filled()
    lone = []
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
    first = _FirstAlone(request)
    free = space.free
    for tree, rp in lone:
        kind = (tuple((members or {}).get(rp) for members in tree.members),
                tree.masks.get(rp),
                tuple(sorted((rc, limit)
                             for (_, rc), limit in tree.limits.items())))
        amounts = first(kind, tree, rp)
        if amounts:
            _run(tree.root, [(free[rp, rc], rp, rc, amount)
                             for rc, amount in amounts.items()], filled, free)
    # Those set apart are read from their summary parts: one row each,
    # read for one group, no limits.
    room_at = apart.room_at
    for root, rp, fit, traits, part in apart.trees:
        amounts = first((fit, traits), None, rp, root, fit, traits)
        if amounts:
            _run(root, [(part[room_at[rc]], rp, rc, amount)
                        for rc, amount in amounts.items()], filled)
    return filled


class _FirstAlone:
    """The combiner's first candidate {rc: amount} of a lone tree (None
    if it has none), asked once per kind of tree."""

    def __init__(self, request):
        self.request = request._replace(
            sharing=candidate_search.Sharing({}, [], {}, {}))
        self.kinds = {}

    def __call__(self, kind, tree, rp, root=None, fit=None, traits=None):
        try:
            return self.kinds[kind]
        except KeyError:
            pass
        if tree is None:
            tree = candidate_search.Tree(root, [{rp: fit}], {},
                                         {rp: traits} if traits else {})
        found = next(candidate_search.candidates(self.request, [tree]), None)
        self.kinds[kind] = found and found[0][rp]
        return self.kinds[kind]


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
        _run(tree.root, [(free[rp, rc], rp, rc, amount)
                         for rp, amounts in allocations.items()
                         for rc, amount in amounts.items()], filled, free)
        if len(providers) == 1:
            return


def _run(root, rooms, filled, free=None):
    """Place a candidate in the tree of ``root`` as often as it fits:
    ``rooms`` [(free space, rp, rc, amount)] of its allocations; ``free``
    {(rp, rc): free space}, when given, is taken from."""
    times = [(figures.times_fitting(room, amount), rp, rc, amount)
             for room, rp, rc, amount in rooms]
    count = min(times)[0]
    placed = filled.placed
    for _, rp, rc, amount in times:
        placed[rp, rc] = placed.get((rp, rc), 0) + count * amount
        if free is not None:
            free[rp, rc] -= count * amount
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
