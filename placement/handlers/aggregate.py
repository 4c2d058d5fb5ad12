"""Handlers: /resource_providers/{uuid}/aggregates (from 1.1)."""
from placement import microversions
from placement.data import uuids
from placement.handlers import base
from placement.handlers import resource_provider
from placement.objects import aggregate as aggregate_obj
from placement.schemas import aggregate as schema
from placement.web import negotiation
from placement.web import responses
from placement.web import validation


def _response(req, aggregates, generation):
    body = {'aggregates': list(aggregates)}
    if negotiation.at_least(req, microversions.AGGREGATES_GENERATION):
        body['resource_provider_generation'] = generation
    # Last-Modified is now: upstream keeps no time of a membership.
    return responses.json_response(req, body)


@base.handler
@negotiation.since(microversions.AGGREGATES)
def get_aggregates(req):
    ctx = base.context(req)
    ctx.can('placement:resource_providers:aggregates:list')
    generation, rows = ctx.database.read(aggregate_obj.provider_aggregates,
                                         req.urlvars['uuid'])
    return _response(req, (row.uuid for row in rows), generation)


@base.handler
# The content type is checked first, so a 415 even before 1.1 (upstream).
@validation.require_json_content
@negotiation.since(microversions.AGGREGATES)
def set_aggregates(req):
    ctx = base.context(req)
    ctx.can('placement:resource_providers:aggregates:update')
    uuid = req.urlvars['uuid']
    data = resource_provider.extract_provider_json(
        req, schema.SET_AGGREGATES.at(negotiation.get(req)))
    # From 1.19 the body carries the provider generation, which the write
    # checks and bumps.
    if negotiation.at_least(req, microversions.AGGREGATES_GENERATION):
        aggregates = data['aggregates']
        client_generation = data['resource_provider_generation']
    else:
        aggregates, client_generation = data, None
    # Stored in canonical form, which is what member_of filters compare.
    aggregates = list(dict.fromkeys(uuids.normalize_uuid(value)
                                    for value in aggregates))
    generation = ctx.database.write(aggregate_obj.set_aggregates, uuid,
                                    aggregates, client_generation)
    return _response(req, aggregates, generation)
