"""N+1, POST /capacity's ``survive``: for each root in scope, whether
the consumers it holds could go elsewhere were it lost.

Each root's loss is played on its own from the same cloud (as changed by
``without``, ``with`` and the evacuation): its consumers placed one
after another in order of uuid, each first fit in the default order on
the other trees, as the evacuation places them (evacuation.py).  One
free-space state serves every run; a run's placements go to an overlay
dropped after it, and the consumers' shapes are read once for all runs.
The roots of sharing providers are not in scope (their loss is not a
host's), nor the copies ``with`` adds (they hold nothing).  A consumer
the evacuation moved counts as used space where it landed and is not
moved again.
"""
import collections

from placement.candidates import changes
from placement.candidates import evacuation


def survive(where, changed, member_of, shapes_of, read):
    """The ``survive`` answer {'failing': [{'uuid', 'nowhere'}]}: the
    roots in scope (every one, or those with a provider in aggregate
    ``member_of``) whose consumers would not all find room elsewhere,
    in order of uuid, read from ``where`` (the read step's source);
    ``shapes_of`` and ``read`` as the evacuation takes them."""
    roots = _in_scope(where, changed, member_of)
    held, parents = evacuation.holdings(where, roots)
    dropped = where.consumers_of_type(sorted(held), evacuation.DROPPED_TYPE)
    runs = collections.defaultdict(list)
    for uuid in sorted(held):
        if uuid in dropped:
            continue
        consumer = held[uuid]
        parts = collections.defaultdict(dict)
        for rp, amounts in consumer.moved.items():
            parts[_root(rp, parents)][rp] = amounts
        for root, part in parts.items():
            # Its part on the other roots stays, as what it holds
            # outside them does.
            kept = consumer.kept | (consumer.moved.keys() - part.keys())
            runs[root].append((uuid, part, kept))
    reach = where.reaches(sorted(
        {rp for run in runs.values() for _, _, kept in run for rp in kept}))
    names = where.class_names()
    shapes = evacuation.Shapes(where, changed, read)
    failing = {}
    for root, run in runs.items():
        free = collections.ChainMap({}, shapes.free)
        nowhere = 0
        for uuid, part, kept in run:
            query = shapes_of.get(uuid) or evacuation.recorded(
                names, part, parents)
            found = shapes.of(query).place_in(
                free, evacuation.reaching(changed, reach, kept), root)
            nowhere += found is None
        if nowhere:
            failing[root] = nowhere
    labels = evacuation.labelled(where, changed, set(failing))
    return {'failing': sorted(({'uuid': labels[root], 'nowhere': nowhere}
                               for root, nowhere in failing.items()),
                              key=lambda entry: entry['uuid'])}


def _root(rp, parents):
    """The root of provider ``rp`` ({rp: parent} holding its tree)."""
    while parents.get(rp) is not None:
        rp = parents[rp]
    return rp


def _in_scope(where, changed, member_of):
    """{root id} of the trees whose loss is played: every root left but
    those of sharing providers; with a provider in aggregate
    ``member_of`` (a uuid) if given."""
    if member_of is None:
        roots = set(where.roots())
    else:
        found = where.aggregate_roots([member_of])
        changes.known([member_of], found, 'survive.member_of', 'aggregate')
        roots = found[member_of]
    return roots - where.sharing_roots() - changed.out
