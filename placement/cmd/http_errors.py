"""Errors gunicorn answers by itself, before the application sees the
request (a request line or header over its limits, a malformed request),
written in the service's JSON error format instead of gunicorn's HTML.

gunicorn's base worker, which every worker class inherits, renders those
answers through ``gunicorn.util.write_error``; ``install()`` replaces that
one function, so the answer does not depend on the worker class.
"""
import json
import uuid

from gunicorn import util


def write_json_error(sock, status_int, reason, mesg):
    """``util.write_error`` with the upstream error document as body."""
    request_id = 'req-' + str(uuid.uuid4())
    body = json.dumps({'errors': [{
        'status': status_int, 'title': reason, 'detail': mesg,
        'request_id': request_id}]}).encode()
    head = ('HTTP/1.1 %d %s\r\n'
            'Connection: close\r\n'
            'Content-Type: application/json\r\n'
            'Content-Length: %d\r\n'
            'openstack-request-id: %s\r\n'
            'x-openstack-request-id: %s\r\n'
            '\r\n' % (status_int, reason, len(body), request_id, request_id))
    util.write_nonblock(sock, head.encode('latin-1') + body)


def install():
    util.write_error = write_json_error
