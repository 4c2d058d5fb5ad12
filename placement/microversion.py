"""Microversion negotiation: ``OpenStack-API-Version: placement X.Y``.

The negotiated version is stored in the WSGI environ; handlers ask
``microversion.at_least(req, (1, 14))`` right next to the behaviour that a
version gates.
"""
import functools
import re

import microversion_parse
import webob.exc

from placement import errors

SERVICE_TYPE = 'placement'
HEADER = 'openstack-api-version'
ENVIRON_KEY = errors.MICROVERSION_ENVIRON
MIN_VERSION = (1, 0)
MAX_VERSION = (1, 39)

_VERSION_RE = re.compile(r'^([1-9]\d*|0)\.([1-9]\d*|0)$')


class Version(tuple):
    """A (major, minor) pair that prints as ``major.minor``."""

    def __new__(cls, major, minor):
        return super().__new__(cls, (major, minor))

    def __str__(self):
        return '%d.%d' % self

    def matches(self, min_version=None, max_version=None):
        return ((min_version is None or self >= tuple(min_version)) and
                (max_version is None or self <= tuple(max_version)))


def min_version_string():
    return '%d.%d' % MIN_VERSION


def max_version_string():
    return '%d.%d' % MAX_VERSION


def parse(headers):
    """The version a request asks for; raise a webob exception if bad.

    ``headers`` is any mapping of request headers.
    """
    requested = microversion_parse.get_version(
        headers, service_type=SERVICE_TYPE)
    if requested is None:
        return Version(*MIN_VERSION)
    requested = requested.strip()
    if requested == 'latest':
        return Version(*MAX_VERSION)
    match = _VERSION_RE.match(requested)
    if not match:
        raise errors.http_error(
            webob.exc.HTTPBadRequest,
            'invalid version string: %s' % requested)
    version = Version(int(match.group(1)), int(match.group(2)))
    if not version.matches(MIN_VERSION, MAX_VERSION):
        # Clients negotiate by reading the supported range from a 406.
        raise errors.http_error(
            webob.exc.HTTPNotAcceptable,
            'Unacceptable version header: %s' % requested,
            extra={'min_version': min_version_string(),
                   'max_version': max_version_string()})
    return version


def get(req):
    """The negotiated version of a request (1.0 if none was negotiated)."""
    return req.environ.get(ENVIRON_KEY) or Version(*MIN_VERSION)


def at_least(req, version):
    return get(req) >= tuple(version)


def require(req, version):
    """404 unless the request's version is at least ``version``.

    Routes that do not exist before a microversion answer like an unknown
    URL, as upstream does.
    """
    if not at_least(req, version):
        raise errors.http_error(webob.exc.HTTPNotFound)


def since(version):
    """Decorator: the handler's route does not exist before ``version``.

    Put it outside ``util.require_json_content`` so an old version gets
    its 404 before any content-type check.
    """
    def decorator(func):
        @functools.wraps(func)
        def wrapper(req):
            require(req, version)
            return func(req)
        return wrapper
    return decorator
