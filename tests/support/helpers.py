"""Helpers shared by the test modules: request headers, servers, fresh
databases, and the builders of providers, allocations and candidate trees.

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

from placement.data import tables

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


# -- candidate trees written straight into the database ----------------------

SHARING = 'MISC_SHARES_VIA_AGGREGATE'


class World:
    """Providers, inventories, usages, traits and aggregates, written
    directly with SQLAlchemy Core and mirrored in Python for the checks."""

    def __init__(self, engine):
        self.engine = engine
        with engine.connect() as conn:
            self.rc_ids = dict(conn.execute(sa.select(
                tables.resource_classes.c.name,
                tables.resource_classes.c.id)).all())
            self.trait_ids = dict(conn.execute(sa.select(
                tables.traits.c.name, tables.traits.c.id)).all())
        self.next_id = 1
        self.providers = {}     # name -> dict
        self.aggs = {}          # aggregate name -> (id, uuid)
        self.consumers = {}     # uuid -> allocations (see consume)

    def clear(self):
        """Delete every provider (and what hangs off them)."""
        self.providers.clear()
        self.aggs.clear()
        self.consumers.clear()
        with self.engine.begin() as conn:
            # InnoDB checks the tree's self-references row by row.
            conn.execute(tables.resource_providers.update().values(
                root_provider_id=None, parent_provider_id=None))
            for table in (tables.allocations, tables.consumers,
                          tables.inventories,
                          tables.resource_provider_traits,
                          tables.resource_provider_aggregates,
                          tables.placement_aggregates,
                          tables.resource_providers):
                conn.execute(table.delete())

    def _trait(self, conn, name):
        if name not in self.trait_ids:
            result = conn.execute(tables.traits.insert().values(name=name))
            self.trait_ids[name] = result.inserted_primary_key[0]
        return self.trait_ids[name]

    def _resource_class(self, conn, name):
        if name not in self.rc_ids:
            rc_id = max(10000, max(self.rc_ids.values()) + 1)
            conn.execute(tables.resource_classes.insert().values(
                id=rc_id, name=name))
            self.rc_ids[name] = rc_id

    def _agg(self, conn, name):
        if name not in self.aggs:
            agg_uuid = str(uuid.uuid4())
            result = conn.execute(
                tables.placement_aggregates.insert().values(uuid=agg_uuid))
            self.aggs[name] = (result.inserted_primary_key[0], agg_uuid)
        return self.aggs[name][0]

    def add(self, name, parent=None, inventory=None, used=None, traits=(),
            aggs=()):
        """A provider.  ``inventory``: {rc: total or dict of fields};
        ``used``: {rc: amount already allocated}."""
        rp_id = self.next_id
        self.next_id += 1
        parent_info = self.providers[parent] if parent else None
        root_id = parent_info['root'] if parent_info else rp_id
        info = {'id': rp_id, 'uuid': str(uuid.uuid4()), 'name': name,
                'parent': parent, 'root': root_id, 'inventory': {},
                'used': dict(used or {}), 'traits': set(traits),
                'aggs': set(aggs)}
        with self.engine.begin() as conn:
            conn.execute(tables.resource_providers.insert().values(
                id=rp_id, uuid=info['uuid'], name=name, generation=0,
                root_provider_id=root_id,
                parent_provider_id=parent_info['id'] if parent_info
                else None))
            for rc, spec in (inventory or {}).items():
                self._resource_class(conn, rc)
                fields = {'total': spec} if isinstance(spec, int) else spec
                row = {'total': 0, 'reserved': 0, 'min_unit': 1,
                       'max_unit': fields.get('total', 0),
                       'step_size': 1, 'allocation_ratio': 1.0}
                row.update(fields)
                info['inventory'][rc] = row
                conn.execute(tables.inventories.insert().values(
                    resource_provider_id=rp_id,
                    resource_class_id=self.rc_ids[rc], **row))
            for rc, amount in info['used'].items():
                # Two allocations, so that usage really is summed.
                for part in (amount // 2, amount - amount // 2):
                    if part:
                        conn.execute(tables.allocations.insert().values(
                            resource_provider_id=rp_id,
                            resource_class_id=self.rc_ids[rc],
                            consumer_id=str(uuid.uuid4()), used=part))
            for trait in info['traits']:
                conn.execute(tables.resource_provider_traits.insert().values(
                    resource_provider_id=rp_id,
                    trait_id=self._trait(conn, trait)))
            for agg in info['aggs']:
                conn.execute(
                    tables.resource_provider_aggregates.insert().values(
                        resource_provider_id=rp_id,
                        aggregate_id=self._agg(conn, agg)))
        self.providers[name] = info
        return info['uuid']

    def _external(self, conn, table, column, value):
        """The id of the row of ``table`` whose ``column`` is ``value``
        (made if missing)."""
        found = conn.execute(sa.select(table.c.id).where(
            table.c[column] == value)).scalar()
        if found is None:
            found = conn.execute(table.insert().values(
                **{column: value})).inserted_primary_key[0]
        return found

    def consume(self, allocations, consumer_type=None, recorded=True):
        """A consumer holding ``allocations`` {provider name: {rc:
        amount}}, with its consumer row (of type ``consumer_type``, a
        name, or none) unless not ``recorded`` (allocations written before
        consumers were); its uuid."""
        consumer = str(uuid.uuid4())
        with self.engine.begin() as conn:
            if recorded:
                conn.execute(tables.consumers.insert().values(
                    uuid=consumer, generation=1,
                    project_id=self._external(conn, tables.projects,
                                              'external_id', PROJECT),
                    user_id=self._external(conn, tables.users,
                                           'external_id', USER),
                    consumer_type_id=consumer_type and self._external(
                        conn, tables.consumer_types, 'name',
                        consumer_type)))
            for name, amounts in allocations.items():
                info = self.providers[name]
                for rc, amount in amounts.items():
                    conn.execute(tables.allocations.insert().values(
                        resource_provider_id=info['id'],
                        resource_class_id=self.rc_ids[rc],
                        consumer_id=consumer, used=amount))
                    info['used'][rc] = info['used'].get(rc, 0) + amount
        self.consumers[consumer] = allocations
        return consumer

    def add_random_consumers(self, names, specs):
        """Consumers of ``random_clouds.consumer_st`` examples on the
        providers ``names`` (a provider index names one of them; classes
        a provider has no inventory of are left out); their uuids."""
        made = []
        for spec in specs:
            allocations = {}
            for index, amounts in spec['holds'].items():
                if index >= len(names):
                    continue
                inventory = self.providers[names[index]]['inventory']
                mine = {rc: amount for rc, amount in amounts.items()
                        if rc in inventory}
                if mine:
                    allocations[names[index]] = mine
            if allocations:
                made.append(self.consume(allocations, spec['type'],
                                         spec['recorded']))
        return made

    def add_random(self, specs):
        """Providers rp0, rp1, ... from ``random_clouds.provider_st``
        examples (a parent index names an earlier provider; sharing only
        for roots)."""
        names = []
        for index, spec in enumerate(specs):
            parent = spec['parent']
            parent = names[parent] if parent is not None and parent < index \
                else None
            traits = set(spec['traits'])
            if spec['sharing'] and parent is None:
                traits.add(SHARING)
            name = 'rp%d' % index
            self.add(name, parent=parent, inventory=spec['inventory'],
                     used={rc: amount for rc, amount in spec['used'].items()
                           if rc in spec['inventory']},
                     traits=traits, aggs=spec['aggs'])
            names.append(name)
        return names

    def uuid(self, name):
        return self.providers[name]['uuid']

    def name_of(self, uuid):
        return next(name for name, info in self.providers.items()
                    if info['uuid'] == uuid)


def get_candidates(client, version='1.39', **params):
    """GET /allocation_candidates (must answer 200); the body."""
    response = client.get(
        '/allocation_candidates', params=params,
        headers={'openstack-api-version': 'placement %s' % version})
    assert response.status_code == 200, response.text
    return response.json()
