"""Handlers for /resource_providers and /resource_providers/{uuid}."""
import uuid as uuidlib

from placement import microversion
from placement import microversions
from placement import query
from placement import util
from placement.objects import resource_provider as rp_obj
from placement.schemas import resource_provider as schema

POLICY = 'placement:resource_providers:%s'


def _path(uuid):
    return '/resource_providers/' + uuid


def serializer(req):
    """A function giving the API view of a provider dict, shaped by the
    microversion; what depends only on the request is worked out once, so
    that long listings do not repeat it per provider."""
    prefix = req.script_name + '/resource_providers/'
    rels = ['inventories', 'usages'] + [
        rel for version, rel in ((microversions.AGGREGATES, 'aggregates'),
                                 (microversions.TRAITS, 'traits'),
                                 (microversions.ALLOCATIONS_LINK,
                                  'allocations'))
        if microversion.at_least(req, version)]
    tree = microversion.at_least(req, microversions.NESTED_PROVIDERS)

    def serialize(provider):
        href = prefix + provider['uuid']
        links = [{'rel': 'self', 'href': href}]
        links += [{'rel': rel, 'href': href + '/' + rel} for rel in rels]
        data = {'uuid': provider['uuid'], 'name': provider['name'],
                'generation': provider['generation'], 'links': links}
        if tree:
            data['parent_provider_uuid'] = provider['parent_provider_uuid']
            data['root_provider_uuid'] = provider['root_provider_uuid']
        return data
    return serialize


def _modified(*providers):
    return util.newest(*(p['updated_at'] or p['created_at']
                         for p in providers))


def _one(req, provider):
    return util.json_response(req, serializer(req)(provider),
                              last_modified=_modified(provider))


def _parent_uuid(data):
    parent = data.get('parent_provider_uuid')
    return util.normalize_uuid(parent) if parent is not None else None


@util.handler
@util.require_json_content
def create_resource_provider(req):
    ctx = util.context(req)
    ctx.can(POLICY % 'create')
    data = util.extract_json(req, schema.POST.at(microversion.get(req)))
    uuid = (util.normalize_uuid(data['uuid']) if 'uuid' in data
            else str(uuidlib.uuid4()))
    provider = ctx.database.write(rp_obj.create, uuid, data['name'],
                                  _parent_uuid(data))
    # 1.20: the new provider comes back in the body (200, not 201).
    if microversion.at_least(req, microversions.CREATE_RETURNS_PROVIDER):
        response = _one(req, provider)
    else:
        response = util.empty_response(req, status=201)
    response.location = util.location(req, _path(uuid))
    return response


@util.handler
def get_resource_provider(req):
    ctx = util.context(req)
    ctx.can(POLICY % 'show')
    with ctx.database.reader() as conn:
        provider = rp_obj.get(conn, req.urlvars['uuid'])
    return _one(req, provider)


@util.handler
@util.require_json_content
def update_resource_provider(req):
    ctx = util.context(req)
    ctx.can(POLICY % 'update')
    data = util.extract_json(req, schema.PUT.at(microversion.get(req)))
    provider = ctx.database.write(
        rp_obj.update, req.urlvars['uuid'], data['name'],
        _parent_uuid(data),
        change_parent='parent_provider_uuid' in data,
        # 1.37: a provider may change or lose its parent.
        allow_reparent=microversion.at_least(req, microversions.REPARENTING))
    return _one(req, provider)


@util.handler
def delete_resource_provider(req):
    ctx = util.context(req)
    ctx.can(POLICY % 'delete')
    ctx.database.write(rp_obj.delete, req.urlvars['uuid'])
    return util.empty_response(req)


@util.handler
def list_resource_providers(req):
    ctx = util.context(req)
    ctx.can(POLICY % 'list')
    version = microversion.get(req)
    params = util.validate_query(req, schema.LIST_QUERY.at(version))
    filters = {key: util.normalize_uuid(params[key])
               for key in ('uuid', 'in_tree') if key in params}
    if 'name' in params:
        filters['name'] = params['name']
    if 'resources' in params:
        filters['resources'] = query.parse_resources(params['resources'])
    if 'required' in params:
        filters['traits'] = query.required_traits(req.GET, version)
    if 'member_of' in params:
        filters['member_of'] = query.member_of(req.GET, version)
    with util.collection_paused():
        with ctx.database.reader() as conn:
            providers = rp_obj.get_all(conn, **filters)
        return util.json_response(
            req,
            {'resource_providers': list(map(serializer(req), providers))},
            last_modified=_modified(*providers))
