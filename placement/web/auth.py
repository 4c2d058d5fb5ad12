"""Authentication middleware: keystone (auth_token) or noauth2.

``noauth2`` trusts the request: ``X-Auth-Token: user[:project]`` names the
user and project (the project defaults to the user), the user ``admin``
holds the admin role, anyone else holds the roles in ``X-Roles``.  ``GET /``
never needs a token, so that clients can discover versions.
"""
import functools
import logging

from keystoneauth1 import exceptions as ks_exceptions
from keystonemiddleware import auth_token
import webob.exc

from placement import errors
from placement.web import environ_keys

LOG = logging.getLogger(__name__)

NOT_CONFIGURED = (
    '[api] auth_strategy is keystone but [keystone_authtoken] sets no '
    'auth_type and www_authenticate_uri/auth_url: no token can be '
    'validated. Configure keystonemiddleware, or use auth_strategy = '
    'noauth2 for development.')


def _is_root(environ):
    return environ.get('PATH_INFO', '') in ('', '/')


def _refused(environ):
    """Label the request, for the metrics, as refused here."""
    environ[environ_keys.ROUTE] = environ_keys.REFUSED_BY_AUTH


class NoAuthMiddleware:

    def __init__(self, application):
        self.application = application

    def __call__(self, environ, start_response):
        if not _is_root(environ):
            self._identify(environ)
        return self.application(environ, start_response)

    @staticmethod
    def _identify(environ):
        """The identity headers keystone's middleware would set."""
        token = environ.get('HTTP_X_AUTH_TOKEN')
        # An empty token names a user without roles, whom the policy
        # refuses (403); only a missing one is unauthenticated.
        if token is None:
            _refused(environ)
            raise errors.Unauthorized('No X-Auth-Token header was provided.')
        user_id, _sep, project_id = token.partition(':')
        if user_id == 'admin':
            roles = 'admin'
        else:
            roles = environ.get('HTTP_X_ROLES', '')
        environ['HTTP_X_USER_ID'] = user_id
        environ.setdefault('HTTP_X_PROJECT_ID', project_id or user_id)
        environ['HTTP_X_ROLES'] = roles
        environ['HTTP_X_IDENTITY_STATUS'] = 'Confirmed'


@functools.lru_cache(maxsize=None)
def _warn_once(message):
    # deploy.py puts this layer in front of the API and of /metrics.
    LOG.warning(message)


class KeystoneMiddleware(auth_token.AuthProtocol):
    """keystonemiddleware's auth_token, except that ``/`` is public."""

    def __init__(self, application, conf):
        self._unauthenticated_app = application
        super().__init__(application, {'oslo_config_config': conf})
        section = conf.keystone_authtoken
        # Without these every request would fail deep inside keystoneauth.
        # The service still starts (GET / answers, e.g. with no config at
        # all), but says clearly what is missing, once here and per request.
        self._unconfigured = not (section.auth_type and (
            section.www_authenticate_uri or section.auth_url))
        if self._unconfigured:
            _warn_once(NOT_CONFIGURED)

    def __call__(self, environ, start_response):
        if _is_root(environ):
            return self._unauthenticated_app(environ, start_response)
        if self._unconfigured:
            _refused(environ)
            raise errors.ServiceUnavailable(NOT_CONFIGURED)
        try:
            return super().__call__(environ, start_response)
        except ks_exceptions.ClientException as exc:
            LOG.error('cannot validate tokens with keystone: %s', exc)
            _refused(environ)
            raise errors.ServiceUnavailable(
                'The identity service could not validate the token.'
            ) from None

    def process_request(self, request):
        # auth_token refuses a missing or invalid token by raising its own
        # 401, which it answers itself.
        try:
            return super().process_request(request)
        except webob.exc.HTTPUnauthorized:
            _refused(request.environ)
            raise
