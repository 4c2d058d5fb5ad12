"""Handlers: /traits and /resource_providers/{uuid}/traits (from 1.6)."""
from placement import errors
from placement import microversions
from placement.data import timestamps
from placement.handlers import base
from placement.objects import trait as trait_obj
from placement.schemas import trait as schema
from placement.web import negotiation
from placement.web import responses
from placement.web import validation

_BAD_NAME = ('The trait is invalid. A valid trait must be no longer than '
             '255 characters, start with the prefix "CUSTOM_" and use '
             'following characters: "A"-"Z", "0"-"9" and "_"')
_BAD_NAME_FILTER = ('Badly formatted name parameter. Expected name query '
                    'string parameter in form: '
                    '?name=[in|startswith]:[name1,name2|prefix]. Got: "%s"')


def _empty_response(req, status, last_modified):
    """A bodiless answer; from 1.15 with the trait's cache headers.

    Upstream's Last-Modified here is the trait's created_at alone, and
    GET sends none for a trait without one (left by an old release).
    """
    response = responses.empty_response(req, status)
    if negotiation.at_least(req, microversions.CACHE_HEADERS):
        response.cache_control = 'no-cache'
        if last_modified is not None:
            response.last_modified = timestamps.newest(last_modified)
    return response


def _list_filters(params):
    """Keyword filters of ``trait_obj.list_traits`` from the query."""
    filters = {}
    if 'name' in params:
        operator, colon, value = params['name'].partition(':')
        if not colon or operator not in ('in', 'startswith'):
            raise errors.BadRequest(_BAD_NAME_FILTER % params['name'])
        if operator == 'in':
            filters['name_in'] = value.split(',')
        else:
            filters['prefix'] = value
    if 'associated' in params:
        # Clients send "True" as well as "true".
        associated = params['associated'].lower()
        if associated not in ('true', 'false'):
            raise errors.BadRequest(
                'The query parameter "associated" only accepts "true" or '
                '"false"')
        filters['associated'] = associated == 'true'
    return filters


@base.handler
@negotiation.since(microversions.TRAITS)
def list_traits(req):
    ctx = base.context(req)
    ctx.can('placement:traits:list')
    params = validation.validate_query(req, schema.LIST_TRAITS_QUERY)
    filters = _list_filters(params)
    rows = ctx.database.read(trait_obj.list_traits, **filters)
    return responses.json_response(
        req, {'traits': [row.name for row in rows]},
        last_modified=timestamps.rows_modified(rows))


@base.handler
@negotiation.since(microversions.TRAITS)
def get_trait(req):
    ctx = base.context(req)
    ctx.can('placement:traits:show')
    name = req.urlvars['name']
    row = ctx.database.read(trait_obj.get_trait, name)
    if row is None:
        raise errors.NotFound('No such trait(s): %s.' % name)
    return _empty_response(req, 204, row.created_at)


@base.handler
@negotiation.since(microversions.TRAITS)
def put_trait(req):
    ctx = base.context(req)
    ctx.can('placement:traits:update')
    name = req.urlvars['name']
    if not validation.is_valid(name, schema.CUSTOM_TRAIT_NAME):
        # Clients match this wording rather than the schema's.
        raise errors.BadRequest(_BAD_NAME)
    row, created = ctx.database.write(trait_obj.create_trait, name)
    response = _empty_response(req, 201 if created else 204,
                               row.created_at or timestamps.utcnow())
    response.location = responses.location(req, '/traits/' + name)
    return response


@base.handler
@negotiation.since(microversions.TRAITS)
def delete_trait(req):
    ctx = base.context(req)
    ctx.can('placement:traits:delete')
    ctx.database.write(trait_obj.delete_trait, req.urlvars['name'])
    return responses.empty_response(req)


def _provider_traits_body(names, generation):
    return {'traits': list(names), 'resource_provider_generation': generation}


@base.handler
@negotiation.since(microversions.TRAITS)
def list_traits_for_resource_provider(req):
    ctx = base.context(req)
    ctx.can('placement:resource_providers:traits:list')
    generation, rows = ctx.database.read(trait_obj.provider_traits,
                                         req.urlvars['uuid'])
    return responses.json_response(
        req, _provider_traits_body((row.name for row in rows), generation),
        last_modified=timestamps.rows_modified(rows))


@base.handler
@negotiation.since(microversions.TRAITS)
@validation.require_json_content
def update_traits_for_resource_provider(req):
    ctx = base.context(req)
    ctx.can('placement:resource_providers:traits:update')
    data = validation.extract_json(req, schema.SET_PROVIDER_TRAITS)
    names, generation = ctx.database.write(
        trait_obj.set_provider_traits, req.urlvars['uuid'], data['traits'],
        data['resource_provider_generation'])
    return responses.json_response(
        req, _provider_traits_body(names, generation))


@base.handler
@negotiation.since(microversions.TRAITS)
def delete_traits_for_resource_provider(req):
    ctx = base.context(req)
    ctx.can('placement:resource_providers:traits:delete')
    ctx.database.write(trait_obj.delete_provider_traits, req.urlvars['uuid'])
    return responses.empty_response(req)
