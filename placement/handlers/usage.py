"""Handlers for /resource_providers/{uuid}/usages and /usages."""
from placement import microversions
from placement.handlers import base
from placement.objects import usage as usage_obj
from placement.schemas import usage as schema
from placement.web import negotiation
from placement.web import responses
from placement.web import validation


@base.handler
def list_usages(req):
    ctx = base.context(req)
    ctx.can('placement:resource_providers:usages')
    generation, usages = ctx.database.read(usage_obj.for_provider,
                                           req.urlvars['uuid'])
    return responses.json_response(
        req, {'resource_provider_generation': generation, 'usages': usages})


@base.handler
@negotiation.since(microversions.USAGES)
def get_total_usages(req):
    ctx = base.context(req)
    by_type = negotiation.at_least(req, microversions.CONSUMER_TYPES)
    query = validation.validate_query(
        req, schema.QUERY.at(negotiation.get(req)))
    project_id, user_id = query['project_id'], query.get('user_id')
    ctx.can('placement:usages',
            target={'project_id': project_id, 'user_id': user_id})
    if by_type:
        usages = ctx.database.read(usage_obj.for_project_by_type, project_id,
                                   user_id, query.get('consumer_type'))
    else:
        usages = ctx.database.read(usage_obj.for_project, project_id,
                                   user_id)
    return responses.json_response(req, {'usages': usages})
