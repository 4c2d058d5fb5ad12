"""Handlers: GET /allocation_candidates and its explanation."""
import logging

from placement import metrics
from placement import microversion
from placement import microversions
from placement import query
from placement import util
from placement.objects import allocation_candidate
from placement.objects import explain
from placement.schemas import allocation_candidate as schema

LOG = logging.getLogger(__name__)


@util.handler
@microversion.since(microversions.ALLOCATION_CANDIDATES)
def list_allocation_candidates(req):
    ctx, version, parsed = _parse(req, 'placement:allocation_candidates:list')
    phases = metrics.CandidatePhases()
    with util.collection_paused():
        # The candidates are freed before the collector resumes, so that
        # it does not walk them all once.
        response, count = _answer(req, ctx, version, parsed, phases)
    phases.done(count)
    return response


def _answer(req, ctx, version, parsed, phases):
    """(the response, how many candidates it holds)."""
    with phases.searching():
        result = ctx.database.read(_search, ctx, parsed, version)
    with phases.rendering():
        response = util.json_response(req, {
            'allocation_requests': _allocation_requests(result, version),
            'provider_summaries': _summaries(result, version),
        })
    return response, len(result.candidates)


@util.handler
@microversion.since(microversions.ALLOCATION_CANDIDATES)
def explain_allocation_candidates(req):
    ctx, version, parsed = _parse(req,
                                  'placement:allocation_candidates:explain')
    # The engine runs here too, with as many small objects.
    with util.collection_paused():
        body = ctx.database.read(explain.explain, parsed, version,
                                 ctx.config.placement)
    return util.json_response(req, body)


def _search(conn, ctx, parsed, version):
    """The candidates, and their absence explained in the log if so
    configured, in one read transaction."""
    result = allocation_candidate.list_candidates(
        conn, parsed, version, ctx.config.placement)
    if not result.candidates and ctx.config.placement.explain_empty_results:
        _log_explanation(ctx, conn, parsed, version, result)
    return result


def _parse(req, rule):
    """Policy, then the query as GET /allocation_candidates takes it:
    (context, microversion, parsed CandidateQuery)."""
    ctx = util.context(req)
    ctx.can(rule)
    version = microversion.get(req)
    util.validate_query(req, schema.QUERY.at(version))
    return ctx, version, query.parse_candidate_query(req.GET, version)


def _log_explanation(ctx, conn, parsed, version, result):
    """Say at INFO why a query found nothing, under both request ids, so
    that a NoValidHost in nova's log leads straight to the reason."""
    try:
        summary = explain.empty_summary(conn, parsed, version,
                                        ctx.config.placement, result)
    except Exception:
        if conn.invalidated:
            # The database went away: let the reader answer 503 as for any
            # other statement, rather than commit on a dead connection.
            raise
        # A diagnostic must never turn the answer into an error.
        LOG.exception('could not explain the empty allocation candidates '
                      'of request %s', ctx.request_id)
        return
    LOG.info('no allocation candidates: request_id: %s '
             'global_request_id: %s: %s', ctx.request_id,
             ctx.global_request_id or '-', summary)


def _allocation_requests(result, version):
    uuids = {rp: provider[0] for rp, provider in result.providers.items()}
    names = result.rc_names
    with_mappings = version >= microversions.MAPPINGS
    # Candidates often share their amounts dicts: render each once (the
    # shared pieces are only serialized, never changed).
    rendered = {}

    def resources(amounts):
        key = id(amounts)
        found = rendered.get(key)
        if found is None:
            found = rendered[key] = {'resources': {
                names[rc]: amount for rc, amount in amounts.items()}}
        return found

    requests = []
    dict_allocations = version >= microversions.DICT_ALLOCATIONS
    for allocations, mappings in result.candidates:
        if dict_allocations:
            body = {'allocations': {
                uuids[rp]: rendered.get(id(amounts)) or resources(amounts)
                for rp, amounts in allocations.items()}}
        else:
            body = {'allocations': [
                {'resource_provider': {'uuid': uuids[rp]},
                 'resources': resources(amounts)['resources']}
                for rp, amounts in allocations.items()]}
        if with_mappings:
            body['mappings'] = {
                suffix: [uuids[rp] for rp in providers]
                for suffix, providers in mappings.items()}
        requests.append(body)
    return requests


def _summaries(result, version):
    with_traits = version >= microversions.CANDIDATE_TRAITS
    with_tree = version >= microversions.NESTED_CANDIDATES
    summaries = {}
    for rp, (uuid, parent, root) in result.providers.items():
        summary = {'resources': result.resources[rp]}
        if with_traits:
            summary['traits'] = result.traits[rp]
        if with_tree:
            summary['parent_provider_uuid'] = parent
            summary['root_provider_uuid'] = root
        summaries[uuid] = summary
    return summaries
