"""The service the stress tests load and the world it holds.

``service`` starts placement-api processes on a fresh database; the
``DataSet`` classes create, over HTTP, the providers a load claims from.
Also the headers, project and user the requests are made with.
"""
import contextlib
import dataclasses
import os
import shutil
import tempfile
import uuid

import httpx
import sqlalchemy as sa

from support import helpers
from support import snapshot_pair

VERSION = 'placement 1.39'
HEADERS = dict(helpers.ADMIN_HEADERS, **{'openstack-api-version': VERSION})
PROJECT = str(uuid.uuid4())
USER = str(uuid.uuid4())


def clear_error(response):
    """True when an error response is the upstream JSON error document."""
    try:
        error = response.json()['errors'][0]
    except (ValueError, KeyError, IndexError, TypeError):
        return False
    return (error.get('status') == response.status_code
            and bool(error.get('detail')) and bool(error.get('code')))


def expect_ok(response):
    assert response.status_code < 300, (
        '%s %s -> %s %s' % (response.request.method, response.request.url,
                            response.status_code, response.text))
    return response


# --- the service under test ----------------------------------------------

@dataclasses.dataclass
class Service:
    servers: list          # helpers.Server, one per API process
    db_url: str
    # The end of the servers' logs once they stopped, for failure messages.
    log: str = ''

    @property
    def server(self):
        return self.servers[0]

    @property
    def url(self):
        return self.server.url

    @property
    def urls(self):
        return [server.url for server in self.servers]

    def wait_loaded(self, workers):
        """Until every worker of every API process has its snapshot
        loaded (read_source = snapshot)."""
        for server in self.servers:
            with httpx.Client(base_url=server.url, headers=HEADERS,
                              timeout=30) as http:
                snapshot_pair.wait_loaded(http, server, workers)

    def drop_connections(self):
        """End, from the database server's side, every connection to the
        service's database but the one asking: as a server-side timeout,
        a proxy or an operator would.  How many it ended."""
        url = sa.engine.make_url(self.db_url)
        engine = sa.create_engine(url, isolation_level='AUTOCOMMIT')
        try:
            with engine.connect() as conn:
                if url.get_backend_name() == 'postgresql':
                    return len(conn.execute(sa.text(
                        'SELECT pg_terminate_backend(pid) '
                        'FROM pg_stat_activity WHERE datname = :db '
                        'AND pid <> pg_backend_pid()'),
                        {'db': url.database}).all())
                ids = conn.execute(sa.text(
                    'SELECT id FROM information_schema.processlist '
                    'WHERE db = :db AND id <> CONNECTION_ID()'),
                    {'db': url.database}).scalars().all()
                for connection_id in ids:
                    try:
                        conn.exec_driver_sql('KILL %d' % connection_id)
                    except sa.exc.OperationalError:
                        pass    # it ended on its own meanwhile
                return len(ids)
        finally:
            engine.dispose()


def _with_server(url, server_url):
    """``url`` (a database URL) on the host and port of ``server_url``."""
    target = sa.engine.make_url(server_url)
    return sa.engine.make_url(url).set(
        host=target.host, port=target.port).render_as_string(
            hide_password=False)


@contextlib.contextmanager
def service(backend, workers, query=None, server_url=None, nodes=(),
            replica_url=None, extra_config='', source='database'):
    """A fresh database on ``backend`` and placement-api on it.

    ``query`` adds URL query parameters for the service's connections
    (e.g. a PyMySQL ``init_command``); ``server_url`` points at a database
    server other than the one the test environment names.  ``nodes`` are
    more servers of the same cluster (Galera nodes): each gets an API
    process of its own.  ``replica_url`` is a replica server every API
    process reads from (``slave_connection``).  ``extra_config`` is added
    to every process's placement.conf.  ``source``: where the
    processes read from (``[placement] read_source``).
    """
    workdir = tempfile.mkdtemp(prefix='placement-stress-')
    database = helpers.TestDatabase(backend, workdir, server_url=server_url)
    servers = []
    try:
        url = database.url
        if query:
            url = sa.engine.make_url(url).update_query_dict(
                query).render_as_string(hide_password=False)
        extra = ('slave_connection = %s\n' % _with_server(url, replica_url)
                 if replica_url else '')
        extra += '[placement]\nread_source = %s\n' % source + extra_config
        # The first process migrates the database; the others, started
        # once it has, find it ready.
        for index, node in enumerate([None, *nodes]):
            directory = os.path.join(workdir, 'api%d' % index)
            os.mkdir(directory)
            helpers.write_config(
                directory, _with_server(url, node) if node else url, extra)
            servers.append(helpers.Server(directory, workers=workers))
        svc = Service(servers, url)
        try:
            yield svc
        finally:
            for server in servers:
                server.stop()
            svc.log = '\n'.join(server.log() for server in servers)
    finally:
        for server in servers:
            server.stop()
        database.drop()
        shutil.rmtree(workdir, ignore_errors=True)


# --- data sets --------------------------------------------------------------

def _inventory(total, reserved=0, ratio=1.0):
    return {'total': total, 'reserved': reserved, 'allocation_ratio': ratio}


class DataSet:
    """Providers built over HTTP, plus the request a scheduler would make.

    ``toggled`` is a (provider, class) whose inventory an operator keeps
    removing and restoring during the load.
    """

    label = None
    toggled = None

    def __init__(self):
        self.providers = []

    def provider(self, http, name, inventories=None, parent=None):
        rp = str(uuid.uuid4())
        body = {'name': '%s-%s' % (name, rp[:8]), 'uuid': rp}
        if parent:
            body['parent_provider_uuid'] = parent
        expect_ok(http.post('/resource_providers', json=body))
        if inventories:
            expect_ok(http.put('/resource_providers/%s/inventories' % rp,
                               json={'resource_provider_generation': 0,
                                     'inventories': inventories}))
        self.providers.append(rp)
        return rp

    @staticmethod
    def _generation(http, rp):
        return expect_ok(
            http.get('/resource_providers/%s' % rp)).json()['generation']

    def resources(self, rng):
        """The resources one claim asks for."""
        raise NotImplementedError

    def direct_claim(self, rng, resources):
        """A plausible allocation built without allocation candidates."""
        raise NotImplementedError


class Flat(DataSet):
    """A few small compute nodes; VCPU is the scarce class."""

    label = 'flat'

    def build(self, http):
        self.computes = [
            self.provider(http, 'cn%d' % i, {
                'VCPU': _inventory(8, reserved=1),
                'MEMORY_MB': _inventory(2048, reserved=256, ratio=1.5)})
            for i in range(4)]
        # The last node: free at first, so removals can succeed, and then
        # raced by the claims that fill it once it is restored.
        self.toggled = (self.computes[-1], 'VCPU')

    def resources(self, rng):
        return {'VCPU': rng.choice((1, 2)), 'MEMORY_MB': 256}

    def direct_claim(self, rng, resources):
        return {rng.choice(self.computes): {'resources': resources}}


class Nested(DataSet):
    """compute -> 2 NUMA nodes -> one FPGA each (total=1): a tree whose
    scarce class sits two levels below the root."""

    label = 'nested'

    def build(self, http):
        self.trees = []
        for i in range(3):
            cn = self.provider(http, 'cn%d' % i,
                               {'DISK_GB': _inventory(500)})
            numas = []
            for n in range(2):
                numa = self.provider(http, 'cn%d-numa%d' % (i, n), {
                    'VCPU': _inventory(4),
                    'MEMORY_MB': _inventory(2048)}, parent=cn)
                fpga = self.provider(http, 'cn%d-numa%d-fpga' % (i, n),
                                     {'FPGA': _inventory(1)}, parent=numa)
                numas.append((numa, fpga))
            self.trees.append((cn, numas))
        self.toggled = (self.trees[0][1][0][1], 'FPGA')

    def resources(self, rng):
        return {'VCPU': 1, 'MEMORY_MB': 128, 'FPGA': 1, 'DISK_GB': 10}

    def direct_claim(self, rng, resources):
        cn, numas = rng.choice(self.trees)
        numa, fpga = rng.choice(numas)
        return {cn: {'resources': {'DISK_GB': resources['DISK_GB']}},
                numa: {'resources': {'VCPU': resources['VCPU'],
                                     'MEMORY_MB': resources['MEMORY_MB']}},
                fpga: {'resources': {'FPGA': resources['FPGA']}}}


class Sharing(DataSet):
    """Compute nodes sharing DISK_GB providers through an aggregate."""

    label = 'sharing'

    def build(self, http):
        aggregate = str(uuid.uuid4())
        self.computes = [
            self.provider(http, 'cn%d' % i, {'VCPU': _inventory(8)})
            for i in range(3)]
        self.storage = self.provider(
            http, 'shared-disk', {'DISK_GB': _inventory(100, reserved=10)})
        # A second, small sharing provider comes and goes.
        spare = self.provider(http, 'spare-disk',
                              {'DISK_GB': _inventory(30)})
        self.toggled = (spare, 'DISK_GB')
        for rp in (self.storage, spare):
            expect_ok(http.put(
                '/resource_providers/%s/traits' % rp,
                json={'traits': ['MISC_SHARES_VIA_AGGREGATE'],
                      'resource_provider_generation':
                          self._generation(http, rp)}))
        for rp in self.computes + [self.storage, spare]:
            expect_ok(http.put(
                '/resource_providers/%s/aggregates' % rp,
                json={'aggregates': [aggregate],
                      'resource_provider_generation':
                          self._generation(http, rp)}))

    def resources(self, rng):
        return {'VCPU': 1, 'DISK_GB': 10}

    def direct_claim(self, rng, resources):
        return {rng.choice(self.computes):
                {'resources': {'VCPU': resources['VCPU']}},
                self.storage: {'resources': {'DISK_GB': resources['DISK_GB']}}}


DATA_SETS = {cls.label: cls for cls in (Flat, Nested, Sharing)}
