"""The read-only web console at ``/console/``: static files, no data.

The files are public (keystone or not): they hold no data, and the page
must load before it can ask for a token.  Everything the page shows comes
from the REST API, called by the browser with the user's own token, so the
console has no privileges of its own.  Every file is served with a strict
Content-Security-Policy: no inline script or style, nothing but this
origin.
"""
import hashlib
import json
import mimetypes
import os

import webob
import webob.dec
import webob.exc

from placement import errors

PREFIX = '/console'
STATIC_DIR = os.path.join(os.path.dirname(__file__), 'static')
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; "
    "img-src 'self'; connect-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
SECURITY_HEADERS = {
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
}
TYPES = {'.js': 'text/javascript', '.css': 'text/css',
         '.html': 'text/html', '.svg': 'image/svg+xml',
         '.json': 'application/json'}


def _load_files(conf):
    """{file name: (content type, body)}, read once at start-up."""
    files = {}
    for name in sorted(os.listdir(STATIC_DIR)):
        with open(os.path.join(STATIC_DIR, name), 'rb') as f:
            body = f.read()
        ext = os.path.splitext(name)[1]
        files[name] = (TYPES.get(ext) or mimetypes.guess_type(name)[0]
                       or 'application/octet-stream', body)
    # How the page authenticates: under noauth2 it sends the admin token
    # by itself, under keystone it asks the user for one.
    files['config.json'] = ('application/json', json.dumps(
        {'auth_strategy': conf.api.auth_strategy}).encode())
    files[''] = files['index.html']
    return files


class ConsoleApp:
    """Serve ``/console`` and ``/console/<file>`` (the dispatcher in
    front sends it nothing else)."""

    def __init__(self, conf):
        self.files = _load_files(conf)

    @webob.dec.wsgify
    def __call__(self, req):
        if req.path_info == PREFIX:
            # Relative links in the page resolve against /console/.
            raise webob.exc.HTTPMovedPermanently(
                location=req.application_url + PREFIX + '/')
        if req.method not in ('GET', 'HEAD'):
            raise errors.http_error(webob.exc.HTTPMethodNotAllowed,
                                    headers=[('Allow', 'GET, HEAD')])
        name = req.path_info[len(PREFIX) + 1:]
        if name not in self.files:
            raise errors.http_error(webob.exc.HTTPNotFound)
        content_type, body = self.files[name]
        response = webob.Response(body=body, content_type=content_type,
                                  charset='utf-8' if content_type.startswith(
                                      'text/') else None,
                                  conditional_response=True)
        response.etag = hashlib.sha256(body).hexdigest()[:32]
        response.cache_control = 'no-cache'
        response.headers.update(SECURITY_HEADERS)
        return response
