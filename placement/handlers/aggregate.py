"""Handlers: /resource_providers/{uuid}/aggregates (from 1.1)."""
from placement import microversion
from placement import microversions
from placement import util
from placement.objects import aggregate as aggregate_obj
from placement.schemas import aggregate as schema


def _response(req, aggregates, generation):
    body = {'aggregates': list(aggregates)}
    if microversion.at_least(req, microversions.AGGREGATES_GENERATION):
        body['resource_provider_generation'] = generation
    # Last-Modified is now: upstream keeps no time of a membership.
    return util.json_response(req, body)


@util.handler
@microversion.since(microversions.AGGREGATES)
def get_aggregates(req):
    ctx = util.context(req)
    ctx.can('placement:resource_providers:aggregates:list')
    generation, rows = ctx.database.read(aggregate_obj.provider_aggregates,
                                         req.urlvars['uuid'])
    return _response(req, (row.uuid for row in rows), generation)


@util.handler
# The content type is checked first, so a 415 even before 1.1 (upstream).
@util.require_json_content
@microversion.since(microversions.AGGREGATES)
def set_aggregates(req):
    ctx = util.context(req)
    ctx.can('placement:resource_providers:aggregates:update')
    uuid = req.urlvars['uuid']
    data = util.extract_provider_json(
        req, schema.SET_AGGREGATES.at(microversion.get(req)))
    # From 1.19 the body carries the provider generation, which the write
    # checks and bumps.
    if microversion.at_least(req, microversions.AGGREGATES_GENERATION):
        aggregates = data['aggregates']
        client_generation = data['resource_provider_generation']
    else:
        aggregates, client_generation = data, None
    # Stored in canonical form, which is what member_of filters compare.
    aggregates = list(dict.fromkeys(util.normalize_uuid(value)
                                    for value in aggregates))
    generation = ctx.database.write(aggregate_obj.set_aggregates, uuid,
                                    aggregates, client_generation)
    return _response(req, aggregates, generation)
