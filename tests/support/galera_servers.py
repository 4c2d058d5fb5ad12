"""A private MariaDB Galera cluster for the tests that stop, kill and
partition its nodes: three nodes on loopback ports of their own
(``db_servers.PORT_RANGE``), bootstrapped from the first one; the
others join it by state transfer (rsync).
"""
import os
import re
import shutil
import subprocess
import time

import sqlalchemy as sa

from testsupport import ports as ports_mod

from support import db_servers

GALERA_PROVIDER = '/usr/lib/galera/libgalera_smm.so'


class GaleraNode(db_servers.PrivateMariaDB):
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
        row = db_servers.execute(self.url,
                                 "SHOW GLOBAL STATUS LIKE '%s'" % name)
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
    """Three MariaDB Galera nodes on loopback ports of
    ``db_servers.PORT_RANGE``."""

    label = 'MariaDB Galera cluster'
    size = 3

    @classmethod
    def missing(cls):
        missing = db_servers.PrivateMariaDB.missing()
        if not os.path.exists(GALERA_PROVIDER):
            missing.append('galera-4 (%s)' % GALERA_PROVIDER)
        # What the rsync state transfer script runs.
        missing += [b for b in ('rsync', 'wsrep_sst_rsync', 'ss')
                    if not shutil.which(b)]
        return missing

    def __init__(self):
        ports = ports_mod.free_ports(4 * self.size, *db_servers.PORT_RANGE,
                                    consecutive=True)
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
