"""The answers handlers return: JSON (with cache headers from 1.15), no
body, links and Location."""
import orjson
import webob
from webob import datetime_utils

from placement import microversions
from placement.data import timestamps
from placement.web import negotiation

# The one media type the API speaks, in and out.
JSON = 'application/json'


# ``last_modified`` of an answer that upstream sends without one (an empty
# inventory, a provider update that left updated_at empty); None is now.
UNDATED = object()


def json_response(req, data, status=200, last_modified=None):
    """A JSON response; from 1.15 with cache headers."""
    return encoded_json_response(req, orjson.dumps(data), status,
                                 last_modified)


def encoded_json_response(req, body, status=200, last_modified=None):
    """``json_response`` for a body already encoded (bytes)."""
    # The header list as webob's setters would leave it, in their order,
    # written out at once rather than parsed and set header by header.
    headers = [('Content-Type', JSON), ('Content-Length', str(len(body)))]
    if negotiation.at_least(req, microversions.CACHE_HEADERS):
        headers.append(('Cache-Control', 'no-cache'))
        if last_modified is not UNDATED:
            modified = last_modified or timestamps.utcnow()
            headers.append(('Last-Modified',
                            datetime_utils.serialize_date(modified)))
    return webob.Response(status=status, headerlist=headers, app_iter=[body])


def empty_response(req, status=204):
    """A bodiless answer; without cache headers, as upstream's writes
    (only a trait's own URL has them, see handlers/trait.py)."""
    response = webob.Response(status=status)
    response.headers.pop('Content-Type', None)
    response.content_type = None
    return response


def link(req, path, rel='self'):
    """A link object; absolute under the script name (e.g. /placement)."""
    return {'rel': rel, 'href': req.script_name + path}


def location(req, path):
    """An absolute Location header value, including any path prefix."""
    return req.host_url + req.script_name + path
