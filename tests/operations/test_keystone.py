"""The service behind a real Keystone: ``[api] auth_strategy = keystone``.

Keystone (from PyPI) lives in a virtualenv of its own, because its pinned
libraries need not agree with ours: ``$PLACEMENT_TEST_KEYSTONE_VENV``, by
default ``~/.cache/placement-test-keystone-venv``, with ``keystone`` and
``gunicorn`` installed (.ci/run creates it).  Without it every test here
skips and says why.  Keystone runs on SQLite with fernet tokens under
gunicorn on a free port; the tests register a ``placement`` service user,
service and endpoint and a project member in it through its REST API, as
an operator would, then check what our service lets each token do.
"""
import grp
import importlib.util
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import uuid

import httpx
import pytest

from support import browser_support
from support.browser_support import By
from support import helpers

KEYSTONE_VENV = os.environ.get(
    'PLACEMENT_TEST_KEYSTONE_VENV',
    os.path.expanduser('~/.cache/placement-test-keystone-venv'))
KEYSTONE_MANAGE = os.path.join(KEYSTONE_VENV, 'bin', 'keystone-manage')
KEYSTONE_GUNICORN = os.path.join(KEYSTONE_VENV, 'bin', 'gunicorn')
OPENSTACK = os.path.join(os.path.dirname(sys.executable), 'openstack')

pytestmark = pytest.mark.skipif(
    not (os.access(KEYSTONE_MANAGE, os.X_OK)
         and os.access(KEYSTONE_GUNICORN, os.X_OK)),
    reason='no keystone in %s: python3 -m venv %s && %s/bin/pip install '
           'keystone gunicorn (.ci/run does it)'
           % (KEYSTONE_VENV, KEYSTONE_VENV, KEYSTONE_VENV))

ADMIN_PASSWORD = 'admin-secret'
PLACEMENT_PASSWORD = 'placement-secret'
MEMBER_PASSWORD = 'member-secret'
SERVICE_PASSWORD = 'service-secret'
# Every keystone-manage step and each wait for a server is bounded.
STEP_TIMEOUT = 300


class Keystone(helpers.BackgroundProcess):
    """keystone-manage prepared SQLite database and keys, served by
    gunicorn."""

    name = 'keystone'
    stop_timeout = 30

    def __init__(self, workdir):
        self.workdir = workdir
        self.port = helpers.free_port()
        self.url = 'http://127.0.0.1:%d' % self.port
        self.conf = os.path.join(workdir, 'keystone.conf')
        with open(self.conf, 'w') as f:
            f.write('[database]\nconnection = sqlite:///%s\n'
                    '[token]\nprovider = fernet\n'
                    '[fernet_tokens]\nkey_repository = %s\n'
                    '[credential]\nkey_repository = %s\n'
                    % (os.path.join(workdir, 'keystone.sqlite'),
                       os.path.join(workdir, 'fernet-keys'),
                       os.path.join(workdir, 'credential-keys')))
        owner = ['--keystone-user', pwd.getpwuid(os.getuid()).pw_name,
                 '--keystone-group', grp.getgrgid(os.getgid()).gr_name]
        self.manage('fernet_setup', *owner)
        self.manage('credential_setup', *owner)
        self.manage('db_sync')
        self.manage('bootstrap', '--bootstrap-password', ADMIN_PASSWORD,
                    '--bootstrap-admin-url', self.url + '/v3',
                    '--bootstrap-internal-url', self.url + '/v3',
                    '--bootstrap-public-url', self.url + '/v3',
                    '--bootstrap-region-id', 'RegionOne')
        # Keystone reads the command line as its own options when the
        # application loads, so gunicorn's arguments must be out of sight.
        with open(os.path.join(workdir, 'keystone_app.py'), 'w') as f:
            f.write('import sys\nsys.argv[1:] = []\n'
                    'from keystone.wsgi.api import application  # noqa\n')
        extra = []
        if '--no-control-socket' in subprocess.run(
                [KEYSTONE_GUNICORN, '--help'], capture_output=True,
                text=True, timeout=STEP_TIMEOUT).stdout:
            # Newer gunicorns share one control socket path per user.
            extra.append('--no-control-socket')
        self.start(
            [KEYSTONE_GUNICORN, '--bind', '127.0.0.1:%d' % self.port,
             '--workers', '2', '--timeout', '120', '--chdir', workdir]
            + extra + ['keystone_app:application'],
            dict(os.environ, OS_KEYSTONE_CONFIG_FILES=self.conf),
            os.path.join(workdir, 'keystone.log'), self.url + '/v3',
            timeout=STEP_TIMEOUT)
        self.admin_token = self.token('admin', ADMIN_PASSWORD, 'admin')

    def manage(self, *args):
        result = subprocess.run(
            [KEYSTONE_MANAGE, '--config-file', self.conf] + list(args),
            capture_output=True, text=True, timeout=STEP_TIMEOUT)
        assert result.returncode == 0, (args, result.stderr[-3000:])

    def token(self, user, password, project):
        """A project-scoped token (users and projects of domain Default)."""
        body = {'auth': {
            'identity': {'methods': ['password'], 'password': {'user': {
                'name': user, 'domain': {'id': 'default'},
                'password': password}}},
            'scope': {'project': {'name': project,
                                  'domain': {'id': 'default'}}}}}
        resp = httpx.post(self.url + '/v3/auth/tokens', json=body, timeout=60)
        assert resp.status_code == 201, resp.text
        return resp.headers['x-subject-token']

    def api(self, method, path, body=None, expect=(200, 201, 204)):
        resp = httpx.request(method, self.url + '/v3' + path, json=body,
                             headers={'x-auth-token': self.admin_token},
                             timeout=60)
        assert resp.status_code in expect, (method, path, resp.text)
        return resp.json() if resp.content else None

    def create(self, kind, **fields):
        """POST /v3/<kind>s; the new object's id."""
        return self.api('POST', '/%ss' % kind, {kind: fields})[kind]['id']

    def role_id(self, name):
        """The role's id; created when keystone has none of that name."""
        roles = self.api('GET', '/roles?name=' + name)['roles']
        return roles[0]['id'] if roles else self.create('role', name=name)

    def grant(self, project_id, user_id, role):
        self.api('PUT', '/projects/%s/users/%s/roles/%s'
                 % (project_id, user_id, self.role_id(role)))


@pytest.fixture(scope='module')
def keystone():
    workdir = tempfile.mkdtemp(prefix='placement-keystone-')
    try:
        ks = Keystone(workdir)
    except Exception:
        shutil.rmtree(workdir, ignore_errors=True)
        raise
    # What an operator registers for placement (docs/operators.md).
    service_project = ks.create('project', name='service',
                                domain_id='default')
    placement_user = ks.create('user', name='placement', domain_id='default',
                               password=PLACEMENT_PASSWORD)
    ks.grant(service_project, placement_user, 'admin')
    ks.member_project = ks.create('project', name='demo',
                                  domain_id='default')
    member = ks.create('user', name='demo', domain_id='default',
                       password=MEMBER_PASSWORD)
    ks.grant(ks.member_project, member, 'member')
    ks.member_token = ks.token('demo', MEMBER_PASSWORD, 'demo')
    # Another OpenStack service (nova, say) holds the service role only.
    other_service = ks.create('user', name='nova', domain_id='default',
                              password=SERVICE_PASSWORD)
    ks.grant(service_project, other_service, 'service')
    ks.service_token = ks.token('nova', SERVICE_PASSWORD, 'service')
    yield ks
    ks.stop()
    shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture(scope='module')
def server(keystone):
    workdir = tempfile.mkdtemp(prefix='placement-keystone-api-')
    with open(os.path.join(workdir, 'placement.conf'), 'w') as f:
        f.write('[api]\nauth_strategy = keystone\n'
                '[placement_database]\nconnection = sqlite:///%s\n'
                'sync_on_startup = True\n'
                '[keystone_authtoken]\n'
                'www_authenticate_uri = %s\n'
                'auth_url = %s\n'
                'auth_type = password\n'
                'project_domain_name = Default\n'
                'user_domain_name = Default\n'
                'project_name = service\n'
                'username = placement\n'
                'password = %s\n'
                % (os.path.join(workdir, 'placement.sqlite'), keystone.url,
                   keystone.url, PLACEMENT_PASSWORD))
    srv = helpers.Server(workdir)
    service = keystone.create('service', type='placement', name='placement')
    for interface in ('public', 'internal', 'admin'):
        keystone.create('endpoint', service_id=service, interface=interface,
                        url=srv.url, region_id='RegionOne')
    yield srv
    srv.stop()
    shutil.rmtree(workdir, ignore_errors=True)


def request(server, path, token=None, method='GET', body=None):
    headers = {'openstack-api-version': 'placement latest'}
    if token:
        headers['x-auth-token'] = token
    return httpx.request(method, server.url + path, headers=headers,
                         json=body, timeout=60)


def test_root_needs_no_token(server):
    resp = request(server, '/')
    assert resp.status_code == 200
    assert resp.json()['versions'][0]['max_version'] == '1.39'


def test_no_token_is_401_with_keystone_uri(server, keystone):
    resp = request(server, '/resource_providers')
    assert resp.status_code == 401
    assert resp.headers['www-authenticate'] == (
        'Keystone uri="%s"' % keystone.url)


def test_bad_token_is_401(server):
    resp = request(server, '/resource_providers', token='not-a-token')
    assert resp.status_code == 401
    resp = request(server, '/resource_providers',
                   token='gAAAAA' + 'x' * 180)
    assert resp.status_code == 401


def test_admin_token(server, keystone):
    resp = request(server, '/resource_providers', token=keystone.admin_token)
    assert resp.status_code == 200, resp.text
    name = 'ks-' + uuid.uuid4().hex
    resp = request(server, '/resource_providers', token=keystone.admin_token,
                   method='POST', body={'name': name})
    assert resp.status_code == 200, resp.text
    assert resp.json()['name'] == name


def test_service_role(server, keystone):
    token = keystone.service_token
    resp = request(server, '/resource_providers', token=token, method='POST',
                   body={'name': 'ks-' + uuid.uuid4().hex})
    assert resp.status_code == 200, resp.text
    resp = request(server, '/usages?project_id=' + uuid.uuid4().hex,
                   token=token)
    assert resp.status_code == 200, resp.text


def test_project_member(server, keystone):
    token = keystone.member_token
    resp = request(server, '/resource_providers', token=token, method='POST',
                   body={'name': 'ks-' + uuid.uuid4().hex})
    assert resp.status_code == 403, resp.text
    assert resp.json()['errors'][0]['status'] == 403
    assert request(server, '/resource_providers',
                   token=token).status_code == 403
    resp = request(server, '/usages?project_id=' + keystone.member_project,
                   token=token)
    assert resp.status_code == 200, resp.text
    assert resp.json()['usages'] == {}
    resp = request(server, '/usages?project_id=' + uuid.uuid4().hex,
                   token=token)
    assert resp.status_code == 403


def openstack(keystone, user, password, project, *args):
    """The installed ``openstack`` script with password auth from the
    environment, as an operator's shell has it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    env.update(OS_AUTH_URL=keystone.url + '/v3', OS_IDENTITY_API_VERSION='3',
               OS_USERNAME=user, OS_PASSWORD=password,
               OS_PROJECT_NAME=project, OS_USER_DOMAIN_NAME='Default',
               OS_PROJECT_DOMAIN_NAME='Default', OS_REGION_NAME='RegionOne')
    return subprocess.run([OPENSTACK] + list(args), env=env,
                          capture_output=True, text=True,
                          timeout=STEP_TIMEOUT)


@pytest.mark.skipif(importlib.util.find_spec('osc_placement') is None,
                    reason='the openstack CLI is not installed: pip install '
                           '-e ".[cli]"')
def test_cli_finds_placement_in_the_catalog(server, keystone):
    name = 'ks-cli-' + uuid.uuid4().hex
    result = openstack(keystone, 'admin', ADMIN_PASSWORD, 'admin',
                       'resource', 'provider', 'create', name, '-f', 'json')
    assert result.returncode == 0, result.stderr
    created = json.loads(result.stdout)
    result = openstack(keystone, 'admin', ADMIN_PASSWORD, 'admin',
                       'resource', 'provider', 'list', '-f', 'json')
    assert result.returncode == 0, result.stderr
    assert created['uuid'] in {p['uuid'] for p in json.loads(result.stdout)}

    result = openstack(keystone, 'demo', MEMBER_PASSWORD, 'demo',
                       'resource', 'provider', 'list')
    assert result.returncode != 0
    assert 'HTTP 403' in result.stderr


def test_console_asks_for_a_token(server, keystone):
    """The console's files need no token, its data does: the page asks
    for one, keeps it in sessionStorage only, and asks again when keystone
    refuses it."""
    page = request(server, '/console/')
    assert page.status_code == 200, page.text
    assert page.headers['content-security-policy'].startswith(
        "default-src 'self'")
    with browser_support.chromium() as driver:
        driver.get(server.url + '/console/#/providers')
        browser_support.wait_state(driver, 'token')
        form = driver.find_element(By.ID, 'token-form')
        form.find_element(By.ID, 'token').send_keys('not-a-token')
        form.find_element(By.TAG_NAME, 'button').click()
        main = browser_support.wait_state(driver, 'token')
        assert 'refused' in main.text
        driver.find_element(By.ID, 'token').send_keys(keystone.admin_token)
        driver.find_element(By.CSS_SELECTOR, '#token-form button').click()
        main = browser_support.wait_state(driver, 'done')
        listed = request(server, '/resource_providers',
                         token=keystone.admin_token).json()
        rows = main.find_elements(By.CSS_SELECTOR,
                                  '#provider-table tbody tr')
        assert len(rows) == min(20, len(listed['resource_providers']))
        assert driver.execute_script(
            'return [sessionStorage.getItem("placement-console-token"),'
            ' localStorage.length, document.cookie]') == [
                keystone.admin_token, 0, '']
        # A project member may not list providers: the page says so.
        driver.find_element(By.ID, 'signout').click()
        browser_support.wait_state(driver, 'token')
        driver.find_element(By.ID, 'token').send_keys(keystone.member_token)
        driver.find_element(By.CSS_SELECTOR, '#token-form button').click()
        main = browser_support.wait_state(driver, 'error')
        assert '403' in main.text
        browser_support.assert_clean_log(driver)


def test_keystone_down_is_503(server, keystone):
    # Last: it stops keystone.  A token the service has not seen before
    # cannot be validated then; GET / still answers (a health check).
    keystone.stop()
    resp = request(server, '/resource_providers', token='gAAAAA' + 'y' * 180)
    assert resp.status_code == 503, resp.text
    assert request(server, '/').status_code == 200
