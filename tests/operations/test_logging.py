"""The service log: one access line per request, and no secrets.

The servers run at DEBUG.  With noauth2 the database URL carries a password
(a real one on MariaDB; on PostgreSQL the trust authentication ignores it,
on SQLite there is none).  Tokens are checked in keystone mode, where a
token is a secret; with noauth2 it is only the caller's user and project
id, which the policy debug lines name on purpose.
"""
from http import server as http_server
import json
import logging
import re
import threading
import uuid

import httpx
import pytest
import sqlalchemy as sa
import webob

from support import helpers
from placement.config import conf as placement_conf
from placement.data import db
from placement.objects import bootstrap
from placement.web import deploy

ACCESS_LINE = re.compile(
    r' INFO placement\.access (?P<remote>\S+) "(?P<method>[A-Z]+) '
    r'(?P<path>\S+)" status: (?P<status>\d{3}) microversion: '
    r'(?P<microversion>\S+) request_id: (?P<request_id>req-[0-9a-f-]{36}) '
    r'time: (?P<ms>\d+\.\d)ms$')
PASSWORD = 'pw%s' % uuid.uuid4().hex


def _url_with_password(database):
    """The test database's URL, reached with a password."""
    url = sa.engine.make_url(database.url)
    if database.backend == 'mysql':
        user = 'plog_%s' % uuid.uuid4().hex[:8]
        with database.engine().begin() as conn:
            for host in ('127.0.0.1', 'localhost'):
                conn.exec_driver_sql(
                    "CREATE USER '%s'@'%s' IDENTIFIED BY '%s'"
                    % (user, host, PASSWORD))
                conn.exec_driver_sql(
                    "GRANT ALL PRIVILEGES ON %s.* TO '%s'@'%s'"
                    % (database.name, user, host))
        database.log_user = user
        return url.set(username=user, password=PASSWORD)
    if database.backend == 'postgresql':
        return url.set(password=PASSWORD)
    return url


@pytest.fixture(scope='module')
def server(database):
    url = _url_with_password(database)
    helpers.write_config(database.workdir,
                         url.render_as_string(hide_password=False),
                         '[DEFAULT]\ndebug = True\n')
    srv = helpers.Server(database.workdir)
    yield srv
    srv.stop()
    user = getattr(database, 'log_user', None)
    if user:
        with database.engine().begin() as conn:
            for host in ('127.0.0.1', 'localhost'):
                conn.exec_driver_sql("DROP USER '%s'@'%s'" % (user, host))


@pytest.fixture
def http(server):
    with httpx.Client(base_url=server.url, headers=helpers.ADMIN_HEADERS,
                      timeout=30) as client:
        yield client


def read_log(server):
    with open(server.log_path, encoding='utf-8', errors='replace') as f:
        return f.read()


def access_lines(server, request_id):
    return [match.groupdict() for match in map(
        ACCESS_LINE.search, read_log(server).splitlines())
        if match and match['request_id'] == request_id]


REQUESTS = [
    # method, path, extra headers, status, logged microversion
    ('GET', '/', {'x-auth-token': ''}, 200, '1.39'),
    ('GET', '/resource_providers?name=x', {}, 200, '1.39'),
    ('GET', '/resource_providers', {'openstack-api-version':
                                    'placement 1.9'}, 200, '1.9'),
    ('POST', '/resource_providers', {}, 200, '1.39'),
    ('GET', '/resource_providers/%s' % uuid.uuid4(), {}, 404, '1.39'),
    ('GET', '/no/such/thing', {}, 404, '1.39'),
    ('GET', '/resource_providers', {'openstack-api-version':
                                    'placement 9.99'}, 406, '-'),
]


@pytest.mark.parametrize('method, path, headers, status, microversion',
                         REQUESTS)
def test_one_access_line_per_request(server, http, method, path, headers,
                                     status, microversion):
    body = {'name': 'log-%s' % uuid.uuid4()} if method == 'POST' else None
    response = http.request(method, path, headers=headers, json=body)
    assert response.status_code == status, response.text
    request_id = response.headers['openstack-request-id']
    lines = access_lines(server, request_id)
    assert len(lines) == 1, read_log(server)[-2000:]
    line = lines[0]
    assert (line['method'], line['path'], line['status'],
            line['microversion']) == (method, path, str(status),
                                      microversion)
    assert line['remote'] == '127.0.0.1'


def test_no_database_password_in_log(server, http):
    response = http.get('/resource_providers')
    assert response.status_code == 200
    # The log has this module's requests, at DEBUG, before we look.
    assert access_lines(server, response.headers['openstack-request-id'])
    log = read_log(server)
    assert ' DEBUG ' in log
    assert PASSWORD not in log


class FakeKeystone:
    """Just enough of keystone's v3 API for keystonemiddleware: version
    discovery, the service user's password login and token validation."""

    def __init__(self, user_token, roles):
        self.user_token = user_token
        self.roles = roles
        self.validated = 0
        self._server = http_server.ThreadingHTTPServer(
            ('127.0.0.1', 0), self._handler())
        self.url = 'http://127.0.0.1:%d/identity' % self._server.server_port
        threading.Thread(target=self._server.serve_forever,
                         daemon=True).start()

    def stop(self):
        self._server.shutdown()
        self._server.server_close()

    def _version(self):
        return {'id': 'v3.14', 'status': 'stable',
                'updated': '2024-01-01T00:00:00Z',
                'links': [{'rel': 'self', 'href': self.url + '/v3/'}],
                'media-types': [{
                    'base': 'application/json',
                    'type': 'application/vnd.openstack.identity-v3+json'}]}

    def _token(self, user, project, roles, catalog):
        return {'token': {
            'methods': ['password'], 'audit_ids': ['a1'],
            'expires_at': '2099-01-01T00:00:00.000000Z',
            'issued_at': '2024-01-01T00:00:00.000000Z',
            'user': {'id': user, 'name': user,
                     'domain': {'id': 'default', 'name': 'Default'}},
            'project': {'id': project, 'name': project,
                        'domain': {'id': 'default', 'name': 'Default'}},
            'roles': [{'id': name, 'name': name} for name in roles],
            'catalog': catalog}}

    def _handler(self):
        keystone = self

        class Handler(http_server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, status, body, headers=()):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header('Content-Type', 'application/json')
                self.send_header('Content-Length', str(len(data)))
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                path = self.path.rstrip('/')
                if path == '/identity':
                    self._send(300, {'versions': {
                        'values': [keystone._version()]}})
                elif path == '/identity/v3':
                    self._send(200, {'version': keystone._version()})
                elif path == '/identity/v3/auth/tokens':
                    if self.headers.get('X-Subject-Token') != \
                            keystone.user_token:
                        self._send(404, {'error': {'code': 404}})
                        return
                    keystone.validated += 1
                    self._send(200, keystone._token(
                        'operator', 'admin-project', keystone.roles, []))
                else:
                    self._send(404, {'error': {'code': 404}})

            def do_POST(self):
                self.rfile.read(int(self.headers.get('Content-Length', 0)))
                endpoints = [{'id': i, 'interface': i, 'region': 'R',
                              'region_id': 'R', 'url': keystone.url}
                             for i in ('public', 'internal', 'admin')]
                catalog = [{'id': 'k', 'type': 'identity',
                            'name': 'keystone', 'endpoints': endpoints}]
                self._send(201, keystone._token(
                    'placement', 'service', ['service'], catalog),
                    [('X-Subject-Token', 'service-' + uuid.uuid4().hex)])

        return Handler


def keystone_config(tmp_path, keystone_url, service_password):
    helpers.write_config(str(tmp_path), 'sqlite:///%s/p.sqlite' % tmp_path)
    with open(tmp_path / 'placement.conf', 'a') as f:
        f.write('[DEFAULT]\ndebug = True\n'
                '[api]\nauth_strategy = keystone\n'
                '[keystone_authtoken]\nwww_authenticate_uri = %s\n'
                'auth_url = %s\nauth_type = password\nusername = placement\n'
                'password = %s\nproject_name = service\n'
                'user_domain_name = Default\nproject_domain_name = Default\n'
                % (keystone_url, keystone_url, service_password))


def test_keystone_validated_token_is_not_logged(tmp_path):
    token = 'gAAAA%s' % uuid.uuid4().hex
    service_password = 'ks%s' % uuid.uuid4().hex
    keystone = FakeKeystone(token, ['admin', 'reader', 'member'])
    keystone_config(tmp_path, keystone.url, service_password)
    server = helpers.Server(str(tmp_path))
    try:
        headers = {'x-auth-token': token,
                   'openstack-api-version': 'placement latest'}
        listed = httpx.get(server.url + '/resource_providers',
                           headers=headers, timeout=30)
        wrong = httpx.get(server.url + '/resource_providers',
                          headers={'x-auth-token': token + 'x'}, timeout=30)
    finally:
        server.stop()
        keystone.stop()
    # keystone vouched for the token and its admin role: the request passed
    # authentication and policy; an unknown token did not.
    assert listed.status_code == 200, listed.text
    assert keystone.validated >= 1
    assert wrong.status_code == 401
    log = read_log(server)
    assert len(access_lines(server,
                            listed.headers['openstack-request-id'])) == 1
    assert token not in log
    assert service_password not in log


def test_keystone_mode_logs_no_token_or_password(tmp_path):
    token = 'gAAAA%s' % uuid.uuid4().hex
    service_password = 'ks%s' % uuid.uuid4().hex
    # Nothing answers at this keystone URL.
    keystone_config(tmp_path,
                    'http://127.0.0.1:%d/identity' % helpers.free_port(),
                    service_password)
    server = helpers.Server(str(tmp_path))
    try:
        response = httpx.get(server.url + '/resource_providers',
                             headers={'x-auth-token': token}, timeout=30)
    finally:
        server.stop()
    # Nothing answers at the keystone URL: the token cannot be checked.
    assert response.status_code == 503
    log = read_log(server)
    assert 'Authenticating user token' in log  # it did try, at DEBUG
    assert len(access_lines(server,
                            response.headers['openstack-request-id'])) == 1
    assert token not in log
    assert service_password not in log


def test_access_log_can_be_turned_off(tmp_path, caplog):
    """``[api] access_log = false``: no access line, the same ids."""
    config = helpers.write_config(
        str(tmp_path), 'sqlite:///%s/p.sqlite' % tmp_path,
        '[api]\naccess_log = false\n')
    conf = placement_conf.load(config_files=[config])
    database = db.Database(conf)
    try:
        bootstrap.prepare_database(database, migrate=True)
        app = deploy.build_app(conf, database)
        with caplog.at_level(logging.INFO, logger='placement.access'):
            response = webob.Request.blank(
                '/resource_providers',
                headers=helpers.ADMIN_HEADERS).get_response(app)
    finally:
        database.dispose()
    assert response.status_int == 200
    assert response.headers['openstack-request-id'].startswith('req-')
    assert not [r for r in caplog.records if r.name == 'placement.access']
