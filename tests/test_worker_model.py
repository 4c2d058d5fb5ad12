"""The worker model of placement-api: slow and idle clients never delay
complete requests, a request that does not arrive in time is dropped
(placement/cmd/worker.py, over real HTTP), and process-global state is
right when requests run in threads."""
import gc
import socket
import threading
import time

import httpx
import pytest

from placement.cmd import api
from placement import util

import helpers

REQUEST_TIMEOUT = 3
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
    pause = util.collection_paused
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
