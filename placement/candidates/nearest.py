"""The nearest misses of an explanation (GET
/allocation_candidates/explain): the providers and trees that one
check alone keeps out, nearest first.  Judged per tree for the
unsuffixed group (its resources may come from several providers and
from sharing providers), per provider for the others.  A tree's miss is
named on its root, or on the sharing provider that falls short for it
(the same miss for every tree that provider serves).
"""
import heapq
import typing

from placement.candidates import checks as checks_mod

NEAREST = 5


class Miss(typing.NamedTuple):
    """One check alone keeps ``place`` out: a provider, or for the
    unsuffixed group the root of a tree or the sharing provider short
    for it; ``detail`` is what the census read of the provider failing
    the check at ``index`` of the group's stack."""
    place: int
    rank: float
    index: int
    detail: object


def nearest(facts, stacks, of_trees):
    """Up to NEAREST misses of one check, the nearest first: per tree for
    the unsuffixed group (``of_trees``, from ``tree_misses``), per
    provider for the others."""
    misses = {}
    for suffix, stack in stacks.items():
        failures = facts.failures[suffix]
        if suffix == '':
            found = (miss for _, miss in of_trees)
        else:
            found = (Miss(rp, stack[index].nearness(detail), index, detail)
                     for rp, failed in failures.items()
                     if len(failed) == 1
                     for index, detail in failed.items())
        for rp, rank, index, detail in found:
            if rp not in misses:
                misses[rp] = (rank, facts.providers[rp].name, suffix,
                              index, detail, rp)
    return [{'uuid': facts.providers[rp].uuid, 'name': name,
             'group': suffix, 'check': stacks[suffix][index].label,
             'detail': stacks[suffix][index].detail(detail)}
            for _, name, suffix, index, detail, rp in heapq.nsmallest(
                NEAREST, misses.values(), key=lambda miss: miss[:4])]


def pools(facts, served):
    """{root: [provider, ...]}: each tree's providers, then the sharing
    providers serving it (``served``: {sharing provider: roots})."""
    trees = {}
    for provider in facts.providers.values():
        trees.setdefault(provider.root, []).append(provider.id)
    for rp, roots in served.items():
        for root in roots:
            if root in trees and facts.providers[rp].root != root:
                trees[root].append(rp)
    return trees


def tree_misses(facts, stack, failures, pools):
    """(root, Miss) of the trees that miss the unsuffixed group by one
    check, with the sharing providers each draws from (``pools``); see
    ``_placed`` for where the Miss is placed.  A tree where no provider
    passes the group's filters is judged by its providers alone (a miss
    when one fails a single check)."""
    filters = {index for index, check in enumerate(stack)
               if check in checks_mod.filters(stack, spread=True)}
    needs = [[stack.index(check) for check in group]
             for group in checks_mod.needs(stack).values()]
    for root, pool in pools.items():
        eligible = [(rp, failures.get(rp, {})) for rp in pool
                    if not filters & failures.get(rp, {}).keys()]
        if not eligible:
            for rp in pool:
                failed = failures.get(rp, {})
                if len(failed) == 1 and facts.providers[rp].root == root:
                    (index, detail), = failed.items()
                    yield root, Miss(rp, stack[index].nearness(detail),
                                     index, detail)
            continue
        unmet = []
        for need in needs:
            missed = [[index for index in need if index in failed]
                      for _, failed in eligible]
            if all(missed):
                unmet.append((need, missed))
        if len(unmet) != 1:
            continue
        need, missed = unmet[0]
        singles = [Miss(rp, stack[index].nearness(failed[index]), index,
                        failed[index])
                   for index_list, (rp, failed) in zip(missed, eligible)
                   if len(index_list) == 1 for index in index_list]
        if singles:
            yield root, _placed(facts, root, singles)


def group_misses(facts, stack, failures, pools, roots):
    """(root, Miss) of the trees ``roots`` that miss a suffixed group by
    one check of one of their providers or of the sharing providers
    serving them (``pools``); see ``_placed``."""
    for root in roots:
        singles = []
        for rp in pools.get(root, ()):
            failed = failures.get(rp, {})
            if len(failed) == 1:
                (index, detail), = failed.items()
                singles.append(Miss(rp, stack[index].nearness(detail),
                                    index, detail))
        if singles:
            yield root, _placed(facts, root, singles)


def _placed(facts, root, singles):
    """The nearest of ``singles`` (the tree's own providers first: of
    misses as near, one of theirs), placed on the root, or on the sharing
    provider it is on when that has some of the class."""
    miss = min(singles, key=lambda single: single.rank)
    if facts.providers[miss.place].root == root or miss.detail is None:
        # A sharing provider without the class (nothing read of it) is
        # not one the tree draws the class from.
        return miss._replace(place=root)
    return miss


def on_sharing(facts, misses):
    """{root: Miss} of the trees of ``misses`` (from ``tree_misses`` or
    ``group_misses``) whose miss is on a sharing provider outside the
    tree."""
    return {root: miss for root, miss in misses
            if facts.providers[miss.place].root != root}
