"""Handlers for /resource_providers/{uuid}/usages and /usages."""
from placement import microversion
from placement import microversions
from placement import util
from placement.objects import usage as usage_obj
from placement.schemas import usage as schema


@util.handler
def list_usages(req):
    ctx = util.context(req)
    ctx.can('placement:resource_providers:usages')
    generation, usages = ctx.database.read(usage_obj.for_provider,
                                           req.urlvars['uuid'])
    return util.json_response(req, {'resource_provider_generation': generation,
                                    'usages': usages})


@util.handler
@microversion.since(microversions.USAGES)
def get_total_usages(req):
    ctx = util.context(req)
    by_type = microversion.at_least(req, microversions.CONSUMER_TYPES)
    query = util.validate_query(req, schema.QUERY.at(microversion.get(req)))
    project_id, user_id = query['project_id'], query.get('user_id')
    ctx.can('placement:usages',
            target={'project_id': project_id, 'user_id': user_id})
    if by_type:
        usages = ctx.database.read(usage_obj.for_project_by_type, project_id,
                                   user_id, query.get('consumer_type'))
    else:
        usages = ctx.database.read(usage_obj.for_project, project_id,
                                   user_id)
    return util.json_response(req, {'usages': usages})
