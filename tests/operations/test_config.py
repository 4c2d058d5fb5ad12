"""placement-api start-up: configuration mistakes end it with one clear
line; with no configuration at all it runs on a private SQLite file."""
import json
import os
import subprocess
import sys
import uuid

import httpx
import pytest
import sqlalchemy as sa

from support import helpers
from placement.config import conf as placement_conf
from placement.data import db
from placement.data import migration

API = os.path.join(os.path.dirname(sys.executable), 'placement-api')


def start_api(config_dir, env=None):
    port = helpers.free_port()
    return subprocess.run(
        [API, '--bind', '127.0.0.1:%d' % port, '--workers', '1'],
        capture_output=True, text=True, timeout=60,
        env=dict(os.environ, OS_PLACEMENT_CONFIG_DIR=config_dir,
                 **(env or {})))


@pytest.mark.parametrize('section, option, value', [
    ('placement', 'allocation_conflict_retry_count', 'abc'),
    ('placement', 'allocation_conflict_retry_count', '-1'),
    ('api', 'auth_strategy', 'trust-everyone'),
    ('api', 'max_request_body_size', '0'),
    ('placement_database', 'sync_on_startup', 'perhaps'),
])
def test_bad_option_value_is_one_line(tmp_path, section, option, value):
    helpers.write_config(str(tmp_path), 'sqlite:///%s/p.sqlite' % tmp_path)
    with open(tmp_path / 'placement.conf', 'a') as f:
        f.write('[%s]\n%s = %s\n' % (section, option, value))
    result = start_api(str(tmp_path))
    assert result.returncode != 0
    assert 'Traceback' not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith('placement-api: invalid configuration')
    assert option in lines[0]


@pytest.mark.parametrize('indent', [None, 2], ids=['compact', 'pretty'])
def test_the_default_body_limit_admits_20000_consumers(indent):
    """POST /allocations of 20,000 consumers, each on two providers with
    three classes: 8.6 MB, 11.7 MB pretty-printed."""
    def new():
        return str(uuid.uuid4())
    body = {new(): {
        'allocations': {new(): {'resources': {
            'VCPU': 16, 'MEMORY_MB': 65536, 'DISK_GB': 1000}}
            for _ in range(2)},
        'consumer_generation': 1, 'project_id': new(), 'user_id': new(),
        'consumer_type': 'INSTANCE'} for _ in range(20000)}
    size = len(json.dumps(body, indent=indent))
    conf = placement_conf.load(config_files=[])
    assert size < conf.api.max_request_body_size


@pytest.mark.parametrize('url, expected', [
    ('nosuchdb://somewhere/placement', 'unknown database type'),
    ('mysql+pymysql://placement:pw-in-url@127.0.0.1:%(port)d/placement',
     'database error'),
])
def test_bad_database_is_one_line(tmp_path, url, expected):
    url = url % {'port': helpers.free_port()}
    helpers.write_config(str(tmp_path), url)
    result = start_api(str(tmp_path))
    assert result.returncode != 0
    assert 'Traceback' not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith('placement-api: ' + expected)
    assert 'pw-in-url' not in result.stderr


@pytest.mark.parametrize('content, expected', [
    ('"placement:summary": [\n', "expected the node content, but found "
     "'<stream end>' at line 2, column 1"),
    ('"placement:summary": "@"\n  "placement:capacity": "@"\n',
     "expected <block end>, but found '<block mapping start>' at line 2, "
     "column 3"),
])
def test_broken_policy_file_is_one_line(tmp_path, content, expected):
    # Only at the first start: later a broken file keeps the rules in
    # force (tests/operations/test_policy.py).
    policy_file = tmp_path / 'policy.yaml'
    policy_file.write_text(content)
    helpers.write_config(str(tmp_path), 'sqlite:///%s/p.sqlite' % tmp_path,
                         '[oslo_policy]\npolicy_file = %s\n' % policy_file)
    result = start_api(str(tmp_path))
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        'placement-api: the policy file %s does not load: %s'
        % (policy_file, expected)]


def test_schema_behind_is_one_line(tmp_path):
    # Without sync_on_startup the service refuses a database that
    # placement-manage db sync has not prepared.
    with open(tmp_path / 'placement.conf', 'w') as f:
        f.write('[placement_database]\nconnection = sqlite:///%s/p.sqlite\n'
                % tmp_path)
    result = start_api(str(tmp_path))
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith('placement-api: database schema is at None')
    assert 'placement-manage db sync' in lines[-1]
    assert 'Traceback' not in result.stderr


@pytest.mark.skipif(
    os.path.exists(os.path.join(placement_conf.DEFAULT_CONFIG_DIR,
                                placement_conf.CONFIG_NAME)),
    reason='this machine has a system-wide placement.conf')
def test_no_config_runs_on_sqlite_in_state_dir(tmp_path):
    config_dir = tmp_path / 'empty'
    state = tmp_path / 'state'
    config_dir.mkdir()
    server = helpers.Server(str(config_dir),
                            env={'XDG_STATE_HOME': str(state)})
    try:
        response = httpx.get(server.url + '/', timeout=10)
        assert response.status_code == 200
        assert response.json()['versions'][0]['max_version'] == '1.39'
        # keystone is the default strategy, and nothing configures it: the
        # API says so instead of failing inside keystoneauth with a 500.
        response = httpx.get(server.url + '/resource_providers',
                             headers={'x-auth-token': 'any'}, timeout=10)
        assert response.status_code == 503
        assert 'keystone_authtoken' in response.json()['errors'][0]['detail']
    finally:
        server.stop()
    database = state / 'placement' / 'placement.sqlite'
    assert database.exists()
    engine = sa.create_engine('sqlite:///%s' % database)
    try:
        assert migration.current(engine) == migration.head()
    finally:
        engine.dispose()


@pytest.mark.parametrize('url, disabled', [
    ('mysql+pymysql://root@127.0.0.1/placement', True),
    ('mysql+pymysql://root@127.0.0.1/placement?ssl_ca=/etc/ca.pem', False),
    ('mysql+pymysql://root@127.0.0.1/placement?ssl_disabled=0', False),
])
def test_pymysql_tls_only_when_configured(tmp_path, url, disabled):
    # Without TLS settings new connections skip PyMySQL's TLS context.
    conf = placement_conf.load(
        config_files=[helpers.write_config(str(tmp_path), url)])
    engine = db.create_engine(conf)
    seen = {}

    @sa.event.listens_for(engine, 'do_connect')
    def capture(dialect, record, cargs, cparams):
        seen.update(cparams)
        raise RuntimeError('not connecting')
    with pytest.raises(Exception, match='not connecting'):
        engine.connect()
    assert (seen.get('ssl_disabled') is True) is disabled
