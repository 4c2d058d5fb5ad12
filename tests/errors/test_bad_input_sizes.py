"""Bounded answers and bounded bodies: an error answer stays small
and quotes a huge input only in part, and a body over the size limit
is refused before it is read (helpers: bad_input_support.py)."""
import io
import json
import socket
import time
import uuid

import httpx
import jsonschema
import pytest
import webob
import webob.dec

from placement import errors
from placement import microversions
from placement.web import environ_keys
from placement.web import middleware

from support import bad_input_support as support
from support.bad_input_support import (AC, CONSUMER, NEW_CONSUMER, RPS,
                                       allocation_body, assert_error_document)

# The seeded world, built once for this module.
seeded = support.seeded


MB = 1024 * 1024
# No error answer may be larger, whatever the request.
ANSWER_LIMIT = 64 * 1024
_CONSUMER_BODY = allocation_body({'VCPU': 1, 'MEMORY_MB': 64})

HUGE_INPUTS = {
    'rp-name-1mb': ('POST', RPS, {'name': 'n' * MB}),
    'rp-unknown-field-1mb': ('POST', RPS, {'name': 'x', 'k' * MB: 1}),
    'class-name-1mb': ('POST', '/resource_classes',
                       {'name': 'CUSTOM_' + 'A' * MB}),
    # Past the schema: the allocation names a class no one has.
    'allocation-class-1mb': ('PUT', NEW_CONSUMER, allocation_body(
        {'CUSTOM_' + 'A' * MB: 1})),
    # The whole body (5 MB) is the refused value.
    'allocations-20000-as-a-list': ('POST', '/allocations',
                                    [_CONSUMER_BODY] * 20000),
    'allocations-20000-one-bad': ('POST', '/allocations', dict(
        {str(uuid.UUID(int=n)): _CONSUMER_BODY for n in range(19999)},
        **{CONSUMER: dict(_CONSUMER_BODY, project_id='p' * MB)})),
    'malformed-json-1mb': ('POST', RPS, b'{"name": "' + b'n' * MB),
    # The request line is at most 8 kB (placement-api's limit).
    'query-group-policy-7kb': (
        'GET', AC + '?resources=VCPU:1&group_policy=' + 'x' * 7000, None),
    'query-member-of-7kb': ('GET', RPS + '?member_of=' + 'x' * 7000, None),
}


@pytest.mark.parametrize('method,path,body', [
    pytest.param(*value, id=name) for name, value in HUGE_INPUTS.items()])
def test_an_error_answer_stays_small_whatever_the_input(seeded, method, path,
                                                       body):
    content = body if isinstance(body, bytes) or body is None else (
        json.dumps(body).encode())
    headers = {'content-type': 'application/json'} if content else {}
    response = seeded.request(method, path, content=content, headers=headers)
    assert response.status_code == 400, response.text[:2000]
    assert len(response.content) <= ANSWER_LIMIT, response.text[:2000]
    assert_error_document(response, microversions.MAX)


_NAME_SCHEMA = {'type': 'object', 'additionalProperties': {
    'type': 'object', 'properties': {
        'name': {'type': 'string', 'maxLength': 200}}}}


def _violation(data):
    return jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(_NAME_SCHEMA).iter_errors(data))


@pytest.mark.parametrize('data', [
    {'rp': {'name': 'n' * 201}}, {'rp': {'name': 5}}, {'rp': []}],
    ids=['too-long', 'not-a-string', 'not-an-object'])
def test_a_schema_error_on_normal_input_is_worded_as_upstream(data):
    error = _violation(data)
    assert errors.schema_violation(error) == str(error)


@pytest.mark.parametrize('data', [
    {'rp': {'name': 'n' * MB}},
    {'k' * MB: {'name': 5}},
    {'rp': ['x' * MB]},
], ids=['long-value', 'long-key', 'long-list'])
def test_a_schema_error_quotes_a_few_hundred_characters(data):
    text = errors.schema_violation(_violation(data))
    assert len(text) < 4 * errors.QUOTE_LIMIT, text
    assert ' ... ' in text
    # The words around the quotes stay.
    assert 'Failed validating' in text and '\n\nOn instance[' in text


def _raw_request(server, head, body, timeout):
    """Send ``head`` (the request line and headers) and ``body``, keeping
    the connection open, so the server gets no more than was sent; return
    (status, headers, body) of the answer."""
    host, port = server.url.rsplit('/', 1)[1].split(':')
    with socket.create_connection((host, int(port)), timeout=timeout) as s:
        s.sendall(head.encode() + b'\r\n' + body)
        reader = s.makefile('rb')
        status = int(reader.readline().split()[1])
        headers = {}
        for line in iter(reader.readline, b'\r\n'):
            name, _, value = line.decode().partition(':')
            headers[name.strip().lower()] = value.strip()
        answer = reader.read(int(headers['content-length']))
    return status, headers, answer


def test_a_body_over_the_limit_is_refused_before_it_is_read(seeded, server):
    """20 MB announced, a few bytes sent: the 413 arrives at once, so
    nothing waited for (read) the rest."""
    head = ('POST /allocations HTTP/1.1\r\nHost: placement\r\n'
            'X-Auth-Token: admin\r\nContent-Type: application/json\r\n'
            'OpenStack-API-Version: placement latest\r\n'
            'Content-Length: %d\r\n' % (20 * 1000 * 1000))
    started = time.monotonic()
    status, headers, answer = _raw_request(server, head, b'{"', timeout=10)
    assert time.monotonic() - started < 5
    assert status == 413, answer
    response = httpx.Response(status, headers=list(headers.items()),
                              content=answer)
    error = assert_error_document(response, microversions.MAX)
    assert ('The request body is larger than the 16777216 bytes this '
            'service accepts.' in error['detail'])
    # The server serves on.
    assert seeded.get(RPS).status_code == 200


class _CountingInput(io.BytesIO):
    """A chunked request body that remembers how much was read of it."""

    def read(self, size=-1):
        data = super().read(size)
        self.taken = getattr(self, 'taken', 0) + len(data)
        return data


def _chunked_call(body, limit):
    """Call ``BodySizeLimit`` with a chunked body (no Content-Length):
    (the answer, the bytes read, what the app behind it got)."""
    reached = {}

    @webob.dec.wsgify
    def app(req):
        reached['body'] = req.body
        return webob.Response(status=204)

    stream = _CountingInput(body)
    request = webob.Request.blank('/traits', method='PUT', environ={
        'wsgi.input': stream, 'HTTP_TRANSFER_ENCODING': 'chunked'})
    request.environ.pop('CONTENT_LENGTH', None)
    request.environ[environ_keys.REQUEST_ID] = 'req-test'
    guarded = middleware.FaultWrapper(middleware.BodySizeLimit(app, limit))
    return request.get_response(guarded), stream.taken, reached


def test_a_chunked_body_is_read_at_most_one_byte_past_the_limit():
    response, taken, reached = _chunked_call(b'x' * 5000, limit=1000)
    assert response.status_code == 413
    assert taken == 1001
    assert not reached


def test_a_chunked_body_within_the_limit_reaches_the_handler():
    response, taken, reached = _chunked_call(b'x' * 1000, limit=1000)
    assert response.status_code == 204
    assert reached['body'] == b'x' * 1000
