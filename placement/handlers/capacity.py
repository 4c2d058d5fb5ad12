"""Handlers: GET and POST /capacity, how many more instances fit."""
from placement import microversions
from placement.candidates import query
from placement.handlers import base
from placement.schemas import capacity as schema
from placement.web import gc_pause
from placement.web import negotiation
from placement.web import responses
from placement.web import shapes
from placement.web import validation

RULE = 'placement:capacity'


@base.handler
@negotiation.since(microversions.ALLOCATION_CANDIDATES)
def show_capacity(req):
    ctx = base.context(req)
    ctx.can(RULE)
    version = negotiation.get(req)
    validation.validate_query(req, schema.QUERY.at(version))
    shape = query.parse_candidate_query(req.GET, version)
    # The answer is freed before the collector resumes, so that it does
    # not walk it all once.
    with gc_pause.collection_paused():
        return responses.json_response(req, shapes.count(
            ctx.database, {'': shape}, version,
            snap=ctx.snapshot())['shapes'][''])


@base.handler
@validation.require_json_content
@negotiation.since(microversions.ALLOCATION_CANDIDATES)
def count_shapes(req):
    ctx = base.context(req)
    ctx.can(RULE)
    version = negotiation.get(req)
    data = validation.extract_json(req, schema.SHAPES)
    parsed = shapes.parse_all(data['shapes'], version)
    asked = shapes.parse_changes(data)
    with gc_pause.collection_paused():
        return responses.json_response(req, shapes.count(
            ctx.database, parsed, version, asked, ctx.snapshot()))
