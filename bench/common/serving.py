"""Server processes under test: their databases, ports and
configuration."""
import os
import re
import signal
import subprocess
import sys
import time
import urllib.parse

import httpx

from testsupport import ports

from bench.common import web

PORT_RANGE = (18450, 18499)
STARTUP_TIMEOUT = 90
# A worker that fails to boot stops gunicorn within this time of the
# first answer.
STARTUP_GRACE = 1.5


class Database:
    """A fresh database for one run: an SQLite file, or a MariaDB /
    PostgreSQL database created and dropped with the CLI clients.

    ``charset``: the connection character set a MariaDB URL is given
    (replacing the template's)."""

    def __init__(self, url_template, workdir, tag, charset=None):
        if not url_template:
            self.url = 'sqlite:///' + os.path.join(workdir, 'placement.sqlite')
            self.parts = None
            return
        parts = urllib.parse.urlsplit(url_template)
        name = parts.path.lstrip('/') or 'placement_bench'
        name = re.sub(r'\W', '_', '%s_%s' % (name, tag))
        if charset and parts.scheme.startswith('mysql'):
            query = dict(urllib.parse.parse_qsl(parts.query),
                         charset=charset)
            parts = parts._replace(query=urllib.parse.urlencode(query))
        self.parts = parts
        self.name = name
        self.url = urllib.parse.urlunsplit(parts._replace(path='/' + name))

    @property
    def backend(self):
        if self.parts is None:
            return 'sqlite'
        return self.parts.scheme.split('+')[0]

    def _run(self, sql):
        parts = self.parts
        env = dict(os.environ)
        if self.backend == 'mysql':
            cmd = ['mysql', '-h', parts.hostname or '127.0.0.1',
                   '-u', urllib.parse.unquote(parts.username or 'root')]
            if parts.port:
                cmd += ['-P', str(parts.port)]
            if parts.password:
                env['MYSQL_PWD'] = urllib.parse.unquote(parts.password)
            cmd += ['-e', sql]
        elif self.backend == 'postgresql':
            cmd = ['psql', '-q', '-v', 'ON_ERROR_STOP=1',
                   '-h', parts.hostname or '127.0.0.1',
                   '-U', urllib.parse.unquote(parts.username or 'postgres'),
                   '-d', 'postgres']
            if parts.port:
                cmd += ['-p', str(parts.port)]
            if parts.password:
                env['PGPASSWORD'] = urllib.parse.unquote(parts.password)
            for statement in sql.split(';'):
                if statement.strip():
                    cmd += ['-c', statement.strip()]
        else:
            raise web.BenchError('unsupported database URL: %s'
                                 % self.url)
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if proc.returncode:
            raise web.BenchError('%s: %s' % (' '.join(cmd[:1]),
                                             proc.stderr))

    def create(self):
        if self.backend == 'mysql':
            self._run('DROP DATABASE IF EXISTS %s; CREATE DATABASE %s '
                      'CHARACTER SET utf8mb4' % (self.name, self.name))
        elif self.backend == 'postgresql':
            self._run('DROP DATABASE IF EXISTS %s WITH (FORCE); '
                      'CREATE DATABASE %s' % (self.name, self.name))

    def drop(self):
        if self.backend == 'mysql':
            self._run('DROP DATABASE IF EXISTS %s' % self.name)
        elif self.backend == 'postgresql':
            self._run('DROP DATABASE IF EXISTS %s WITH (FORCE)' % self.name)


def free_ports(count, low=None, high=None):
    """``count`` distinct ports of low..high (PORT_RANGE by default)
    nobody listens on."""
    return ports.free_ports(count,
                            PORT_RANGE[0] if low is None else low,
                            PORT_RANGE[1] if high is None else high)


def free_port():
    return free_ports(1)[0]


# This service reads the database unless a benchmark asks for its
# snapshot (in ``extra``): clouds are written by SQL, which a snapshot
# sees only at its next check of the fleet.
CONF_TEMPLATE = """[api]
auth_strategy = noauth2

[placement]
read_source = database

[placement_database]
connection = {url}
sync_on_startup = {sync}
"""


def write_conf(path, url, sync, extra=''):
    """``path``, written as the placement.conf of every benchmark:
    noauth2, the database ``url`` (migrated at start-up when ``sync``),
    then the sections ``extra``."""
    with open(path, 'w') as out:
        out.write(CONF_TEMPLATE.format(url=url, sync=sync) + extra)
    return path


class Server:
    """A server command started in its own process group."""

    def __init__(self, label, cmd, setup_cmd, workers, db, workdir):
        self.label = label
        self.workdir = workdir
        self.config_file = os.path.join(workdir, 'placement.conf')
        # A setup command (placement-manage db sync) already migrated the
        # database: workers migrating it again at start-up would only race
        # each other for SQLite's lock.
        write_conf(self.config_file, db.url, sync=not setup_cmd)
        self.port = free_port()
        self.fmt = {'port': self.port, 'workers': workers,
                    'config_dir': workdir, 'config_file': self.config_file}
        self.cmd = cmd.format(**self.fmt)
        self.setup_cmd = setup_cmd.format(**self.fmt) if setup_cmd else None
        # The commands run in the temp dir so that a server does not import
        # a same-named package from the caller's directory; the bench's own
        # venv comes first on PATH so that `placement-api` is found.
        path = os.pathsep.join([os.path.dirname(sys.executable),
                                os.environ.get('PATH', '')])
        self.env = dict(os.environ, OS_PLACEMENT_CONFIG_DIR=workdir,
                        PATH=path)
        self.log_path = os.path.join(workdir, 'server.log')
        self.proc = None

    @property
    def base_url(self):
        return 'http://127.0.0.1:%d' % self.port

    def log_tail(self, lines=20):
        try:
            with open(self.log_path, errors='replace') as handle:
                return ''.join(handle.readlines()[-lines:])
        except OSError:
            return ''

    def start(self, attempts=3):
        """Start the server and wait until it answers and stays up.

        Upstream's workers each sync the standard traits when they boot;
        on SQLite one can fail on the other's lock ('database is locked'),
        and gunicorn then stops the whole server, just after the other
        worker answered.  Starting again works: the rows are there by then.
        """
        for attempt in range(1, attempts + 1):
            try:
                self._start_once()
            except web.BenchError:
                if attempt == attempts:
                    raise
                web.log('    [%s] the server stopped during '
                        'start-up; starting it again' % self.label)
                continue
            return

    def _start_once(self):
        with open(self.log_path, 'ab') as logfile:
            if self.setup_cmd:
                proc = subprocess.run(self.setup_cmd, shell=True, env=self.env,
                                      cwd=self.workdir, stdout=logfile,
                                      stderr=logfile)
                if proc.returncode:
                    raise web.BenchError(
                        'setup command failed (%s):\n%s' % (
                            self.setup_cmd, self.log_tail()))
            self.proc = subprocess.Popen(
                self.cmd, shell=True, env=self.env, cwd=self.workdir,
                stdout=logfile, stderr=logfile, start_new_session=True)
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise web.BenchError('server exited (%s):\n%s' % (
                    self.cmd, self.log_tail()))
            try:
                answered = httpx.get(self.base_url + '/',
                                     timeout=2).status_code == 200
            except httpx.TransportError:
                answered = False
            if answered:
                time.sleep(STARTUP_GRACE)
                if self.proc.poll() is None:
                    return
                raise web.BenchError(
                    'server exited after answering (%s):\n%s'
                    % (self.cmd, self.log_tail()))
            time.sleep(0.2)
        self.stop()
        raise web.BenchError(
            'server did not answer GET / in %ds:\n%s' % (
                STARTUP_TIMEOUT, self.log_tail()))

    def stop(self):
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        except ProcessLookupError:
            pass


def upstream_commands(venv, timeout=600):
    """(server command, setup command) of upstream placement installed
    with gunicorn in ``venv``, in the ``Server`` command format."""
    venv = os.path.abspath(venv)
    return ('%s/bin/gunicorn --bind 127.0.0.1:{port} --workers {workers} '
            '--timeout %d placement.wsgi.api:application' % (venv, timeout),
            '%s/bin/placement-manage --config-file {config_file} db sync'
            % venv)


def add_server_arguments(parser, port_range):
    """The options of a benchmark that starts servers of this service on
    a database of its own: the database server, the workers, the command
    and the ports (``port_range``, 'LOW-HIGH', kept apart per
    benchmark so that two can run at once)."""
    parser.add_argument('--db-url', help='MariaDB/PostgreSQL server URL '
                        '(default: SQLite)')
    parser.add_argument('--workers', type=int, default=2)
    parser.add_argument('--server-cmd', default=(
        'placement-api --bind 127.0.0.1:{port} --workers {workers}'))
    parser.add_argument('--port-range', default=port_range)


def add_race_arguments(parser):
    """The options of a race of schedulers placing one flavor on a flat
    cloud: its size, the callers, the placements, GET's limit and how
    often a GET + PUT caller retries."""
    parser.add_argument('--computes', type=int, default=10000)
    parser.add_argument('--concurrency', type=int, action='append')
    parser.add_argument('--claims', type=int, default=500)
    parser.add_argument('--limit', type=int, default=1000)
    parser.add_argument('--max-retries', type=int, default=50)


def set_port_range(text):
    """Let servers use the ports ``text`` ('LOW-HIGH') names."""
    global PORT_RANGE
    PORT_RANGE = tuple(int(port) for port in text.split('-'))
