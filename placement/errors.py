"""Error codes and the exceptions handlers raise.

Handlers raise webob HTTP exceptions built by ``http_error`` (or one of the
shortcuts below); each carries a JSON formatter that renders the upstream
shape ``{"errors": [{status, title, detail, code, request_id}]}`` whenever
the client accepts JSON (the fault middleware makes JSON the default).
"""
import functools

import webob.exc

from placement import microversions

DEFAULT = 'placement.undefined_code'
INVENTORY_INUSE = 'placement.inventory.inuse'
CONCURRENT_UPDATE = 'placement.concurrent_update'
DUPLICATE_NAME = 'placement.duplicate_name'
PROVIDER_IN_USE = 'placement.resource_provider.inuse'
PROVIDER_CANNOT_DELETE_PARENT = (
    'placement.resource_provider.cannot_delete_parent')
RESOURCE_PROVIDER_NOT_FOUND = 'placement.resource_provider.not_found'
ILLEGAL_DUPLICATE_QUERYPARAM = 'placement.query.duplicate_key'
QUERYPARAM_BAD_VALUE = 'placement.query.bad_value'
QUERYPARAM_MISSING_VALUE = 'placement.query.missing_value'

REQUEST_ID_ENVIRON = 'openstack.request_id'
MICROVERSION_ENVIRON = 'placement.microversion'


def json_error_formatter(body, status, title, environ, code=DEFAULT,
                         extra=None):
    """webob ``json_formatter`` producing the upstream error document."""
    status_code = int(status.split(None, 1)[0])
    error = {
        'status': status_code,
        'title': title,
        'detail': webob.exc.strip_tags(body),
        'request_id': environ.get(REQUEST_ID_ENVIRON),
    }
    version = environ.get(MICROVERSION_ENVIRON)
    if version is not None and version >= microversions.ERROR_CODES:
        error['code'] = code
    error.update(extra or {})
    return {'errors': [error]}


def http_error(exc_class, detail=None, code=None, extra=None, **kwargs):
    """Build a webob exception carrying ``detail`` and an error ``code``.

    ``extra`` adds fields to the error object (the version range of a 406).
    """
    return exc_class(detail, json_formatter=functools.partial(
        json_error_formatter, code=code or DEFAULT, extra=extra), **kwargs)


def bad_request(detail, code=None):
    return http_error(webob.exc.HTTPBadRequest, detail, code)


def not_found(detail, code=None):
    return http_error(webob.exc.HTTPNotFound, detail, code)


def conflict(detail, code=None):
    return http_error(webob.exc.HTTPConflict, detail, code)


class PlacementError(Exception):
    """Raised below the handler layer; the fault middleware maps it."""

    status = webob.exc.HTTPInternalServerError

    def __init__(self, detail, code=None):
        super().__init__(detail)
        self.detail = detail
        self.code = code or DEFAULT

    def to_http(self):
        return http_error(self.status, self.detail, self.code)


class NotFound(PlacementError):
    status = webob.exc.HTTPNotFound


class BadRequest(PlacementError):
    status = webob.exc.HTTPBadRequest


class Conflict(PlacementError):
    status = webob.exc.HTTPConflict


class ServiceUnavailable(PlacementError):
    status = webob.exc.HTTPServiceUnavailable


class RetryableConflict(Conflict):
    """A write lost a race; ``Database.write`` runs it again."""

    def __init__(self, detail, code=CONCURRENT_UPDATE):
        super().__init__(detail, code)
