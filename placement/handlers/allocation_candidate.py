"""Handlers: GET /allocation_candidates and its explanation."""
import logging

from placement import microversions
from placement.candidates import query
from placement.candidates import stacks
from placement.handlers import base
from placement.metrics import metrics
from placement.schemas import allocation_candidate as schema
from placement.web import gc_pause
from placement.web import negotiation
from placement.web import responses
from placement.web import validation

LOG = logging.getLogger(__name__)


@base.handler
@negotiation.since(microversions.ALLOCATION_CANDIDATES)
def list_allocation_candidates(req):
    ctx, version, parsed = _parse(req, 'placement:allocation_candidates:list')
    phases = metrics.CandidatePhases()
    with gc_pause.collection_paused():
        # The candidates are freed before the collector resumes, so that
        # it does not walk them all once.
        response, count = _answer(req, ctx, version, parsed, phases)
    phases.done(count)
    return response


def _answer(req, ctx, version, parsed, phases):
    """(the response, how many candidates it holds)."""
    with phases.searching():
        # Current before the read begins: it sees every acknowledged write.
        answer = stacks.answer(ctx.database, ctx.snapshot(), [parsed],
                               _search, ctx, parsed, version)
    with phases.rendering():
        response = responses.encoded_json_response(req, answer.body)
    return response, answer.count


@base.handler
@negotiation.since(microversions.ALLOCATION_CANDIDATES)
def explain_allocation_candidates(req):
    ctx, version, parsed = _parse(req,
                                  'placement:allocation_candidates:explain')
    # The engine runs here too, with as many small objects.
    with gc_pause.collection_paused():
        body = stacks.answer(ctx.database, ctx.snapshot(), [parsed],
                             stacks.explain, parsed, version,
                             ctx.config.placement)
    return responses.json_response(req, body)


def _search(where, ctx, parsed, version):
    """The candidates read from ``where``, and their absence explained in
    the log if so configured, from one reading."""
    answer = stacks.list_candidates(where, parsed, version,
                                    ctx.config.placement)
    if not answer.count and ctx.config.placement.explain_empty_results:
        _log_explanation(ctx, where, parsed, version, answer.unanswered)
    return answer


def _parse(req, rule):
    """Policy, then the query as GET /allocation_candidates takes it:
    (context, microversion, parsed CandidateQuery)."""
    ctx = base.context(req)
    ctx.can(rule)
    version = negotiation.get(req)
    validation.validate_query(req, schema.QUERY.at(version))
    return ctx, version, query.parse_candidate_query(req.GET, version)


def _log_explanation(ctx, where, parsed, version, unanswered):
    """Say at INFO why a query found nothing, under both request ids, so
    that a NoValidHost in nova's log leads straight to the reason."""
    try:
        summary = stacks.explain(where, parsed, version,
                                  ctx.config.placement,
                                  unanswered)['summary']
    except Exception:
        if where.lost():
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
