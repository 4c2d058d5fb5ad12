"""The request mix for a long time, sampling what a leak would grow.

Runs the http mode's open-loop mix (same cloud, same schedule)
against one server for ``--minutes`` and, once a minute, samples for each
worker process its resident memory (VmRSS), its open file descriptors
(apart from its kept-alive client connections, counted on their own) and
its database connections (SQLite: descriptors open on the database file;
MariaDB/PostgreSQL: the server's sessions on the run's database, all
workers together), with the requests served and failed in that minute.

After ``--settle`` minutes (warm-up: caches, pools and the allocator fill
up) the figures should stay flat: RSS within 10 % of the sample taken at
the end of the warm-up, descriptors and connections constant.  The last
line says whether they did.
"""
import os
import subprocess
import threading
import time

import sqlalchemy as sa

from bench.common import report
from bench.common import web
from bench.common import scratch
from bench.common import meters
from bench.common import serving
from bench.common.cloud import Cloud
from bench.commands.mix.http import add_arguments as add_mix_arguments
from bench.commands.mix.http import print_table
from bench.commands.mix import traffic

RSS_TOLERANCE = 0.10


def _proc_stat(pid):
    with open('/proc/%d/stat' % pid) as handle:
        fields = handle.read().rsplit(')', 1)[1].split()
    return int(fields[1]), int(fields[2])    # ppid, pgrp


def workers(pgid):
    """PIDs of the server's workers: the group's processes whose parent
    is in the group too (the master is the one that is not, or the shell
    that exec'd it)."""
    group = {}
    for name in os.listdir('/proc'):
        if name.isdigit():
            try:
                group[int(name)] = _proc_stat(int(name))
            except (OSError, IndexError):
                continue
    members = {pid for pid, (_, pgrp) in group.items() if pgrp == pgid}
    parents = {group[pid][0] for pid in members}
    # Workers are leaves whose parent is a member (the master).
    return sorted(pid for pid in members
                  if group[pid][0] in members and pid not in parents)


def rss_kib(pid):
    with open('/proc/%d/status' % pid) as handle:
        for line in handle:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    return 0


def fds(pid):
    """Descriptor targets of ``pid``."""
    out = []
    base = '/proc/%d/fd' % pid
    for name in os.listdir(base):
        try:
            out.append(os.readlink(os.path.join(base, name)))
        except OSError:
            continue
    return out


def tcp_ports(pid):
    """{socket inode: (local port, remote port)} of the TCP sockets in
    ``pid``'s network namespace."""
    out = {}
    for table in ('tcp', 'tcp6'):
        try:
            with open('/proc/%d/net/%s' % (pid, table)) as handle:
                next(handle)
                for line in handle:
                    fields = line.split()
                    out['socket:[%s]' % fields[9]] = (
                        int(fields[1].rsplit(':', 1)[1], 16),
                        int(fields[2].rsplit(':', 1)[1], 16))
        except OSError:
            continue
    return out


class Connections:
    """Database connections of the server, as the database sees them."""

    def __init__(self, db):
        self.db = db
        self.engine = None
        if db.backend == 'sqlite':
            self.path = db.url[len('sqlite:///'):]
            return
        self.engine = sa.create_engine(db.url, poolclass=sa.pool.NullPool)
        if db.backend == 'mysql':
            self.sql = sa.text(
                'SELECT COUNT(*) FROM information_schema.processlist '
                'WHERE db = :name AND id != CONNECTION_ID()')
        else:
            self.sql = sa.text(
                'SELECT COUNT(*) FROM pg_stat_activity '
                'WHERE datname = :name AND pid != pg_backend_pid()')

    def per_worker(self, targets, ports):
        """SQLite: descriptors on the database file; otherwise TCP
        sockets to the database server's port."""
        if self.engine is None:
            return sum(1 for target in targets if target == self.path)
        db_port = (self.db.parts.port
                   or meters.DATABASE_PORTS[self.db.backend])
        return sum(1 for target in targets
                   if ports.get(target, (0, 0))[1] == db_port)

    def total(self):
        if self.engine is None:
            return None
        with self.engine.connect() as conn:
            return conn.execute(self.sql, {'name': self.db.name}).scalar()


class Sampler:

    def __init__(self, meter, port, stats, connections):
        self.meter = meter
        self.pgid = meter.pgid
        self.port = port
        self.stats = stats
        self.connections = connections
        self.rows = []
        self.last_counts = (0, 0)

    def sample(self, minute):
        with self.stats.lock:
            served = sum(len(v) for v in self.stats.latency.values())
            errors = sum(self.stats.errors.values())
        used = self.meter.read()
        row = {'minute': minute, 'load1': os.getloadavg()[0],
               'served': served - self.last_counts[0],
               'errors': errors - self.last_counts[1],
               'cpu_s': used['server_cpu_s'], 'db_cpu_s': used['db_cpu_s'],
               'workers': {}}
        self.last_counts = (served, errors)
        for pid in workers(self.pgid):
            try:
                targets = fds(pid)
                ports = tcp_ports(pid)
                # Kept-alive client connections come and go with the
                # load: counted apart from the descriptors a leak grows.
                clients = sum(1 for target in targets
                              if ports.get(target, (0, 0))[0] == self.port)
                row['workers'][pid] = {
                    'rss_mib': rss_kib(pid) / 1024,
                    'fds': len(targets) - clients, 'clients': clients,
                    'db_conns': self.connections.per_worker(targets, ports)}
            except OSError:
                continue    # the worker went away between the two reads
        row['db_conns'] = self.connections.total()
        self.rows.append(row)
        web.log(
            '    minute %3d: load %.2f, %d served, %d errors, %s%s' % (
                minute, row['load1'], row['served'], row['errors'],
                '; '.join('pid %d %.1f MiB %d fds %d clients %d conns' % (
                    pid, w['rss_mib'], w['fds'], w['clients'], w['db_conns'])
                    for pid, w in row['workers'].items()),
                '' if row['db_conns'] is None
                else '; %d DB sessions' % row['db_conns']))


def verdict(rows, settle):
    """Whether the samples after the warm-up stayed flat."""
    base = next((row for row in rows if row['minute'] >= settle), None)
    if base is None:
        return False, ['no sample after the warm-up']
    after = [row for row in rows if row['minute'] >= settle]
    notes = []
    flat = True
    pids = set(base['workers'])
    if any(set(row['workers']) != pids for row in after):
        flat = False
        notes.append('the worker processes changed during the run')
    for pid in sorted(pids):
        start = base['workers'][pid]
        values = [row['workers'][pid] for row in after
                  if pid in row['workers']]
        rss = [v['rss_mib'] for v in values]
        drift = max(abs(r - start['rss_mib']) for r in rss) / start['rss_mib']
        fd_set = {v['fds'] for v in values}
        conn_set = {v['db_conns'] for v in values}
        notes.append('worker %d: RSS %.1f MiB after warm-up, %.1f-%.1f MiB '
                     'after (max drift %.1f %%), fds %s, conns %s' % (
                         pid, start['rss_mib'], min(rss), max(rss),
                         100 * drift, _span(fd_set), _span(conn_set)))
        flat &= drift <= RSS_TOLERANCE and len(fd_set) == 1
        flat &= len(conn_set) <= 1
    sessions = {row['db_conns'] for row in after} - {None}
    if sessions:
        notes.append('DB sessions %s' % _span(sessions))
        flat &= len(sessions) == 1
    return flat, notes


def _span(values):
    if not values:
        return '-'
    return ('%d' % min(values) if min(values) == max(values)
            else '%d-%d' % (min(values), max(values)))


def markdown(rows):
    pids = sorted({pid for row in rows for pid in row['workers']})
    header = ['min', 'load1', 'served', 'errors', 'CPU s', 'DB CPU s'] + [
        'w%d RSS MiB / fds / clients / DB conns' % (i + 1)
        for i in range(len(pids))] + [
        'DB sessions']
    lines = [report.markdown_head(header)]
    for row in rows:
        cells = ['%d' % row['minute'], '%.2f' % row['load1'],
                 '%d' % row['served'], '%d' % row['errors'],
                 '%.0f' % row['cpu_s'], '-' if row['db_cpu_s'] is None
                 else '%.0f' % row['db_cpu_s']]
        for pid in pids:
            w = row['workers'].get(pid)
            cells.append('-' if w is None else '%.1f / %d / %d / %d' % (
                w['rss_mib'], w['fds'], w['clients'], w['db_conns']))
        cells.append('-' if row['db_conns'] is None else str(row['db_conns']))
        lines.append(report.markdown_row(cells))
    return '\n'.join(lines)


def add_arguments(parser):
    parser.add_argument('--minutes', type=int, default=30)
    parser.add_argument('--settle', type=int, default=5,
                        help='minutes of warm-up before the baseline sample')
    parser.add_argument('--minute', type=float, default=60.0,
                        help='seconds between samples (default 60; less '
                        'for a quick try)')
    # The rest as the http mode takes them (--duration is --minutes).
    add_mix_arguments(parser)


def main(args):
    args.duration = args.minute * args.minutes
    serving.set_port_range(args.port_range)
    with scratch.directory('placement-long-run-', args.keep) as workdir:
        return run(args, workdir)


def run(args, workdir):
    db = serving.Database(args.db_url, workdir, 'long_run')
    db.create()
    server = serving.Server(args.label, args.server_cmd,
                            args.setup_cmd, args.workers, db, workdir)
    web.log('[%s] %d computes, %d workers, database %s, %d minutes; '
            'uptime: %s' % (args.label, args.computes, args.workers,
                            db.backend, args.minutes, subprocess.run(
                                       ['uptime'], capture_output=True,
                                       text=True).stdout.strip()))
    connections = None
    try:
        server.start()
        http = traffic.Http(server.port)
        http('GET', '/resource_classes')
        http('GET', '/traits?name=startswith:HW_')
        cloud = Cloud(args.computes, args.nested, args.sharing)
        cloud.write(db.url)
        meter = meters.CpuMeter(server.proc.pid, db.url)
        mix = traffic.Mix(cloud, http, args, meter)
        connections = Connections(db)
        sampler = Sampler(meter, server.port, mix.stats, connections)
        result = {}
        runner = threading.Thread(
            target=lambda: result.update(mix.run()), daemon=True)
        runner.start()
        started = time.monotonic() + args.warmup
        for minute in range(args.minutes + 1):
            # The last sample a little before the end, while clients are
            # still connected as during the run.
            at = started + args.minute * minute - (
                min(5, args.minute / 4) if minute == args.minutes else 0)
            time.sleep(max(0, at - time.monotonic()))
            sampler.sample(minute)
        runner.join()
    finally:
        if connections is not None and connections.engine is not None:
            connections.engine.dispose()
        server.stop()
        if not args.keep:
            db.drop()
    title = '%s, %s, %d computes, %d workers, %d minutes' % (
        args.label, db.backend, args.computes, args.workers, args.minutes)
    print_table(title, result, True)
    print()
    print(markdown(sampler.rows))
    flat, notes = verdict(sampler.rows, args.settle)
    print()
    for note in notes:
        print('- ' + note)
    print('\n%s after minute %d' % ('FLAT' if flat else 'NOT FLAT',
                                    args.settle))
    print('uptime at the end: ' + subprocess.run(
        ['uptime'], capture_output=True, text=True).stdout.strip())
    return 0 if flat else 1
