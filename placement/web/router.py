"""The route map: URL template -> {HTTP method: handler}.

Unknown URLs answer 404; a known URL with a method it does not support
answers 405 with an ``Allow`` header listing the methods it does.
"""
import routes
import webob

from placement import errors
from placement.handlers import aggregate
from placement.handlers import allocation
from placement.handlers import allocation_candidate
from placement.handlers import capacity
from placement.handlers import claims
from placement.handlers import inventory
from placement.handlers import reshaper
from placement.handlers import resource_class
from placement.handlers import resource_provider
from placement.handlers import root
from placement.handlers import summary
from placement.handlers import trait
from placement.handlers import usage
from placement.web import environ_keys

PROVIDER = '/resource_providers/{uuid}'

# Upstream's routes.
UPSTREAM_ROUTES = {
    '': {'GET': root.home},
    '/': {'GET': root.home},
    '/resource_providers': {
        'GET': resource_provider.list_resource_providers,
        'POST': resource_provider.create_resource_provider,
    },
    PROVIDER: {
        'GET': resource_provider.get_resource_provider,
        'PUT': resource_provider.update_resource_provider,
        'DELETE': resource_provider.delete_resource_provider,
    },
    PROVIDER + '/inventories': {
        'GET': inventory.get_inventories,
        'POST': inventory.create_inventory,
        'PUT': inventory.set_inventories,
        'DELETE': inventory.delete_inventories,
    },
    PROVIDER + '/inventories/{resource_class}': {
        'GET': inventory.get_inventory,
        'PUT': inventory.update_inventory,
        'DELETE': inventory.delete_inventory,
    },
    PROVIDER + '/usages': {'GET': usage.list_usages},
    PROVIDER + '/aggregates': {
        'GET': aggregate.get_aggregates,
        'PUT': aggregate.set_aggregates,
    },
    PROVIDER + '/allocations': {
        'GET': allocation.list_for_resource_provider,
    },
    PROVIDER + '/traits': {
        'GET': trait.list_traits_for_resource_provider,
        'PUT': trait.update_traits_for_resource_provider,
        'DELETE': trait.delete_traits_for_resource_provider,
    },
    '/resource_classes': {
        'GET': resource_class.list_resource_classes,
        'POST': resource_class.create_resource_class,
    },
    '/resource_classes/{name}': {
        'GET': resource_class.get_resource_class,
        'PUT': resource_class.update_resource_class,
        'DELETE': resource_class.delete_resource_class,
    },
    '/traits': {'GET': trait.list_traits},
    '/traits/{name}': {
        'GET': trait.get_trait,
        'PUT': trait.put_trait,
        'DELETE': trait.delete_trait,
    },
    '/allocations': {'POST': allocation.set_allocations},
    '/allocations/{consumer_uuid}': {
        'GET': allocation.get_allocations,
        'PUT': allocation.set_allocations_for_consumer,
        'DELETE': allocation.delete_allocations,
    },
    '/allocation_candidates': {
        'GET': allocation_candidate.list_allocation_candidates,
    },
    '/usages': {'GET': usage.get_total_usages},
    '/reshaper': {'POST': reshaper.reshape},
}
# Additions of this service.  Their errors are worded for people
# (negotiation.since, validation.py), not as upstream's.
OWN_ROUTES = {
    '/allocation_candidates/explain': {
        'GET': allocation_candidate.explain_allocation_candidates,
    },
    '/capacity': {
        'GET': capacity.show_capacity,
        'POST': capacity.count_shapes,
    },
    # Choose and write allocations in one call.
    '/claims': {'POST': claims.claim},
    # The whole cloud in one read, and the provider list a page at a time.
    '/summary': {'GET': summary.get_summary},
    '/summary/providers': {'GET': summary.list_provider_page},
}
ROUTES = {**UPSTREAM_ROUTES, **OWN_ROUTES}


def _method_not_allowed(allowed):
    def handler(environ, start_response):
        # webob's explanation already names the method.
        raise errors.MethodNotAllowed(
            'The method specified is not allowed for this resource.',
            headers=[('Allow', ', '.join(sorted(allowed)))])
    return handler


class Router:
    """Dispatch to handlers by URL and method."""

    def __init__(self, route_table=None):
        self.mapper = routes.Mapper()
        for path, methods in (route_table or ROUTES).items():
            # The template rides along in the match, for the metrics.
            for method, func in methods.items():
                self.mapper.connect(path, action=func, route=path,
                                    conditions={'method': [method]})
            self.mapper.connect(path, action=_method_not_allowed(methods),
                                route=path)

    # A plain WSGI app, not wsgify: the handler's answer goes out as it
    # is, without a response object built around it and called again.
    def __call__(self, environ, start_response):
        req = webob.Request(environ)
        # Checked for every URL, known or not, before routing (as
        # upstream): a body must say what it is.
        if req.content_length and not req.content_type:
            environ[environ_keys.ROUTE] = environ_keys.REFUSED_BY_CONTENT_TYPE
            raise errors.BadRequest(
                'content-type header required when content-length > 0')
        match = self.mapper.match(environ=environ)
        if match is None:
            raise errors.NotFound()
        func = match.pop('action')
        route = environ[environ_keys.ROUTE] = match.pop('route')
        environ[environ_keys.OWN_ROUTE] = route in OWN_ROUTES
        req.urlvars = match
        return func(environ, start_response)
