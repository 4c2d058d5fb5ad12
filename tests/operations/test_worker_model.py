"""The worker model of placement-api: slow and idle clients never delay
complete requests, a request that does not arrive in time is dropped
(placement/cmd/worker.py, over real HTTP), a worker that stops gracefully
first finishes the requests it holds, signals to a server under load fail
no request (and SIGHUP re-reads the configuration), and process-global
state is right when requests run in threads."""
import collections
import concurrent.futures
import gc
import os
import signal
import socket
import threading
import time

import httpx
import psutil
import pytest

from placement.cmd import api
from placement.config import conf as placement_conf
from placement.web import gc_pause

from support import helpers
from support import lock_support
from support import stress_check
from support import stress_load
from support import stress_setup

REQUEST_TIMEOUT = 3
# The servers here keep [api] graceful_timeout's default.
GRACEFUL_TIMEOUT = placement_conf.DEFAULT_GRACEFUL_TIMEOUT
# More stalled connections than the worker has threads.
STALLED = 3 * api.DEFAULT_THREADS


@pytest.fixture(scope='module')
def server(tmp_path_factory):
    workdir = str(tmp_path_factory.mktemp('slow-clients'))
    helpers.write_config(
        workdir, 'sqlite:///%s/placement.sqlite' % workdir)
    srv = helpers.Server(workdir, workers=1,
                         args=['--request-timeout', str(REQUEST_TIMEOUT)])
    yield srv
    srv.stop()


def _connect(server, data=b''):
    sock = socket.create_connection(('127.0.0.1', server.port))
    if data:
        sock.sendall(data)
    return sock


def test_stalled_clients_delay_nobody(server):
    stalled = [_connect(server, b'GET / HTTP/1.1\r\nHost: x\r\n')
               for _ in range(STALLED)]
    stalled += [_connect(server) for _ in range(STALLED)]
    try:
        time.sleep(0.5)
        with httpx.Client(base_url=server.url,
                          headers=helpers.ADMIN_HEADERS) as client:
            for _ in range(5):
                started = time.monotonic()
                response = client.get('/resource_providers',
                                      timeout=REQUEST_TIMEOUT)
                assert response.status_code == 200
                # Far below the time a stalled client is given.
                assert time.monotonic() - started < REQUEST_TIMEOUT / 2
    finally:
        for sock in stalled:
            sock.close()


def test_request_not_arrived_in_time_is_dropped(server):
    sock = _connect(server, b'GET / HTTP/1.1\r\nHost: x\r\n')
    sock.settimeout(REQUEST_TIMEOUT + 10)
    started = time.monotonic()
    with sock:
        assert sock.recv(100) == b''
    assert time.monotonic() - started < REQUEST_TIMEOUT + 3


def test_request_arriving_in_pieces_is_served(server):
    body = b'{"name": "in-pieces"}'
    head = (b'POST /resource_providers HTTP/1.1\r\nHost: x\r\n'
            b'X-Auth-Token: admin\r\nContent-Type: application/json\r\n'
            b'Content-Length: %d\r\n' % len(body))
    with _connect(server) as sock:
        sock.settimeout(REQUEST_TIMEOUT + 10)
        for piece in (head[:10], head[10:], b'\r\n', body[:5], body[5:]):
            sock.sendall(piece)
            time.sleep(0.3)
        assert sock.recv(100).startswith(b'HTTP/1.1 201 ')


def test_expect_continue_is_answered_before_the_body(server):
    # curl sends "Expect: 100-continue" with larger bodies and waits for
    # the interim answer before sending the body.
    body = b'{"name": "expecting"}'
    head = (b'POST /resource_providers HTTP/1.1\r\nHost: x\r\n'
            b'X-Auth-Token: admin\r\nContent-Type: application/json\r\n'
            b'Expect: 100-continue\r\nContent-Length: %d\r\n\r\n'
            % len(body))
    with _connect(server, head) as sock:
        sock.settimeout(REQUEST_TIMEOUT / 2)
        assert sock.recv(100).startswith(b'HTTP/1.1 100 Continue')
        sock.settimeout(REQUEST_TIMEOUT + 10)
        sock.sendall(body)
        assert sock.recv(100).startswith(b'HTTP/1.1 201 ')


def test_collector_pause_under_threads():
    pause = gc_pause.collection_paused
    paused = []

    def render():
        for _ in range(500):
            with pause():
                paused.append(not gc.isenabled())
    threads = [threading.Thread(target=render) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(paused)
    assert gc.isenabled()
    # Left as it was found when something else had turned it off.
    gc.disable()
    try:
        with pause():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def _workers(server):
    return {p.pid for p in psutil.Process(server.process.pid).children()}


def _booted_workers(server, count, timeout=30):
    """The pids of the server's ``count`` workers, once all have forked
    (the server answers as soon as the first one has)."""
    deadline = time.monotonic() + timeout
    while len(_workers(server)) != count:
        assert time.monotonic() < deadline, server.log()
        time.sleep(0.1)
    return _workers(server)


def _new_worker(server, old, timeout=30):
    """The pid of a worker other than ``old``, once there is one."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pids = _workers(server) - {old}
        if pids:
            return pids.pop()
        time.sleep(0.1)
    raise AssertionError('no new worker: %s' % server.log())


@pytest.mark.parametrize('backend', helpers.BACKENDS)
@pytest.mark.parametrize('stop', ['max-requests', 'worker SIGTERM',
                                  'server SIGHUP', 'server SIGTERM'])
def test_graceful_stop_finishes_requests_in_flight(tmp_path, backend, stop):
    # Requests are held in flight by holding the traits table's write
    # lock: each write waits for it inside the worker.  The worker is told
    # to stop while it holds them; the lock is released after that, and
    # every request must still get its answer.
    in_flight = api.DEFAULT_THREADS
    database = helpers.TestDatabase(backend, str(tmp_path))
    helpers.write_config(str(tmp_path), database.url)
    # The readiness check is the first request; the first write the
    # second, from which on the worker is stopping.
    args = ['--max-requests', '2'] if stop == 'max-requests' else []
    server = helpers.Server(str(tmp_path), workers=1, args=args)
    try:
        worker = _new_worker(server, None)
        released = []

        def write(index):
            try:
                status = httpx.put(
                    server.url + '/traits/CUSTOM_IN_FLIGHT_%d' % index,
                    headers=dict(helpers.ADMIN_HEADERS, **{
                        'OpenStack-API-Version': 'placement 1.6'}),
                    timeout=60).status_code
            except httpx.TransportError as exc:
                status = repr(exc)
            return status, time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(in_flight) as pool:
            with lock_support.writes_held(database):
                writes = [pool.submit(write, index)
                          for index in range(in_flight)]
                time.sleep(1.5)
                if stop == 'worker SIGTERM':
                    os.kill(worker, signal.SIGTERM)
                elif stop == 'server SIGHUP':
                    os.kill(server.process.pid, signal.SIGHUP)
                elif stop == 'server SIGTERM':
                    os.kill(server.process.pid, signal.SIGTERM)
                time.sleep(1.5)
                released.append(time.monotonic())
            answers = [future.result() for future in writes]
        assert [status for status, _ in answers] == [201] * in_flight, (
            answers, server.log())
        # All of them were still waiting when the stop was asked for.
        assert all(ended > released[0] for _, ended in answers)
        if stop == 'server SIGTERM':
            assert server.process.wait(GRACEFUL_TIMEOUT + 10) == 0
        else:
            _new_worker(server, worker)
            assert httpx.get(server.url + '/').status_code == 200
    finally:
        server.stop()
        database.drop()


def test_killed_worker_loses_at_most_its_connections(tmp_path):
    # More requests than the worker may hold connections wait, all held
    # in flight by the traits table's lock; the worker is SIGKILLed.  It
    # loses the requests of the connections it held, no more: the others
    # were still queued on the listening socket, which its replacement
    # serves once the lock is gone.
    connections, requests = 4, 12
    database = helpers.TestDatabase('sqlite', str(tmp_path))
    helpers.write_config(str(tmp_path), database.url)
    server = helpers.Server(str(tmp_path), workers=1, args=[
        '--worker-connections', str(connections)])
    try:
        worker = _new_worker(server, None)

        def write(index):
            try:
                return httpx.put(
                    server.url + '/traits/CUSTOM_KILLED_%d' % index,
                    headers=helpers.ADMIN_HEADERS, timeout=60).status_code
            except httpx.TransportError:
                return 'lost'
        with concurrent.futures.ThreadPoolExecutor(requests) as pool:
            with lock_support.writes_held(database):
                writes = [pool.submit(write, index)
                          for index in range(requests)]
                time.sleep(1.5)
                os.kill(worker, signal.SIGKILL)
                _new_worker(server, worker)
                time.sleep(1)
            answers = collections.Counter(
                future.result() for future in writes)
        assert answers == {'lost': connections,
                           201: requests - connections}, server.log()
    finally:
        server.stop()
        database.drop()


# The scheduler-like load of stress_load (candidates, claims, moves,
# reads, releases, and an operator rewriting an inventory) while the
# server is signalled.
LOAD_CLIENTS = 8
LOAD_SECONDS = 12
SIGNAL_AFTER = 3


def _write_policy(path, rules):
    path.write_text(''.join('"%s": "%s"\n' % rule for rule in rules))


def _policy_config(policy_file, project=None):
    extra = '[oslo_policy]\npolicy_file = %s\n' % policy_file
    if project:
        extra += '[placement]\nincomplete_consumer_project_id = %s\n' % project
    return extra


def _refused(outcome):
    """A connection the server never accepted: the client knows nothing
    was done (a load balancer sends it to another node)."""
    return outcome.status is None and 'ConnectError' in outcome.detail


def _signals():
    """Every signal on SQLite; SIGHUP, whose new workers open their own
    connections, on each database server too."""
    stops = ['server SIGTERM', 'server SIGHUP', 'server SIGHUP, broken policy']
    return [pytest.param(backend, stop, id='%s-%s' % (stop, backend))
            for backend in helpers.BACKENDS for stop in stops
            if backend == 'sqlite' or stop == 'server SIGHUP']


@pytest.mark.parametrize('backend, stop', _signals())
def test_signals_under_load_fail_no_request(tmp_path, backend, stop):
    # SIGTERM: what was accepted is answered within the graceful timeout,
    # later connections are refused.  SIGHUP: nothing is refused, and the
    # new workers use the configuration as it is now (here it names
    # another policy file and another placeholder project, which only a
    # re-read can pick up).  A policy file that no longer loads is logged
    # and its last rules stay in force, in old and new workers alike.
    allowing, denying = tmp_path / 'allowing.yaml', tmp_path / 'denying.yaml'
    _write_policy(allowing, [])
    _write_policy(denying, [('placement:resource_classes:list', '!')])
    first = denying if stop == 'server SIGHUP, broken policy' else allowing
    workers = 2
    with stress_setup.service(backend, workers,
                              extra_config=_policy_config(first)) as svc:
        server = svc.server
        data = stress_setup.Flat()
        with httpx.Client(base_url=svc.url, headers=stress_setup.HEADERS,
                          timeout=30) as http:
            data.build(http)
        before = _booted_workers(server, workers)
        load = stress_load.Load(svc.url, data, clients=LOAD_CLIENTS,
                                ops=None, duration=LOAD_SECONDS,
                                operator=True).start()
        time.sleep(SIGNAL_AFTER)
        signalled = time.monotonic()
        if stop == 'server SIGTERM':
            os.kill(server.process.pid, signal.SIGTERM)
            server.process.wait(GRACEFUL_TIMEOUT + 10)
            stopped_in = time.monotonic() - signalled
            load.stop()
        else:
            if stop == 'server SIGHUP':
                helpers.write_config(server.workdir, svc.db_url,
                                     _policy_config(denying, helpers.PROJECT))
            else:
                denying.write_text('"placement:resource_classes:list": [\n')
            os.kill(server.process.pid, signal.SIGHUP)
        load.wait()
        outcomes = load.outcomes
        check = stress_check.check_database(svc.db_url, load.ledger)
        after_signal = [o for o in outcomes if o.started > signalled]
        if stop != 'server SIGTERM':
            _assert_new_workers(server, before)
            _assert_policy(svc.url, server, stop)
    failed = [o for o in outcomes if o.status is None and not _refused(o)]
    assert not failed, (failed[:5], svc.log[-3000:])
    stress_check.assert_sound(load, check, svc.log,
                              allow_503=backend == 'sqlite')
    if stop == 'server SIGTERM':
        # Every request in flight was answered, then the server left.
        assert stopped_in < GRACEFUL_TIMEOUT, stopped_in
        assert server.process.returncode == 0
    else:
        assert not [o for o in outcomes if _refused(o)], svc.log[-3000:]
        assert [o for o in after_signal if o.status is not None]


def _assert_new_workers(server, before, timeout=30):
    deadline = time.monotonic() + timeout
    while _workers(server) & before or len(_workers(server)) != len(before):
        assert time.monotonic() < deadline, server.log()
        time.sleep(0.2)


def _assert_policy(url, server, stop):
    with httpx.Client(base_url=url, headers=helpers.ADMIN_HEADERS,
                      timeout=30) as client:
        deadline = time.monotonic() + 30
        while client.get('/resource_classes').status_code != 403:
            assert time.monotonic() < deadline, server.log()
            time.sleep(0.2)
        if stop == 'server SIGHUP, broken policy':
            # The new workers serve with the rules loaded before, and say
            # why; the server stays up.
            with open(server.log_path, errors='replace') as log:
                assert 'does not load' in log.read()
            assert server.process.poll() is None
            return
        rp = helpers.make_provider(client, {'DISK_GB': {'total': 10}})
        consumer = helpers.new_uuid()
        response = client.put(
            '/allocations/' + consumer, headers=helpers.version('1.7'),
            json={'allocations': [{'resource_provider': {'uuid': rp},
                                   'resources': {'DISK_GB': 1}}]})
        assert response.status_code == 204, response.text
        got = client.get('/allocations/' + consumer,
                         headers=helpers.version('1.12')).json()
        assert got['project_id'] == helpers.PROJECT
