"""Private database servers the tests may stop, kill and reconfigure.

Everything lives in temporary directories and listens on loopback ports
of its own; the shared servers other tests use are never touched.

* ``PrivateMariaDB`` / ``PrivatePostgreSQL``: one server.
* ``PostgreSQLReplica``: a streaming replica of a ``PrivatePostgreSQL``
  (``pg_basebackup -R``), whose replay can be paused.
* ``galera_servers.GaleraCluster``: three MariaDB Galera nodes, built
  on ``PrivateMariaDB``.

``require(kind)`` skips a test when a server cannot be started here, and
fails it instead under CI (``CI=true``), where ``.ci/run`` installs them.
"""
import glob
import os
import shutil
import signal
import subprocess
import tempfile
import time

import pytest
import sqlalchemy as sa

from support import helpers

# The loopback ports this project's multi-node tests use.
PORT_RANGE = (20600, 20799)


def require(kind):
    missing = kind.missing()
    if not missing:
        return
    message = 'cannot start a private %s: %s not installed' % (
        kind.label, ', '.join(missing))
    if os.environ.get('CI') == 'true':
        pytest.fail(message)
    pytest.skip(message)


def wait_ready(url, timeout=60):
    """Until a connection to ``url`` runs SELECT 1."""
    deadline = time.monotonic() + timeout
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        while True:
            try:
                with engine.connect() as conn:
                    conn.exec_driver_sql('SELECT 1')
                return
            except sa.exc.DBAPIError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
    finally:
        engine.dispose()


def execute(url, sql):
    """Run one statement in autocommit mode; its first row, if any."""
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool,
                              isolation_level='AUTOCOMMIT')
    try:
        with engine.connect() as conn:
            result = conn.exec_driver_sql(sql)
            return result.first() if result.returns_rows else None
    finally:
        engine.dispose()


class _PrivateServer:
    """A database server of our own in a temporary directory."""

    backend = None
    label = None

    def __init__(self, port=None):
        self.dir = tempfile.mkdtemp(prefix='placement-%s-' % self.backend)
        self.port = port or helpers.free_port()

    def wait_ready(self, timeout=60):
        wait_ready(self.url, timeout)

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)


class PrivateMariaDB(_PrivateServer):
    backend = 'mysql'
    label = 'MariaDB server'
    # As root, the user mariadbd runs as (it refuses root unless told).
    run_as = 'root'

    @classmethod
    def missing(cls):
        return [b for b in ('mariadbd', 'mariadb-install-db')
                if not shutil.which(b)]

    def __init__(self, port=None):
        super().__init__(port)
        self.url = 'mysql+pymysql://root@127.0.0.1:%d/' % self.port
        self.data = os.path.join(self.dir, 'data')
        self.process = None
        self.as_user = []
        if os.geteuid() == 0:
            self.as_user = ['--user=' + self.run_as]
            shutil.chown(self.dir, user=self.run_as)
        self.create()

    def create(self):
        subprocess.run(
            ['mariadb-install-db', '--no-defaults', '--datadir=' + self.data,
             '--auth-root-authentication-method=normal', '--skip-test-db',
             *self.as_user],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def options(self):
        return ['--datadir=' + self.data,
                '--port=%d' % self.port, '--bind-address=127.0.0.1',
                '--socket=' + os.path.join(self.dir, 'sock'),
                '--pid-file=' + os.path.join(self.dir, 'pid'),
                '--log-error=' + os.path.join(self.dir, 'error.log'),
                *self.as_user, '--skip-grant-tables', '--skip-log-bin',
                '--innodb-buffer-pool-size=64M']

    def start(self, wait=True):
        self.process = subprocess.Popen(
            [shutil.which('mariadbd'), '--no-defaults', *self.options()],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if wait:
            self.wait_ready()

    def stop(self):
        """A clean shutdown, as an operator's restart does."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def kill(self):
        """SIGKILL: a crashed host."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def error_log(self):
        try:
            with open(os.path.join(self.dir, 'error.log'), 'rb') as f:
                return f.read().decode(errors='replace')[-3000:]
        except OSError:
            return ''


class PrivatePostgreSQL(_PrivateServer):
    backend = 'postgresql'
    label = 'PostgreSQL server'

    @staticmethod
    def _bindir():
        found = sorted(glob.glob('/usr/lib/postgresql/*/bin/pg_ctl'))
        return os.path.dirname(found[-1]) if found else None

    @classmethod
    def missing(cls):
        if not cls._bindir():
            return ['postgresql server (initdb, pg_ctl)']
        if os.geteuid() == 0 and not shutil.which('runuser'):
            return ['runuser (initdb refuses to run as root)']
        return []

    def __init__(self, port=None):
        super().__init__(port)
        self.url = ('postgresql+psycopg2://postgres@127.0.0.1:%d/postgres'
                    % self.port)
        self.data = os.path.join(self.dir, 'data')
        if os.geteuid() == 0:
            # PostgreSQL will not run as root; hand the directory over.
            shutil.chown(self.dir, user='postgres')
        self.create()

    def create(self):
        self._run('initdb', '-D', self.data, '-A', 'trust', '-U',
                  'postgres', '--no-sync')

    def _run(self, tool, *args):
        command = [os.path.join(self._bindir(), tool), *args]
        if os.geteuid() == 0:
            command = ['runuser', '-u', 'postgres', '--'] + command
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)

    def start(self):
        self._run('pg_ctl', '-D', self.data, '-w', '-l',
                  os.path.join(self.dir, 'server.log'), '-o',
                  '-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off'
                  % (self.port, self.dir), 'start')
        self.wait_ready()

    def stop(self, mode='fast'):
        if os.path.exists(os.path.join(self.data, 'postmaster.pid')):
            self._run('pg_ctl', '-D', self.data, '-w', '-m', mode, 'stop')


class PostgreSQLReplica(PrivatePostgreSQL):
    """A hot standby streaming from ``primary`` (a started
    ``PrivatePostgreSQL``): read-only queries, replay that can pause."""

    label = 'PostgreSQL streaming replica'

    def __init__(self, primary, port=None):
        self.primary = primary
        super().__init__(port)

    def create(self):
        # -R writes primary_conninfo and standby.signal.
        self._run('pg_basebackup', '-h', '127.0.0.1',
                  '-p', str(self.primary.port), '-U', 'postgres',
                  '-D', self.data, '-R', '-X', 'stream', '--no-sync')

    def pause_replay(self):
        execute(self.url, 'SELECT pg_wal_replay_pause()')

    def resume_replay(self):
        execute(self.url, 'SELECT pg_wal_replay_resume()')
