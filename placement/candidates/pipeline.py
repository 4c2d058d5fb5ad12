"""The list's steps after the read: combine, and limit or sample (the
weighed order is weigh.py's); what the list hands to explain when it
found nothing.  stacks.py composes them."""
import dataclasses
import itertools
import random

from placement.candidates import candidate_search
from placement.candidates import weigh


@dataclasses.dataclass
class Answer:
    """The response body (bytes) and how many candidates it holds; with
    none, ``unanswered`` is what was read, to explain it from."""
    body: bytes
    count: int
    unanswered: object = None


@dataclasses.dataclass
class Unanswered:
    """A query's reading, the combiner's Request and every tree read,
    none of which held a candidate."""
    reading: object
    request: object
    trees: list


class Kept:
    """The trees the combiner takes, kept only while it has found no
    candidate: an empty answer is then explained from them, not read
    again."""

    def __init__(self, trees):
        self._trees = trees
        self.trees = []

    def __iter__(self):
        for tree in self._trees:
            if self.trees is not None:
                self.trees.append(tree)
            yield tree

    def watch(self, candidates):
        for candidate in candidates:
            self.trees = None
            yield candidate


def combine(request, trees, conf):
    """The combiner's candidates over ``trees``, as many as configured."""
    breadth_first = (
        conf.allocation_candidates_generation_strategy == 'breadth-first'
        and conf.max_allocation_candidates > 0)
    generated = candidate_search.candidates(request, trees, breadth_first)
    if conf.max_allocation_candidates > 0:
        generated = itertools.islice(generated, conf.max_allocation_candidates)
    return generated


def weighing(conf):
    """Whether the answer's order is weighed (weigh.py)."""
    return conf.candidate_order != weigh.DEFAULT


def rank(candidates, limit, conf, reading):
    """The candidates of the answer, in its order: weighed by
    ``candidate_order`` spread or pack; else the first ``limit``, or with
    ``randomize_allocation_candidates`` a random sample of them in random
    order."""
    if weighing(conf):
        return itertools.islice(
            (item.candidate
             for item in weigh.ranked(candidates, reading, conf)), limit)
    if conf.randomize_allocation_candidates:
        return _sample(candidates, limit)
    return itertools.islice(candidates, limit)


def _sample(iterable, size):
    """A uniformly random sample of ``size`` items (all when None) in
    random order, holding no more than ``size`` items at once."""
    if size is None:
        items = list(iterable)
    else:
        items = []
        for index, item in enumerate(iterable):
            if index < size:
                items.append(item)
            else:
                slot = random.randint(0, index)
                if slot < size:
                    items[slot] = item
    random.shuffle(items)
    return items
