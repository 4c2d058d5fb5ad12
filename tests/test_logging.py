"""The service log: one access line per request, and no secrets.

The servers run at DEBUG.  With noauth2 the database URL carries a password
(a real one on MariaDB; on PostgreSQL the trust authentication ignores it,
on SQLite there is none).  Tokens are checked in keystone mode, where a
token is a secret; with noauth2 it is only the caller's user and project
id, which the policy debug lines name on purpose.
"""
import re
import uuid

import httpx
import pytest
import sqlalchemy as sa

import conftest

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
    conftest.write_config(database.workdir,
                          url.render_as_string(hide_password=False),
                          '[DEFAULT]\ndebug = True\n')
    srv = conftest.Server(database.workdir)
    yield srv
    srv.stop()
    user = getattr(database, 'log_user', None)
    if user:
        with database.engine().begin() as conn:
            for host in ('127.0.0.1', 'localhost'):
                conn.exec_driver_sql("DROP USER '%s'@'%s'" % (user, host))


@pytest.fixture
def http(server):
    with httpx.Client(base_url=server.url, headers=conftest.ADMIN_HEADERS,
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


def test_keystone_mode_logs_no_token_or_password(tmp_path):
    token = 'gAAAA%s' % uuid.uuid4().hex
    service_password = 'ks%s' % uuid.uuid4().hex
    keystone = 'http://127.0.0.1:%d/identity' % conftest.free_port()
    conftest.write_config(str(tmp_path), 'sqlite:///%s/p.sqlite' % tmp_path)
    with open(tmp_path / 'placement.conf', 'a') as f:
        f.write('[DEFAULT]\ndebug = True\n'
                '[api]\nauth_strategy = keystone\n'
                '[keystone_authtoken]\nwww_authenticate_uri = %s\n'
                'auth_url = %s\nauth_type = password\nusername = placement\n'
                'password = %s\nproject_name = service\n'
                'user_domain_name = Default\nproject_domain_name = Default\n'
                % (keystone, keystone, service_password))
    server = conftest.Server(str(tmp_path))
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
