"""Private database servers the tests may stop, kill and reconfigure.

Everything lives in temporary directories and listens on loopback ports
of its own; the shared servers other tests use are never touched.

* ``PrivateMariaDB`` / ``PrivatePostgreSQL``: one server.
* ``PostgreSQLReplica``: a streaming replica of a ``PrivatePostgreSQL``
  (``pg_basebackup -R``), whose replay can be paused.
* ``GaleraCluster``: three MariaDB Galera nodes on loopback, bootstrapped
  from the first one; the others join it by state transfer (rsync).

``require(kind)`` skips a test when a server cannot be started here, and
fails it instead under CI (``CI=true``), where ``.ci/run`` installs them.
"""
import glob
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import pytest
import sqlalchemy as sa

import helpers

GALERA_PROVIDER = '/usr/lib/galera/libgalera_smm.so'
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


def _port_free(port):
    with socket.socket() as sock:
        try:
            sock.bind(('127.0.0.1', port))
        except OSError:
            return False
        return True


def free_ports(count):
    """``count`` consecutive free ports in ``PORT_RANGE``."""
    lo, hi = PORT_RANGE
    for start in range(lo, hi - count + 2, count):
        ports = list(range(start, start + count))
        if all(_port_free(p) for p in ports):
            return ports
    raise RuntimeError('no %d free ports in %d-%d' % (count, lo, hi))


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


class GaleraNode(PrivateMariaDB):
    """One node of a ``GaleraCluster``: the server port plus the group
    communication, incremental and full state transfer ports."""

    # The rsync daemon of a state transfer started by root would drop to
    # "nobody", who cannot write the data directory.
    run_as = 'mysql'

    def __init__(self, cluster, index, ports):
        self.cluster = cluster
        self.index = index
        self.gcomm_port, self.ist_port, self.sst_port = ports[1:]
        super().__init__(ports[0])

    def create(self):
        if self.index == 1:
            super().create()
            return
        # A joiner receives all its data by state transfer.
        os.mkdir(self.data)
        if self.as_user:
            shutil.chown(self.data, user=self.run_as)

    def options(self):
        peers = ','.join('127.0.0.1:%d' % n.gcomm_port
                         for n in self.cluster.nodes)
        return super().options() + [
            # Galera replicates row events and needs interleaved
            # auto-increment locks.
            '--binlog-format=ROW', '--innodb-autoinc-lock-mode=2',
            '--innodb-flush-log-at-trx-commit=0',
            '--wsrep-on=ON', '--wsrep-provider=' + GALERA_PROVIDER,
            '--wsrep-cluster-name=' + self.cluster.name,
            '--wsrep-cluster-address=gcomm://' + peers,
            '--wsrep-node-name=node%d' % self.index,
            '--wsrep-node-address=127.0.0.1:%d' % self.gcomm_port,
            '--wsrep-provider-options=gmcast.listen_addr=tcp://127.0.0.1:%d;'
            'ist.recv_addr=127.0.0.1:%d;gcache.size=64M;'
            # Evict a dead node after seconds, not the default 15.
            'evs.suspect_timeout=PT3S;evs.inactive_timeout=PT6S;'
            'evs.install_timeout=PT6S'
            % (self.gcomm_port, self.ist_port),
            '--wsrep-sst-method=rsync',
            '--wsrep-sst-receive-address=127.0.0.1:%d' % self.sst_port,
        ]

    def start(self, wait=True, bootstrap=False):
        self.process = subprocess.Popen(
            [shutil.which('mariadbd'), '--no-defaults', *self.options(),
             *(['--wsrep-new-cluster'] if bootstrap else [])],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if wait:
            self.wait_synced()

    def restart_after_crash(self, wait=True):
        """Rejoin after ``kill()``, as mysqld_safe does: recover the last
        committed position from InnoDB first, so that the node catches up
        by incremental transfer from a peer's cache rather than copying a
        whole data directory (which would block the donor meanwhile)."""
        log = os.path.join(self.dir, 'recover.log')
        subprocess.run(
            [shutil.which('mariadbd'), '--no-defaults', *self.options(),
             '--wsrep-recover', '--log-error=' + log],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(log) as f:
            found = re.findall(r'Recovered position: (\S+)', f.read())
        self.process = subprocess.Popen(
            [shutil.which('mariadbd'), '--no-defaults', *self.options(),
             *(['--wsrep-start-position=' + found[-1]] if found else [])],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if wait:
            self.wait_synced()

    def status(self, name):
        row = execute(self.url, "SHOW GLOBAL STATUS LIKE '%s'" % name)
        return row[1] if row else None

    def wait_synced(self, timeout=120):
        """Until the node is a synced member of the primary component."""
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise RuntimeError('galera node %d exited: %s' % (
                    self.index, self.error_log()))
            try:
                if (self.status('wsrep_local_state_comment') == 'Synced'
                        and self.status('wsrep_ready') == 'ON'):
                    return
            except sa.exc.DBAPIError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError('galera node %d did not sync: %s' % (
                    self.index, self.error_log()))
            time.sleep(0.3)


class GaleraCluster:
    """Three MariaDB Galera nodes on loopback ports of ``PORT_RANGE``."""

    label = 'MariaDB Galera cluster'
    size = 3

    @classmethod
    def missing(cls):
        missing = PrivateMariaDB.missing()
        if not os.path.exists(GALERA_PROVIDER):
            missing.append('galera-4 (%s)' % GALERA_PROVIDER)
        # What the rsync state transfer script runs.
        missing += [b for b in ('rsync', 'wsrep_sst_rsync', 'ss')
                    if not shutil.which(b)]
        return missing

    def __init__(self):
        ports = free_ports(4 * self.size)
        self.name = 'placement-test-%d' % ports[0]
        self.nodes = []
        for index in range(self.size):
            self.nodes.append(GaleraNode(
                self, index + 1, ports[4 * index:4 * index + 4]))

    def start(self):
        first, *others = self.nodes
        first.start(bootstrap=True)
        for node in others:
            node.start(wait=False)
        for node in others:
            node.wait_synced()

    def stop(self):
        # The bootstrap node last, so the others leave a live cluster.
        for node in reversed(self.nodes):
            node.stop()

    def cleanup(self):
        for node in self.nodes:
            node.cleanup()

    COUNTERS = ('wsrep_local_cert_failures', 'wsrep_local_bf_aborts')

    def counters(self):
        """{node index: {counter: value}} of the live nodes, for the
        conflicts Galera resolved by aborting a transaction (which the
        service then ran again): failed certifications, and local
        transactions aborted by a replicated write set ("brute force")."""
        return {node.index: {name: int(node.status(name) or 0)
                             for name in self.COUNTERS}
                for node in self.nodes
                if node.process and node.process.poll() is None}

    @classmethod
    def conflicts(cls, *snapshots):
        """What the counters grew by between consecutive ``counters()``
        snapshots; a node that restarted in between counts from zero."""
        total = dict.fromkeys(cls.COUNTERS, 0)
        for earlier, later in zip(snapshots, snapshots[1:]):
            for index, values in later.items():
                start = earlier.get(index, {})
                for name, value in values.items():
                    base = start.get(name, 0)
                    total[name] += value - base if value >= base else value
        return total


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
