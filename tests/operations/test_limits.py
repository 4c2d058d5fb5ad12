"""What gunicorn answers by itself: request lines up to its maximum (8190
bytes: long member_of/in_tree queries are legitimate) reach the service;
longer request lines and header fields get the upstream JSON error
document, whatever the worker class.  And a body over
``[api] max_request_body_size``: a client that sends all of it before it
reads still reads the 413, up to 4 times the limit; a larger body is cut
off."""
import http.client
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request

import httpx
import pytest

from placement.cmd import worker

LIMIT = 8190
MB = 1024 * 1024
# [api] max_request_body_size's default, which the server keeps.
BODY_LIMIT = 16 * MB


def raw_request(server, request_line, headers=()):
    """Send one request as bytes; (status, headers dict, body bytes)."""
    url = urllib.parse.urlsplit(server.url)
    lines = [request_line, 'Host: %s' % url.netloc,
             'x-auth-token: admin', 'Connection: close', *headers]
    with socket.create_connection((url.hostname, url.port),
                                  timeout=30) as sock:
        sock.sendall(('\r\n'.join(lines) + '\r\n\r\n').encode('latin-1'))
        answer = b''
        while chunk := sock.recv(65536):
            answer += chunk
    head, _sep, body = answer.partition(b'\r\n\r\n')
    status_line, *header_lines = head.decode('latin-1').split('\r\n')
    found = {}
    for line in header_lines:
        name, _colon, value = line.partition(':')
        found[name.strip().lower()] = value.strip()
    return int(status_line.split()[1]), found, body


def request_line(length):
    """A GET of the provider listing whose request line is ``length``
    bytes long."""
    prefix, suffix = 'GET /resource_providers?name=', ' HTTP/1.1'
    return prefix + 'n' * (length - len(prefix) - len(suffix)) + suffix


def test_request_line_at_the_limit_reaches_the_service(server):
    status, headers, body = raw_request(server, request_line(LIMIT))
    assert status == 200, body
    assert json.loads(body) == {'resource_providers': []}


@pytest.mark.parametrize('line, headers, status', [
    (request_line(LIMIT + 1), (), 414),
    ('GET / HTTP/1.1', ('x-big: ' + 'b' * (LIMIT + 1),), 431),
], ids=['request-line', 'header-field'])
def test_over_the_limits_is_a_json_error(server, line, headers, status):
    got, found, body = raw_request(server, line, headers)
    assert got == status, body
    assert found['content-type'] == 'application/json'
    error, = json.loads(body)['errors']
    assert error['status'] == status
    assert error['title'] and error['detail']
    assert error['request_id'] == found['openstack-request-id']


def post_with_urllib(server, size):
    """POST a body of ``size`` bytes with urllib, which sends all of it
    before it reads the answer: (status, headers, body)."""
    request = urllib.request.Request(
        server.url + '/resource_providers', data=b'x' * size,
        method='POST', headers={'x-auth-token': 'admin',
                                'content-type': 'application/json'})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, exc.read()


def post_kept_alive(server, size):
    """The same with http.client on a connection that asks to be kept
    alive."""
    url = urllib.parse.urlsplit(server.url)
    connection = http.client.HTTPConnection(url.hostname, url.port,
                                            timeout=30)
    try:
        connection.request('POST', '/resource_providers', body=b'x' * size,
                           headers={'x-auth-token': 'admin',
                                    'content-type': 'application/json'})
        response = connection.getresponse()
        return response.status, response.headers, response.read()
    finally:
        connection.close()


@pytest.mark.parametrize('post', [post_with_urllib, post_kept_alive],
                         ids=['urllib', 'kept-alive'])
def test_body_over_the_limit_sent_whole_still_reads_the_413(server, post):
    status, headers, body = post(server, 20 * MB)
    assert status == 413, body
    assert headers['content-type'] == 'application/json'
    error, = json.loads(body)['errors']
    assert error['status'] == 413
    assert error['title'] == 'Request Entity Too Large'
    assert ('The request body is larger than the %d bytes this service '
            'accepts.' % BODY_LIMIT) in error['detail']
    assert error['request_id'] == headers['openstack-request-id']
    # The rest of the body was not read: the connection is not reused.
    assert headers['connection'] == 'close'


def test_body_over_four_limits_is_cut_off(server):
    size = worker.DISCARDED_BODIES * BODY_LIMIT + MB
    started = time.monotonic()
    try:
        status, _headers, body = post_with_urllib(server, size)
    except OSError:
        pass
    else:
        raise AssertionError('answered %d: %s' % (status, body))
    assert time.monotonic() - started < 5
    # The server serves on at once.
    started = time.monotonic()
    assert httpx.get(server.url + '/', timeout=5).status_code == 200
    assert time.monotonic() - started < 1
