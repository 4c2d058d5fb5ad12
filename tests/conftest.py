"""Shared fixtures: real databases and a real gunicorn server.

SQLite is always tested.  MariaDB and PostgreSQL are tested when
``PLACEMENT_TEST_MYSQL_URL`` / ``PLACEMENT_TEST_POSTGRESQL_URL`` give a
server URL whose user may create databases, e.g.
``mysql+pymysql://root@127.0.0.1/`` and
``postgresql+psycopg2://postgres@127.0.0.1/postgres``.
Each test module gets fresh databases, created and dropped here.
"""
import tempfile

import httpx
import pytest

from placement.config import conf as placement_conf
from placement.data import db
from placement.objects import bootstrap

from support import db_servers
from support import galera_servers
from support import helpers
from support.helpers import BACKENDS
from support import openapi_support
from support import worlds

_send = httpx.Client.send


def _checked_send(self, request, **kwargs):
    """Every response of the service must be one the OpenAPI document
    allows at its microversion (openapi_support.py)."""
    response = _send(self, request, **kwargs)
    if not kwargs.get('stream'):
        openapi_support.check(response)
    return response


httpx.Client.send = _checked_send


@pytest.fixture(scope='module', params=BACKENDS)
def database(request):
    workdir = tempfile.mkdtemp(prefix='placement-test-')
    db = helpers.TestDatabase(request.param, workdir)
    db.workdir = workdir
    yield db
    db.drop()


@pytest.fixture(scope='module')
def server(database):
    helpers.write_config(database.workdir, database.url)
    srv = helpers.Server(database.workdir)
    yield srv
    srv.stop()


@pytest.fixture
def client(server):
    with httpx.Client(base_url=server.url, headers=helpers.ADMIN_HEADERS,
                      timeout=30) as http:
        yield http


@pytest.fixture(scope='module')
def world(database, server):
    """A ``worlds.World`` over the module's database, as left by earlier
    tests (property tests empty it per example themselves)."""
    # The server created the schema and the standard names at start-up.
    return worlds.World(database.engine())


@pytest.fixture
def w(world):
    """The module's ``world``, emptied for this test."""
    world.clear()
    yield world


@pytest.fixture(scope='module')
def galera():
    """A private three-node MariaDB Galera cluster for the module (skipped
    when its packages are missing)."""
    db_servers.require(galera_servers.GaleraCluster)
    cluster = galera_servers.GaleraCluster()
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
        cluster.cleanup()


@pytest.fixture(scope='module')
def engine(database):
    """An SQLAlchemy engine on the module's database, for tests that read
    or write its rows directly."""
    engine = database.engine()
    yield engine
    engine.dispose()


@pytest.fixture(scope='module')
def placement_db(database):
    """The service's own ``db.Database`` on a migrated ``database``, for
    tests below HTTP."""
    path = helpers.write_config(database.workdir, database.url)
    conf = placement_conf.load(config_files=[path])
    placement_db = db.Database(conf)
    bootstrap.prepare_database(placement_db, migrate=True)
    yield placement_db
    placement_db.dispose()


@pytest.fixture
def configured(database, world):
    """Start servers on the module's database with extra [placement]
    options; yields a function options -> httpx client."""
    started = []

    def start(**options):
        workdir = tempfile.mkdtemp(prefix='ac-', dir=database.workdir)
        extra = '[placement]\n' + ''.join(
            '%s = %s\n' % item for item in options.items())
        helpers.write_config(workdir, database.url, extra)
        server = helpers.Server(workdir)
        client = httpx.Client(base_url=server.url,
                              headers=helpers.ADMIN_HEADERS, timeout=30)
        started.append((server, client))
        return client

    yield start
    for server, client in started:
        client.close()
        server.stop()
