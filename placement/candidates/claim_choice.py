"""Choosing candidates for a group of consumers of one shape (POST
/claims): pure, over the options stacks.claim lists (claims.Listing).

Every consumer needs one candidate; the candidates chosen must fit
together in the free space read (the amounts of the consumers on one
provider add up), and their roots obey the group's rule: ``any``,
``distinct`` (each consumer in another tree) or ``same`` (all in one).

First a quick pass in the options' order (best first): ``pack`` fills
each candidate before the next, the other orders give each consumer the
next candidate that fits, round after round.  When it fails, a search
over every multiset of candidates (consumers are alike, so their order
does not matter) decides.  It gives up after ``BUDGET`` steps and the
group is refused: small groups never come near it, but a large group
over candidates of different sizes (one provider or two, on a tree with
little room) can, and is then refused although some mix would fit.
"""
from placement.objects import figures

ANY = 'any'
DISTINCT = 'distinct'
SAME = 'same'
PACK = 'pack'

BUDGET = 200000


class _Room:
    """The free space left as candidates are taken."""

    def __init__(self, free):
        self.free = free
        self.taken = {}

    def fits(self, option):
        taken = self.taken
        for rp, amounts in option.allocations.items():
            have = self.free.get(rp, {})
            for rc, amount in amounts.items():
                if not figures.fits_room_of(
                        have.get(rc, 0) - taken.get((rp, rc), 0), amount):
                    return False
        return True

    def take(self, option, sign=1):
        taken = self.taken
        for rp, amounts in option.allocations.items():
            for rc, amount in amounts.items():
                taken[rp, rc] = taken.get((rp, rc), 0) + sign * amount


def room_after(options, free, chosen):
    """The _Room left in ``free`` once the ``chosen`` options are taken."""
    room = _Room(free)
    for index in chosen:
        room.take(options[index])
    return room


def root_allowed(roots, root, taken):
    """Whether a candidate in the tree of ``root`` may join a group whose
    candidates are in the trees ``taken``, by the ``roots`` rule."""
    if roots == SAME:
        return not taken or root in taken
    if roots == DISTINCT:
        return root not in taken
    return True


def choose(options, free, count, roots=ANY, order=None):
    """[index into ``options``] of the ``count`` candidates chosen, one
    per consumer, or None when the group cannot be placed.  ``free`` is
    {rp: {rc: free space}}."""
    if roots == SAME:
        by_root = {}
        for index, option in enumerate(options):
            by_root.setdefault(option.root, []).append(index)
        # The trees in the order of their best candidates.
        for indexes in by_root.values():
            found = _choose(options, indexes, free, count, roots, order)
            if found is not None:
                return found
        return None
    return _choose(options, range(len(options)), free, count, roots, order)


def _choose(options, indexes, free, count, roots, order):
    indexes = list(indexes)
    if roots == DISTINCT and len({options[i].root for i in indexes}) < count:
        return None
    found = _quick(options, indexes, free, count, roots, order)
    if found is None:
        found = _search(options, indexes, free, count, roots)
    return found


def _quick(options, indexes, free, count, roots, order):
    """The quick pass of the module docstring."""
    room = _Room(free)
    chosen = []
    used_roots = set()
    while len(chosen) < count:
        placed = False
        for index in indexes:
            option = options[index]
            if not root_allowed(roots, option.root, used_roots):
                continue
            while len(chosen) < count and room.fits(option):
                room.take(option)
                chosen.append(index)
                used_roots.add(option.root)
                placed = True
                if order != PACK or roots == DISTINCT:
                    break
        if not placed:
            return None
    return chosen


def _search(options, indexes, free, count, roots):
    """Every multiset of ``count`` candidates of ``indexes``, depth
    first (a stack, not recursion: a group may hold a thousand); a
    candidate that no longer fits never will deeper down."""
    distinct = roots == DISTINCT
    room = _Room(free)
    chosen = []
    used_roots = set()
    # Per depth: [the next position to try, the candidates that no
    # longer fit].
    frames = [[0, set()]]
    steps = 0
    while len(chosen) < count:
        frame = frames[-1]
        at, dead = frame
        while at < len(indexes):
            steps += 1
            if steps > BUDGET:
                return None
            index = indexes[at]
            option = options[index]
            at += 1
            if index in dead or not root_allowed(roots, option.root,
                                                 used_roots):
                continue
            if not room.fits(option):
                dead.add(index)
                continue
            frame[0] = at
            room.take(option)
            chosen.append(index)
            used_roots.add(option.root)
            # A root holds one consumer of a distinct group: the next
            # consumer starts after this candidate.
            frames.append([at if distinct else at - 1, set(dead)])
            break
        else:
            frames.pop()
            if not frames:
                return None
            option = options[chosen.pop()]
            room.take(option, -1)
            used_roots.discard(option.root)
    return chosen
