"""The rules over whole trees, each with its logic and its words.

After the checks of each group (``checks.group_stack``) a tree must
serve every group with its sharing providers (``GroupInTree``), pass
``root_required`` (``RootRequired``) and let the groups be put together
(``Combining``: isolation, ``same_subtree``, capacity summed across
groups, the unsuffixed group's required traits over the providers it
uses).  The combiner (``search_state.py``) calls ``Isolate`` and
``SameSubtree`` as it places groups, the explanation calls
``RootRequired``, and the explanation words every rule by the same
object: ``stack`` lists them in the order a tree meets them.
"""
import typing

from placement.candidates import checks


class TreeRule:
    """A step over whole trees: ``label`` names it; ``reason`` % {'n':
    the trees in words, 'fail'/'are': verbs in agreement} words it."""

    def __init__(self, label, reason):
        self.label = label
        self.reason = reason

    def clause_for(self, count, noun):
        """The words for ``count`` trees (``noun``: 'trees', or
        'providers' where each provider is a tree of its own)."""
        one = count == 1
        return self.reason % {
            'n': '%s %s' % (checks.number(count), noun[:-1] if one else noun),
            'fail': 'fails' if one else 'fail',
            'are': 'is' if one else 'are'}


class GroupInTree(TreeRule):
    """A group served in one tree with its sharing providers: a tree
    where the combiner finds the group no option drops out here
    (``candidate_search.unserved``)."""

    def __init__(self, suffix):
        super().__init__(
            "group '%s' in one tree with its sharing providers" % suffix,
            "%%(n)s cannot serve group '%s'" % suffix)

    def short_sharing(self, count, noun, name, check, found):
        """The words for ``count`` trees that cannot serve the group
        because the sharing provider ``name`` misses ``check`` (``found``:
        what the explanation read of it)."""
        return '%s because %s sharing provider %s %s' % (
            self.clause_for(count, noun), 'its' if count == 1 else 'their',
            name, check.shortfall(found))


class RootRequired(TreeRule):
    """``root_required`` over whole trees: a tree goes with its root,
    which the provider check ``check`` (checks.RootRequired) judges."""

    def __init__(self, check):
        super().__init__(check.label, '%%(n)s %%(fail)s %s' % check.label)
        self.check = check

    @staticmethod
    def keeps(root, failing):
        """Whether the tree of ``root`` passes, ``failing`` being the
        roots that fail the check."""
        return root not in failing


class Isolate:
    """``group_policy=isolate``: a provider serves at most ``slots``
    suffixed groups of a candidate."""
    label = 'group_policy=isolate'
    slots = 1

    def admits(self, taken):
        """Whether a provider already serving ``taken`` suffixed groups
        may serve one more."""
        return taken < self.slots

    def enough(self, choices):
        """Whether the suffixed groups' ``choices`` (per group, the
        providers it may take) hold enough distinct providers to isolate
        them all: a tree of one provider fails at once, before any
        search (the flat computes of a request for two NUMA nodes)."""
        return len(set().union(*choices)) * self.slots >= len(choices)


class SameSubtree:
    """One ``same_subtree`` set: ``suffixes`` as the query names them,
    ``indexes`` the combiner's groups of those suffixes; judged once its
    last group is placed."""

    def __init__(self, suffixes, indexes):
        self.label = 'same_subtree=' + ','.join(suffixes)
        self.indexes = indexes
        self.last = max(indexes)

    def holds(self, parents, picks, index, choice):
        """Whether the providers picked for the set (``picks``, with
        ``choice`` for group ``index``) lie in one subtree of the tree
        given as {rp: parent}: one of them is an ancestor of (or is)
        all the others."""
        return in_one_subtree([choice if i == index else picks[i]
                               for i in self.indexes], parents)


def in_one_subtree(providers, parents):
    """Whether ``providers`` lie in one subtree of the tree given as {rp:
    parent}: one of them is an ancestor of (or is) all the others."""
    return any(all(_descends(parents, rp, top) for rp in providers)
               for top in providers)


def _descends(parents, rp, ancestor):
    while rp is not None:
        if rp == ancestor:
            return True
        rp = parents.get(rp)
    return False


def spanning(query):
    """The combiner's rules across groups of ``query``: (its Isolate or
    None, its SameSubtree sets)."""
    index = {suffix: i for i, suffix in enumerate(query.groups)}
    isolate = Isolate() if query.group_policy == 'isolate' else None
    return isolate, tuple(
        SameSubtree(suffixes, tuple(index[suffix] for suffix in suffixes))
        for suffixes in query.same_subtree)


class Combining(TreeRule):
    """The groups put together by the combiner, worded by the rules of
    its ``request`` (candidate_search.Request) that tie them."""

    def __init__(self, request):
        rules = []
        if request.isolate is not None:
            rules.append(request.isolate.label)
        rules += [rule.label for rule in request.same_subtree]
        if len(request.groups) > 1:
            rules.append('capacity summed across groups')
        if any(group.spread and group.trait_sets
               for group in request.groups):
            rules.append('required traits over the providers used')
        label = 'combining groups' + (
            ' (%s)' % ', '.join(rules) if rules else '')
        super().__init__(label, '%%(n)s %%(are)s left without a candidate '
                         'by %s' % label)


class Stack(typing.NamedTuple):
    """The steps over whole trees, in order: each group served in one
    tree with its sharing providers, ``root_required`` (None without
    it), then the combiner putting the groups together."""
    groups: list
    root: RootRequired
    combining: Combining

    @property
    def steps(self):
        return [*self.groups, *filter(None, [self.root]), self.combining]


def stack(request, root_check):
    """The Stack of the combiner's ``request``; ``root_check``: the
    query's checks.RootRequired, or None."""
    return Stack([GroupInTree(group.suffix) for group in request.groups],
                 None if root_check is None else RootRequired(root_check),
                 Combining(request))
