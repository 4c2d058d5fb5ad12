"""Handlers: resource_class (being written)."""
import webob.exc

from placement import util


@util.handler
def create_resource_class(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def delete_resource_class(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def get_resource_class(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def list_resource_classes(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def update_resource_class(req):
    raise webob.exc.HTTPNotImplemented()
