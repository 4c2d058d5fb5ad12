"""Helpers shared by the test modules: request headers, servers, fresh
databases, and the builders of providers and allocations over HTTP
(candidate trees written straight into the database: worlds.py).

Test modules import this module; fixtures live in conftest.py (which
imports it too), so no test module imports conftest or another test
module.
"""
import os
import socket
import subprocess
import sys
import time
import uuid

import httpx
from prometheus_client import parser
import psutil
import sqlalchemy as sa


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


def seeded(seeds):
    """``pytest.mark.parametrize`` arguments of a random test over
    ``database`` and ``seed``: every seed on SQLite, the first on each
    database server.  The random steps drive the same engine on every
    database; what differs is its SQL, which one cloud reaches."""
    return dict(argnames='database, seed', indirect=['database'],
                scope='module',
                argvalues=[(backend, seed) for backend in BACKENDS
                           for seed in (seeds if backend == 'sqlite'
                                        else seeds[:1])])


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
    """A placement.conf in ``workdir``, then the sections ``extra``.  The
    tests' servers read the database (``read_source``, the reference):
    many tests write rows by SQL, which a snapshot sees only at its next
    check of the fleet; the tests of reads from memory ask for them in
    ``extra``."""
    path = os.path.join(workdir, 'placement.conf')
    with open(path, 'w') as f:
        f.write('[api]\nauth_strategy = noauth2\n'
                '[placement]\nread_source = database\n'
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

    def workers(self):
        """The pids of the server's workers now."""
        return {child.pid for child in
                psutil.Process(self.process.pid).children()}


def scrape(url, headers=ADMIN_HEADERS):
    """{(name, sorted label items): value} of one GET /metrics."""
    response = httpx.get(url + '/metrics', headers=headers, timeout=30)
    assert response.status_code == 200, response.text
    assert response.headers['content-type'].startswith('text/plain')
    samples = {}
    for family in parser.text_string_to_metric_families(response.text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = (
                sample.value)
    return samples


def value(samples, name, **labels):
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


# -- allocations over HTTP ----------------------------------------------------

PROJECT = 'c5d4c0a0-4f2e-4a39-9a55-6a0c1f7e5a01'
USER = 'e1e2c7f4-7b6f-4d0b-9d16-1c1c6e0f7b02'


def new_uuid():
    return str(uuid.uuid4())


def make_provider(client, inventories, parent=None):
    """A new provider with ``{class: record}`` inventory; its uuid."""
    rp = new_uuid()
    body = {'name': 'rp-' + rp, 'uuid': rp}
    if parent:
        body['parent_provider_uuid'] = parent
    assert client.post('/resource_providers', json=body).status_code == 200
    response = client.put('/resource_providers/%s/inventories' % rp, json={
        'resource_provider_generation': 0, 'inventories': inventories})
    assert response.status_code == 200, response.text
    return rp


def generation(client, rp):
    return client.get('/resource_providers/%s' % rp).json()['generation']


def body(allocations, consumer_generation=None, consumer_type='INSTANCE',
         project=PROJECT, user=USER):
    """A PUT /allocations body at the latest microversion."""
    return {'allocations': {rp: {'resources': res}
                            for rp, res in allocations.items()},
            'consumer_generation': consumer_generation,
            'consumer_type': consumer_type,
            'project_id': project, 'user_id': user}


def put(client, consumer, allocations, **kwargs):
    return client.put('/allocations/%s' % consumer,
                      json=body(allocations, **kwargs))


def error(response):
    return response.json()['errors'][0]


# The trait of providers sharing their inventory (support/worlds.py writes
# candidate trees with them).
SHARING = 'MISC_SHARES_VIA_AGGREGATE'


def get_candidates(client, version='1.39', **params):
    """GET /allocation_candidates (must answer 200); the body."""
    response = client.get(
        '/allocation_candidates', params=params,
        headers={'openstack-api-version': 'placement %s' % version})
    assert response.status_code == 200, response.text
    return response.json()
