"""Handlers: allocation (being written)."""
import webob.exc

from placement import util


@util.handler
def delete_allocations(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def get_allocations(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def list_for_resource_provider(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def set_allocations(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def set_allocations_for_consumer(req):
    raise webob.exc.HTTPNotImplemented()
