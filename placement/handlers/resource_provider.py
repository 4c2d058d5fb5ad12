"""Handlers: resource_provider (being written)."""
import webob.exc

from placement import util


@util.handler
def create_resource_provider(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def delete_resource_provider(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def get_resource_provider(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def list_resource_providers(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def update_resource_provider(req):
    raise webob.exc.HTTPNotImplemented()
