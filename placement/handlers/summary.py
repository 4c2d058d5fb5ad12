"""Handlers of GET /summary and GET /summary/providers: the whole cloud
in one read, and the provider list a page at a time (additions of this
service, for the console and operators' scripts)."""
from placement.handlers import base
from placement.handlers import resource_provider
from placement.objects import provider_page
from placement.objects import summary as summary_obj
from placement.schemas import summary as schema
from placement.web import negotiation
from placement.web import responses
from placement.web import validation

POLICY = 'placement:summary'


@base.handler
def get_summary(req):
    ctx = base.context(req)
    ctx.can(POLICY)
    validation.validate_query(req, schema.QUERY)
    return responses.json_response(req, ctx.database.read(summary_obj.read))


@base.handler
def list_provider_page(req):
    ctx = base.context(req)
    ctx.can(POLICY)
    version = negotiation.get(req)
    params = validation.validate_query(req, schema.PAGE_QUERY.at(version))
    filters = resource_provider.list_filters(req, params, version)
    count, providers = ctx.database.read(
        provider_page.read, filters, params.get('q'),
        params.get('sort', 'name'), int(params.get('offset', 0)),
        int(params.get('limit', schema.PAGE_SIZE)))
    return responses.json_response(req, {'count': count,
                                         'resource_providers': providers})
