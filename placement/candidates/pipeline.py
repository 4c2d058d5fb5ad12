"""GET /allocation_candidates from request to response, one way:
names -> checks -> read -> combine -> rank (weigh) -> render (see
__init__); a weighed answer with a limit reads the trees band by band in
the order of their weights (ranking.py)."""
import dataclasses
import itertools
import random

from placement.candidates import candidate_search
from placement.candidates import names as names_mod
from placement.candidates import ranking
from placement.candidates import reader as reader_mod
from placement.candidates import render
from placement.candidates import summaries as summaries_mod
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


class _Kept:
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


def search(conn, query, version, explain=False, whole=False):
    """The request's reading context and the combiner's Request
    (``whole``: every tree is read, see reader.RequestSearch)."""
    names = names_mod.Names(conn, query)
    found = reader_mod.RequestSearch(conn, query, version, names, explain,
                                     whole)
    return found, found.request()


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


def list_candidates(conn, query, version, conf):
    """The Answer to a parsed CandidateQuery; ``conf`` is the [placement]
    group."""
    reading, request = search(conn, query, version,
                              whole=weighing(conf))
    rendering = render.Rendering(version, reading.names.rc_names,
                                 reading.uuids)
    maps_only = not all(group.amounts for group in request.groups)
    if weighing(conf) and ranking.applies(query, reading, conf):
        read = None
        chosen = ranking.ranked(reading, request, conf, query.limit)
    else:
        read = _Kept(reading.trees())
        chosen = rank(read.watch(combine(request, read, conf)), query.limit,
                      conf, reading)
    for candidate in chosen:
        rendering.add(candidate)
        if maps_only:
            rendering.map_only(candidate)
    reading.close()
    summaries = summaries_mod.summaries(conn, reading, rendering.providers)
    answer = Answer(rendering.finish(summaries), rendering.count)
    if read is not None and read.trees is not None \
            and not query.root_required:
        # Without root_required the list read every tree the explanation
        # would (band by band it may not have: it is read again).
        answer.unanswered = Unanswered(reading, request, read.trees)
    return answer


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
