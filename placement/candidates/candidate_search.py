"""Combining request groups into allocation candidates, tree by tree.

Pure functions over plain values: no database, no configuration.  The
reader (``placement/candidates/reader.py``) turns its rows into
the values below; unit and property tests build them by hand.

How one tree (the "anchor") is searched:

1. Each group gets its options in the tree, in the order candidates are
   listed: a suffixed group one provider serving all its classes (its own
   providers by id, then sharing providers); the unsuffixed group one
   provider per resource class, over the product of the classes'
   providers, keeping the choices whose providers together have its
   required traits; a group without resources any provider passing its
   filters.
2. Groups are placed depth first, in group order, each option in turn, so
   candidates come out in the order of the product of the options (the
   order upstream enumerates them).  An option is skipped when it breaks
   a constraint with the groups already placed: the running amount of a
   (provider, class) that two groups share exceeds what is left of it or
   its max_unit; isolation (two suffixed groups on one provider); one
   provider per tree before nested providers; ``same_subtree`` once its
   last group is placed.
3. Before going deeper, the groups still to place are checked: each must
   still have an option that fits, and they must fit together - a
   matching of groups to providers, where a provider takes as many groups
   as its remaining capacity allows (one with isolation).  A branch that
   fails is abandoned, so no invalid partial candidate grows further and
   an answer of no candidates is reached without enumerating.
   (The constraints of steps 2 and 3: ``search_state.py``.)
4. A candidate of sharing providers only is the same from every tree they
   serve: it is given once.

Trees alike are searched once (``_alike``): two trees without sharing
providers whose providers, named by their places in the order the
search meets them (``places``), have the same fits, limits, trait
masks and parents (``kind``), have the same candidates but for those
names, so the second one's are the first's with its own (a cloud of
thousands of alike compute nodes has a few kinds of tree).  The
capacity count keeps its kinds across shapes (filling.Kinds) by the
same ``places`` and ``kind``.
"""
import itertools
import typing

from placement.candidates import search_state


class Group(typing.NamedTuple):
    """A request group: ``amounts`` {rc: amount} (bit i of a class mask
    stands for the i-th class of this dict); ``spread`` for the unsuffixed
    group (one provider per class); ``trait_sets``: how many any-of trait
    sets the unsuffixed group's providers must meet together (bit i of a
    provider's trait mask: it has a trait of set i)."""
    suffix: str
    amounts: dict
    spread: bool = False
    trait_sets: int = 0

    @property
    def full(self):
        """The class mask of a provider serving every class."""
        return (1 << len(self.amounts)) - 1


class Tree(typing.NamedTuple):
    """What the reader found in one tree.

    ``members``: per group, {rp: class mask} of the tree's providers
    passing the group's filters; ``limits``: {(rp, rc): most that may be
    allocated in all} for the classes two groups request; ``masks``: {rp:
    trait mask} (see Group); ``parents``: {rp: parent} with same_subtree,
    else None.
    """
    root: int
    members: list
    limits: dict
    masks: dict
    parents: dict = None


class Sharing(typing.NamedTuple):
    """Sharing providers: ``roots`` {rp: its own root}; ``serving`` per
    group {anchor root: [(rp, class mask), ...]}; ``limits`` and ``masks``
    as in Tree, for the sharing providers."""
    roots: dict
    serving: list
    limits: dict
    masks: dict


class Request(typing.NamedTuple):
    """The request-wide settings of the search: ``isolate`` a
    tree_rules.Isolate (None without isolation), ``same_subtree``
    tree_rules.SameSubtree sets."""
    groups: list
    isolate: object = None
    same_subtree: tuple = ()
    one_per_tree: bool = False     # before nested providers (1.29)
    sharing: Sharing = Sharing({}, [], {}, {})


def candidates(request, trees, breadth_first=False):
    """Generate (allocations {rp: {rc: amount}}, mappings {suffix: (rp,
    ...)}) over ``trees`` (Tree values in root order).

    Breadth-first takes one candidate of each tree in turn, so that a
    bounded number of candidates spreads over many trees.  The amounts
    dicts of the groups are shared between candidates, never changed.
    """
    if len(request.groups) == 1 and not request.one_per_tree \
            and not breadth_first:
        # One group: its options are the candidates (the common case).
        found = _lone(request, trees)
        return _once(found, request.sharing.roots) \
            if request.sharing.roots else found
    if not breadth_first:
        found = _alike(request, trees)
    else:
        found = round_robin(search_tree(request, tree) for tree in trees)
    if request.sharing.roots:
        found = _once(found, request.sharing.roots)
    return found


def search_tree(request, tree):
    """The candidates anchored in ``tree`` (see the module docstring)."""
    options = _options(request, tree)
    if options is None or not _isolable(request, options):
        return
    state = search_state.SearchState(request, tree)
    count = len(options)
    picks = state.picks = [None] * count
    if not state.ahead(options, 0):
        return
    iters = [iter(options[0])]
    while iters:
        depth = len(iters) - 1
        if picks[depth] is not None:
            state.remove(depth, picks[depth])
            picks[depth] = None
        choice = next(iters[depth], None)
        if choice is None:
            iters.pop()
            continue
        if not state.place(depth, choice, picks):
            state.remove(depth, choice)
            continue
        picks[depth] = choice
        if depth + 1 == count:
            yield _candidate(request, picks)
        elif state.ahead(options, depth + 1):
            iters.append(iter(options[depth + 1]))


def _isolable(request, per_group):
    """Whether the suffixed groups' providers, ``per_group`` (per group,
    the providers it may take), are enough for ``group_policy=isolate``
    (always without it)."""
    return request.isolate is None or request.isolate.enough(
        [found or () for group, found in zip(request.groups, per_group)
         if not group.spread])


# A kind of tree is kept with at most this many candidates (a tree with
# more is searched each time), and at most this many kinds per request.
KIND_CANDIDATES = 64
KINDS = 512


def _alike(request, trees):
    """search_tree of each of ``trees`` in turn, each kind of tree
    searched once (see the module docstring)."""
    found_for = {}
    sharing = request.sharing
    for tree in trees:
        if sharing.roots and (
                any(tree.root in by_root for by_root in sharing.serving)
                or not all(sharing.roots.keys().isdisjoint(members)
                           for members in tree.members if members)):
            # What the search knows of sharing providers is the
            # request's, by id.
            yield from search_tree(request, tree)
            continue
        if not _isolable(request, tree.members):
            # Too few providers to isolate the groups (a flat compute
            # asked for two NUMA nodes): no candidate, and no kind.
            continue
        own, at = places(tree)
        key = kind(tree, at, {(at[rp], rc): most
                              for (rp, rc), most in tree.limits.items()})
        kept = found_for.get(key)
        if kept is not None:
            # Place -1 is own[0], -2 own[1], ...
            named = own[::-1].__getitem__
            for allocations, mappings in kept:
                yield ({named(place): amounts
                        for place, amounts in allocations.items()},
                       {suffix: tuple(map(named, ats))
                        for suffix, ats in mappings.items()})
            continue
        found = search_tree(request, tree)
        first = list(itertools.islice(found, KIND_CANDIDATES + 1))
        yield from first
        if len(first) > KIND_CANDIDATES:
            yield from found
        elif len(found_for) < KINDS:
            placed = at.__getitem__
            found_for[key] = [
                ({at[rp]: amounts for rp, amounts in allocations.items()},
                 {suffix: tuple(map(placed, rps))
                  for suffix, rps in mappings.items()})
                for allocations, mappings in first]


def places(tree):
    """(The providers of ``tree`` in the order the search meets them,
    {provider: its place -1, -2, ...}; None stays None): trees alike but
    for their providers' ids have alike places."""
    own = list(dict.fromkeys(itertools.chain(
        *(members or () for members in tree.members), tree.parents or ())))
    at = {rp: -1 - index for index, rp in enumerate(own)}
    at[None] = None
    return own, at


def kind(tree, at, limits, serving=()):
    """What the search of ``tree`` depends on, its providers named by
    their places ``at`` (see ``places``); ``limits`` {(place, rc):
    most} and ``serving``, the sharing providers serving the tree (by
    id), as the caller names them.  The dicts' items are taken in their
    order: alike trees read alike give them alike."""
    place = at.__getitem__
    parents = tree.parents
    return (tuple(None if members is None else
                  (tuple(map(place, members)), tuple(members.values()))
                  for members in tree.members),
            tuple(map(place, tree.masks)), tuple(tree.masks.values()),
            tuple(limits.items()),
            None if parents is None else (tuple(map(place, parents)),
                                          tuple(map(place, parents.values()))),
            serving)


def _lone(request, trees):
    """The candidates of a request of one group: its options."""
    if not request.groups[0].spread:
        for tree in trees:
            for choice in _group_options(request, tree, 0):
                yield _candidate(request, (choice,))
        return
    for tree in trees:
        # Each option of the unsuffixed group has allocations of its own
        # and makes one candidate: they are the candidate's.
        for allocations, providers in _group_options(request, tree, 0):
            yield allocations, {'': providers}


def _options(request, tree):
    """Per group its options in ``tree`` (step 1), or None when a group
    has none."""
    options = []
    for index in range(len(request.groups)):
        found = _group_options(request, tree, index)
        if not found:
            return None
        options.append(found)
    return options


def unserved(request, tree):
    """The index of the first group without an option in ``tree``, or
    None when every group has one."""
    for index in range(len(request.groups)):
        if not _group_options(request, tree, index):
            return index
    return None


def _group_options(request, tree, index):
    """The options of group ``index`` in ``tree``: a suffixed option is
    a provider; an unsuffixed one is (allocations, providers)."""
    group = request.groups[index]
    mine = tree.members[index] or {}
    shared = request.sharing.serving[index].get(tree.root, ()) \
        if request.sharing.serving else ()
    if group.spread:
        return _spread(group, mine, shared, tree.masks,
                       request.sharing.masks)
    if not group.amounts:
        return list(mine)
    full = group.full
    found = [rp for rp, fit in mine.items() if fit == full]
    found += [rp for rp, fit in shared if fit == full]
    return found


def _spread(group, mine, shared, masks, shared_masks):
    """Ways to serve the unsuffixed group: one provider per class."""
    wanted = (1 << group.trait_sets) - 1
    if len(mine) == 1 and not shared:
        # A tree of one provider (the flat case): that provider or none.
        [(rp, fit)] = mine.items()
        if fit != group.full or wanted and masks.get(
                rp, 0) | shared_masks.get(rp, 0) != wanted:
            return []
        return [({rp: group.amounts}, (rp,))]
    per_class = []
    classes = list(group.amounts)
    for bit in range(len(classes)):
        found = [rp for rp, fit in mine.items() if fit >> bit & 1]
        found += [rp for rp, fit in shared if fit >> bit & 1]
        if not found:
            return []
        per_class.append(found)
    result = []
    for picks in itertools.product(*per_class):
        providers = tuple(dict.fromkeys(picks))
        if wanted:
            have = 0
            for rp in providers:
                have |= masks.get(rp, 0) | shared_masks.get(rp, 0)
            if have != wanted:
                continue
        if len(providers) == 1:
            # One provider serves every class (the common case): the
            # group's own dict, shared by all such candidates.
            result.append(({providers[0]: group.amounts}, providers))
            continue
        allocations = {}
        for rc, rp in zip(classes, picks):
            amounts = allocations.get(rp)
            if amounts is None:
                allocations[rp] = {rc: group.amounts[rc]}
            else:
                amounts[rc] = group.amounts[rc]
        result.append((allocations, providers))
    return result


def _candidate(request, picks):
    """The candidate of one pick per group."""
    mappings = {}
    allocations = {}
    copied = set()
    for group, pick in zip(request.groups, picks):
        if group.spread:
            mappings[''] = pick[1]
            parts = pick[0]
        else:
            mappings[group.suffix] = (pick,)
            if not group.amounts:
                continue
            parts = {pick: group.amounts}
        for rp, amounts in parts.items():
            target = allocations.get(rp)
            if target is None:
                allocations[rp] = amounts
                continue
            # A provider gets its own dict only when a second group
            # allocates from it.
            if rp not in copied:
                copied.add(rp)
                target = allocations[rp] = dict(target)
            for rc, amount in amounts.items():
                target[rc] = target.get(rc, 0) + amount
    return allocations, mappings


def _once(candidates, sharing):
    """``candidates`` without the repeats of those made of ``sharing``
    providers only (step 4), in the order they come."""
    seen = set()
    for candidate in candidates:
        allocations, mappings = candidate
        if all(rp in sharing for providers in mappings.values()
               for rp in providers):
            key = (tuple(sorted((rp, tuple(sorted(amounts.items())))
                                for rp, amounts in allocations.items())),
                   tuple(sorted(mappings.items())))
            if key in seen:
                continue
            seen.add(key)
        yield candidate


def round_robin(generators):
    """One item of each of ``generators`` in turn, until all are done
    (breadth-first); items are never None."""
    generators = [iter(gen) for gen in generators]
    while generators:
        alive = []
        for gen in generators:
            item = next(gen, None)
            if item is not None:
                yield item
                alive.append(gen)
        generators = alive
