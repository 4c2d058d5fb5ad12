"""Drop-in replacement: a database that upstream placement created and
migrated to its head is used as it is.

The database is built as upstream leaves it
(tests/support/upstream_db.py).  Then ``placement-manage db sync`` must
change nothing in upstream's schema (it adds the tables of this service's
own history beside it), and the service must start on the database and
serve the data.
"""
import datetime
import email.utils
import os
import subprocess
import sys
import uuid

import httpx
import pytest
import sqlalchemy as sa

from support import helpers
from placement.data import migration
from support import upstream_db
from support.upstream_db import (AGGREGATE_UUID, CONSUMER_UUID, PROJECT_ID,
                                 RP_UUID, TRAIT, USER_ID)

pytestmark = pytest.mark.skipif(
    not os.path.exists(upstream_db.SCHEMA_DUMP),
    reason='needs ../shared/reference/upstream-schema-sqlite.sql '
    '(or $PLACEMENT_UPSTREAM_SCHEMA)')


def placement_command(command, *args, config):
    return subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), command),
         '--config-file', config] + list(args),
        capture_output=True, text=True, timeout=120)


@pytest.fixture(scope='module')
def upstream(database):
    """The upstream database, its schema before and after db sync."""
    engine = database.engine()
    try:
        upstream_db.build(engine)
        before = upstream_db.schema_snapshot(engine)
        # The service's own configuration, minus the start-up migration:
        # an operator runs db sync by hand.
        config = helpers.write_config(database.workdir, database.url)
        with open(config) as f:
            text = f.read().replace('sync_on_startup = True',
                                    'sync_on_startup = False')
        with open(config, 'w') as f:
            f.write(text)
        sync = placement_command('placement-manage', 'db', 'sync',
                                 config=config)
        after = upstream_db.schema_snapshot(engine)
        version = migration.current(engine)
        own_version = migration.own_current(engine)
    finally:
        engine.dispose()
    return {'before': before, 'after': after, 'sync': sync,
            'version': version, 'own_version': own_version,
            'config': config}


def test_upstream_head_is_our_head():
    assert migration.head() == upstream_db.UPSTREAM_HEAD


def test_db_sync_changes_no_upstream_schema(upstream):
    assert upstream['sync'].returncode == 0, upstream['sync'].stderr
    assert upstream['version'] == upstream_db.UPSTREAM_HEAD
    # The dump's tables as they were, alembic_version included, and the
    # own history's two tables beside them.
    assert {name: upstream['after'][name]
            for name in upstream['before']} == upstream['before']
    statements, _counts = upstream_db.read_dump()
    tables = {upstream_db.table_name(s) for s in statements}
    assert set(upstream['before']) == tables - {None}
    assert set(upstream['after']) - set(upstream['before']) == {
        'placement_changes', migration.OWN_VERSION_TABLE}
    assert upstream['own_version'] == migration.own_head()


def test_status_check_passes(upstream):
    result = placement_command('placement-status', 'upgrade', 'check',
                               config=upstream['config'])
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture(scope='module')
def client(upstream, database):
    srv = helpers.Server(database.workdir)
    with httpx.Client(base_url=srv.url, headers=helpers.ADMIN_HEADERS,
                      timeout=30) as http:
        yield http
    srv.stop()


def test_serves_root(client):
    response = client.get('/', headers={'x-auth-token': ''})
    assert response.status_code == 200
    assert response.json()['versions'][0]['max_version'] == '1.39'


def test_serves_upstream_providers(client):
    response = client.get('/resource_providers')
    assert response.status_code == 200, response.text
    providers = response.json()['resource_providers']
    assert [(p['uuid'], p['name'], p['generation'], p['root_provider_uuid'])
            for p in providers] == [(RP_UUID, 'upstream-cn1', 3, RP_UUID)]


def test_serves_upstream_inventory_and_usage(client):
    inventories = client.get('/resource_providers/%s/inventories' % RP_UUID)
    assert inventories.status_code == 200, inventories.text
    body = inventories.json()
    assert body['resource_provider_generation'] == 3
    assert body['inventories']['VCPU']['total'] == 8
    assert body['inventories']['VCPU']['allocation_ratio'] == 16.0
    usages = client.get('/resource_providers/%s/usages' % RP_UUID)
    assert usages.status_code == 200, usages.text
    assert usages.json()['usages'] == {'VCPU': 2}


def test_serves_upstream_allocations(client):
    response = client.get('/allocations/%s' % CONSUMER_UUID)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body['allocations'] == {
        RP_UUID: {'generation': 3, 'resources': {'VCPU': 2}}}
    assert (body['project_id'], body['user_id']) == (PROJECT_ID, USER_ID)
    assert body['consumer_generation'] == 1


def test_serves_upstream_traits_and_aggregates(client):
    traits = client.get('/resource_providers/%s/traits' % RP_UUID)
    assert traits.status_code == 200, traits.text
    assert traits.json()['traits'] == [TRAIT]
    aggregates = client.get('/resource_providers/%s/aggregates' % RP_UUID)
    assert aggregates.status_code == 200, aggregates.text
    assert aggregates.json()['aggregates'] == [AGGREGATE_UUID]


def test_writes_work_on_upstream_database(client):
    # New rows get ids from the upstream tables' own sequences.
    rp_uuid = str(uuid.uuid4())
    created = client.post('/resource_providers',
                          json={'name': 'new-on-upstream', 'uuid': rp_uuid})
    assert created.status_code == 200, created.text
    custom = client.put('/resource_classes/CUSTOM_DROPIN')
    assert custom.status_code == 201, custom.text
    assert client.get('/resource_classes/CUSTOM_DROPIN').status_code == 200


def test_row_without_timestamps_counts_as_changed_now(client, database):
    # Upstream left the provider's VCPU record without created_at and
    # updated_at; a MEMORY_MB record from 2020 joins it.  Upstream takes
    # a record without a time as changed now, so the listing's
    # Last-Modified is now, not 2020.
    engine = database.engine()
    try:
        with engine.begin() as conn:
            meta = sa.MetaData()
            inventories = sa.Table('inventories', meta, autoload_with=conn)
            providers = sa.Table('resource_providers', meta,
                                 autoload_with=conn)
            rp_id = conn.execute(sa.select(providers.c.id).where(
                providers.c.uuid == RP_UUID)).scalar_one()
            conn.execute(inventories.insert().values(
                resource_provider_id=rp_id, resource_class_id=1,
                total=1024, reserved=0, min_unit=1, max_unit=1024,
                step_size=1, allocation_ratio=1.0,
                created_at=datetime.datetime(2020, 1, 1)))
    finally:
        engine.dispose()
    response = client.get('/resource_providers/%s/inventories' % RP_UUID,
                          headers=helpers.version('1.15'))
    assert response.status_code == 200, response.text
    assert sorted(response.json()['inventories']) == ['MEMORY_MB', 'VCPU']
    modified = email.utils.parsedate_to_datetime(
        response.headers['last-modified'])
    date = email.utils.parsedate_to_datetime(response.headers['date'])
    assert abs((date - modified).total_seconds()) < 60


# -- rows without timestamps ------------------------------------------------
#
# Old releases left created_at and updated_at NULL.  Upstream counts such
# a row as changed now; Last-Modified (from 1.15) is the newest
# ``updated_at or created_at`` of the rows each path reads, except where
# it is always now, and a trait's own URL shows its created_at alone
# (none at all without one).  Every other table starts at these times:
CREATED = datetime.datetime(2020, 1, 1)
UPDATED = datetime.datetime(2020, 6, 1)
TIMED_RP = str(uuid.uuid4())
TIMED_EMPTY = str(uuid.uuid4())
TIMED_CONSUMER = str(uuid.uuid4())
TIMED_TRAIT = 'CUSTOM_DROPIN_TIMED'
TIMESTAMPED = ('resource_providers', 'inventories', 'allocations',
               'resource_classes', 'traits', 'resource_provider_traits',
               'placement_aggregates', 'resource_provider_aggregates',
               'projects', 'users', 'consumer_types', 'consumers')
# (path, the first microversion that has it, what Last-Modified is: the
# tables whose rows give it, NOW, CREATED_ONLY for the traits' created_at,
# or UNDATED: none at all).  Each is read at its first microversion, at
# 1.14 (the last without Last-Modified), at 1.15 and at the latest.
NOW = ()
CREATED_ONLY = 'traits created_at'
UNDATED = 'no Last-Modified'
_RP = '/resource_providers/' + TIMED_RP
_EMPTY = '/resource_providers/' + TIMED_EMPTY
_PATHS = (
    ('/resource_providers', '1.0', ('resource_providers',)),
    ('/resource_providers?resources=VCPU:1', '1.4', ('resource_providers',)),
    ('/resource_providers?member_of=' + AGGREGATE_UUID, '1.3',
     ('resource_providers',)),
    ('/resource_providers?in_tree=' + TIMED_RP, '1.14',
     ('resource_providers',)),
    ('/resource_providers?required=' + TIMED_TRAIT, '1.18',
     ('resource_providers',)),
    (_RP, '1.0', ('resource_providers',)),
    (_RP + '/inventories', '1.0', ('inventories',)),
    (_RP + '/inventories/VCPU', '1.0', ('inventories',)),
    (_EMPTY + '/inventories', '1.0', UNDATED),
    (_RP + '/usages', '1.0', NOW),
    (_RP + '/allocations', '1.0', ('allocations',)),
    (_EMPTY + '/allocations', '1.0', NOW),
    (_RP + '/traits', '1.6', ('traits',)),
    (_RP + '/aggregates', '1.1', NOW),
    ('/allocations/' + TIMED_CONSUMER, '1.0', ('allocations',)),
    ('/resource_classes', '1.2', ('resource_classes',)),
    ('/resource_classes/VCPU', '1.2', ('resource_classes',)),
    ('/traits', '1.6', ('traits',)),
    ('/traits?associated=true', '1.6', ('traits',)),
    ('/traits/' + TIMED_TRAIT, '1.6', CREATED_ONLY),
    ('/usages?project_id=%s&user_id=%s' % (PROJECT_ID, USER_ID), '1.9', NOW),
    ('/usages?project_id=%s&consumer_type=INSTANCE' % PROJECT_ID, '1.38',
     NOW),
    ('/allocation_candidates?resources=VCPU:1', '1.10', NOW),
    ('/allocation_candidates?resources=VCPU:1&required=%s&member_of=%s'
     % (TIMED_TRAIT, AGGREGATE_UUID), '1.21', NOW),
)


def _versions(first):
    def key(version):
        return tuple(int(part) for part in version.split('.'))
    return sorted({v for v in (first, '1.14', '1.15', '1.39')
                   if key(v) >= key(first)}, key=key)


READS = [(version, path, source) for path, first, source in _PATHS
         for version in _versions(first)]
# Writes that change nothing, and what their Last-Modified is: an
# existing trait's created_at (now without one), and a provider renamed
# to its own name: its updated_at, none without one.
WRITES = (
    ('PUT', '/traits/' + TIMED_TRAIT, None,
     lambda nulled: 'now' if nulled == 'traits' else CREATED),
    ('PUT', _RP, {'name': 'timed'},
     lambda nulled: None if nulled == 'resource_providers' else UPDATED),
)


def _stamp(engine, nulled=None):
    """Every timestamped row at CREATED/UPDATED, ``nulled``'s at NULL."""
    with engine.begin() as conn:
        for table in TIMESTAMPED:
            stamps = ((None, None) if table == nulled
                      else (CREATED, UPDATED))
            conn.execute(sa.text(
                'UPDATE %s SET created_at = :created, updated_at = :updated'
                % table), dict(zip(('created', 'updated'), stamps)))


def _get(client, version, path):
    return client.get(path, headers=helpers.version(version))


@pytest.fixture(scope='module')
def timed(client, database):
    """A provider with inventory, a trait, an aggregate and a typed
    consumer, an empty provider, and the answers of READS while every row
    has its times; yields an engine on the database."""
    for name, rp_uuid in (('timed', TIMED_RP), ('timed-empty', TIMED_EMPTY)):
        assert client.post('/resource_providers', json={
            'name': name, 'uuid': rp_uuid}).status_code == 200
    assert client.put(_RP + '/inventories', json={
        'resource_provider_generation': 0,
        'inventories': {'VCPU': {'total': 8}}}).status_code == 200
    assert client.put('/traits/' + TIMED_TRAIT).status_code == 201
    assert client.put(_RP + '/traits', json={
        'resource_provider_generation': 1,
        'traits': [TIMED_TRAIT, TRAIT]}).status_code == 200
    assert client.put(_RP + '/aggregates', json={
        'resource_provider_generation': 2,
        'aggregates': [AGGREGATE_UUID]}).status_code == 200
    assert client.put('/allocations/' + TIMED_CONSUMER, json={
        'allocations': {TIMED_RP: {'resources': {'VCPU': 2}}},
        'project_id': PROJECT_ID, 'user_id': USER_ID,
        'consumer_generation': None,
        'consumer_type': 'INSTANCE'}).status_code == 204
    engine = database.engine()
    _stamp(engine)
    answers = {}
    for version, path, _source in READS:
        response = _get(client, version, path)
        assert response.status_code in (200, 204), response.text
        answers[version, path] = response.status_code, response.content
    yield engine, answers
    engine.dispose()


def _last_modified(response):
    value = response.headers.get('last-modified')
    if value is None:
        return None
    modified = email.utils.parsedate_to_datetime(value)
    date = email.utils.parsedate_to_datetime(response.headers['date'])
    if abs((date - modified).total_seconds()) < 60:
        return 'now'
    return modified.replace(tzinfo=None)


def _at_least_1_15(version):
    return tuple(int(part) for part in version.split('.')) >= (1, 15)


def _expected(version, source, nulled):
    if not _at_least_1_15(version) or source == UNDATED:
        return None
    if source == CREATED_ONLY:
        return None if nulled == 'traits' else CREATED
    return 'now' if source == NOW or nulled in source else UPDATED


@pytest.mark.parametrize('nulled', TIMESTAMPED)
def test_rows_without_timestamps_answer_as_upstream(client, timed, nulled):
    # Each table's rows in turn without timestamps: every read answers as
    # with them, and dates its answer as upstream does, at every
    # microversion where the path exists; so do writes that change
    # nothing.  (tools/differential.py's "null timestamps" steps ask
    # upstream placement the same.)
    engine, answers = timed
    _stamp(engine, nulled)
    wrong = []
    for version, path, source in READS:
        response = _get(client, version, path)
        found = ((response.status_code, response.content),
                 response.headers.get('cache-control'),
                 _last_modified(response))
        wanted = (answers[version, path],
                  'no-cache' if _at_least_1_15(version) else None,
                  _expected(version, source, nulled))
        if found != wanted:
            wrong.append((version, path, found[0][0], found[1:], wanted[1:]))
    for method, path, body, expected in WRITES:
        response = client.request(method, path, json=body,
                                  headers=helpers.version('1.15'))
        found = (response.status_code < 300, _last_modified(response))
        if found != (True, expected(nulled)):
            wrong.append((method, path, response.text, found))
    assert not wrong, wrong
