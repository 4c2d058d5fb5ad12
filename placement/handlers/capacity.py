"""Handlers: GET and POST /capacity, how many more instances fit."""
import urllib.parse

import webob

from placement import errors
from placement import gc_pause
from placement import microversions
from placement import negotiation
from placement import query
from placement import responses
from placement import validation
from placement.candidates import capacity
from placement.handlers import base
from placement.schemas import capacity as schema

RULE = 'placement:capacity'


@base.handler
@negotiation.since(microversions.ALLOCATION_CANDIDATES, extension=True)
def show_capacity(req):
    ctx = base.context(req)
    ctx.can(RULE)
    version = negotiation.get(req)
    validation.validate_query(req, schema.QUERY.at(version))
    shape = query.parse_candidate_query(req.GET, version)
    body = _count(ctx, {'': shape}, version)
    return responses.json_response(req, body['shapes'][''])


@base.handler
@validation.require_json_content
@negotiation.since(microversions.ALLOCATION_CANDIDATES, extension=True)
def count_shapes(req):
    ctx = base.context(req)
    ctx.can(RULE)
    version = negotiation.get(req)
    data = validation.extract_json(req, schema.SHAPES)
    shapes = {name: _parse(name, value, version)
              for name, value in data['shapes'].items()}
    return responses.json_response(req, _count(ctx, shapes, version))


def _count(ctx, shapes, version):
    # The engine runs once per shape, with as many small objects.
    with gc_pause.collection_paused():
        return ctx.database.read(capacity.count, shapes, version)


def _parse(name, shape, version):
    """One shape of a POST (a query string, or an object of its
    parameters) as GET /allocation_candidates parses its query; its 400s
    name the shape."""
    if isinstance(shape, dict):
        shape = urllib.parse.urlencode(shape, doseq=True)
    as_query = webob.Request.blank('/')
    # WSGI holds a query string as the latin-1 text of its bytes.
    as_query.query_string = shape.lstrip('?').encode().decode('latin-1')
    with capacity.named(name):
        try:
            as_query.GET
        except UnicodeDecodeError:
            # Percent-escapes of bytes that are not UTF-8, as in a URL.
            raise errors.BadRequest(
                'The query string is not valid UTF-8.') from None
        validation.validate_query(as_query, schema.QUERY.at(version))
        return query.parse_candidate_query(as_query.GET, version)
