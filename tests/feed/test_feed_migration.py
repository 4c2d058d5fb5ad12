"""The own migration history on a database as upstream placement leaves
it: the service starts there with the change feed off, and ``db sync``
adds the feed's table without touching upstream's ``alembic_version``."""
import logging
import os
import subprocess
import sys

import httpx
import pytest
import sqlalchemy as sa

from support import helpers
from placement.config import conf as placement_conf
from placement.data import db
from placement.data import migration
from placement.data import own_tables
from placement.data import tables
from placement.objects import bootstrap


@pytest.fixture(scope='module')
def config(database, engine):
    """Upstream's schema at its head, stamped, and nothing of ours; a
    configuration that does not migrate at start-up."""
    tables.metadata.create_all(engine)
    migration.stamp(engine)
    path = helpers.write_config(database.workdir, database.url)
    with open(path) as f:
        text = f.read()
    with open(path, 'w') as f:
        f.write(text.replace('sync_on_startup = True',
                             'sync_on_startup = False'))
    return path


def prepared(config):
    """What bootstrap.prepare_database decides for the feed."""
    placement_db = db.Database(placement_conf.load(config_files=[config]))
    try:
        return bootstrap.prepare_database(placement_db)
    finally:
        placement_db.dispose()


def alembic_versions(engine):
    with engine.connect() as conn:
        return conn.execute(sa.text(
            'SELECT version_num FROM alembic_version')).scalars().all()


def test_upstream_schema_starts_with_the_feed_off(config, caplog):
    with caplog.at_level(logging.WARNING):
        assert prepared(config) is False
    assert 'change feed is off' in caplog.text


def test_upstream_schema_serves_writes(database, config):
    server = helpers.Server(database.workdir)
    try:
        with httpx.Client(base_url=server.url, headers=helpers.ADMIN_HEADERS,
                          timeout=30) as client:
            helpers.new_provider(client)
    finally:
        server.stop()
    assert 'change feed is off' in server.log()


def test_db_sync_adds_the_feed_and_leaves_alembic_version(config, engine):
    before = alembic_versions(engine)
    result = subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), 'placement-manage'),
         '--config-file', config, 'db', 'sync'],
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert alembic_versions(engine) == before == [migration.head()]
    assert migration.own_current(engine) == migration.own_head()
    assert set(own_tables.metadata.tables) <= set(
        sa.inspect(engine).get_table_names())
    assert prepared(config) is True
