"""How many instances of one shape the candidate engine would place one
after another (GET /capacity): pure, over the rows already read.

Each placement is the first candidate of the default order (the first
tree in root order that has one, the combiner's first candidate there),
its allocation taken before the next.  Placements only ever take space,
so a tree left without a candidate never gets one back, and a candidate
stays first for as long as it stays valid.  Hence each tree is filled in
turn, and its first candidate is repeated as often as the free space of
every (provider, class) it takes allows (``figures.times_fitting``),
then the next candidate of the same list that still fits (see
``_fill_tree``).  A tree of one provider that no sharing provider
touches is done after one such run, its candidates all taking the same.
The combiner lists the candidates of each kind of tree once (``Kinds``):
most trees of a cloud are alike but for their ids and free space.  The
trees a flavor list reads without a pool are filled a kind at a time,
over columns of their free space (``_fill_kind``); those a pool serves,
in root order from their rows (``_fill_served``).
"""
import dataclasses
import heapq
import itertools
import operator
import typing

from placement.candidates import candidate_search
from placement.objects import figures


class ApartTree(typing.NamedTuple):
    """A tree set apart (see Apart): its root, providers and rows."""
    root: int
    rps: tuple
    rows: tuple


class ServedTree(typing.NamedTuple):
    """A tree set apart that sharing providers serve (see Apart):
    ``kind`` is the pair of its kind and the (sharing provider, class
    mask) serving it."""
    root: int
    kind: tuple
    rps: tuple
    rows: tuple


_ROOT, _RPS, _ROWS = map(operator.attrgetter, ApartTree._fields)


@dataclasses.dataclass
class Filled:
    """``fits`` {root: instances placed in its tree}; ``short`` {root:
    the classes whose free space ended its last run}; ``placed`` {rc:
    {rp: amount taken}} (by class: what stranded.split sums)."""
    fits: dict = dataclasses.field(default_factory=dict)
    short: dict = dataclasses.field(default_factory=dict)
    placed: dict = dataclasses.field(default_factory=dict)


class Apart(typing.NamedTuple):
    """Trees read for a shape's one group without a sharing provider in
    them (alike.read): those no sharing provider serves by kind,
    ``kinds`` {((class mask, trait mask) of each provider in the order
    read): [ApartTree]}; those served, in root order, ``served``
    [ServedTree]; ``layout`` the
    layouts.Layout the rows are read by."""
    kinds: dict
    served: list
    layout: object


def fill(request, trees, free, apart=None):
    """The Filled of ``trees`` (candidate_search.Tree values in root
    order, as read) for the combiner's ``request``, and of the trees set
    ``apart`` (an Apart, if any); ``free`` {(rp, rc): free space of the
    rows read} is taken from."""
    filled = Filled()
    kinds = Kinds(request)
    if apart is None:
        for tree in trees:
            _fill_tree(tree, kinds, free, filled)
        return filled
    # Trees a sharing provider serves draw on it in root order.
    for _, served, tree in heapq.merge(
            ((tree.root, False, tree) for tree in trees),
            ((tree.root, True, tree) for tree in apart.served),
            key=operator.itemgetter(0)):
        if served:
            _fill_served(tree, kinds, apart.layout, free, filled)
        else:
            _fill_tree(tree, kinds, free, filled)
    for kind, alike in apart.kinds.items():
        _fill_kind(kinds.apart(kind), alike, apart.layout, filled)
    return filled


def _fill_tree(tree, kinds, free, filled):
    """Fill one tree from its candidates as read, in the engine's order,
    each as often as it still fits.  A run only takes space, so the
    candidates valid after it are the later ones still fitting, in the
    same order (each group's options stay in order, fewer of them): one
    list of candidates serves the whole fill."""
    own, candidates = kinds(tree)
    # A tree of one provider no sharing provider serves is full after one
    # run: its candidates all take the same.
    one_run = len(own) == 1 and not any(tree.root in by_root
                                        for by_root in kinds.serving)
    _take(tree.root, own, candidates, free, filled, one_run)


def _fill_served(tree, kinds, layout, free, filled):
    """``_fill_tree`` for a tree set apart that sharing providers serve
    (see Apart): its own free space is copied from its rows into
    ``free``, beside theirs."""
    root, kind, rps, rows = tree
    for rp, row in zip(rps, rows):
        for rc, room in layout.free_by_class(row):
            free[rp, rc] = room
    _take(root, rps, kinds.served(kind, root, rps), free, filled)


def place_first(tree, kinds, free):
    """Place one instance in ``tree``: [(rp, rc, amount)] of its first
    candidate (the engine's order) that fits in ``free``, taken from it,
    or None when none fits (the consumers POST /capacity moves)."""
    own, candidates = kinds(tree)
    for candidate in candidates:
        rooms = _rooms(own, candidate, free)
        if all(figures.fits_room_of(room, amount)
               for room, _, _, amount in rooms):
            for _, rp, rc, amount in rooms:
                free[rp, rc] -= amount
            return [(rp, rc, amount) for _, rp, rc, amount in rooms]
    return None


def _rooms(own, candidate, free):
    """[(free space, rp, rc, amount)] of a ``candidate``'s allocations
    (own providers by place in ``own``, sharing ones by id)."""
    return [(free[rp, rc], rp, rc, amount) for rp, rc, amount in (
        (own[-1 - at] if at < 0 else at, rc, amount)
        for at, rc, amount in candidate)]


def _take(root, own, candidates, free, filled, one_run=False):
    """Run ``candidates`` (own providers by place in ``own``, sharing
    ones by id) in order, each as often as it still fits in ``free``,
    taking from it; with ``one_run``, stop after the first."""
    for candidate in candidates:
        rooms = _rooms(own, candidate, free)
        if not all(figures.fits_room_of(room, amount)
                   for room, _, _, amount in rooms):
            continue
        count = _run(root, rooms, filled)
        for _, rp, rc, amount in rooms:
            free[rp, rc] -= count * amount
        if one_run:
            return


def _fill_kind(candidates, trees, layout, filled):
    """``_fill_tree`` for the ``trees`` of one kind set apart (see Apart)
    at once, over columns of their free space: candidate after candidate,
    each tree's run is counted as ``_run`` counts it."""
    # {(place, rc): [free space, taken] of each tree}.
    columns = {}
    for candidate in candidates:
        for index, rc, _ in candidate:
            if (index, rc) not in columns:
                columns[index, rc] = [
                    list(map(layout.free_of(rc), map(operator.itemgetter(
                        index), map(_ROWS, trees)))),
                    [0] * len(trees)]
    total = [0] * len(trees)
    short = [None] * len(trees)
    for number, candidate in enumerate(candidates, 1):
        times = [figures.times_fitting_each(columns[index, rc][0], amount)
                 for index, rc, amount in candidate]
        counts = list(map(min, zip(*times)))
        # The classes each run ends on, one set per pattern of them.
        patterns = list(zip(*(map(operator.eq, fitting, counts)
                              for fitting in times)))
        classes = [rc for _, rc, _ in candidate]
        ends = {pattern: frozenset(itertools.compress(classes, pattern))
                for pattern in set(patterns)}
        short = [ends[pattern] if count else was
                 for pattern, count, was in zip(patterns, counts, short)]
        total = list(map(operator.add, total, counts))
        for index, rc, amount in candidate:
            column = columns[index, rc]
            took = list(map(operator.mul, counts, itertools.repeat(amount)))
            if number < len(candidates):
                # The free space left only matters to a later candidate.
                column[0] = list(map(operator.sub, column[0], took))
            column[1] = list(map(operator.add, column[1], took))
    roots = list(map(_ROOT, trees))
    filled.fits.update(itertools.compress(zip(roots, total), total))
    filled.short.update(itertools.compress(zip(roots, short), total))
    for (index, rc), (_, taken) in columns.items():
        if any(taken):
            filled.placed.setdefault(rc, {}).update(itertools.compress(zip(
                map(operator.itemgetter(index), map(_RPS, trees)), taken),
                taken))


class Kinds:
    """The candidates of a tree as the combiner lists them from its rows
    as read, asked once per kind of tree: trees alike but for their
    providers' ids (own providers named by their place in the tree,
    -1, -2, ...; sharing providers by id) have alike candidates.  Called
    with a tree: (its own providers in order, [[(provider or place, rc,
    amount)], ...]).

    A limit bounds what the groups together take of a (provider, class):
    no more than ``most``, the sum of the groups' amounts of the class,
    so a larger limit acts as that sum does."""

    def __init__(self, request):
        self.request = request
        self.serving = [by_root for by_root in request.sharing.serving
                        if by_root]
        self.found = {}
        self.found_served = {}
        self.most = {}
        for group in request.groups:
            for rc, amount in group.amounts.items():
                self.most[rc] = self.most.get(rc, 0) + amount

    def __call__(self, tree):
        serving = tuple(tuple(by_root.get(tree.root, ())) for by_root in
                        self.serving)
        if len(tree.members) == 1 and not tree.limits and not tree.parents:
            # One group's providers, in the order read, are the places:
            # the kind needs no names.
            members = tree.members[0] or {}
            own = list(members)
            kind = (tuple(members.values()), tuple(map(tree.masks.get, own)),
                    serving)
            at = None
        else:
            own, at = candidate_search.places(tree)
            most = self.most
            limits = {(at[rp], rc): min(limit, most[rc])
                      for (rp, rc), limit in tree.limits.items()}
            kind = candidate_search.kind(tree, at, limits, serving)
        found = self.found.get(kind)
        if found is None:
            if at is None:
                at, limits = candidate_search.places(tree)[1], {}
            found = self.found[kind] = self._candidates(tree, at, limits)
        return own, found

    def apart(self, kind):
        """The candidates of the trees of ``kind`` set apart that no
        sharing provider serves (see Apart), each [(place of its provider
        in the tree: 0, 1, ..., rc, amount)]."""
        return [[(-1 - at, rc, amount) for at, rc, amount in candidate]
                for candidate in self.served((kind, ()), None,
                                             range(len(kind)))]

    def served(self, kind, root, rps):
        """The candidates of a tree set apart (see Apart), of ``kind``
        (its providers' kind, and the sharing providers serving it),
        whose providers are ``rps``: own providers by place (-1, -2,
        ...), sharing providers by id."""
        found = self.found_served.get(kind)
        if found is None:
            own, _ = kind
            found = self.found_served[kind] = self(candidate_search.Tree(
                root, [{rp: fit for rp, (fit, _) in zip(rps, own)}], {},
                {rp: traits for rp, (_, traits) in zip(rps, own)
                 if traits}))[1]
        return found

    def _candidates(self, tree, at, limits):
        def named(mapping):
            return {at[rp]: value for rp, value in mapping.items()}

        placed = tree._replace(
            members=[members and named(members) for members in tree.members],
            masks=named(tree.masks), limits=limits,
            parents=None if tree.parents is None else {
                at[rp]: at[parent] for rp, parent in tree.parents.items()})
        return [[(rp, rc, amount) for rp, amounts in allocations.items()
                 for rc, amount in amounts.items()]
                for allocations, _ in candidate_search.candidates(
                    self.request, [placed])]


def _run(root, rooms, filled):
    """Place a candidate in the tree of ``root`` as often as it fits:
    ``rooms`` [(free space, rp, rc, amount)] of its allocations.  The
    count placed."""
    times = [(figures.times_fitting(room, amount), rp, rc, amount)
             for room, rp, rc, amount in rooms]
    count = min(times)[0]
    for _, rp, rc, amount in times:
        placed = filled.placed.setdefault(rc, {})
        placed[rp] = placed.get(rp, 0) + count * amount
    filled.fits[root] = filled.fits.get(root, 0) + count
    filled.short[root] = frozenset(rc for fitting, _, rc, _ in times
                                   if fitting == count)
    return count
