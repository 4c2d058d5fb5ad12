"""Handlers: usage (being written)."""
import webob.exc

from placement import util


@util.handler
def get_total_usages(req):
    raise webob.exc.HTTPNotImplemented()


@util.handler
def list_usages(req):
    raise webob.exc.HTTPNotImplemented()
