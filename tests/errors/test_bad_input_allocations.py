"""Bad input to allocations and POST /reshaper: always a 4xx error
document (helpers: bad_input_support.py)."""
import uuid

import pytest

from support import bad_input_support as support
from support.bad_input_support import (ALLOC, CONSUMER, Case, HUGE, INT32_OVER,
                                       NEW_CONSUMER, PROJECT, RP, RPS, UNKNOWN,
                                       USER, allocation_body, inventory_put)

CASES = {
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

    # -- parameters and fields before their microversion, more types ----
    'alloc-put-consumer-type-too-long': Case(
        'PUT', NEW_CONSUMER, 400, body=allocation_body(
            {'VCPU': 1}, consumer_type='T' * 256)),
    'alloc-put-resources-list': Case('PUT', NEW_CONSUMER, 400, body={
        'allocations': {RP: {'resources': [['VCPU', 1]]}},
        'project_id': PROJECT, 'user_id': USER, 'consumer_generation': None,
        'consumer_type': 'INSTANCE'}),
    'alloc-post-consumer-list': Case('POST', '/allocations', 400,
                                     body={CONSUMER: []}),
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


# The seeded world, built once for this module.
seeded = support.seeded


@pytest.mark.parametrize('case', support.params(CASES))
def test_bad_input_is_a_4xx_error_document(seeded, server, case):
    support.check(seeded, server, case)
