"""What gunicorn answers by itself: request lines up to its maximum (8190
bytes: long member_of/in_tree queries are legitimate) reach the service;
longer request lines and header fields get the upstream JSON error
document, whatever the worker class."""
import json
import socket
import urllib.parse

import pytest

LIMIT = 8190


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
