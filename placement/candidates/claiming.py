"""The steps of POST /claims (stacks.claim composes them, each choice in
a write transaction of its own): choose one candidate per consumer
(claim_choice.py), check the choice and write it through the allocation
write path (objects/allocation.py: its provider locks in uuid order,
consumer generations and capacity check), all or nothing.

The candidates are read before the providers are locked (from the
worker's snapshot, taken before the transaction began, or from the
database), so a writer committing in between may take the room a
choice counted on.  So the choice is first checked under the
providers' locks by the write path's own capacity check
(``allocation.check_room``, which writes nothing).  Accepted, it is
written.  Refused (``RoomTaken``), its transaction ends, with the locks
it took, and the choice is made again in a fresh one from what the
database has now committed, until ``TIME_BOUND`` has passed.  Locks of
a refused choice kept to the next would be taken out of order and
deadlock with another claim doing the same.  On SQLite the transaction
holds the database's one write lock from its start, so a read of the
database is current and no choice made from it is refused.

A group that does not fit is the no-fit 409, worded as the explanation
of the shape sums it up.
"""
import dataclasses
import time

from placement import errors
from placement import microversions
from placement.candidates import claim_choice
from placement.metrics import metrics
from placement.objects import allocation as alloc_obj
from placement.objects import consumer as consumer_obj

# Seconds a claim keeps choosing again after concurrent writers took the
# room of its choice (callers spread over shuffled candidates may each
# be refused a few times before the room settles; a loaded machine makes
# each round slow).
TIME_BOUND = 30.0
# The candidates read first per consumer, and at least.
FIRST_READ_PER_CONSUMER = 4
FIRST_READ = 20


@dataclasses.dataclass
class Claim:
    """What POST /claims asks: the parsed ``shape`` (a CandidateQuery),
    the consumers as ConsumerWrite values (their allocations are chosen
    here), the ``roots`` rule, the ``order`` and how many ``alternates``
    to return per consumer."""
    shape: object
    consumers: list
    roots: str
    order: str
    alternates: int


class RoomTaken(Exception):
    """A choice refused under the providers' locks: a concurrent writer
    took its room.  It ends the transaction, which wrote nothing."""


class Deadline:
    """How long a claim keeps choosing again after concurrent writers
    took the room of its choice (``TIME_BOUND`` from its start)."""

    def __init__(self):
        self.at = time.monotonic() + TIME_BOUND

    def again(self):
        """Count one more choice made again; 409 once past the bound."""
        metrics.count_retry('write', errors.ROOM_TAKEN)
        if time.monotonic() > self.at:
            raise errors.Conflict(
                'Concurrent claims kept taking the room chosen; try '
                'again.', code=errors.CONCURRENT_UPDATE,
                kind=errors.CONCURRENT)


def first_read(request):
    """How many candidates to read first for ``request``: a few per
    consumer, or every one when alternates are asked (they are the
    best of all that are left)."""
    if request.alternates:
        return None
    return max(FIRST_READ, FIRST_READ_PER_CONSUMER * len(request.consumers))


def replacing(request):
    """The consumers of ``request`` given with a generation: existing
    ones, whose new allocations replace what they hold (the read counts
    that as free for them)."""
    return tuple(consumer.uuid for consumer in request.consumers
                 if consumer.generation is not None)


def choose(request, listing):
    """The index in ``listing.options`` of each consumer's choice, or
    None when the group does not fit (claim_choice.choose)."""
    return claim_choice.choose(listing.options, listing.free,
                               len(request.consumers), request.roots,
                               request.order)


def no_fit(summary):
    """The 409 of a group that does not fit, worded as the explanation's
    ``summary`` of the shape."""
    return errors.Conflict(summary, code=errors.CLAIM_NO_FIT,
                           kind=errors.CAPACITY)


def writes_fitting(conn, request, listing, chosen):
    """The ConsumerWrite values of the ``chosen`` options, once the write
    path's own capacity check passed them under the providers' locks
    (allocation.check_room, which writes nothing); RoomTaken when a
    concurrent writer took the room."""
    writes = [dataclasses.replace(
        consumer, allocations=_named(listing, listing.options[index]))
        for consumer, index in zip(request.consumers, chosen)]
    try:
        alloc_obj.check_room(conn, writes)
    except errors.Conflict as error:
        if not error.lacks_room:
            raise
        raise RoomTaken() from None
    return writes


def write(conn, request, version, listing, chosen, writes):
    """Write ``writes`` (checked: the write cannot be refused the room)
    and answer POST /claims' 200 body."""
    alloc_obj.write(conn, writes)
    return _answer(conn, request, version, listing, chosen)


def _named(listing, option):
    """{provider uuid: {class name: amount}} of an Option."""
    uuids, names = listing.uuids, listing.rc_names
    return {uuids[rp]: {names[rc]: amount for rc, amount in amounts.items()}
            for rp, amounts in option.allocations.items()}


def _answer(conn, request, version, listing, chosen):
    consumers = [consumer.uuid for consumer in request.consumers]
    generations = consumer_obj.generations(conn, consumers)
    allocations = {}
    for uuid, index in zip(consumers, chosen):
        option = listing.options[index]
        allocations[uuid] = {
            'allocations': _resources(_named(listing, option)),
            'consumer_generation': generations[uuid],
            'root': listing.uuids[option.root]}
    alternates = _alternates(listing, chosen, request, version)
    return {'allocations': allocations,
            'alternates': {uuid: alternates for uuid in consumers}}


def _resources(named):
    return {uuid: {'resources': amounts} for uuid, amounts in named.items()}


def _alternates(listing, chosen, request, version):
    """The next best candidates none of the consumers got that still fit
    beside the claims (with ``same``, in the group's tree; with
    ``distinct``, in none of its trees), as GET /allocation_candidates
    renders an allocation request."""
    if not request.alternates:
        return []
    options = listing.options
    taken = {options[index].root for index in chosen}
    room = claim_choice.room_after(options, listing.free, chosen)
    chosen = set(chosen)
    found = []
    for index, option in enumerate(options):
        if len(found) == request.alternates:
            break
        if index in chosen or not room.fits(option) \
                or not claim_choice.root_allowed(request.roots, option.root,
                                                 taken):
            continue
        entry = {'allocations': _resources(_named(listing, option))}
        if version >= microversions.MAPPINGS:
            uuids = listing.uuids
            entry['mappings'] = {suffix: [uuids[rp] for rp in providers]
                                 for suffix, providers
                                 in option.mappings.items()}
        found.append(entry)
    return found
