"""Handlers: /resource_classes (from 1.2)."""
from placement import errors
from placement import microversions
from placement.data import timestamps
from placement.handlers import base
from placement.objects import resource_class as rc_obj
from placement.schemas import resource_class as schema
from placement.web import negotiation
from placement.web import responses
from placement.web import validation


def _path(name):
    return '/resource_classes/' + name


def _view(req, row):
    return {'name': row.name, 'links': [responses.link(req, _path(row.name))]}


def _created_or_found(req, row, created):
    response = responses.empty_response(req, 201 if created else 204)
    response.location = responses.location(req, _path(row.name))
    return response


@base.handler
@negotiation.since(microversions.RESOURCE_CLASSES)
def list_resource_classes(req):
    ctx = base.context(req)
    ctx.can('placement:resource_classes:list')
    rows = ctx.database.read(rc_obj.list_classes)
    return responses.json_response(
        req, {'resource_classes': [_view(req, row) for row in rows]},
        last_modified=timestamps.rows_modified(rows))


@base.handler
@negotiation.since(microversions.RESOURCE_CLASSES)
@validation.require_json_content
def create_resource_class(req):
    ctx = base.context(req)
    ctx.can('placement:resource_classes:create')
    data = validation.extract_json(req, schema.RESOURCE_CLASS)
    row = ctx.database.write(rc_obj.create_class, data['name'])
    return _created_or_found(req, row, True)


@base.handler
@negotiation.since(microversions.RESOURCE_CLASSES)
def get_resource_class(req):
    ctx = base.context(req)
    ctx.can('placement:resource_classes:show')
    name = req.urlvars['name']
    row = ctx.database.read(rc_obj.get_class, name)
    if row is None:
        raise errors.NotFound('No such resource class %s.' % name)
    return responses.json_response(
        req, _view(req, row), last_modified=timestamps.rows_modified([row]))


@base.handler
@negotiation.since(microversions.RESOURCE_CLASSES)
def update_resource_class(req):
    # From 1.7 PUT creates (or confirms) a class instead of renaming one.
    if negotiation.at_least(req, microversions.PUT_CREATES_CLASS):
        return _create_or_verify(req)
    return _rename(req)


def _create_or_verify(req):
    ctx = base.context(req)
    ctx.can('placement:resource_classes:update')
    name = req.urlvars['name']
    # The name in the URL must be one a client could POST.
    validation.validate({'name': name}, schema.RESOURCE_CLASS)
    row, created = ctx.database.write(rc_obj.ensure_class, name)
    return _created_or_found(req, row, created)


@validation.require_json_content
def _rename(req):
    ctx = base.context(req)
    ctx.can('placement:resource_classes:update')
    data = validation.extract_json(req, schema.RESOURCE_CLASS)
    row = ctx.database.write(rc_obj.rename_class, req.urlvars['name'],
                             data['name'])
    return responses.json_response(
        req, _view(req, row), last_modified=timestamps.rows_modified([row]))


@base.handler
@negotiation.since(microversions.RESOURCE_CLASSES)
def delete_resource_class(req):
    ctx = base.context(req)
    ctx.can('placement:resource_classes:delete')
    ctx.database.write(rc_obj.delete_class, req.urlvars['name'])
    return responses.empty_response(req)
