"""Bad input to aggregates, traits and resource classes: always a 4xx
error document (helpers: bad_input_support.py)."""
import pytest

from support import bad_input_support as support
from support.bad_input_support import (CLASS, Case, HUGE, INT64_OVER, RPS,
                                       RP_URL, TRAIT, UNKNOWN)

CASES = {
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

    # -- parameters and fields before their microversion, more types ----
    'agg-put-item-int': Case('PUT', RP_URL + '/aggregates', 400, body={
        'aggregates': [1], 'resource_provider_generation': 0}),
}


# The seeded world, built once for this module.
seeded = support.seeded


@pytest.mark.parametrize('case', support.params(CASES))
def test_bad_input_is_a_4xx_error_document(seeded, server, case):
    support.check(seeded, server, case)
