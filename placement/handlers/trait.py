"""Handlers: trait (being written)."""
import webob.exc

from placement import util


@util.handler
def delete_trait(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def delete_traits_for_resource_provider(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def get_trait(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def list_traits(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def list_traits_for_resource_provider(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def put_trait(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def update_traits_for_resource_provider(req):
    raise webob.exc.HTTPNotImplemented()
