"""What POST /claims chooses from: the candidates of one shape, best
first, each with the root of its tree, and the free space the reader
saw (stacks.claim lists them with the list's own steps: first a few per
consumer, every one when those hold no fit), ties shuffled."""
import dataclasses
import random
import typing

from placement.candidates import weigh


class Option(typing.NamedTuple):
    """One candidate: ``allocations`` {rp: {rc: amount}}, ``mappings``
    {suffix: (rp, ...)} and the ``root`` of its tree (sharing providers
    aside, as weigh.anchor says)."""
    allocations: dict
    mappings: dict
    root: int


@dataclasses.dataclass
class Listing:
    """The candidates best first; ``free`` {rp: {rc: free space}} of the
    providers read; ``uuids`` {rp: uuid} and ``rc_names`` {rc: name} to
    render them with."""
    options: list
    free: dict
    uuids: dict
    rc_names: dict


class Ordered:
    """The [placement] group, but for ``candidate_order``, which the
    request names."""

    def __init__(self, conf, order):
        self._conf = conf
        self.candidate_order = order

    def __getattr__(self, name):
        return getattr(self._conf, name)


def listing(where, reading, options):
    """The Listing of ``options`` best first, from the ``reading`` they
    were combined from, read from ``where``."""
    uuids = dict(reading.uuids)
    missing = {option.root for option in options} - uuids.keys()
    # A root passing none of the shape's filters is not read.
    uuids.update((rp, uuid) for rp, (uuid, _) in where.labels(missing).items())
    return Listing(options, reading.free_space(), uuids,
                   reading.names.rc_names)


def ties_shuffled(listing, order, rng=random):
    """``listing`` with its ties in random order, so that callers asking
    at once start on different providers: in the ``default`` order every
    candidate read is a tie (it is upstream's order, which prefers none);
    the weighed orders have shuffled theirs already (weigh.ordered)."""
    if order != weigh.DEFAULT:
        return listing
    options = list(listing.options)
    rng.shuffle(options)
    return dataclasses.replace(listing, options=options)
