"""Handlers: aggregate (being written)."""
import webob.exc

from placement import util


@util.handler
def get_aggregates(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def set_aggregates(req):
    raise webob.exc.HTTPNotImplemented()
