"""What every handler shares: the route handler decorator and the
request's context."""
import functools

import webob
import webob.acceptparse
import webob.exc

from placement import errors
from placement.web import environ_keys
from placement.web import responses


def context(req):
    """The request's ``context.RequestContext`` (database, policy, config),
    left by ``middleware.ContextMiddleware``."""
    return req.environ[environ_keys.CONTEXT]


def handler(func=None, *, negotiate=True):
    """Mark a function as a route handler: JSON only, webob request in.

    ``negotiate=False`` for the version document, which upstream serves
    whatever the client accepts.
    """
    if func is None:
        return functools.partial(handler, negotiate=negotiate)

    # A WSGI app as webob's wsgify makes one, less the default response
    # object it builds for every request and that no handler uses.
    @functools.wraps(func)
    def wrapper(environ, start_response):
        req = webob.Request(environ)
        try:
            # Only reads negotiate the body type (as upstream): a write
            # with e.g. "Accept: text/plain" still gets its 4xx, rendered
            # as text.  An empty Accept header asks for nothing in
            # particular.
            if negotiate and req.method == 'GET' and _refuses_json(
                    environ.get('HTTP_ACCEPT')):
                raise errors.NotAcceptable(
                    'Only application/json is provided')
            _check_url_text(req)
            response = func(req)
        except webob.exc.HTTPException as exc:
            response = exc
        return response(environ, start_response)
    return wrapper


@functools.lru_cache(maxsize=256)
def _refuses_json(header):
    """Whether an Accept header (None: none sent) rules JSON out; parsed
    once per distinct value, as clients send the same one every time."""
    accept = webob.acceptparse.create_accept_header(header)
    return bool(accept) and not accept.acceptable_offers([responses.JSON])


def _check_url_text(req):
    """400 for a URL no column could hold: a query string that is not
    UTF-8 (webob cannot decode it) or a NUL anywhere (PostgreSQL refuses
    NUL in text, the other databases would store it)."""
    try:
        params = req.GET
    except UnicodeDecodeError:
        raise errors.BadRequest(
            'The query string is not valid UTF-8.') from None
    if '\x00' in req.path_info or any('\x00' in key or '\x00' in value
                                      for key, value in params.items()):
        raise errors.BadRequest('NUL characters are not allowed in URLs.')
