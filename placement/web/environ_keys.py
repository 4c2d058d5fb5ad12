"""Keys under which the middleware leaves per-request values in the WSGI
environ for the layers after it.

This module imports nothing, so any module (errors, negotiation,
middleware, handlers) can name these keys without an import cycle.
"""
# middleware.RequestLog: this request's id, and the caller's own request
# id (X-OpenStack-Request-ID) when it sent a valid one.
REQUEST_ID = 'openstack.request_id'
GLOBAL_REQUEST_ID = 'openstack.global_request_id'
# middleware.MicroversionMiddleware: the negotiated version.
MICROVERSION = 'placement.microversion'
# middleware.ContextMiddleware: the RequestContext handlers work with.
CONTEXT = 'placement.context'
# router.Router (or the endpoint that answered): the route template, for
# the metrics; for a request refused before routing, which layer refused
# it (a REFUSED_BY_* value).
ROUTE = 'placement.route'
REFUSED_BY_AUTH = 'refused:auth'
REFUSED_BY_MICROVERSION = 'refused:microversion'
REFUSED_BY_CONTENT_TYPE = 'refused:content_type'
REFUSED_BY_BODY_SIZE = 'refused:body_size'
# router.Router: True on a route of this service that upstream lacks,
# which words its errors for people rather than as upstream does.
OWN_ROUTE = 'placement.own_route'
# middleware.error_response: what a 409 was about (errors.Conflict.kind).
CONFLICT_KIND = 'placement.conflict_kind'
