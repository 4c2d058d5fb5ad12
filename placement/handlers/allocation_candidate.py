"""Handlers: allocation_candidate (being written)."""
import webob.exc

from placement import util


@util.handler
def list_allocation_candidates(req):
    raise webob.exc.HTTPNotImplemented()
