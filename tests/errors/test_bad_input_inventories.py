"""Bad input to inventories and usages: always a 4xx error document
(helpers: bad_input_support.py)."""
import pytest

from support import bad_input_support as support
from support.bad_input_support import (Case, HUGE, INT32_OVER, INT64_OVER, INV,
                                       RPS, UNKNOWN, inventory_put)

CASES = {
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

    # -- parameters and fields before their microversion, more types ----
    'inv-post-generation-string': Case('POST', INV, 400, body={
        'resource_class': 'DISK_GB', 'total': 10,
        'resource_provider_generation': 'one'}),
    'usages-empty-consumer-type': Case(
        'GET', '/usages?project_id=p&consumer_type=', 400),
}


# The seeded world, built once for this module.
seeded = support.seeded


@pytest.mark.parametrize('case', support.params(CASES))
def test_bad_input_is_a_4xx_error_document(seeded, server, case):
    support.check(seeded, server, case)
