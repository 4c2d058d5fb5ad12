"""POST /claims' use of the engine: the candidates of one shape, best
first, each with the root of its tree, and the free space the reader saw.

The steps are the list's own (pipeline.search, pipeline.combine, then
pipeline.rank or the weigh stage), with every tree read: a group of
consumers may need more of the cloud than one answer's ``limit``.
"""
import dataclasses
import typing

import sqlalchemy as sa

from placement.candidates import lookup
from placement.candidates import pipeline
from placement.candidates import weigh
from placement.data import tables

RP = tables.resource_providers


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


class _Ordered:
    """The [placement] group, but for ``candidate_order``, which the
    request names."""

    def __init__(self, conf, order):
        self._conf = conf
        self.candidate_order = order

    def __getattr__(self, name):
        return getattr(self._conf, name)


def best_first(conn, query, version, conf, order):
    """The Listing of a parsed CandidateQuery in ``order`` (default,
    spread or pack; ``conf`` is the [placement] group)."""
    conf = _Ordered(conf, order)
    reading, request = pipeline.search(
        conn, dataclasses.replace(query, limit=None), version, whole=True)
    found = pipeline.combine(request, reading.trees(), conf)
    if pipeline.weighing(conf):
        options = [Option(*item.candidate, item.root)
                   for item in weigh.ranked(found, reading, conf)]
    else:
        roots, sharing = reading.roots, reading.sharing.roots
        options = [Option(*candidate,
                          weigh.anchor(candidate, roots, sharing))
                   for candidate in pipeline.rank(found, None, conf,
                                                  reading)]
    reading.close()
    uuids = dict(reading.uuids)
    missing = {option.root for option in options} - uuids.keys()
    if missing:
        # A root passing none of the shape's filters is not read.
        uuids.update((rp, uuid) for rp, uuid in lookup.rows_for(
            conn, sa.select(RP.c.id, RP.c.uuid), missing, RP.c.id)
            if rp in missing)
    return Listing(options, weigh.figures(reading.seen), uuids,
                   reading.names.rc_names)
