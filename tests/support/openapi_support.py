"""Every response of the service checked against the OpenAPI document.

conftest.py calls ``check(response)`` for every response any httpx client
in the tests receives; the checking itself is the service's own
(``testsupport.openapi_check``, also the
``PLACEMENT_VALIDATE_RESPONSES`` middleware), so the tests and the
conformance runs hold the service to one reading of the document.
"""
import urllib.parse

from testsupport import openapi_check

Mismatch = openapi_check.Mismatch


def check(response):
    request = response.request
    path = urllib.parse.urlsplit(str(request.url)).path
    openapi_check.check(
        request.method, path, response.status_code,
        {name.lower(): value for name, value in response.headers.items()},
        response.content)
