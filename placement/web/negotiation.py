"""Microversion negotiation: ``OpenStack-API-Version: placement X.Y``.

The negotiated version is stored in the WSGI environ; handlers ask
``negotiation.at_least(req, microversions.NESTED_PROVIDERS)`` right next
to the behaviour that a version gates.  The versions themselves are named
in ``microversions.py`` (the registry).
"""
import functools

import microversion_parse

from placement import errors
from placement import microversions
from placement.web import environ_keys

SERVICE_TYPE = 'placement'
HEADER = 'openstack-api-version'


def min_version_string():
    return str(microversions.MIN)


def max_version_string():
    return str(microversions.MAX)


def parse(headers):
    """The version a request asks for; raise a PlacementError if bad.

    ``headers`` is any mapping of request headers.
    """
    requested = microversion_parse.get_version(
        headers, service_type=SERVICE_TYPE)
    if requested is None:
        return microversions.MIN
    requested = requested.strip()
    if requested == 'latest':
        return microversions.MAX
    # As upstream: "MAJOR.MINOR", each part read by int() (so "1.02" is
    # 1.2), and the reason int() gave in the text of the 400.
    major, dot, minor = requested.partition('.')
    try:
        major = int(major)
        if not dot:
            raise ValueError("Version.__new__() missing 1 required "
                             "positional argument: 'minor'")
        version = microversions.Version(major, int(minor))
    except ValueError as exc:
        raise errors.BadRequest(
            'Invalid microversion: invalid version string: %s; %s'
            % (requested, exc)) from None
    if not microversions.MIN <= version <= microversions.MAX:
        # Clients negotiate by reading the supported range from a 406.
        raise errors.NotAcceptable(
            'Invalid microversion: Unacceptable version header: %s'
            % requested,
            extra={'min_version': min_version_string(),
                   'max_version': max_version_string()})
    return version


def get(req):
    """The negotiated version of a request (1.0 if none was negotiated)."""
    return req.environ.get(environ_keys.MICROVERSION) or microversions.MIN


def at_least(req, version):
    return get(req) >= tuple(version)


def since(version):
    """Decorator: the handler's route does not exist before ``version``.

    An upstream route answers an older version like an unknown URL, with
    upstream's empty detail; a route of ours that upstream lacks
    (``router.OWN_ROUTES``) says which version it needs.

    Put it outside ``validation.require_json_content`` so an old version
    gets its 404 before any content-type check.
    """
    def decorator(func):
        @functools.wraps(func)
        def wrapper(req):
            if not at_least(req, version):
                raise errors.NotFound(
                    _needs(req, version)
                    if req.environ.get(environ_keys.OWN_ROUTE) else None)
            return func(req)
        # For the OpenAPI document (functools.wraps carries it outward).
        wrapper.since = version
        return wrapper
    return decorator


def _needs(req, version):
    """The detail of an own route's 404 below its version."""
    return ('%s %s is not available before microversion %s.'
            % (req.method, req.path, version))
