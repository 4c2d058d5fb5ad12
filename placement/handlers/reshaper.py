"""Handlers: reshaper (being written)."""
import webob.exc

from placement import util


@util.handler
def reshape(req):
    raise webob.exc.HTTPNotImplemented()
