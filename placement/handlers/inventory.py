"""Handlers for /resource_providers/{uuid}/inventories[/{resource_class}]."""

from placement import errors
from placement import microversions
from placement.handlers import base
from placement.handlers import resource_provider
from placement.objects import inventory as inv_obj
from placement.schemas import base as schema_base
from placement.schemas import inventory as schema
from placement.web import negotiation
from placement.web import responses
from placement.web import validation

POLICY = 'placement:resource_providers:inventories:%s'


def record_from_request(data):
    """A full inventory record from the fields a client gave (defaults
    filled in); the reshaper uses it for its inventories too."""
    record = {'reserved': 0, 'min_unit': 1, 'max_unit': schema_base.MAX_INT,
              'step_size': 1, 'allocation_ratio': 1.0}
    record.update((k, v) for k, v in data.items() if k in inv_obj.FIELDS)
    record['allocation_ratio'] = float(record['allocation_ratio'])
    return record


def _reserved_can_be_total(req):
    """From 1.26 a provider may reserve all of a class."""
    return negotiation.at_least(req, microversions.RESERVED_EQUALS_TOTAL)


def _one(req, generation, record, modified):
    return responses.json_response(
        req, dict(record, resource_provider_generation=generation),
        last_modified=modified)


def _all(req, generation, records, modified):
    # Upstream dates a listing by its records: none, no Last-Modified.
    return responses.json_response(
        req, {'resource_provider_generation': generation,
              'inventories': records},
        last_modified=modified if records else responses.UNDATED)


@base.handler
def get_inventories(req):
    ctx = base.context(req)
    ctx.can(POLICY % 'list')
    found = ctx.database.read(inv_obj.get_all, req.urlvars['uuid'])
    return _all(req, *found)


@base.handler
def get_inventory(req):
    ctx = base.context(req)
    ctx.can(POLICY % 'show')
    found = ctx.database.read(inv_obj.get_one, req.urlvars['uuid'],
                              req.urlvars['resource_class'])
    return _one(req, *found)


@base.handler
@validation.require_json_content
def create_inventory(req):
    ctx = base.context(req)
    ctx.can(POLICY % 'create')
    uuid = req.urlvars['uuid']
    data = resource_provider.extract_provider_json(req, schema.POST_SCHEMA)
    class_name = data['resource_class']
    record = record_from_request(data)
    generation = ctx.database.write(
        inv_obj.add, uuid, class_name, record,
        reserved_can_be_total=_reserved_can_be_total(req))
    response = _one(req, generation, record, None)
    response.status = 201
    response.location = responses.location(
        req, '/resource_providers/%s/inventories/%s' % (uuid, class_name))
    return response


@base.handler
@validation.require_json_content
def update_inventory(req):
    ctx = base.context(req)
    ctx.can(POLICY % 'update')
    uuid, class_name = req.urlvars['uuid'], req.urlvars['resource_class']
    data = resource_provider.extract_provider_json(req, schema.PUT_ONE_SCHEMA)
    record = record_from_request(data)
    generation = ctx.database.write(
        inv_obj.update, uuid, class_name,
        data['resource_provider_generation'], record,
        reserved_can_be_total=_reserved_can_be_total(req))
    return _one(req, generation, record, None)


@base.handler
@validation.require_json_content
def set_inventories(req):
    ctx = base.context(req)
    ctx.can(POLICY % 'update')
    uuid = req.urlvars['uuid']
    data = resource_provider.extract_provider_json(req, schema.PUT_ALL_SCHEMA)
    records = {name: record_from_request(fields)
               for name, fields in data['inventories'].items()}
    generation = ctx.database.write(
        inv_obj.replace_all, uuid, data['resource_provider_generation'],
        records, reserved_can_be_total=_reserved_can_be_total(req))
    return _all(req, generation, records, None)


@base.handler
def delete_inventories(req):
    ctx = base.context(req)
    # 1.5 added this method; before it the URL only knows the others.
    if not negotiation.at_least(req, microversions.DELETE_INVENTORIES):
        raise errors.MethodNotAllowed(headers=[('Allow', 'GET, POST, PUT')])
    ctx.can(POLICY % 'delete')
    ctx.database.write(inv_obj.replace_all, req.urlvars['uuid'], None, {},
                       report=inv_obj.DELETE_ERRORS)
    return responses.empty_response(req)


@base.handler
def delete_inventory(req):
    ctx = base.context(req)
    ctx.can(POLICY % 'delete')
    ctx.database.write(inv_obj.delete, req.urlvars['uuid'],
                       req.urlvars['resource_class'])
    return responses.empty_response(req)
