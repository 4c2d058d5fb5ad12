"""The service under Apache httpd and mod_wsgi, configured by
apache/placement-api.conf, at the root and under the /placement prefix.

Needs Apache httpd with apxs (Debian: apache2, apache2-dev) and a mod_wsgi
that can run this venv's code: either built into the venv (pip install
mod_wsgi), or, when the tests run as root, the distribution's module for the
same Python version (Debian: libapache2-mod-wsgi-py3), because mod_wsgi
will not run Python as root and the daemon user may not reach a Python
installed in root's home.  .ci/run installs them when it can; without them
every test here skips and says why.
"""
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid

import httpx
import pytest

import placement
import support
from support import helpers

ROOT = str(support.REPO)
VHOST_CONF = os.path.join(ROOT, 'apache', 'placement-api.conf')
PREFIXES = ['', '/placement']


def _find_httpd():
    for name in ('apache2', 'httpd'):
        for candidate in (shutil.which(name), '/usr/sbin/' + name):
            if candidate and os.access(candidate, os.X_OK):
                return candidate
    return None


def _modules_dir():
    apxs = shutil.which('apxs') or shutil.which('apxs2')
    if not apxs:
        return None
    return subprocess.run([apxs, '-q', 'LIBEXECDIR'], capture_output=True,
                          text=True, check=False).stdout.strip() or None


def _world_can_read(path):
    """Whether a user with no special rights can reach ``path``."""
    path = os.path.realpath(path)
    while True:
        if not os.stat(path).st_mode & 0o005:
            return False
        parent = os.path.dirname(path)
        if parent == path:
            return True
        path = parent


def _daemon_user():
    """(user, group) for httpd's workers and the mod_wsgi daemon: ours, but
    nobody when we are root (both refuse to run as root)."""
    if os.getuid() != 0:
        return pwd.getpwuid(os.getuid()).pw_name, '#%d' % os.getgid()
    nobody = pwd.getpwnam('nobody')
    return nobody.pw_name, '#%d' % nobody.pw_gid


def _system_python_version():
    result = subprocess.run(
        ['/usr/bin/python3', '-c', 'import sys; print(sys.version_info[:2])'],
        capture_output=True, text=True, check=False)
    return result.stdout.strip()


def _mod_wsgi():
    """(configuration lines, extra environment) loading a mod_wsgi that can
    run this venv's code as the daemon user, or (None, reason)."""
    express = os.path.join(os.path.dirname(sys.executable),
                           'mod_wsgi-express')
    if os.access(express, os.X_OK) and (
            os.getuid() != 0 or _world_can_read(sys.base_prefix)):
        result = subprocess.run([express, 'module-config'],
                                capture_output=True, text=True, check=False)
        if result.returncode == 0:
            return result.stdout, {}
    # The distribution's module (Debian: libapache2-mod-wsgi-py3) embeds
    # the system Python; same minor version, so this venv's packages load.
    system_module = os.path.join(MODULES_DIR or '', 'mod_wsgi.so')
    if os.path.exists(system_module) and (
            _system_python_version() == str(sys.version_info[:2])):
        site_packages = [p for p in sys.path if p.endswith('site-packages')
                         and p.startswith(sys.prefix)]
        return ('LoadModule wsgi_module %s' % system_module,
                {'PYTHONPATH': os.pathsep.join([ROOT] + site_packages)})
    return None, ('needs mod_wsgi for this Python that the daemon user can '
                  'run: pip install mod_wsgi (not as root with Python in a '
                  'private home) or the distribution module for Python %d.%d'
                  % sys.version_info[:2])


HTTPD = _find_httpd()
MODULES_DIR = _modules_dir() if HTTPD else None
if not (HTTPD and MODULES_DIR):
    MOD_WSGI, MOD_WSGI_ENV = None, ('needs Apache httpd with apxs (Debian: '
                                    'apache2, apache2-dev)')
else:
    MOD_WSGI, MOD_WSGI_ENV = _mod_wsgi()

pytestmark = pytest.mark.skipif(
    MOD_WSGI is None, reason=str(MOD_WSGI_ENV) + '; .ci/run installs them '
    'when it can')


def _load_modules():
    """LoadModule lines for what the config needs and httpd lacks."""
    builtin = subprocess.run([HTTPD, '-l'], capture_output=True, text=True,
                             check=False).stdout
    lines = []
    for name in ('mpm_event', 'authz_core', 'log_config', 'unixd'):
        if 'mod_%s.c' % name in builtin:
            continue
        path = os.path.join(MODULES_DIR, 'mod_%s.so' % name)
        if os.path.exists(path):
            lines.append('LoadModule %s_module %s' % (name, path))
    return '\n'.join(lines)


def render_config(workdir, port):
    """The shipped vhost with its Defines set for this test, wrapped in the
    minimal server configuration httpd needs to run from ``workdir``."""
    user, group = _daemon_user()
    values = {
        'PLACEMENT_PORT': str(port),
        'PLACEMENT_WSGI_DIR': os.path.dirname(placement.__file__),
        'PLACEMENT_USER': user,
        'PLACEMENT_GROUP': group,
        'PLACEMENT_PROCESSES': '2',
        'PLACEMENT_LOG_DIR': workdir,
    }
    with open(VHOST_CONF) as f:
        vhost = f.read()
    seen = set()

    def define(match):
        seen.add(match.group(1))
        return 'Define %s %s' % (match.group(1), values[match.group(1)])

    vhost = re.sub(r'^Define (\w+) .*$', define, vhost, flags=re.M)
    assert seen == set(values), 'the vhost Defines changed: %s' % seen
    return '\n'.join([
        'ServerRoot "%s"' % workdir,
        'ServerName 127.0.0.1',
        'PidFile "%s/httpd.pid"' % workdir,
        'DefaultRuntimeDir "%s"' % workdir,
        'ErrorLog "%s/httpd-error.log"' % workdir,
        'LogLevel warn',
        'User %s' % user,
        'Group %s' % group,
        _load_modules(),
        MOD_WSGI,
        'WSGISocketPrefix "%s/wsgi"' % workdir,
        vhost,
    ])


class Httpd:

    def __init__(self, workdir):
        self.workdir = workdir
        self.port = helpers.free_port()
        self.url = 'http://127.0.0.1:%d' % self.port
        # The daemon user writes the SQLite database and the logs here.
        os.chmod(workdir, 0o755)
        user = pwd.getpwnam(_daemon_user()[0])
        for name in [''] + os.listdir(workdir):
            os.chown(os.path.join(workdir, name), user.pw_uid, user.pw_gid)
        config = os.path.join(workdir, 'httpd.conf')
        with open(config, 'w') as f:
            f.write(render_config(workdir, self.port))
        env = dict(os.environ, OS_PLACEMENT_CONFIG_DIR=workdir, **MOD_WSGI_ENV)
        self._out = open(os.path.join(workdir, 'httpd.out'), 'wb')
        self.process = subprocess.Popen(
            [HTTPD, '-f', config, '-DFOREGROUND'], env=env,
            stdout=self._out, stderr=subprocess.STDOUT,
            start_new_session=True)
        self._wait()

    def _wait(self, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError('httpd exited: %s' % self.log())
            try:
                if httpx.get(self.url + '/', timeout=5).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        raise RuntimeError('httpd did not serve: %s' % self.log())

    def log(self):
        text = []
        for name in ('httpd.out', 'httpd-error.log',
                     'placement-api-error.log'):
            path = os.path.join(self.workdir, name)
            if os.path.exists(path):
                with open(path, 'rb') as f:
                    text.append(f.read().decode(errors='replace')[-3000:])
        return '\n'.join(text)

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self._out.close()


@pytest.fixture(scope='module')
def httpd(database):
    helpers.write_config(database.workdir, database.url)
    server = Httpd(database.workdir)
    yield server
    server.stop()


@pytest.fixture
def http(httpd):
    with httpx.Client(base_url=httpd.url, headers=helpers.ADMIN_HEADERS,
                      timeout=30) as client:
        yield client


@pytest.mark.parametrize('prefix', PREFIXES)
def test_version_document(http, prefix):
    response = http.get(prefix + '/', headers={'x-auth-token': ''})
    assert response.status_code == 200
    version = response.json()['versions'][0]
    assert version['max_version'] == '1.39'
    assert version['id'] == 'v1.0'
    assert response.headers['openstack-api-version'] == 'placement 1.39'


@pytest.mark.parametrize('prefix', PREFIXES)
def test_token_reaches_the_service(http, prefix):
    # Without WSGIPassAuthorization-style pass-through the service would
    # not see the token and answer 401 to everything.
    request = http.build_request('GET', prefix + '/resource_providers')
    del request.headers['x-auth-token']
    assert http.send(request).status_code == 401
    assert http.get(prefix + '/resource_providers').status_code == 200


@pytest.mark.parametrize('prefix', PREFIXES)
def test_provider_create_and_show(httpd, http, prefix):
    rp_uuid = str(uuid.uuid4())
    response = http.post(prefix + '/resource_providers',
                         json={'name': 'httpd-' + rp_uuid, 'uuid': rp_uuid})
    assert response.status_code == 200, response.text
    expected = '%s%s/resource_providers/%s' % (httpd.url, prefix, rp_uuid)
    assert response.headers['location'] == expected

    shown = http.get(response.headers['location'])
    assert shown.status_code == 200
    body = shown.json()
    assert body['uuid'] == rp_uuid
    links = {link['rel']: link['href'] for link in body['links']}
    assert links['self'] == '%s/resource_providers/%s' % (prefix, rp_uuid)
    for href in links.values():
        assert href.startswith(prefix + '/resource_providers/')
