"""Handlers for /resource_providers and /resource_providers/{uuid}."""
import functools
import operator
import re
import types
import uuid as uuidlib

import orjson

from placement import errors
from placement import microversions
from placement.candidates import query
from placement.candidates import query_filters
from placement.data import timestamps
from placement.data import uuids
from placement.handlers import base
from placement.memory import provider_list
from placement.objects import resource_provider as rp_obj
from placement.schemas import resource_provider as schema
from placement.web import gc_pause
from placement.web import negotiation
from placement.web import responses
from placement.web import validation

POLICY = 'placement:resource_providers:%s'


def _path(uuid):
    return '/resource_providers/' + uuid


def extract_provider_json(req, body_schema):
    """``validation.extract_json`` for a write to the provider of the URL:
    as upstream, a provider that does not exist is a 404 even when the
    body is bad too (looked up only then, so a good body costs no read).
    """
    try:
        return validation.extract_json(req, body_schema)
    except errors.BadRequest:
        base.context(req).database.read(rp_obj.get, req.urlvars['uuid'])
        raise


def _view_shape(req):
    """What the API view of a provider depends on besides the provider:
    the links' prefix, their relations and whether the tree is shown (the
    last two by microversion)."""
    rels = ('inventories', 'usages') + tuple(
        rel for version, rel in ((microversions.AGGREGATES, 'aggregates'),
                                 (microversions.TRAITS, 'traits'),
                                 (microversions.ALLOCATIONS_LINK,
                                  'allocations'))
        if negotiation.at_least(req, version))
    return (req.script_name + '/resource_providers/', rels,
            negotiation.at_least(req, microversions.NESTED_PROVIDERS))


def serializer(req):
    """A function giving the API view of a provider row, shaped by the
    microversion."""
    return _serializer(*_view_shape(req))


def _serializer(prefix, rels, tree):
    def serialize(provider):
        href = prefix + provider.uuid
        links = [{'rel': 'self', 'href': href}]
        links += [{'rel': rel, 'href': href + '/' + rel} for rel in rels]
        data = {'uuid': provider.uuid, 'name': provider.name,
                'generation': provider.generation, 'links': links}
        if tree:
            data['parent_provider_uuid'] = provider.parent_provider_uuid
            data['root_provider_uuid'] = provider.root_provider_uuid
        return data
    return serialize


# Stand-ins for a provider's values, for the listing's template: orjson
# writes each as "\u0000" and a letter, which the rest of the template
# (the links' prefix) cannot contain unless it has a NUL or a backslash:
# such a prefix takes the plain path.  The uuid also appears inside the
# links' hrefs, so its stand-in is replaced without quotes.
_STAND_INS = types.SimpleNamespace(
    uuid='\x00u', name='\x00n', generation='\x00g',
    parent_provider_uuid='\x00p', root_provider_uuid='\x00r')
_STAND_IN = re.compile(rb'\\u0000(u)|"\\u0000([ngpr])"')
_VALUE_ORDER = 'ungpr'


@functools.lru_cache(maxsize=64)
def _template(shape):
    """(%-template of one provider's view, picker of its values in the
    template's order) for a view shape: made once per shape, as a small
    listing (a tree) costs less than making it."""
    order = []

    def hole(match):
        key = match.group(1) or match.group(2)
        order.append(_VALUE_ORDER.index(key.decode()))
        return b'%d' if key == b'g' else b'%s'
    template = _STAND_IN.sub(hole, orjson.dumps(
        _serializer(*shape)(_STAND_INS)).replace(b'%', b'%%'))
    return template, operator.itemgetter(*order)


@functools.lru_cache(maxsize=64)
def _filler(shape):
    """A function giving one provider row's bytes in a listing of view
    ``shape``, or None when the shape's prefix cannot take the template.

    The bytes are what ``orjson.dumps`` makes of the serializer's dict,
    byte for byte, without building 7 dicts per provider (most of the CPU
    time of a listing of thousands): the serializer's own output for
    stand-in values is the template each provider's encoded values fill.
    """
    if '\x00' in shape[0] or '\\' in shape[0]:
        return None
    template, pick = _template(shape)
    encode = orjson.dumps

    def fill(row):
        uuid, name, generation, parent, root, _ = row
        return template % pick((encode(uuid)[1:-1], encode(name),
                                generation, encode(parent), encode(root)))
    return fill


def _listing(req, providers, snap=None):
    """The body and Last-Modified of a listing of provider rows (in
    ``rp_obj.SHOWN`` order), or with ``snap`` of provider ids read from
    that snapshot, which keeps each provider's bytes per view shape."""
    shape = _view_shape(req)
    fill = _filler(shape)
    if snap is not None:
        rows = [snap.shown[rp] for rp in providers]
        parts = (snap.rendered(shape, fill, providers) if fill is not None
                 else None)
    else:
        rows = providers
        parts = None if fill is None else list(map(fill, rows))
    modified = timestamps.newest(*(row[-1] for row in rows))
    if parts is None:
        return orjson.dumps({'resource_providers': list(map(
            _serializer(*shape), rows))}), modified
    return b'{"resource_providers":[%s]}' % b','.join(parts), modified


def _one(req, provider):
    return responses.json_response(
        req, serializer(req)(provider),
        last_modified=timestamps.newest(provider.changed))


def _parent_uuid(data):
    parent = data.get('parent_provider_uuid')
    return uuids.normalize_uuid(parent) if parent is not None else None


@base.handler
@validation.require_json_content
def create_resource_provider(req):
    ctx = base.context(req)
    ctx.can(POLICY % 'create')
    data = validation.extract_json(req, schema.POST.at(negotiation.get(req)))
    uuid = (uuids.normalize_uuid(data['uuid']) if 'uuid' in data
            else str(uuidlib.uuid4()))
    provider = ctx.database.write(rp_obj.create, uuid, data['name'],
                                  _parent_uuid(data))
    # 1.20: the new provider comes back in the body (200, not 201).
    if negotiation.at_least(req, microversions.CREATE_RETURNS_PROVIDER):
        response = _one(req, provider)
    else:
        response = responses.empty_response(req, status=201)
    response.location = responses.location(req, _path(uuid))
    return response


@base.handler
def get_resource_provider(req):
    ctx = base.context(req)
    ctx.can(POLICY % 'show')
    provider = ctx.database.read(rp_obj.get, req.urlvars['uuid'])
    return _one(req, provider)


@base.handler
@validation.require_json_content
def update_resource_provider(req):
    ctx = base.context(req)
    ctx.can(POLICY % 'update')
    data = extract_provider_json(
        req, schema.PUT.at(negotiation.get(req)))
    provider, updated_at = ctx.database.write(
        rp_obj.update, req.urlvars['uuid'], data['name'],
        _parent_uuid(data),
        change_parent='parent_provider_uuid' in data,
        # 1.37: a provider may change or lose its parent.
        allow_reparent=negotiation.at_least(req, microversions.REPARENTING))
    # Upstream dates the answer by updated_at alone: none if never set.
    modified = (responses.UNDATED if updated_at is None
                else timestamps.newest(updated_at))
    return responses.json_response(req, serializer(req)(provider),
                                   last_modified=modified)


@base.handler
def delete_resource_provider(req):
    ctx = base.context(req)
    ctx.can(POLICY % 'delete')
    ctx.database.write(rp_obj.delete, req.urlvars['uuid'])
    return responses.empty_response(req)


def list_filters(req, params, version):
    """The filters of a provider listing, from its validated query
    ``params``, as ``rp_obj.filtered`` takes them."""
    filters = {key: uuids.normalize_uuid(params[key])
               for key in ('uuid', 'in_tree') if key in params}
    if params.get('name'):
        # An empty name filters nothing (as upstream), it is not a name.
        filters['name'] = params['name']
    if 'resources' in params:
        filters['resources'] = query.parse_resources(params['resources'])
    if 'required' in params:
        filters['traits'] = query_filters.required_traits(req.GET, version)
    if 'member_of' in params:
        filters['member_of'] = query_filters.member_of(req.GET, version)
    return filters


@base.handler
def list_resource_providers(req):
    ctx = base.context(req)
    ctx.can(POLICY % 'list')
    version = negotiation.get(req)
    params = validation.validate_query(req, schema.LIST_QUERY.at(version))
    filters = list_filters(req, params, version)
    with gc_pause.collection_paused():
        snap = (ctx.snapshot() if provider_list.answerable(
            ctx.database.dialect, filters) else None)
        if snap is None:
            body, modified = _listing(
                req, ctx.database.read(rp_obj.get_all, **filters))
        else:
            body, modified = _listing(req, provider_list.matching(
                snap, ctx.database.dialect, **filters), snap)
        return responses.encoded_json_response(req, body,
                                               last_modified=modified)
