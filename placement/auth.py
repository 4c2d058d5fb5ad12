"""Authentication middleware: keystone (auth_token) or noauth2.

``noauth2`` trusts the request: ``X-Auth-Token: user[:project]`` names the
user and project (the project defaults to the user), the user ``admin``
holds the admin role, anyone else holds the roles in ``X-Roles``.  ``GET /``
never needs a token, so that clients can discover versions.
"""
from keystonemiddleware import auth_token
import webob.dec
import webob.exc

from placement import errors


def _is_root(environ):
    return environ.get('PATH_INFO', '') in ('', '/')


class NoAuthMiddleware:

    def __init__(self, application):
        self.application = application

    @webob.dec.wsgify
    def __call__(self, req):
        if _is_root(req.environ):
            return self.application
        token = req.headers.get('X-Auth-Token')
        if not token:
            raise errors.http_error(webob.exc.HTTPUnauthorized,
                                    'No X-Auth-Token header was provided.')
        user_id, _sep, project_id = token.partition(':')
        project_id = project_id or user_id
        if user_id == 'admin':
            roles = 'admin'
        else:
            roles = req.headers.get('X-Roles', '')
        req.headers['X-User-Id'] = user_id
        req.headers.setdefault('X-Project-Id', project_id)
        req.headers['X-Roles'] = roles
        req.headers['X-Identity-Status'] = 'Confirmed'
        return self.application


class KeystoneMiddleware(auth_token.AuthProtocol):
    """keystonemiddleware's auth_token, except that ``/`` is public."""

    def __init__(self, application, conf):
        self._unauthenticated_app = application
        super().__init__(application, {'oslo_config_config': conf})

    def __call__(self, environ, start_response):
        if _is_root(environ):
            return self._unauthenticated_app(environ, start_response)
        return super().__call__(environ, start_response)
