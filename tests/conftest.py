"""Shared fixtures: real databases and a real gunicorn server.

SQLite is always tested.  MariaDB and PostgreSQL are tested when
``PLACEMENT_TEST_MYSQL_URL`` / ``PLACEMENT_TEST_POSTGRESQL_URL`` give a
server URL whose user may create databases, e.g.
``mysql+pymysql://root@127.0.0.1/`` and
``postgresql+psycopg2://postgres@127.0.0.1/postgres``.
Each test module gets fresh databases, created and dropped here.
"""
import os
import socket
import subprocess
import sys
import tempfile
import time
import uuid

import httpx
import pytest
import sqlalchemy as sa

import openapi_support

BACKENDS = ['sqlite']
if os.environ.get('PLACEMENT_TEST_MYSQL_URL'):
    BACKENDS.append('mysql')
if os.environ.get('PLACEMENT_TEST_POSTGRESQL_URL'):
    BACKENDS.append('postgresql')

ADMIN_HEADERS = {
    'x-auth-token': 'admin',
    'accept': 'application/json',
    'openstack-api-version': 'placement latest',
}


_send = httpx.Client.send


def _checked_send(self, request, **kwargs):
    """Every response of the service must be one the OpenAPI document
    allows at its microversion (openapi_support.py)."""
    response = _send(self, request, **kwargs)
    if not kwargs.get('stream'):
        openapi_support.check(response)
    return response


httpx.Client.send = _checked_send


def version(ver):
    """Request headers asking for microversion ``ver``."""
    return {'openstack-api-version': 'placement %s' % ver}


def new_provider(client):
    """Create a provider with a unique name; its uuid."""
    rp_uuid = str(uuid.uuid4())
    response = client.post('/resource_providers',
                           json={'name': 'rp-' + rp_uuid, 'uuid': rp_uuid})
    assert response.status_code == 200, response.text
    return rp_uuid


def allocate(client, rp_uuid, **resources):
    """A new consumer claims ``resources`` of ``rp_uuid`` (must succeed)."""
    response = client.put(
        '/allocations/' + str(uuid.uuid4()),
        json={'allocations': {rp_uuid: {'resources': resources}},
              'project_id': str(uuid.uuid4()), 'user_id': str(uuid.uuid4()),
              'consumer_generation': None},
        headers=version('1.28'))
    assert response.status_code == 204, response.text


class TestDatabase:
    """A fresh database on one backend; ``url`` is for the service.

    ``server_url`` names another database server than the environment's
    (a private one a test may stop and start).
    """

    def __init__(self, backend, workdir, server_url=None):
        self.backend = backend
        self.name = 'ptest_' + uuid.uuid4().hex[:12]
        if backend == 'sqlite':
            self.url = 'sqlite:///' + os.path.join(workdir, 'placement.sqlite')
            self._server_url = None
            return
        env = {'mysql': 'PLACEMENT_TEST_MYSQL_URL',
               'postgresql': 'PLACEMENT_TEST_POSTGRESQL_URL'}[backend]
        self._server_url = sa.engine.make_url(server_url or os.environ[env])
        engine = sa.create_engine(self._server_url,
                                  isolation_level='AUTOCOMMIT')
        with engine.connect() as conn:
            conn.exec_driver_sql('CREATE DATABASE %s' % self.name)
        engine.dispose()
        url = self._server_url.set(database=self.name)
        if backend == 'mysql':
            url = url.update_query_dict({'charset': 'utf8mb4'})
        self.url = url.render_as_string(hide_password=False)

    def engine(self):
        return sa.create_engine(self.url)

    def drop(self):
        if self._server_url is None:
            return
        engine = sa.create_engine(self._server_url,
                                  isolation_level='AUTOCOMMIT')
        with engine.connect() as conn:
            if self.backend == 'postgresql':
                conn.exec_driver_sql(
                    'DROP DATABASE IF EXISTS %s WITH (FORCE)' % self.name)
            else:
                conn.exec_driver_sql('DROP DATABASE IF EXISTS %s' % self.name)
        engine.dispose()


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def write_config(workdir, db_url, extra=''):
    path = os.path.join(workdir, 'placement.conf')
    with open(path, 'w') as f:
        f.write('[api]\nauth_strategy = noauth2\n'
                '[placement_database]\nconnection = %s\n'
                'sync_on_startup = True\n%s' % (db_url, extra))
    return path


class BackgroundProcess:
    """A server command in its own process group, logging to a file."""

    name = 'server'
    stop_timeout = 10

    def start(self, argv, env, log_path, ready_url, timeout=30):
        """Start ``argv`` and wait until ``ready_url`` answers 200."""
        self.log_path = log_path
        self._log = open(log_path, 'wb')
        self.process = subprocess.Popen(
            argv, env=env, stdout=self._log, stderr=subprocess.STDOUT,
            start_new_session=True)
        try:
            self._wait(ready_url, timeout)
        except Exception:
            self.stop()
            raise

    def _wait(self, ready_url, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError('%s exited: %s' % (self.name, self.log()))
            try:
                if httpx.get(ready_url, timeout=5).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise RuntimeError('%s did not start: %s' % (self.name, self.log()))

    def log(self):
        with open(self.log_path, 'rb') as f:
            return f.read().decode(errors='replace')[-4000:]

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, 15)
            try:
                self.process.wait(self.stop_timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, 9)
                self.process.wait()
        self._log.close()


class Server(BackgroundProcess):
    """``placement-api`` under gunicorn on a free port."""

    def __init__(self, workdir, workers=1, env=None, args=()):
        self.workdir = workdir
        self.port = free_port()
        self.url = 'http://127.0.0.1:%d' % self.port
        environ = dict(os.environ, OS_PLACEMENT_CONFIG_DIR=workdir)
        environ.update(env or {})
        self.start([sys.executable, '-m', 'placement.cmd.api',
                    '--bind', '127.0.0.1:%d' % self.port,
                    '--workers', str(workers), *args],
                   environ, os.path.join(workdir, 'server.log'),
                   self.url + '/')


@pytest.fixture(scope='module', params=BACKENDS)
def database(request):
    workdir = tempfile.mkdtemp(prefix='placement-test-')
    db = TestDatabase(request.param, workdir)
    db.workdir = workdir
    yield db
    db.drop()


@pytest.fixture(scope='module')
def server(database):
    write_config(database.workdir, database.url)
    srv = Server(database.workdir)
    yield srv
    srv.stop()


@pytest.fixture
def client(server):
    with httpx.Client(base_url=server.url, headers=ADMIN_HEADERS,
                      timeout=30) as http:
        yield http
