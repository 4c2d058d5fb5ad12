"""Three API nodes behind Debian's HAProxy, for bench/run swap.

Each node is one gunicorn server on a fixed port of 127.0.0.1, running
either upstream placement (gunicorn from the upstream virtualenv,
``placement.wsgi.api:application``) or this service (``placement-api``),
both on one placement.conf.  HAProxy health-checks them with ``GET /``,
retries a request whose connection failed or got an empty answer on
another node, and names the node that answered in ``x-served-by``.  The
admin socket drains, disables and enables nodes at run time.
"""
import csv
import io
import os
import signal
import socket
import subprocess
import sys
import time

import httpx

HAPROXY_CONFIG = """global
    maxconn 2000
    stats socket {socket} mode 600 level admin
    log stdout format raw local0 info

defaults
    mode http
    log global
    option httplog
    option dontlog-normal
    timeout connect 1s
    timeout client 300s
    timeout server 300s
    timeout queue 120s
    timeout http-keep-alive 10s
    # A request whose connection to a node failed, or that got no answer
    # at all, goes to another node (retries only if nothing was answered).
    retries 3
    option redispatch 1
    retry-on conn-failure empty-response

frontend placement
    bind 127.0.0.1:{port}
    default_backend nodes

backend nodes
    balance leastconn
    option httpchk GET /
    http-check expect status 200
    # Generous: a node whose workers are all busy answers its check late,
    # and marking busy nodes down would leave none to serve.
    timeout check 5s
    http-response set-header x-served-by %[srv_name]
    default-server check inter 2s fastinter 1s downinter 1s rise 2 fall 5 maxconn 16
{servers}
"""

UPSTREAM_WSGI = 'placement.wsgi.api:application'
# Upstream's gunicorn drains within its default graceful timeout (30 s),
# this service within 10 s; past this the stop counts as failed.
STOP_TIMEOUT = 45
START_TIMEOUT = 90


class FleetError(Exception):
    pass


class HAProxy:

    def __init__(self, workdir, port, nodes, binary='haproxy'):
        self.port = port
        self.socket_path = os.path.join(workdir, 'haproxy.sock')
        self.config_path = os.path.join(workdir, 'haproxy.cfg')
        self.log_path = os.path.join(workdir, 'haproxy.log')
        servers = ''.join('    server %s 127.0.0.1:%d\n' % (node.name,
                                                            node.port)
                          for node in nodes)
        with open(self.config_path, 'w') as out:
            out.write(HAPROXY_CONFIG.format(socket=self.socket_path,
                                            port=port, servers=servers))
        self.binary = binary
        self.proc = None

    def start(self):
        check = subprocess.run([self.binary, '-c', '-f', self.config_path],
                               capture_output=True, text=True)
        if check.returncode:
            raise FleetError('haproxy refuses its configuration:\n%s'
                             % (check.stdout + check.stderr))
        with open(self.log_path, 'ab') as log:
            self.proc = subprocess.Popen(
                [self.binary, '-db', '-f', self.config_path],
                stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while not os.path.exists(self.socket_path):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise FleetError('haproxy did not start: %s' % self.log_tail())
            time.sleep(0.1)

    def log_tail(self, lines=20):
        with open(self.log_path, errors='replace') as log:
            return ''.join(log.readlines()[-lines:])

    def command(self, text):
        with socket.socket(socket.AF_UNIX) as sock:
            sock.connect(self.socket_path)
            sock.sendall(text.encode() + b'\n')
            chunks = []
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    return b''.join(chunks).decode()
                chunks.append(chunk)

    def stats(self):
        """{server or BACKEND/FRONTEND name: row of `show stat`}."""
        text = self.command('show stat').lstrip('# ')
        return {row['svname']: row for row in csv.DictReader(io.StringIO(
            text)) if row.get('pxname') in ('nodes', 'placement')}

    def set_state(self, node, state):
        answer = self.command('set server nodes/%s state %s' % (node, state))
        if answer.strip():
            raise FleetError('set server %s state %s: %s' % (node, state,
                                                             answer))

    def wait(self, node, test, what, timeout):
        deadline = time.monotonic() + timeout
        while True:
            row = self.stats()[node]
            if test(row):
                return row
            if time.monotonic() > deadline:
                raise FleetError('%s: not %s after %d s: %s' % (
                    node, what, timeout, row))
            time.sleep(0.1)

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


def _no_control_socket(gunicorn):
    """Newer gunicorn opens a control socket at one path per user, which
    the three nodes would take from each other."""
    usage = subprocess.run([gunicorn, '--help'], capture_output=True,
                           text=True).stdout
    return ['--no-control-socket'] if '--no-control-socket' in usage else []


def environ(kind, config_dir):
    """The environment of a server or command of ``kind``: upstream's
    without PYTHONPATH, which may name this checkout (its tests run so)."""
    env = dict(os.environ, OS_PLACEMENT_CONFIG_DIR=config_dir)
    if kind == 'upstream':
        env.pop('PYTHONPATH', None)
    return env


class Node:
    """One API node: a gunicorn server whose kind can change."""

    def __init__(self, name, port, workdir, config_file, upstream_venv,
                 workers):
        self.name = name
        self.port = port
        self.workdir = os.path.join(workdir, name)
        os.makedirs(self.workdir, exist_ok=True)
        self.config_file = config_file
        self.upstream_venv = upstream_venv
        self.workers = workers
        self.kind = None
        self.proc = None
        self.starts = 0
        # [kind, serving from, serving until or None]
        self.spells = []

    def argv(self, kind):
        bind = '127.0.0.1:%d' % self.port
        if kind == 'upstream':
            gunicorn = os.path.join(self.upstream_venv, 'bin', 'gunicorn')
            return [gunicorn, '--bind', bind, '--workers', str(self.workers),
                    '--timeout', '300'] + _no_control_socket(gunicorn) + [
                        UPSTREAM_WSGI]
        return [os.path.join(os.path.dirname(sys.executable),
                             'placement-api'), '--bind', bind,
                '--workers', str(self.workers),
                '--config-file', self.config_file]

    def start(self, kind):
        """Start ``kind`` and wait until it answers ``GET /``."""
        self.spawn(kind)
        self.wait_ready()

    def spawn(self, kind):
        env = environ(kind, os.path.dirname(self.config_file))
        # A log per start, so that it tells this start's workers apart.
        self.starts += 1
        self.log_path = log_path = os.path.join(
            self.workdir, '%s-%d.log' % (kind, self.starts))
        # In its own directory, so that upstream's gunicorn does not import
        # this repository's placement package.
        with open(log_path, 'ab') as log:
            self.proc = subprocess.Popen(
                self.argv(kind), cwd=self.workdir, env=env, stdout=log,
                stderr=subprocess.STDOUT, start_new_session=True)
        self.kind = kind

    def wait_ready(self):
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            try:
                if httpx.get('http://127.0.0.1:%d/' % self.port,
                             timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        self.kill()
        raise FleetError('%s %s did not start:\n%s' % (
            self.name, self.kind, self.log_tail()))

    def log_tail(self, chars=3000):
        with open(self.log_path, errors='replace') as log:
            return log.read()[-chars:]

    def stop(self):
        """SIGTERM to the gunicorn master, which lets the workers finish
        what they hold; False if it had to be killed."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(STOP_TIMEOUT)
            return True
        except subprocess.TimeoutExpired:
            self.kill()
            return False

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def begin_spell(self):
        self.spells.append([self.kind, time.monotonic(), None])

    def end_spell(self):
        self.spells[-1][2] = time.monotonic()

    def kind_between(self, start, end):
        """The kind that served a request sent at ``start`` and answered
        at ``end`` through this node, or 'unknown' if two could have."""
        kinds = {kind for kind, since, until in self.spells
                 if since <= end and (until is None or until >= start)}
        return kinds.pop() if len(kinds) == 1 else 'unknown'


class Fleet:
    """The nodes and the HAProxy in front of them."""

    def __init__(self, workdir, config_file, upstream_venv, workers,
                 ports, haproxy='haproxy'):
        self.nodes = [Node('node%d' % (index + 1), port, workdir,
                           config_file, upstream_venv, workers)
                      for index, port in enumerate(ports[1:])]
        self.haproxy = HAProxy(workdir, ports[0], self.nodes, haproxy)
        self.by_name = {node.name: node for node in self.nodes}
        self.swaps = []

    def start(self, kind):
        for node in self.nodes:
            node.spawn(kind)
        for node in self.nodes:
            node.wait_ready()
        self.haproxy.start()
        for node in self.nodes:
            self.haproxy.wait(node.name, lambda row: row['status'] == 'UP',
                              'UP', 30)
            node.begin_spell()

    def swap(self, node, kind):
        """Drain ``node`` in HAProxy, wait for its requests, stop it, start
        ``kind`` on its port, wait until healthy, enable it."""
        started = time.monotonic()
        self.haproxy.set_state(node.name, 'drain')
        self.haproxy.wait(node.name, lambda row: row['scur'] == '0',
                          'idle', 300)
        self.haproxy.set_state(node.name, 'maint')
        node.end_spell()
        drained = time.monotonic()
        old = node.kind
        graceful = node.stop()
        node.start(kind)
        self.haproxy.set_state(node.name, 'ready')
        node.begin_spell()
        self.haproxy.wait(node.name, lambda row: row['status'] == 'UP',
                          'UP', 60)
        self.swaps.append({
            'node': node.name, 'from': old, 'to': kind,
            'drain_s': drained - started, 'graceful': graceful,
            'out_of_service_s': time.monotonic() - drained})

    def kinds(self):
        return [node.kind for node in self.nodes]

    def stop(self):
        self.haproxy.stop()
        for node in self.nodes:
            if node.proc is not None and node.proc.poll() is None:
                node.stop()
