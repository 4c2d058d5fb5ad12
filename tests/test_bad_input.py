"""Bad input on every route: always a 4xx in the upstream error format.

Each case sends one malformed request (wrong types, unknown fields, numbers
beyond the columns, bad UUIDs, broken JSON, wrong content types or
microversions, unknown or repeated query parameters) and checks that

* the status is the expected 4xx (never a 500),
* the body is ``{"errors": [{status, title, detail, request_id[, code]}]}``
  with ``code`` exactly from microversion 1.23,
* the server logged no traceback while answering.

The second half checks that failed writes leave nothing behind: a write
that is refused as a whole must not have changed any row it touched first.
"""
import dataclasses
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

from placement import environ_keys
from placement import errors
from placement import microversions
from placement import middleware

ADMIN_HEADERS = {'x-auth-token': 'admin', 'accept': 'application/json',
                 'openstack-api-version': 'placement latest'}
# POST /reshaper is for services only.
SERVICE = {'x-auth-token': 'nova', 'x-roles': 'service'}

RP = str(uuid.UUID('c0ffee00-0000-4000-8000-000000000001'))
RP2 = str(uuid.UUID('c0ffee00-0000-4000-8000-000000000002'))
CONSUMER = str(uuid.UUID('c0ffee00-0000-4000-8000-0000000000c1'))
UNKNOWN = str(uuid.UUID('c0ffee00-0000-4000-8000-0000000000ff'))
CLASS = 'CUSTOM_BAD_INPUT'
TRAIT = 'CUSTOM_BAD_INPUT'
PROJECT = 'project-bad-input'
USER = 'user-bad-input'

INT32_OVER = 2 ** 31
INT64_OVER = 2 ** 63
# Past every integer type a database or SQLite's C API can bind.  Read
# exactly, as upstream does: in a body it fails a field's bounds (400) or,
# as a generation, simply does not match (409); in a query string it
# reaches the handlers as an integer.
HUGE = 10 ** 30


@dataclasses.dataclass
class Case:
    method: str
    path: str
    status: int
    body: object = None        # sent as JSON when given
    raw: bytes = None          # sent verbatim when given
    content_type: str = 'application/json'
    version: str = 'latest'    # None: no microversion header at all
    code: str = None           # the expected error code, if specific

    def headers(self):
        headers = dict(SERVICE) if self.path == '/reshaper' else {}
        if self.version is not None:
            headers['openstack-api-version'] = 'placement ' + self.version
        if self.body is not None or self.raw is not None:
            if self.content_type is not None:
                headers['content-type'] = self.content_type
        return headers

    def content(self):
        if self.raw is not None:
            return self.raw
        if self.body is not None:
            return json.dumps(self.body).encode()
        return None


def allocation_body(resources, provider=RP, generation=None, **extra):
    body = {'allocations': {provider: {'resources': resources}},
            'project_id': PROJECT, 'user_id': USER,
            'consumer_generation': generation, 'consumer_type': 'INSTANCE'}
    body.update(extra)
    return body


def inventory_put(inventories, generation=0):
    return {'resource_provider_generation': generation,
            'inventories': inventories}


RPS = '/resource_providers'
RP_URL = RPS + '/' + RP
INV = RP_URL + '/inventories'
ALLOC = '/allocations/' + CONSUMER
NEW_CONSUMER = '/allocations/' + str(uuid.UUID(int=7))
AC = '/allocation_candidates'

CASES = {
    # -- microversion header --------------------------------------------
    'version-too-new': Case('GET', '/', 406, version='1.40'),
    'version-major-2': Case('GET', '/', 406, version='2.0'),
    'version-words': Case('GET', '/', 400, version='one.two'),
    'version-three-parts': Case('GET', '/', 400, version='1.2.3'),
    'version-bad-on-write': Case('POST', RPS, 406, body={'name': 'x'},
                                 version='1.99'),
    'method-not-allowed': Case('PATCH', RP_URL, 405),
    'unknown-url': Case('GET', '/nothing/here', 404),

    # -- text no column can store -----------------------------------------
    'query-not-utf8-rp-list': Case('GET', RPS + '?name=%FF', 400),
    'query-not-utf8-key': Case('GET', RPS + '?%FF=1', 400),
    'query-not-utf8-traits': Case('GET', '/traits?name=in:%FF', 400),
    'query-not-utf8-usages': Case('GET', '/usages?project_id=%FF', 400),
    'query-not-utf8-candidates': Case('GET', AC + '?resources=%FF:1', 400),
    'query-nul-rp-name': Case('GET', RPS + '?name=a%00b', 400),
    'query-nul-usages': Case('GET', '/usages?project_id=a%00b', 400),
    'query-nul-traits': Case('GET', '/traits?name=in:A%00B', 400),
    'path-nul-trait': Case('GET', '/traits/CUSTOM_%00', 400),
    'path-nul-class': Case('GET', '/resource_classes/CUSTOM_%00', 400),
    'path-nul-inventory': Case('GET', INV + '/A%00B', 400),
    'body-nul-rp-name': Case('POST', RPS, 400, body={'name': 'a\x00b'}),
    'body-nul-rp-rename': Case('PUT', RP_URL, 400, body={'name': 'a\x00b'}),
    'body-nul-project': Case('PUT', NEW_CONSUMER, 400, body=allocation_body(
        {'VCPU': 1}, project_id='a\x00b')),
    'body-nul-trait': Case('PUT', RP_URL + '/traits', 400, body={
        'traits': ['A\x00B'], 'resource_provider_generation': 0}),

    # -- POST /resource_providers ---------------------------------------
    'rp-create-name-int': Case('POST', RPS, 400, body={'name': 5}),
    'rp-create-name-huge-int': Case('POST', RPS, 400,
                                    body={'name': INT64_OVER}),
    'rp-create-name-too-long': Case('POST', RPS, 400, body={'name': 'n' * 201}),
    'rp-create-no-name': Case('POST', RPS, 400, body={'uuid': UNKNOWN}),
    'rp-create-unknown-field': Case('POST', RPS, 400,
                                    body={'name': 'x', 'colour': 'red'}),
    'rp-create-bad-uuid': Case('POST', RPS, 400,
                               body={'name': 'x', 'uuid': 'not-a-uuid'}),
    'rp-create-uuid-int': Case('POST', RPS, 400,
                               body={'name': 'x', 'uuid': 12345}),
    'rp-create-bad-parent': Case('POST', RPS, 400, body={
        'name': 'x', 'parent_provider_uuid': 'nope'}),
    'rp-create-unknown-parent': Case('POST', RPS, 400, body={
        'name': 'orphan', 'parent_provider_uuid': UNKNOWN}),
    'rp-create-parent-before-1.14': Case('POST', RPS, 400, version='1.13',
                                         body={'name': 'x',
                                               'parent_provider_uuid': RP}),
    'rp-create-duplicate-name': Case('POST', RPS, 409, body={'name': 'rp1'},
                                     code='placement.duplicate_name'),
    'rp-create-body-list': Case('POST', RPS, 400, body=['name']),
    'rp-create-body-null': Case('POST', RPS, 400, raw=b'null'),
    'rp-create-malformed-json': Case('POST', RPS, 400, raw=b'{"name": '),
    'rp-create-trailing-garbage': Case('POST', RPS, 400,
                                       raw=b'{"name": "x"} x'),
    'rp-create-empty-body': Case('POST', RPS, 400, raw=b''),
    'rp-create-infinite-number': Case('POST', RPS, 400,
                                      raw=b'{"name": 1e400}'),
    'rp-create-nan': Case('POST', RPS, 400, raw=b'{"name": NaN}'),
    'rp-create-invalid-utf8': Case('POST', RPS, 400,
                                   raw=b'{"name": "\xff\xfe"}'),
    'rp-create-lone-surrogate': Case('POST', RPS, 400,
                                     raw=b'{"name": "\\ud800"}'),
    'rp-create-deep-nesting': Case('POST', RPS, 400,
                                   raw=b'{"name": ' + b'[' * 5000
                                   + b']' * 5000 + b'}'),
    'rp-create-text-plain': Case('POST', RPS, 415, body={'name': 'x'},
                                 content_type='text/plain'),
    'rp-create-form-encoded': Case('POST', RPS, 415, raw=b'name=x',
                                   content_type='application/'
                                   'x-www-form-urlencoded'),
    'rp-create-no-content-type': Case('POST', RPS, 400, body={'name': 'x'},
                                      content_type=None),

    # -- GET /resource_providers ----------------------------------------
    'rp-list-unknown-param': Case('GET', RPS + '?colour=red', 400),
    'rp-list-bad-uuid': Case('GET', RPS + '?uuid=not-a-uuid', 400),
    'rp-list-bad-in-tree': Case('GET', RPS + '?in_tree=nope', 400),
    'rp-list-in-tree-before-1.14': Case('GET', RPS + '?in_tree=' + RP, 400,
                                        version='1.13'),
    'rp-list-bad-member-of': Case('GET', RPS + '?member_of=nope', 400),
    'rp-list-member-of-twice-before-1.24': Case(
        'GET', RPS + '?member_of=%s&member_of=%s' % (RP, RP2), 400,
        version='1.23'),
    'rp-list-member-of-before-1.3': Case('GET', RPS + '?member_of=' + RP,
                                         400, version='1.2'),
    'rp-list-resources-not-int': Case('GET', RPS + '?resources=VCPU:x', 400),
    'rp-list-resources-zero': Case('GET', RPS + '?resources=VCPU:0', 400),
    'rp-list-resources-no-amount': Case('GET', RPS + '?resources=VCPU', 400),
    'rp-list-resources-unknown-class': Case(
        'GET', RPS + '?resources=CUSTOM_NOPE:1', 400),
    'rp-list-required-unknown-trait': Case(
        'GET', RPS + '?required=CUSTOM_NOPE', 400),
    'rp-list-required-empty-name': Case('GET', RPS + '?required=A,,B', 400),
    'rp-list-required-before-1.18': Case('GET', RPS + '?required=' + TRAIT,
                                         400, version='1.17'),

    # -- /resource_providers/{uuid} -------------------------------------
    'rp-show-bad-uuid': Case('GET', RPS + '/not-a-uuid', 404),
    'rp-show-unknown': Case('GET', RPS + '/' + UNKNOWN, 404),
    'rp-update-name-int': Case('PUT', RP_URL, 400, body={'name': 7}),
    'rp-update-uuid-field': Case('PUT', RP_URL, 400,
                                 body={'name': 'x', 'uuid': RP}),
    'rp-update-no-name': Case('PUT', RP_URL, 400, body={}),
    'rp-update-parent-is-self': Case('PUT', RP_URL, 400, body={
        'name': 'rp1', 'parent_provider_uuid': RP}),
    'rp-update-bad-parent': Case('PUT', RP_URL, 400, body={
        'name': 'rp1', 'parent_provider_uuid': 'nope'}),
    'rp-update-duplicate-name': Case('PUT', RP_URL, 409, body={'name': 'rp2'},
                                     code='placement.duplicate_name'),
    'rp-update-unknown': Case('PUT', RPS + '/' + UNKNOWN, 404,
                              body={'name': 'x'}),
    'rp-update-malformed-json': Case('PUT', RP_URL, 400, raw=b'{'),
    'rp-update-text-plain': Case('PUT', RP_URL, 415, raw=b'name',
                                 content_type='text/plain'),
    'rp-delete-unknown': Case('DELETE', RPS + '/' + UNKNOWN, 404),
    'rp-delete-in-use': Case('DELETE', RP_URL, 409,
                             code='placement.resource_provider.inuse'),

    # -- inventories ----------------------------------------------------
    'inv-post-total-string': Case('POST', INV, 400, body={
        'resource_class': 'DISK_GB', 'total': 'ten'}),
    'inv-post-total-int32-over': Case('POST', INV, 400, body={
        'resource_class': 'DISK_GB', 'total': INT32_OVER}),
    'inv-post-total-int64-over': Case('POST', INV, 400, body={
        'resource_class': 'DISK_GB', 'total': INT64_OVER}),
    'inv-post-total-float': Case('POST', INV, 400, body={
        'resource_class': 'DISK_GB', 'total': 1.5}),
    'inv-post-total-zero': Case('POST', INV, 400, body={
        'resource_class': 'DISK_GB', 'total': 0}),
    'inv-post-total-infinite': Case('POST', INV, 400, raw=(
        b'{"resource_class": "DISK_GB", "total": 1e400}')),
    'inv-post-reserved-over-total': Case('POST', INV, 400, body={
        'resource_class': 'DISK_GB', 'total': 10, 'reserved': 11}),
    'inv-post-min-unit-negative': Case('POST', INV, 400, body={
        'resource_class': 'DISK_GB', 'total': 10, 'min_unit': -1}),
    'inv-post-ratio-string': Case('POST', INV, 400, body={
        'resource_class': 'DISK_GB', 'total': 10, 'allocation_ratio': 'x'}),
    'inv-post-ratio-beyond-float': Case('POST', INV, 400, body={
        'resource_class': 'DISK_GB', 'total': 10, 'allocation_ratio': 1e39}),
    'inv-post-ratio-infinite': Case('POST', INV, 400, raw=(
        b'{"resource_class": "DISK_GB", "total": 10, '
        b'"allocation_ratio": 1e400}')),
    'inv-post-class-lowercase': Case('POST', INV, 400, body={
        'resource_class': 'disk_gb', 'total': 10}),
    'inv-post-class-unknown': Case('POST', INV, 400, body={
        'resource_class': 'CUSTOM_NOPE', 'total': 10}),
    'inv-post-class-too-long': Case('POST', INV, 400, body={
        'resource_class': 'CUSTOM_' + 'X' * 300, 'total': 10}),
    'inv-post-no-class': Case('POST', INV, 400, body={'total': 10}),
    'inv-post-unknown-field': Case('POST', INV, 400, body={
        'resource_class': 'DISK_GB', 'total': 10, 'colour': 'red'}),
    'inv-post-duplicate-class': Case('POST', INV, 409, body={
        'resource_class': 'VCPU', 'total': 10}),
    'inv-post-unknown-provider': Case('POST', RPS + '/%s/inventories'
                                      % UNKNOWN, 404, body={
                                          'resource_class': 'DISK_GB',
                                          'total': 10}),
    'inv-post-text-plain': Case('POST', INV, 415, raw=b'x',
                                content_type='text/plain'),
    'inv-put-all-generation-string': Case('PUT', INV, 400, body=inventory_put(
        {'VCPU': {'total': 8}}, generation='one')),
    'inv-put-all-no-generation': Case('PUT', INV, 400, body={
        'inventories': {'VCPU': {'total': 8}}}),
    'inv-put-all-generation-int64-over': Case('PUT', INV, 409,
                                              body=inventory_put(
                                                  {'VCPU': {'total': 8}},
                                                  generation=INT64_OVER)),
    'inv-put-all-generation-huge': Case('PUT', INV, 409, body=inventory_put(
        {'VCPU': {'total': 8}}, generation=HUGE)),
    'inv-put-all-generation-negative-huge': Case(
        'PUT', INV, 409, body=inventory_put({'VCPU': {'total': 8}},
                                            generation=-HUGE)),
    'inv-put-all-inventories-list': Case('PUT', INV, 400, body=inventory_put(
        [{'VCPU': {'total': 8}}])),
    'inv-put-all-record-unknown-field': Case(
        'PUT', INV, 400, body=inventory_put({'VCPU': {'total': 8, 'x': 1}})),
    # Upstream's schema takes any name here: the stale generation of the
    # seeded provider is found first.
    'inv-put-all-class-lowercase': Case('PUT', INV, 409, body=inventory_put(
        {'vcpu': {'total': 8}})),
    'inv-put-all-total-int32-over': Case('PUT', INV, 400, body=inventory_put(
        {'VCPU': {'total': INT32_OVER}})),
    'inv-put-one-no-generation': Case('PUT', INV + '/VCPU', 400,
                                      body={'total': 8}),
    'inv-put-one-total-missing': Case('PUT', INV + '/VCPU', 400, body={
        'resource_provider_generation': 0}),
    'inv-put-one-max-unit-int64-over': Case('PUT', INV + '/VCPU', 400, body={
        'resource_provider_generation': 0, 'total': 8,
        'max_unit': INT64_OVER}),
    'inv-put-one-generation-huge': Case('PUT', INV + '/VCPU', 409, body={
        'resource_provider_generation': HUGE, 'total': 8}),
    'inv-put-one-resource-class-field': Case('PUT', INV + '/VCPU', 400, body={
        'resource_provider_generation': 0, 'total': 8,
        'resource_class': 'VCPU'}),
    'inv-put-one-generation-null': Case('PUT', INV + '/VCPU', 400, body={
        'resource_provider_generation': None, 'total': 8}),
    'inv-show-unknown-class': Case('GET', INV + '/CUSTOM_NOPE', 404),
    'inv-show-bad-class': Case('GET', INV + '/not-a-class', 404),
    'inv-show-unknown-provider': Case('GET', RPS + '/%s/inventories'
                                      % UNKNOWN, 404),
    'inv-delete-one-absent': Case('DELETE', INV + '/DISK_GB', 404),
    'inv-delete-one-in-use': Case('DELETE', INV + '/VCPU', 409,
                                  code='placement.concurrent_update'),
    'inv-delete-all-before-1.5': Case('DELETE', INV, 405, version='1.4'),
    'inv-delete-all-in-use': Case('DELETE', INV, 409,
                                  code='placement.inventory.inuse'),

    # -- usages -----------------------------------------------------------
    'usages-rp-unknown': Case('GET', RPS + '/%s/usages' % UNKNOWN, 404),
    'usages-no-project': Case('GET', '/usages', 400),
    'usages-empty-project': Case('GET', '/usages?project_id=', 400),
    'usages-project-too-long': Case('GET', '/usages?project_id=' + 'p' * 256,
                                    400),
    'usages-unknown-param': Case('GET', '/usages?project_id=p&colour=red',
                                 400),
    'usages-consumer-type-before-1.38': Case(
        'GET', '/usages?project_id=p&consumer_type=INSTANCE', 400,
        version='1.37'),
    'usages-before-1.9': Case('GET', '/usages?project_id=p', 404,
                              version='1.8'),

    # -- aggregates -----------------------------------------------------
    'agg-before-1.1': Case('GET', RP_URL + '/aggregates', 404, version='1.0'),
    'agg-put-list-at-1.19': Case('PUT', RP_URL + '/aggregates', 400,
                                 body=[UNKNOWN]),
    'agg-put-dict-at-1.18': Case('PUT', RP_URL + '/aggregates', 400,
                                 version='1.18', body={
                                     'aggregates': [UNKNOWN],
                                     'resource_provider_generation': 0}),
    'agg-put-bad-uuid': Case('PUT', RP_URL + '/aggregates', 400, body={
        'aggregates': ['nope'], 'resource_provider_generation': 0}),
    'agg-put-duplicates': Case('PUT', RP_URL + '/aggregates', 400, body={
        'aggregates': [UNKNOWN, UNKNOWN], 'resource_provider_generation': 0}),
    'agg-put-no-generation': Case('PUT', RP_URL + '/aggregates', 400, body={
        'aggregates': [UNKNOWN]}),
    'agg-put-generation-int64-over': Case(
        'PUT', RP_URL + '/aggregates', 409, body={
            'aggregates': [UNKNOWN], 'resource_provider_generation':
            INT64_OVER}),
    'agg-put-generation-huge': Case('PUT', RP_URL + '/aggregates', 409, body={
        'aggregates': [UNKNOWN], 'resource_provider_generation': HUGE}),
    'agg-put-unknown-provider': Case('PUT', RPS + '/%s/aggregates' % UNKNOWN,
                                     404, body={
                                         'aggregates': [],
                                         'resource_provider_generation': 0}),
    'agg-put-text-plain': Case('PUT', RP_URL + '/aggregates', 415, raw=b'[]',
                               content_type='text/plain'),

    # -- traits -------------------------------------------------------
    'traits-before-1.6': Case('GET', '/traits', 404, version='1.5'),
    'traits-list-unknown-param': Case('GET', '/traits?colour=red', 400),
    'traits-list-bad-name-filter': Case('GET', '/traits?name=foo:bar', 400),
    'traits-list-bad-associated': Case('GET', '/traits?associated=maybe',
                                       400),
    'trait-show-unknown': Case('GET', '/traits/CUSTOM_NOPE', 404),
    'trait-put-lowercase': Case('PUT', '/traits/CUSTOM_lower', 400),
    'trait-put-standard-prefix': Case('PUT', '/traits/HW_NEW_THING', 400),
    'trait-put-too-long': Case('PUT', '/traits/CUSTOM_' + 'X' * 300, 400),
    'trait-delete-standard': Case('DELETE', '/traits/HW_CPU_X86_AVX', 400),
    'trait-delete-unknown': Case('DELETE', '/traits/CUSTOM_NOPE', 404),
    'trait-delete-in-use': Case('DELETE', '/traits/' + TRAIT, 409),
    'rp-traits-not-list': Case('PUT', RP_URL + '/traits', 400, body={
        'traits': TRAIT, 'resource_provider_generation': 0}),
    'rp-traits-int-item': Case('PUT', RP_URL + '/traits', 400, body={
        'traits': [5], 'resource_provider_generation': 0}),
    'rp-traits-generation-null': Case('PUT', RP_URL + '/traits', 400, body={
        'traits': [TRAIT], 'resource_provider_generation': None}),
    'rp-traits-no-generation': Case('PUT', RP_URL + '/traits', 400, body={
        'traits': [TRAIT]}),
    'rp-traits-generation-int64-over': Case('PUT', RP_URL + '/traits', 409,
                                            body={
                                                'traits': [TRAIT],
                                                'resource_provider_generation':
                                                INT64_OVER}),
    'rp-traits-generation-huge': Case('PUT', RP_URL + '/traits', 409, body={
        'traits': [TRAIT], 'resource_provider_generation': HUGE}),
    'rp-traits-unknown-field': Case('PUT', RP_URL + '/traits', 400, body={
        'traits': [], 'resource_provider_generation': 0, 'x': 1}),
    'rp-traits-unknown-provider': Case('GET', RPS + '/%s/traits' % UNKNOWN,
                                       404),
    'rp-traits-malformed-json': Case('PUT', RP_URL + '/traits', 400,
                                     raw=b'{"traits": [}'),

    # -- resource classes -----------------------------------------------
    'rc-before-1.2': Case('GET', '/resource_classes', 404, version='1.1'),
    'rc-post-lowercase': Case('POST', '/resource_classes', 400,
                              body={'name': 'CUSTOM_lower'}),
    'rc-post-standard': Case('POST', '/resource_classes', 400,
                             body={'name': 'VCPU'}),
    'rc-post-name-int': Case('POST', '/resource_classes', 400,
                             body={'name': 10000}),
    'rc-post-too-long': Case('POST', '/resource_classes', 400,
                             body={'name': 'CUSTOM_' + 'X' * 300}),
    'rc-post-unknown-field': Case('POST', '/resource_classes', 400, body={
        'name': 'CUSTOM_OK', 'id': 1}),
    'rc-post-duplicate': Case('POST', '/resource_classes', 409,
                              body={'name': CLASS}),
    'rc-post-text-plain': Case('POST', '/resource_classes', 415, raw=b'x',
                               content_type='text/plain'),
    'rc-show-unknown': Case('GET', '/resource_classes/CUSTOM_NOPE', 404),
    'rc-put-lowercase': Case('PUT', '/resource_classes/CUSTOM_lower', 400),
    'rc-put-standard': Case('PUT', '/resource_classes/VCPU', 400),
    'rc-rename-bad-body': Case('PUT', '/resource_classes/' + CLASS, 400,
                               version='1.6', body={'name': 5}),
    'rc-rename-standard': Case('PUT', '/resource_classes/VCPU', 400,
                               version='1.6', body={'name': 'CUSTOM_X'}),
    'rc-delete-standard': Case('DELETE', '/resource_classes/VCPU', 400),
    'rc-delete-unknown': Case('DELETE', '/resource_classes/CUSTOM_NOPE', 404),
    'rc-delete-in-use': Case('DELETE', '/resource_classes/' + CLASS, 409),

    # -- PUT /allocations/{consumer} ------------------------------------
    'alloc-put-bad-consumer-uuid': Case('PUT', '/allocations/not-a-uuid', 400,
                                        body=allocation_body({'VCPU': 1})),
    'alloc-put-amount-zero': Case('PUT', NEW_CONSUMER, 400,
                                  body=allocation_body({'VCPU': 0})),
    'alloc-put-amount-string': Case('PUT', NEW_CONSUMER, 400,
                                    body=allocation_body({'VCPU': '1'})),
    'alloc-put-amount-int32-over': Case(
        'PUT', NEW_CONSUMER, 400, body=allocation_body({'VCPU': INT32_OVER})),
    'alloc-put-amount-huge': Case('PUT', NEW_CONSUMER, 400,
                                  body=allocation_body({'VCPU': HUGE})),
    'alloc-put-amount-infinite': Case('PUT', NEW_CONSUMER, 400, raw=(
        b'{"allocations": {"%s": {"resources": {"VCPU": 1e400}}}, '
        b'"project_id": "p", "user_id": "u", "consumer_generation": null, '
        b'"consumer_type": "INSTANCE"}' % RP.encode())),
    'alloc-put-class-lowercase': Case('PUT', NEW_CONSUMER, 400,
                                      body=allocation_body({'vcpu': 1})),
    'alloc-put-class-unknown': Case('PUT', NEW_CONSUMER, 400,
                                    body=allocation_body({'CUSTOM_NOPE': 1})),
    'alloc-put-class-not-on-provider': Case(
        'PUT', NEW_CONSUMER, 409, body=allocation_body({'DISK_GB': 1})),
    'alloc-put-no-resources': Case('PUT', NEW_CONSUMER, 400,
                                   body=allocation_body({})),
    'alloc-put-bad-provider-uuid': Case('PUT', NEW_CONSUMER, 400,
                                        body=allocation_body(
                                            {'VCPU': 1}, provider='nope')),
    'alloc-put-unknown-provider': Case('PUT', NEW_CONSUMER, 400,
                                       body=allocation_body(
                                           {'VCPU': 1}, provider=UNKNOWN)),
    'alloc-put-over-capacity': Case('PUT', NEW_CONSUMER, 409,
                                    body=allocation_body({'VCPU': 1000})),
    'alloc-put-generation-string': Case('PUT', NEW_CONSUMER, 400,
                                        body=allocation_body(
                                            {'VCPU': 1}, generation='0')),
    'alloc-put-generation-int32-over': Case(
        'PUT', NEW_CONSUMER, 400, body=allocation_body(
            {'VCPU': 1}, generation=INT32_OVER)),
    'alloc-put-generation-for-new-consumer': Case(
        'PUT', NEW_CONSUMER, 409, code='placement.concurrent_update',
        body=allocation_body({'VCPU': 1}, generation=3)),
    'alloc-put-stale-generation': Case(
        'PUT', ALLOC, 409, code='placement.concurrent_update',
        body=allocation_body({'VCPU': 1}, generation=None)),
    'alloc-put-no-generation': Case('PUT', NEW_CONSUMER, 400, body={
        'allocations': {RP: {'resources': {'VCPU': 1}}},
        'project_id': PROJECT, 'user_id': USER,
        'consumer_type': 'INSTANCE'}),
    'alloc-put-empty-project': Case('PUT', NEW_CONSUMER, 400,
                                    body=allocation_body({'VCPU': 1},
                                                         project_id='')),
    'alloc-put-project-too-long': Case('PUT', NEW_CONSUMER, 400,
                                       body=allocation_body(
                                           {'VCPU': 1}, project_id='p' * 256)),
    'alloc-put-project-int': Case('PUT', NEW_CONSUMER, 400,
                                  body=allocation_body({'VCPU': 1},
                                                       project_id=5)),
    'alloc-put-no-consumer-type': Case('PUT', NEW_CONSUMER, 400, body={
        'allocations': {RP: {'resources': {'VCPU': 1}}},
        'project_id': PROJECT, 'user_id': USER,
        'consumer_generation': None}),
    'alloc-put-consumer-type-lowercase': Case(
        'PUT', NEW_CONSUMER, 400, body=allocation_body(
            {'VCPU': 1}, consumer_type='instance')),
    'alloc-put-consumer-type-before-1.38': Case(
        'PUT', NEW_CONSUMER, 400, version='1.37',
        body=allocation_body({'VCPU': 1})),
    'alloc-put-bad-mappings': Case('PUT', NEW_CONSUMER, 400,
                                   body=allocation_body(
                                       {'VCPU': 1}, mappings={'': ['nope']})),
    'alloc-put-unknown-field': Case('PUT', NEW_CONSUMER, 400,
                                    body=allocation_body({'VCPU': 1}, x=1)),
    'alloc-put-list-at-1.12': Case('PUT', NEW_CONSUMER, 400, version='1.12',
                                   body={'allocations': [{
                                       'resource_provider': {'uuid': RP},
                                       'resources': {'VCPU': 1}}],
                                       'project_id': PROJECT,
                                       'user_id': USER}),
    'alloc-put-dict-at-1.11': Case('PUT', NEW_CONSUMER, 400, version='1.11',
                                   body={'allocations': {
                                       RP: {'resources': {'VCPU': 1}}},
                                       'project_id': PROJECT,
                                       'user_id': USER}),
    'alloc-put-empty-list-at-1.0': Case('PUT', NEW_CONSUMER, 400,
                                        version='1.0',
                                        body={'allocations': []}),
    'alloc-put-malformed-json': Case('PUT', NEW_CONSUMER, 400, raw=b'{{'),
    'alloc-put-text-plain': Case('PUT', NEW_CONSUMER, 415, raw=b'x',
                                 content_type='text/plain'),
    'alloc-delete-bad-uuid': Case('DELETE', '/allocations/not-a-uuid', 404),
    'alloc-delete-unknown': Case('DELETE', NEW_CONSUMER, 404),
    'alloc-rp-unknown-provider': Case('GET', RPS + '/%s/allocations'
                                      % UNKNOWN, 404),

    # -- POST /allocations ----------------------------------------------
    'alloc-post-before-1.13': Case('POST', '/allocations', 404,
                                   version='1.12', body={}),
    'alloc-post-empty': Case('POST', '/allocations', 400, body={}),
    'alloc-post-list': Case('POST', '/allocations', 400, body=[]),
    'alloc-post-bad-consumer-key': Case('POST', '/allocations', 400, body={
        'nope': allocation_body({'VCPU': 1})}),
    'alloc-post-amount-huge': Case('POST', '/allocations', 400, body={
        CONSUMER: allocation_body({'VCPU': HUGE})}),
    'alloc-post-unknown-provider': Case('POST', '/allocations', 400, body={
        str(uuid.UUID(int=8)): allocation_body({'VCPU': 1},
                                               provider=UNKNOWN)}),
    'alloc-post-generation-huge': Case('POST', '/allocations', 400, body={
        CONSUMER: allocation_body({'VCPU': 1}, generation=HUGE)}),
    'alloc-post-text-plain': Case('POST', '/allocations', 415, raw=b'{}',
                                  content_type='text/plain'),

    # -- GET /allocation_candidates -------------------------------------
    'ac-before-1.10': Case('GET', AC + '?resources=VCPU:1', 404,
                           version='1.9'),
    'ac-no-resources': Case('GET', AC, 400, version='1.10'),
    'ac-no-groups': Case('GET', AC, 400),
    'ac-resources-empty': Case('GET', AC + '?resources=', 400),
    'ac-resources-zero': Case('GET', AC + '?resources=VCPU:0', 400),
    'ac-resources-negative': Case('GET', AC + '?resources=VCPU:-1', 400),
    'ac-resources-not-int': Case('GET', AC + '?resources=VCPU:1.5', 400),
    'ac-resources-unknown-class': Case('GET', AC + '?resources=CUSTOM_NOPE:1',
                                       400),
    'ac-unknown-param': Case('GET', AC + '?resources=VCPU:1&colour=red', 400),
    'ac-limit-zero': Case('GET', AC + '?resources=VCPU:1&limit=0', 400),
    'ac-limit-negative': Case('GET', AC + '?resources=VCPU:1&limit=-1', 400),
    'ac-limit-word': Case('GET', AC + '?resources=VCPU:1&limit=all', 400),
    'ac-limit-before-1.16': Case('GET', AC + '?resources=VCPU:1&limit=1', 400,
                                 version='1.15'),
    'ac-required-unknown-trait': Case(
        'GET', AC + '?resources=VCPU:1&required=CUSTOM_NOPE', 400),
    'ac-required-forbidden-before-1.22': Case(
        'GET', AC + '?resources=VCPU:1&required=!' + TRAIT, 400,
        version='1.21'),
    'ac-required-any-before-1.39': Case(
        'GET', AC + '?resources=VCPU:1&required=in:' + TRAIT, 400,
        version='1.38'),
    'ac-required-conflict': Case(
        'GET', AC + '?resources=VCPU:1&required=%s,!%s' % (TRAIT, TRAIT),
        400),
    'ac-member-of-bad-uuid': Case('GET', AC + '?resources=VCPU:1'
                                  '&member_of=nope', 400),
    'ac-member-of-twice-before-1.24': Case(
        'GET', AC + '?resources=VCPU:1&member_of=%s&member_of=%s'
        % (RP, RP2), 400, version='1.23'),
    'ac-in-tree-bad-uuid': Case('GET', AC + '?resources=VCPU:1&in_tree=nope',
                                400),
    'ac-group-policy-bad': Case('GET', AC + '?resources1=VCPU:1'
                                '&group_policy=some', 400),
    'ac-group-policy-missing': Case('GET', AC + '?resources1=VCPU:1'
                                    '&resources2=VCPU:1', 400),
    'ac-string-suffix-before-1.33': Case('GET', AC + '?resources_A=VCPU:1',
                                         400, version='1.32'),
    'ac-suffix-too-long': Case('GET', AC + '?resources%s=VCPU:1' % ('x' * 65),
                               400),
    'ac-orphan-required': Case('GET', AC + '?resources=VCPU:1&required1='
                               + TRAIT, 400),
    'ac-root-required-twice': Case(
        'GET', AC + '?resources=VCPU:1&root_required=%s&root_required=%s'
        % (TRAIT, TRAIT), 400, code='placement.query.duplicate_key'),
    'ac-root-required-conflict': Case(
        'GET', AC + '?resources=VCPU:1&root_required=%s,!%s' % (TRAIT, TRAIT),
        400, code='placement.query.bad_value'),
    'ac-root-required-before-1.35': Case(
        'GET', AC + '?resources=VCPU:1&root_required=' + TRAIT, 400,
        version='1.34'),
    'ac-same-subtree-unknown-suffix': Case(
        'GET', AC + '?resources_A=VCPU:1&same_subtree=_A,_B', 400),
    'ac-same-subtree-empty-suffix': Case(
        'GET', AC + '?resources_A=VCPU:1&same_subtree=_A,', 400),

    # -- parameters and fields before their microversion, more types ----
    'rp-list-forbidden-aggregate-before-1.32': Case(
        'GET', RPS + '?member_of=!' + RP2, 400, version='1.31'),
    'rp-list-any-traits-before-1.39': Case(
        'GET', RPS + '?required=in:%s,HW_CPU_X86_AVX' % TRAIT, 400,
        version='1.38'),
    'rp-create-parent-int': Case('POST', RPS, 400, body={
        'name': 'x', 'parent_provider_uuid': 7}),
    'inv-post-generation-string': Case('POST', INV, 400, body={
        'resource_class': 'DISK_GB', 'total': 10,
        'resource_provider_generation': 'one'}),
    'agg-put-item-int': Case('PUT', RP_URL + '/aggregates', 400, body={
        'aggregates': [1], 'resource_provider_generation': 0}),
    'usages-empty-consumer-type': Case(
        'GET', '/usages?project_id=p&consumer_type=', 400),
    'alloc-put-consumer-type-too-long': Case(
        'PUT', NEW_CONSUMER, 400, body=allocation_body(
            {'VCPU': 1}, consumer_type='T' * 256)),
    'alloc-put-resources-list': Case('PUT', NEW_CONSUMER, 400, body={
        'allocations': {RP: {'resources': [['VCPU', 1]]}},
        'project_id': PROJECT, 'user_id': USER, 'consumer_generation': None,
        'consumer_type': 'INSTANCE'}),
    'alloc-post-consumer-list': Case('POST', '/allocations', 400,
                                     body={CONSUMER: []}),
    'ac-in-tree-suffixed-before-1.31': Case(
        'GET', AC + '?resources1=VCPU:1&in_tree1=' + RP, 400,
        version='1.30'),
    'ac-forbidden-aggregate-before-1.32': Case(
        'GET', AC + '?resources=VCPU:1&member_of=!' + RP2, 400,
        version='1.31'),
    'ac-same-subtree-before-1.36': Case(
        'GET', AC + '?resources_A=VCPU:1&same_subtree=_A', 400,
        version='1.35'),
    'reshaper-allocations-list': Case('POST', '/reshaper', 400, body={
        'inventories': {RP: inventory_put({'VCPU': {'total': 8}})},
        'allocations': []}),

    # -- POST /reshaper -------------------------------------------------
    'reshaper-before-1.30': Case('POST', '/reshaper', 404, version='1.29',
                                 body={}),
    'reshaper-empty': Case('POST', '/reshaper', 400, body={}),
    'reshaper-no-inventories': Case('POST', '/reshaper', 400, body={
        'inventories': {}, 'allocations': {}}),
    'reshaper-bad-provider-key': Case('POST', '/reshaper', 400, body={
        'inventories': {'nope': inventory_put({})}, 'allocations': {}}),
    'reshaper-unknown-provider': Case(
        'POST', '/reshaper', 400, code='placement.resource_provider.not_found',
        body={'inventories': {UNKNOWN: inventory_put({})},
              'allocations': {}}),
    'reshaper-total-int32-over': Case('POST', '/reshaper', 400, body={
        'inventories': {RP: inventory_put({'VCPU': {'total': INT32_OVER}})},
        'allocations': {}}),
    'reshaper-generation-huge': Case('POST', '/reshaper', 409, body={
        'inventories': {RP: inventory_put({'VCPU': {'total': 8}},
                                          generation=HUGE)},
        'allocations': {}}),
    'reshaper-bad-consumer-key': Case('POST', '/reshaper', 400, body={
        'inventories': {RP: inventory_put({'VCPU': {'total': 8}})},
        'allocations': {'nope': allocation_body({'VCPU': 1})}}),
    'reshaper-unknown-field': Case('POST', '/reshaper', 400, body={
        'inventories': {RP: inventory_put({'VCPU': {'total': 8}})},
        'allocations': {}, 'x': 1}),
    'reshaper-text-plain': Case('POST', '/reshaper', 415, raw=b'{}',
                                content_type='text/plain'),
}

# Cases that answer with a 5xx or a wrong status today; strict, so the
# marker must go once the owner fixes the bug.
KNOWN_BUGS = {}


def _params():
    return [pytest.param(case, id=name, marks=(
        pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[name])
        if name in KNOWN_BUGS else ())) for name, case in CASES.items()]


def version_of(header):
    """The (major, minor) a valid header negotiates, else None."""
    if header is None:
        return microversions.MIN
    if header == 'latest':
        return microversions.MAX
    try:
        major, minor = (int(part) for part in header.split('.'))
    except ValueError:
        return None
    if ((major, minor) > microversions.MAX
            or header != '%d.%d' % (major, minor)):
        return None
    return (major, minor)


def log_mark(server):
    with open(server.log_path, 'rb') as f:
        return f.seek(0, 2)


def log_since(server, mark):
    with open(server.log_path, 'rb') as f:
        f.seek(mark)
        return f.read().decode(errors='replace')


def assert_error_document(response, version):
    """The upstream error shape; ``code`` only from 1.23."""
    assert response.headers['content-type'].startswith('application/json'), (
        response.headers, response.text)
    body = response.json()
    assert list(body) == ['errors'], body
    assert len(body['errors']) == 1, body
    error = body['errors'][0]
    assert error['status'] == response.status_code, body
    assert isinstance(error['title'], str) and error['title'], body
    assert isinstance(error['detail'], str), body
    assert error['request_id'] == response.headers['openstack-request-id']
    assert error['request_id'].startswith('req-'), body
    if version is not None and version >= microversions.ERROR_CODES:
        assert isinstance(error['code'], str) and error['code'], body
    elif version is not None:
        assert 'code' not in error, body
    return error


@pytest.fixture(scope='module')
def seeded(server):
    """Two providers, a custom class and trait in use, one consumer."""
    with httpx.Client(base_url=server.url, headers=ADMIN_HEADERS,
                      timeout=30) as http:
        def ok(response):
            assert response.status_code < 300, response.text
            return response
        ok(http.put('/resource_classes/' + CLASS))
        ok(http.put('/traits/' + TRAIT))
        for name, rp in (('rp1', RP), ('rp2', RP2)):
            ok(http.post(RPS, json={'name': name, 'uuid': rp}))
            ok(http.put(RPS + '/%s/inventories' % rp, json=inventory_put({
                'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 2048},
                CLASS: {'total': 4}})))
        ok(http.put(RP_URL + '/traits', json={
            'traits': [TRAIT], 'resource_provider_generation': 1}))
        ok(http.put(ALLOC, json=allocation_body({'VCPU': 1, CLASS: 1})))
        yield http


@pytest.mark.parametrize('case', _params())
def test_bad_input_is_a_4xx_error_document(seeded, server, case):
    mark = log_mark(server)
    response = seeded.request(case.method, case.path, content=case.content(),
                              headers=case.headers())
    log = log_since(server, mark)
    assert 'Traceback' not in log, log
    assert response.status_code == case.status, response.text
    error = assert_error_document(response, version_of(case.version))
    if case.code is not None:
        assert error['code'] == case.code, error


# One URL per route of placement/router.py, to sweep what every route
# must refuse the same way.
ROUTE_URLS = {
    '/': '/',
    '/resource_providers': RPS,
    '/resource_providers/{uuid}': RP_URL,
    '/resource_providers/{uuid}/inventories': INV,
    '/resource_providers/{uuid}/inventories/{resource_class}': INV + '/VCPU',
    '/resource_providers/{uuid}/usages': RP_URL + '/usages',
    '/resource_providers/{uuid}/aggregates': RP_URL + '/aggregates',
    '/resource_providers/{uuid}/allocations': RP_URL + '/allocations',
    '/resource_providers/{uuid}/traits': RP_URL + '/traits',
    '/resource_classes': '/resource_classes',
    '/resource_classes/{name}': '/resource_classes/' + CLASS,
    '/traits': '/traits',
    '/traits/{name}': '/traits/' + TRAIT,
    '/allocations': '/allocations',
    '/allocations/{consumer_uuid}': ALLOC,
    '/allocation_candidates': AC + '?resources=VCPU:1',
    '/allocation_candidates/explain': AC + '/explain?resources=VCPU:1',
    '/usages': '/usages?project_id=' + PROJECT,
    '/reshaper': '/reshaper',
    '/summary': '/summary',
    '/summary/providers': '/summary/providers',
    '/capacity': '/capacity?resources=VCPU:1',
}
# The routes whose writes take a JSON body.
JSON_WRITES = [
    ('POST', RPS), ('PUT', RP_URL), ('POST', INV), ('PUT', INV),
    ('PUT', INV + '/VCPU'), ('PUT', RP_URL + '/aggregates'),
    ('PUT', RP_URL + '/traits'), ('POST', '/resource_classes'),
    ('PUT', ALLOC), ('POST', '/allocations'), ('POST', '/reshaper'),
    ('POST', '/capacity'),
]
BAD_BODIES = {
    'malformed': (b'{"a": ', 'application/json', 400),
    'empty': (b'', 'application/json', 400),
    'string': (b'"text"', 'application/json', 400),
    'number': (b'1e400', 'application/json', 400),
    'array': (b'[[], {}]', 'application/json', 400),
    'text-plain': (b'{}', 'text/plain', 415),
    'no-content-type': (b'{}', None, 400),
}


def test_route_table_covers_every_route():
    from placement import router
    assert set(ROUTE_URLS) == set(router.ROUTES) - {''}
    writes = {(method, path) for path, methods in router.ROUTES.items()
              for method in methods if method in ('POST', 'PUT')}
    # PUT of a trait or (from 1.7) of a class takes no body.
    assert len(writes) == len(JSON_WRITES) + 2


def _route_methods():
    from placement import router
    return [pytest.param(method, ROUTE_URLS[path], id='%s-%s' % (
        method, path)) for path, methods in router.ROUTES.items()
        if path for method in methods]


@pytest.mark.parametrize('header,status', [
    ('placement 1.40', 406), ('placement 2.0', 406),
    ('placement 1.x', 400), ('placement 1', 400)])
@pytest.mark.parametrize('method,path', _route_methods())
def test_every_route_refuses_bad_microversions(seeded, server, method, path,
                                               header, status):
    mark = log_mark(server)
    response = seeded.request(method, path, headers={
        'openstack-api-version': header})
    log = log_since(server, mark)
    assert 'Traceback' not in log, log
    assert response.status_code == status, response.text
    error = assert_error_document(response, None)
    if status == 406:
        assert (error['min_version'], error['max_version']) == (
            '1.0', '1.39')


@pytest.mark.parametrize('body,content_type,status', [
    pytest.param(*value, id=name) for name, value in BAD_BODIES.items()])
@pytest.mark.parametrize('method,path', [
    pytest.param(m, p, id='%s-%s' % (m, p.replace(RP, '{uuid}').replace(
        CONSUMER, '{consumer}'))) for m, p in JSON_WRITES])
def test_every_json_write_refuses_bad_bodies(seeded, server, method, path,
                                             body, content_type, status):
    # Every write bumps some provider's generation: the list shows them.
    before = seeded.get(RPS).json()
    headers = dict(SERVICE) if path == '/reshaper' else {}
    if content_type:
        headers['content-type'] = content_type
    mark = log_mark(server)
    response = seeded.request(method, path, content=body, headers=headers)
    log = log_since(server, mark)
    assert 'Traceback' not in log, log
    assert response.status_code == status, response.text
    assert_error_document(response, microversions.MAX)
    assert seeded.get(RPS).json() == before


@pytest.mark.parametrize('version', ['1.0', '1.22', '1.23', 'latest'])
def test_error_code_appears_from_1_23(seeded, version):
    response = seeded.get(RPS + '/' + UNKNOWN,
                          headers={'openstack-api-version':
                                   'placement ' + version})
    assert response.status_code == 404
    error = assert_error_document(response, version_of(version))
    if version_of(version) >= microversions.ERROR_CODES:
        assert error['code'] == 'placement.undefined_code'


def test_errors_are_json_without_any_accept_header(seeded, server):
    # httpx sends "Accept: */*" unless told otherwise; the fault handler
    # must still answer JSON.
    response = seeded.get(RPS + '/' + UNKNOWN, headers={'accept': '*/*'})
    assert response.status_code == 404
    assert_error_document(response, microversions.MAX)


# Amounts no inventory can hold are valid queries that find nothing.
HUGE_QUERIES = [
    RPS + '?resources=VCPU:%d' % INT64_OVER,
    RPS + '?resources=VCPU:%d' % HUGE,
    AC + '?resources=VCPU:%d' % INT64_OVER,
    AC + '?resources=VCPU:%d' % HUGE,
]


@pytest.mark.parametrize('path', HUGE_QUERIES)
def test_amounts_beyond_any_column_find_nothing(seeded, server, path):
    mark = log_mark(server)
    response = seeded.get(path)
    log = log_since(server, mark)
    assert 'Traceback' not in log, log
    assert response.status_code == 200, response.text
    assert not any(response.json().values()), response.text


@pytest.mark.parametrize('limit', [INT32_OVER, INT64_OVER, HUGE])
def test_candidate_limit_beyond_any_column_is_no_limit(seeded, server, limit):
    mark = log_mark(server)
    response = seeded.get(AC + '?resources=VCPU:1&limit=%d' % limit)
    log = log_since(server, mark)
    assert 'Traceback' not in log, log
    assert response.status_code == 200, response.text
    assert len(response.json()['allocation_requests']) == 2


# -- nothing half-written -----------------------------------------------


def state(http, provider=RP):
    """Everything a failed write on ``provider`` could have touched."""
    base = RPS + '/' + provider
    return {
        'provider': http.get(base).json(),
        'inventories': http.get(base + '/inventories').json(),
        'usages': http.get(base + '/usages').json()['usages'],
        'traits': http.get(base + '/traits').json()['traits'],
        'aggregates': http.get(base + '/aggregates').json()['aggregates'],
        'allocations': http.get(base + '/allocations').json()['allocations'],
    }


def both_states(http):
    return state(http, RP), state(http, RP2)


def assert_refused(response, status):
    assert response.status_code == status, response.text
    assert_error_document(response, microversions.MAX)


@pytest.mark.parametrize('inventories,status', [
    pytest.param({'VCPU': {'total': 16}, 'CUSTOM_NOPE': {'total': 1}}, 400,
                 id='one-unknown-class'),
    pytest.param({'VCPU': {'total': 16}, 'MEMORY_MB': {
        'total': 10, 'reserved': 11}}, 400, id='one-reserved-over-total'),
    pytest.param({'MEMORY_MB': {'total': 4096}}, 409,
                 id='drops-a-class-in-use'),
    pytest.param({'VCPU': {'total': 16}, 'MEMORY_MB': {'total': 'x'}}, 400,
                 id='one-bad-type'),
], )
def test_put_inventories_with_one_bad_record_changes_nothing(
        seeded, inventories, status):
    before = both_states(seeded)
    generation = before[0]['provider']['generation']
    response = seeded.put(INV, json=inventory_put(inventories, generation))
    assert_refused(response, status)
    assert both_states(seeded) == before


@pytest.mark.parametrize('bad_body, status', [
    pytest.param(allocation_body({'VCPU': 1}, provider=UNKNOWN), 400,
                 id='unknown-provider'),
    pytest.param(allocation_body({'VCPU': 100}, provider=RP2), 409,
                 id='over-capacity'),
    pytest.param(allocation_body({'DISK_GB': 1}, provider=RP2), 409,
                 id='no-such-inventory'),
    pytest.param(allocation_body({'VCPU': 1}, provider=RP2, generation=5),
                 409, id='stale-consumer-generation'),
])
def test_post_allocations_with_one_bad_consumer_writes_none(
        seeded, bad_body, status):
    before = both_states(seeded)
    good, bad = str(uuid.uuid4()), str(uuid.uuid4())
    response = seeded.post('/allocations', json={
        good: allocation_body({'VCPU': 1, 'MEMORY_MB': 64}),
        bad: bad_body})
    assert_refused(response, status)
    for consumer in (good, bad):
        assert seeded.get('/allocations/' + consumer).json() == {
            'allocations': {}}
    assert both_states(seeded) == before


def test_post_allocations_bad_move_keeps_the_old_allocations(seeded):
    # Moving CONSUMER off RP while another consumer overflows RP2: the
    # move must not happen either.
    before = both_states(seeded)
    current = seeded.get(ALLOC).json()
    response = seeded.post('/allocations', json={
        CONSUMER: allocation_body({'VCPU': 1}, provider=RP2,
                                  generation=current['consumer_generation']),
        str(uuid.uuid4()): allocation_body({'VCPU': 100}, provider=RP2)})
    assert_refused(response, 409)
    assert seeded.get(ALLOC).json() == current
    assert both_states(seeded) == before


def test_put_allocations_over_capacity_on_one_provider_writes_none(seeded):
    before = both_states(seeded)
    consumer = '/allocations/' + str(uuid.uuid4())
    body = allocation_body({'VCPU': 1})
    body['allocations'][RP2] = {'resources': {'VCPU': 100}}
    assert_refused(seeded.put(consumer, json=body), 409)
    assert seeded.get(consumer).json() == {'allocations': {}}
    assert both_states(seeded) == before


@pytest.mark.parametrize('case', [
    'unknown-provider', 'stale-generation', 'shrink-below-use'])
def test_reshaper_with_a_bad_part_changes_nothing(seeded, case):
    before = both_states(seeded)
    generations = [s['provider']['generation'] for s in before]
    current = seeded.get(ALLOC).json()
    inventories = {
        RP: inventory_put({'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 1},
                           CLASS: {'total': 4}}, generations[0]),
        RP2: inventory_put({'VCPU': {'total': 1}}, generations[1])}
    if case == 'unknown-provider':
        # The inventories are fine, a consumer names an unknown provider.
        allocations = {CONSUMER: allocation_body(
            {'VCPU': 1}, provider=UNKNOWN,
            generation=current['consumer_generation'])}
        status = 400
    elif case == 'stale-generation':
        # The allocations are fine, the second provider's generation is
        # stale.
        inventories[RP2] = inventory_put({'VCPU': {'total': 1}},
                                         generations[1] + 5)
        allocations = {CONSUMER: allocation_body(
            {'VCPU': 1}, provider=RP2,
            generation=current['consumer_generation'])}
        status = 409
    else:
        # Shrinking RP's VCPU below what stays allocated there.
        inventories = {RP: inventory_put({'MEMORY_MB': {'total': 1},
                                          CLASS: {'total': 4}},
                                         generations[0])}
        allocations, status = {}, 409
    response = seeded.post('/reshaper', headers=SERVICE, json={
        'inventories': inventories, 'allocations': allocations})
    assert_refused(response, status)
    assert seeded.get(ALLOC).json() == current
    assert both_states(seeded) == before


def test_provider_traits_with_one_unknown_trait_changes_nothing(seeded):
    before = both_states(seeded)
    response = seeded.put(RP_URL + '/traits', json={
        'traits': ['HW_CPU_X86_AVX', 'CUSTOM_NOPE'],
        'resource_provider_generation': before[0]['provider']['generation']})
    assert_refused(response, 400)
    assert both_states(seeded) == before


@pytest.mark.parametrize('body, status', [
    pytest.param({'name': 'orphan', 'parent_provider_uuid': UNKNOWN}, 400,
                 id='unknown-parent'),
    pytest.param({'name': 'rp1'}, 409, id='duplicate-name'),
])
def test_failed_provider_create_leaves_no_provider(seeded, body, status):
    new = str(uuid.uuid4())
    assert_refused(seeded.post(RPS, json=dict(body, uuid=new)), status)
    assert seeded.get(RPS + '/' + new).status_code == 404
    names = [p['name'] for p in seeded.get(RPS).json()['resource_providers']]
    assert sorted(names) == ['rp1', 'rp2']


@pytest.mark.parametrize('body, status', [
    pytest.param({'name': 'rp2'}, 409, id='duplicate-name'),
    pytest.param({'name': 'rp1', 'parent_provider_uuid': RP}, 400,
                 id='own-parent'),
    pytest.param({'name': 'renamed', 'parent_provider_uuid': UNKNOWN}, 400,
                 id='unknown-parent'),
])
def test_failed_provider_update_keeps_name_and_generation(seeded, body,
                                                          status):
    before = both_states(seeded)
    assert_refused(seeded.put(RP_URL, json=body), status)
    assert both_states(seeded) == before


# -- bounded answers, bounded bodies --------------------------------------

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
