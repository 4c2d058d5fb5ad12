"""placement-manage and placement-status, run as an operator runs them."""
import os
import subprocess
import sys
import uuid

import os_resource_classes
import os_traits
import pytest
import sqlalchemy as sa

from support import helpers
from placement.data import migration
from placement.data import tables

BIN = os.path.dirname(sys.executable)
HEAD = migration.head()


def run(command, *args, config=None, env=None):
    argv = [os.path.join(BIN, command)]
    if config:
        argv += ['--config-file', config]
    result = subprocess.run(argv + list(args), capture_output=True,
                            text=True, timeout=120,
                            env=dict(os.environ, **(env or {})))
    return result


def assert_one_line_error(result, prog):
    assert result.returncode != 0
    assert 'Traceback' not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(prog + ': ')
    return lines[0]


def status_rows(result):
    """{check name: (result, details)} from the table."""
    rows = {}
    for line in result.stdout.splitlines():
        cells = [cell.strip() for cell in line.strip('|').split('|')]
        if line.startswith('|') and len(cells) == 3 and cells[0] != 'Check':
            rows[cells[0]] = (cells[1], cells[2])
    return rows


@pytest.fixture(scope='module')
def config(database):
    return helpers.write_config(database.workdir, database.url)


@pytest.fixture(scope='module')
def synced(database, config):
    """The module's database before and after the first db sync."""
    before = run('placement-manage', 'db', 'version', config=config)
    status = run('placement-status', 'upgrade', 'check', config=config)
    sync = run('placement-manage', 'db', 'sync', config=config)
    return before, status, sync


def test_empty_database_has_no_version(synced):
    before, _status, _sync = synced
    assert before.returncode == 0, before.stderr
    assert before.stdout.splitlines() == ['None', 'own history: None']


def test_status_fails_before_sync(synced):
    _before, status, _sync = synced
    assert status.returncode == 2
    rows = status_rows(status)
    assert rows['Database schema'][0] == 'Failure'
    assert 'placement-manage db sync' in rows['Database schema'][1]
    assert rows['Incomplete consumers'][0] == 'Failure'
    assert rows['Change feed schema'][0] == 'Warning'
    assert 'change feed is off' in rows['Change feed schema'][1]


def test_sync_builds_schema_and_standard_rows(synced, config, engine):
    _before, _status, sync = synced
    assert sync.returncode == 0, sync.stderr
    assert HEAD in sync.stdout
    version = run('placement-manage', 'db', 'version', config=config)
    # Upstream's revision first, as deployment tools read it.
    assert version.stdout.splitlines() == [
        HEAD, 'own history: %s' % migration.own_head()]
    assert set(tables.metadata.tables) <= set(
        sa.inspect(engine).get_table_names())
    with engine.connect() as conn:
        classes = conn.execute(sa.select(tables.resource_classes.c.id,
                                         tables.resource_classes.c.name))
        assert dict(classes.all()) == dict(enumerate(
            os_resource_classes.STANDARDS))
        traits = set(conn.execute(sa.select(tables.traits.c.name)).scalars())
        assert traits == set(os_traits.get_traits())


def test_sync_again_changes_nothing(synced, config, engine):
    def counts():
        with engine.connect() as conn:
            return [conn.execute(sa.select(sa.func.count()).select_from(t))
                    .scalar() for t in (tables.resource_classes,
                                        tables.traits)]
    first = counts()
    again = run('placement-manage', 'db', 'sync', config=config)
    assert again.returncode == 0, again.stderr
    assert counts() == first


def test_stamp(synced, config):
    stamped = run('placement-manage', 'db', 'stamp', HEAD, config=config)
    assert stamped.returncode == 0, stamped.stderr
    assert run('placement-manage', 'db', 'version',
               config=config).stdout.splitlines()[0] == HEAD
    line = assert_one_line_error(
        run('placement-manage', 'db', 'stamp', 'deadbeef', config=config),
        'placement-manage')
    assert 'deadbeef' in line


def test_status_success(synced, config):
    result = run('placement-status', 'upgrade', 'check', config=config)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = status_rows(result)
    assert set(rows) == {'Database schema', 'Change feed schema',
                         'Root provider ids', 'Incomplete consumers',
                         'Policy file'}
    assert {row[0] for row in rows.values()} == {'Success'}


def _insert_consumer(conn, project_external_id):
    project_id = conn.execute(tables.projects.insert().values(
        external_id=project_external_id)).inserted_primary_key[0]
    user_id = conn.execute(tables.users.insert().values(
        external_id=str(uuid.uuid4()))).inserted_primary_key[0]
    consumer_uuid = str(uuid.uuid4())
    conn.execute(tables.consumers.insert().values(
        uuid=consumer_uuid, project_id=project_id, user_id=user_id,
        generation=0))
    return consumer_uuid


@pytest.fixture
def cleanup(engine):
    yield
    rps = tables.resource_providers
    with engine.begin() as conn:
        for table in (tables.allocations, tables.consumers, tables.projects,
                      tables.users):
            conn.execute(table.delete())
        # MariaDB checks the self-references row by row.
        conn.execute(rps.update().values(root_provider_id=None,
                                         parent_provider_id=None))
        conn.execute(rps.delete())


def test_status_warns_about_incomplete_consumers(synced, config, engine,
                                                 cleanup):
    with engine.begin() as conn:
        _insert_consumer(conn, str(uuid.uuid4()))  # a complete one
        _insert_consumer(conn, '00000000-0000-0000-0000-000000000000')
        conn.execute(tables.allocations.insert().values(
            resource_provider_id=1, consumer_id=str(uuid.uuid4()),
            resource_class_id=0, used=1))
    result = run('placement-status', 'upgrade', 'check', config=config)
    assert result.returncode == 1, result.stdout
    check, details = status_rows(result)['Incomplete consumers']
    assert check == 'Warning'
    assert '1 consumers have the placeholder project' in details
    assert '1 consumers have allocations but no consumer record' in details


def test_status_fails_on_missing_root_provider(synced, config, engine,
                                               cleanup):
    with engine.begin() as conn:
        conn.execute(tables.resource_providers.insert().values(
            uuid=str(uuid.uuid4()), name='rootless', generation=0))
    result = run('placement-status', 'upgrade', 'check', config=config)
    assert result.returncode == 2
    assert status_rows(result)['Root provider ids'][0] == 'Failure'


def test_online_data_migrations(synced, config, engine, cleanup):
    rps = tables.resource_providers
    orphans = sorted(str(uuid.uuid4()) for _ in range(2))
    with engine.begin() as conn:
        # A tree from before root ids.
        root = conn.execute(rps.insert().values(
            uuid=str(uuid.uuid4()), name='old-root', generation=0)
        ).inserted_primary_key[0]
        child = conn.execute(rps.insert().values(
            uuid=str(uuid.uuid4()), name='old-child', generation=0,
            parent_provider_id=root)).inserted_primary_key[0]
        for consumer_uuid in orphans:
            conn.execute(tables.allocations.insert().values(
                resource_provider_id=root, consumer_id=consumer_uuid,
                resource_class_id=0, used=1))

    partial = run('placement-manage', 'db', 'online_data_migrations',
                  '--max-count', '1', config=config)
    assert partial.returncode == 1, partial.stdout + partial.stderr
    rows = status_rows(partial)
    assert rows['set_root_provider_ids'] == ('2', '1')
    assert rows['create_incomplete_consumers'] == ('2', '1')

    rest = run('placement-manage', 'db', 'online_data_migrations',
               config=config)
    assert rest.returncode == 0, rest.stdout + rest.stderr
    assert status_rows(rest)['set_root_provider_ids'] == ('1', '1')
    assert status_rows(rest)['create_incomplete_consumers'] == ('1', '1')

    with engine.connect() as conn:
        roots = dict(conn.execute(sa.select(
            rps.c.id, rps.c.root_provider_id)).all())
        created = conn.execute(
            sa.select(tables.consumers.c.uuid, tables.projects.c.external_id)
            .join(tables.projects,
                  tables.consumers.c.project_id == tables.projects.c.id)
            .order_by(tables.consumers.c.uuid)).all()
    assert roots == {root: root, child: root}
    placeholder = '00000000-0000-0000-0000-000000000000'
    assert [tuple(row) for row in created] == [
        (consumer_uuid, placeholder) for consumer_uuid in orphans]

    result = run('placement-status', 'upgrade', 'check', config=config)
    rows = status_rows(result)
    assert rows['Root provider ids'][0] == 'Success'
    assert rows['Incomplete consumers'][0] == 'Warning'
    assert 'no consumer record' not in rows['Incomplete consumers'][1]
    assert '2 consumers have the placeholder project' in (
        rows['Incomplete consumers'][1])


@pytest.mark.parametrize('content, expected, code', [
    ('placement:resource_providers:list: "rule:admin_api"\n', 'Success', 0),
    ('placement:no_such_rule: "@"\n', 'Warning', 1),
    ('placement:resource_providers:list: [\n', 'Failure', 2),
])
def test_status_policy_file(synced, database, content, expected, code):
    policy_file = os.path.join(database.workdir, 'policy-check.yaml')
    with open(policy_file, 'w') as f:
        f.write(content)
    config = helpers.write_config(
        database.workdir, database.url,
        '[oslo_policy]\npolicy_file = %s\n' % policy_file)
    try:
        result = run('placement-status', 'upgrade', 'check', config=config)
    finally:
        helpers.write_config(database.workdir, database.url)
    assert result.returncode == code, result.stdout
    check, details = status_rows(result)['Policy file']
    assert check == expected
    assert policy_file in details


def test_config_dir_from_environment(synced, database):
    # No --config-file: OS_PLACEMENT_CONFIG_DIR/placement.conf is read.
    result = run('placement-manage', 'db', 'version',
                 env={'OS_PLACEMENT_CONFIG_DIR': database.workdir})
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == HEAD


@pytest.fixture
def unreachable(tmp_path):
    port = helpers.free_port()  # nothing listens there
    return helpers.write_config(
        str(tmp_path),
        'mysql+pymysql://placement:s3cret-pw@127.0.0.1:%d/placement' % port)


@pytest.mark.parametrize('argv, prog, code', [
    (['placement-manage', 'db', 'sync'], 'placement-manage', 1),
    (['placement-manage', 'db', 'version'], 'placement-manage', 1),
    (['placement-status', 'upgrade', 'check'], 'placement-status', 2),
])
def test_unreachable_database_is_one_line(unreachable, argv, prog, code):
    result = run(argv[0], *argv[1:], config=unreachable)
    line = assert_one_line_error(result, prog)
    assert result.returncode == code
    assert 'database' in line
    assert 's3cret-pw' not in result.stderr + result.stdout


@pytest.mark.parametrize('argv, prog', [
    (['placement-manage', 'db', 'version'], 'placement-manage'),
    (['placement-status', 'upgrade', 'check'], 'placement-status'),
])
def test_bad_config_is_one_line(tmp_path, argv, prog):
    config = helpers.write_config(
        str(tmp_path), 'sqlite:///%s/x.sqlite' % tmp_path,
        '[placement]\nallocation_conflict_retry_count = abc\n')
    line = assert_one_line_error(run(argv[0], *argv[1:], config=config),
                                 prog)
    assert 'allocation_conflict_retry_count' in line
