"""The CPU time of the servers under test, from /proc (so on this host):
a placement server's process group and the database server it uses."""
import os
import time
import urllib.parse

from bench.common import web


def group_cpu_times(pgid):
    """(user, system) CPU seconds of the process group ``pgid``."""
    user = system = 0
    for _, fields in processes():
        # After the command: state, ppid, pgrp, ... utime (11), stime (12).
        if int(fields[2]) == pgid:
            user += int(fields[11])
            system += int(fields[12])
    tick = os.sysconf('SC_CLK_TCK')
    return user / tick, system / tick


def processes():
    """(pid, fields of /proc/<pid>/stat after the command name) of every
    process still there."""
    for pid in os.listdir('/proc'):
        if not pid.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % pid) as handle:
                yield int(pid), handle.read().rsplit(')', 1)[1].split()
        except OSError:
            continue


DATABASE_PORTS = {'mysql': 3306, 'postgresql': 5432}
LOOPBACK = {None, '', '127.0.0.1', 'localhost', '::1'}


def database_server_pid(url):
    """The process listening on this host at the TCP port of the database
    server ``url`` names (mariadbd; PostgreSQL's postmaster), or None: for
    SQLite, or a server elsewhere."""
    parts = urllib.parse.urlsplit(url)
    port = DATABASE_PORTS.get(parts.scheme.split('+')[0])
    if port is None or parts.hostname not in LOOPBACK:
        return None
    port = parts.port or port
    sockets = set()
    for table in ('/proc/net/tcp', '/proc/net/tcp6'):
        with open(table) as handle:
            for line in list(handle)[1:]:
                fields = line.split()
                # local address (IP:PORT in hex), state 0A: listening.
                if (fields[3] == '0A'
                        and int(fields[1].rsplit(':', 1)[1], 16) == port):
                    sockets.add('socket:[%s]' % fields[9])
    for pid, _ in processes():
        try:
            descriptors = os.listdir('/proc/%d/fd' % pid)
            if any(os.readlink('/proc/%d/fd/%s' % (pid, fd)) in sockets
                   for fd in descriptors):
                return pid
        except OSError:
            continue
    return None


def database_cpu_seconds(pid):
    """CPU seconds used so far by the database server whose listening
    process is ``pid``: its own threads (all of MariaDB), the children
    it has reaped and those still running (PostgreSQL's backends, one
    per connection, and its helpers)."""
    used = 0
    for child, fields in processes():
        if child == pid:
            # utime, stime, cutime, cstime
            used += sum(int(field) for field in fields[11:15])
        elif int(fields[1]) == pid:
            used += int(fields[11]) + int(fields[12])
    return used / os.sysconf('SC_CLK_TCK')


class CpuMeter:
    """The wall time and the CPU time of a placement server (its process
    group ``pgid``) and of the database server of ``db_url`` (whole-server
    figures: 0 on SQLite, whose work is inside the placement server; None
    for a server not on this host), read together::

        started = meter.read()
        ...
        used = meter.since(started)   # wall_s, server_cpu_s, db_cpu_s, ...
    """

    def __init__(self, pgid, db_url):
        self.pgid = pgid
        self.sqlite = db_url.startswith('sqlite')
        self.db_pid = None if self.sqlite else database_server_pid(db_url)
        if not self.sqlite and self.db_pid is None:
            web.log('    no database server of %s on this host: its CPU '
                    'time is not measured' % db_url)

    def read(self):
        """The figures so far (wall_s from an arbitrary start)."""
        user, system = group_cpu_times(self.pgid)
        if self.db_pid is not None:
            database = database_cpu_seconds(self.db_pid)
        else:
            database = 0.0 if self.sqlite else None
        return {'wall_s': time.monotonic(), 'server_cpu_s': user + system,
                'server_system_s': system, 'db_cpu_s': database}

    def since(self, started):
        """The figures of the interval from ``started`` (a ``read()``)."""
        now = self.read()
        return {key: None if now[key] is None else now[key] - started[key]
                for key in now}


def per_request_ms(used, requests):
    """The CPU ms per request of ``used`` (a ``CpuMeter.since``) over
    ``requests``: server_cpu_ms, db_cpu_ms (None where unknown)."""
    return {'%s_cpu_ms' % who: (
                1000 * used['%s_cpu_s' % who] / requests
                if requests and used['%s_cpu_s' % who] is not None
                else None)
            for who in ('server', 'db')}
