"""Handlers: inventory (being written)."""
import webob.exc

from placement import util


@util.handler
def create_inventory(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def delete_inventories(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def delete_inventory(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def get_inventories(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def get_inventory(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def set_inventories(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def update_inventory(req):
    raise webob.exc.HTTPNotImplemented()
