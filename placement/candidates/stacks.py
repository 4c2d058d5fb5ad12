"""Every use of the engine, declared here as the steps it runs in order,
and nowhere else (as Nomad's scheduler declares its stacks of
iterators): a new use is one more declaration, never a flag.

The steps, and what each hands on:

    read      the trees' rows, as a Plan says,    reader.py, from
              from a source                       database_source.py or
                                                  memory_source.py and
                                                  memory_rows.py
    assemble  rows -> candidate_search.Tree       reader.RequestSearch.trees
    combine   trees -> candidates                 candidate_search.py
    weigh     candidates -> ordered by score      weigh.py, ranking.py
    limit     the first N, or a random sample     pipeline.py
    render    candidates -> response JSON         render.py, summaries.py
    census    providers -> the check each fails   census.py, explain.py
    fill      trees -> instances placed in turn   filling.py, capacity.py

The uses:

    list      read(LIST) -> assemble -> combine -> limit -> render
    weighed   read(WHOLE) -> assemble -> combine -> weigh -> limit -> render;
              with a limit, bounds first, then read -> assemble -> combine
              band by band as the weights need (ranking.py)
    explain   read(EVERY_TREE) -> assemble -> census -> combine per tree
              -> weigh -> words; after an empty list, the list's own
              trees (not read again)
    capacity  per shape read(ROOMS) -> assemble (shapes alike but for
              their amounts: one read, alike.py) -> fill -> per
              aggregate -> stranded
    what if   the capacity stack, each shape's trees changed between
              assemble and fill (changes.py): trees taken out, copies
              read by AS_NEW and added; first, with ``evacuate``, per
              consumer of the trees taken out read(ROOMS) of its shape
              -> assemble -> change -> place one (evacuation.py), the
              placements taken from what every shape then counts; with
              ``survive``, per root its consumers placed alike on the
              others, in an overlay per root (survival.py)
    claim     the list's read (the consumers' holdings free) -> assemble
              -> combine -> weigh or limit (the order asked; as many
              candidates as the group likely needs, then all) -> shuffle
              ties -> choose -> check room -> write, in one write
              transaction; in a fresh one from the read again, of the
              database, while concurrent writers take the room chosen;
              no fit: explain's summary

Which source each reads: list, weighed, explain, capacity and what if
read the worker's snapshot when it has one and it answers the queries
as the database would (``answer``), else the database; claim makes its
first choice from the snapshot too (unless it releases consumers'
holdings), the next ones from the database it writes in.
"""
import dataclasses
import itertools

from placement.candidates import candidate_search
from placement.candidates import capacity as capacity_mod
from placement.candidates import changes
from placement.candidates import claiming
from placement.candidates import claims
from placement.candidates import database_source
from placement.candidates import evacuation
from placement.candidates import checks as checks_mod
from placement.candidates import explain as explain_mod
from placement.candidates import memory_source
from placement.candidates import pipeline
from placement.candidates import ranking
from placement.candidates import reader
from placement.candidates import render
from placement.candidates import summaries as summaries_mod
from placement.candidates import survival
from placement.candidates import tree_rules
from placement.candidates import weigh

# The plans of the read step.  LIST may stop at the limit, reading
# MySQL's and PostgreSQL's trees in pages; WHOLE reads every tree (the
# weigh stage orders them all before the first candidate); EVERY_TREE
# also those root_required keeps out (explain counts them); ROOMS every
# tree with each class's free space (the capacity count); AS_NEW those
# of some trees as if nothing were allocated (the copies a what-if adds).
LIST = reader.Plan(paged=True, stops_early=True, root_filtered=True,
                   rooms=False)
WHOLE = reader.Plan(paged=False, stops_early=True, root_filtered=True,
                    rooms=False)
EVERY_TREE = reader.Plan(paged=False, stops_early=False, root_filtered=False,
                         rooms=False)
ROOMS = reader.Plan(paged=False, stops_early=False, root_filtered=True,
                    rooms=True)
AS_NEW = reader.Plan(paged=False, stops_early=False, root_filtered=True,
                     rooms=True, allocated=False)


def answer(database, snap, queries, use, *args):
    """``use(where, *args)``, ``where`` the read step's source for
    ``queries``: the worker's snapshot ``snap`` when it answers them (no
    transaction is opened), else the database (data.db.Database) in one
    read transaction."""
    where = _in_memory(snap, queries, database.dialect)
    if where is not None:
        return use(where, *args)
    return database.read(_from_database, use, *args)


def _in_memory(snap, queries, dialect):
    """The snapshot ``snap`` as the read step's source for ``queries``,
    when it is loaded and answers each as the database of ``dialect``
    would; else None."""
    if snap is not None and all(memory_source.answers(snap, query, dialect)
                                for query in queries):
        return memory_source.MemorySource(snap, dialect)
    return None


def _from_database(conn, use, *args):
    return use(database_source.DatabaseSource(conn), *args)


def read(where, query, version, plan, served=None, released=()):
    """The read step: a reader.RequestSearch of ``query`` by ``plan`` from
    ``where`` (database_source or memory_source); ``served`` (the
    source's), when read already in this transaction; ``released``:
    consumers whose allocations count as free."""
    names = where.names(query)
    if served is None:
        served = where.served(names)
    return reader.RequestSearch(where, query, version, names, served, plan,
                                released)


def _reading_by(where, plan):
    """The read step by ``plan`` from ``where``, as the uses reading
    several queries call it."""
    def read_from(query, version, served=None, released=()):
        return read(where, query, version, plan, served, released)
    return read_from


def _list_plan(conf):
    """How the list reads: every tree when the weigh stage orders them."""
    return WHOLE if pipeline.weighing(conf) else LIST


def list_candidates(where, query, version, conf):
    """GET /allocation_candidates: the pipeline.Answer to a parsed
    CandidateQuery read from ``where`` (see ``answer``); ``conf`` is the
    [placement] group."""
    reading = read(where, query, version, _list_plan(conf))
    request = reading.request()
    rendering = render.Rendering(version, reading.names.rc_names,
                                 reading.uuids)
    maps_only = not all(group.amounts for group in request.groups)
    chosen, kept = _in_order(query, reading, request, conf)
    for candidate in chosen:
        rendering.add(candidate)
        if maps_only:
            rendering.map_only(candidate)
    reading.close()
    summaries = summaries_mod.summaries(where, reading, rendering.providers)
    answer = pipeline.Answer(rendering.finish(summaries), rendering.count)
    if kept is not None and kept.trees is not None \
            and not query.root_required:
        # Without root_required the list read every tree explain would
        # (band by band it may not have: explain reads them itself).
        answer.unanswered = pipeline.Unanswered(reading, request, kept.trees)
    return answer


def _in_order(query, reading, request, conf):
    """(The candidates of the answer to ``query``, in its order: the
    weigh stage's, band by band with a limit, or the limit step's; the
    pipeline.Kept trees they came from, None band by band)."""
    if pipeline.weighing(conf) and ranking.applies(query, reading, conf):
        return _in_bands(reading, request, conf, query.limit), None
    kept = pipeline.Kept(reading.trees())
    return pipeline.rank(kept.watch(pipeline.combine(request, kept, conf)),
                         query.limit, conf, reading), kept


def _in_bands(reading, request, conf, limit):
    """The weighed list with a limit: the trees read and combined band by
    band, as far as the weights need (ranking.Bands)."""
    bands = ranking.Bands(reading, request, conf, limit)
    for roots in bands.wanted():
        bands.took(candidate_search.candidates(request, reading.trees(roots)),
                   reading)
    return bands.chosen()


def explain(where, query, version, conf, unanswered=None, released=()):
    """GET /allocation_candidates/explain: the JSON body for a parsed
    CandidateQuery, read from ``where`` (see ``answer``); ``unanswered`` is
    the list's pipeline.Unanswered when it found nothing (its trees are
    not read again); ``released`` as ``read`` takes it."""
    if unanswered is None:
        reading = read(where, query, version, EVERY_TREE, released=released)
        request = reading.request()
        trees = list(reading.trees())
        reading.close()
    else:
        reading, request, trees = (unanswered.reading, unanswered.request,
                                   unanswered.trees)
    facts = where.census(reading)
    rules = tree_rules.stack(request, checks_mod.root_required(query))
    dropped, count = explain_mod.dropped(
        request, trees, facts, rules, explain_mod.cap(query, conf),
        searched=unanswered is not None)
    if request.sharing.roots and unanswered is None:
        # A candidate of sharing providers only comes once, from the
        # first tree they serve: the list's own count.
        count = sum(1 for _ in itertools.islice(pipeline.combine(
            request, facts.rooted(trees), conf), query.limit))
    weighed = None
    if pipeline.weighing(conf):
        # After an empty list, the list weighed these trees already.
        weighed = [] if unanswered is not None else list(itertools.islice(
            weigh.ranked(pipeline.combine(request, facts.rooted(trees),
                                          conf), reading, conf),
            query.limit))
    return explain_mod.body(query, reading, facts, rules, dropped, count,
                            weighed, conf)


def count_capacity(where, shapes, version):
    """GET and POST /capacity: capacity.count of ``shapes`` {name:
    CandidateQuery} from ``where`` (see ``answer``), each read by the ROOMS
    plan."""
    return capacity_mod.count(where, shapes, version,
                              _reading_by(where, ROOMS))


def what_if(where, shapes, version, asked):
    """POST /capacity with changes (a changes.Asked): capacity.count of
    ``shapes`` as changed, with the evacuation's and N+1's answers when
    asked, read from ``where`` (see ``answer``: the queries are the
    shapes' and those of ``asked.shapes_of``)."""
    rooms = _reading_by(where, ROOMS)
    changed = changes.resolve(where, asked, _reading_by(where, AS_NEW))
    moved = None
    if asked.evacuate:
        changed, moved = evacuation.evacuate(where, changed, asked.shapes_of,
                                             rooms)
    answer = capacity_mod.count(where, shapes, version, rooms, changed)
    if moved is not None:
        answer['evacuation'] = moved
    if asked.survive:
        answer['survive'] = survival.survive(
            where, changed, asked.survive_member_of, asked.shapes_of, rooms)
    return answer


def claim(database, snap, request, version, conf):
    """POST /claims: the 200 body for ``request`` (a claiming.Claim),
    each choice in a write transaction of ``database`` of its own;
    ``conf`` is the [placement] group.  The first choice reads the
    worker's snapshot ``snap`` when it answers the shape and no
    consumer's holdings are released (a snapshot holds usage, not who
    holds it); once concurrent writers took the room chosen, the next
    read what the database has committed."""
    deadline = claiming.Deadline()
    while True:
        try:
            return database.write(_claim_one_choice, snap, request, version,
                                  conf)
        except claiming.RoomTaken:
            deadline.again()
            snap = None


def _claim_one_choice(conn, snap, request, version, conf):
    """The body of one choice's transaction ``conn``: the candidates read
    as far as the choice is likely to need (claiming.first_read), all of
    them when that was not enough, what the consumers hold now counted
    as free for them (their new allocations replace it); chosen, checked
    and written, or claiming.RoomTaken."""
    wanted = claiming.first_read(request)
    ordered = claims.Ordered(conf, request.order)
    released = claiming.replacing(request)
    committed = database_source.DatabaseSource(conn)
    where = committed if released else (
        _in_memory(snap, [request.shape], committed.dialect) or committed)
    while True:
        listing = claims.ties_shuffled(_best_first(
            where, dataclasses.replace(request.shape, limit=wanted), version,
            ordered, released), request.order)
        chosen = claiming.choose(request, listing)
        if chosen is None and wanted is not None \
                and len(listing.options) == wanted:
            wanted = None
            continue
        if chosen is None:
            raise claiming.no_fit(explain(
                where, request.shape, version, conf,
                released=released)['summary'])
        writes = claiming.writes_fitting(conn, request, listing, chosen)
        return claiming.write(conn, request, version, listing, chosen,
                              writes)


def _best_first(where, query, version, conf, released):
    """The claims.Listing of the candidates of ``query`` (its ``limit``
    first, if any) read from ``where``, in the order ``conf`` names, as
    the list orders them, the allocations of ``released`` counted as
    free."""
    reading = read(where, query, version, _list_plan(conf),
                   released=released)
    request = reading.request()
    found, _ = _in_order(query, reading, request, conf)
    # A candidate's rows are read by the time it comes: its root is known.
    options = [claims.Option(*candidate, weigh.anchor(
        candidate, reading.roots, reading.sharing.roots))
        for candidate in found]
    reading.close()
    return claims.listing(where, reading, options)
