"""Handlers: /resource_classes (from 1.2)."""
from placement import errors
from placement import microversion
from placement import microversions
from placement import util
from placement.objects import resource_class as rc_obj
from placement.schemas import resource_class as schema


def _path(name):
    return '/resource_classes/' + name


def _view(req, row):
    return {'name': row.name, 'links': [util.link(req, _path(row.name))]}


def _created_or_found(req, row, created):
    response = util.empty_response(req, 201 if created else 204)
    response.location = util.location(req, _path(row.name))
    return response


@util.handler
@microversion.since(microversions.RESOURCE_CLASSES)
def list_resource_classes(req):
    ctx = util.context(req)
    ctx.can('placement:resource_classes:list')
    rows = ctx.database.read(rc_obj.list_classes)
    return util.json_response(
        req, {'resource_classes': [_view(req, row) for row in rows]},
        last_modified=util.rows_modified(rows))


@util.handler
@microversion.since(microversions.RESOURCE_CLASSES)
@util.require_json_content
def create_resource_class(req):
    ctx = util.context(req)
    ctx.can('placement:resource_classes:create')
    data = util.extract_json(req, schema.RESOURCE_CLASS)
    row = ctx.database.write(rc_obj.create_class, data['name'])
    return _created_or_found(req, row, True)


@util.handler
@microversion.since(microversions.RESOURCE_CLASSES)
def get_resource_class(req):
    ctx = util.context(req)
    ctx.can('placement:resource_classes:show')
    name = req.urlvars['name']
    row = ctx.database.read(rc_obj.get_class, name)
    if row is None:
        raise errors.NotFound('No such resource class %s.' % name)
    return util.json_response(req, _view(req, row),
                              last_modified=util.rows_modified([row]))


@util.handler
@microversion.since(microversions.RESOURCE_CLASSES)
def update_resource_class(req):
    # From 1.7 PUT creates (or confirms) a class instead of renaming one.
    if microversion.at_least(req, microversions.PUT_CREATES_CLASS):
        return _create_or_verify(req)
    return _rename(req)


def _create_or_verify(req):
    ctx = util.context(req)
    ctx.can('placement:resource_classes:update')
    name = req.urlvars['name']
    # The name in the URL must be one a client could POST.
    util.validate({'name': name}, schema.RESOURCE_CLASS)
    row, created = ctx.database.write(rc_obj.ensure_class, name)
    return _created_or_found(req, row, created)


@util.require_json_content
def _rename(req):
    ctx = util.context(req)
    ctx.can('placement:resource_classes:update')
    data = util.extract_json(req, schema.RESOURCE_CLASS)
    row = ctx.database.write(rc_obj.rename_class, req.urlvars['name'],
                             data['name'])
    return util.json_response(req, _view(req, row),
                              last_modified=util.rows_modified([row]))


@util.handler
@microversion.since(microversions.RESOURCE_CLASSES)
def delete_resource_class(req):
    ctx = util.context(req)
    ctx.can('placement:resource_classes:delete')
    ctx.database.write(rc_obj.delete_class, req.urlvars['name'])
    return util.empty_response(req)
