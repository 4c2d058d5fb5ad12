"""Bad input to the resource provider routes: always a 4xx error
document (helpers: bad_input_support.py)."""
import pytest

from support import bad_input_support as support
from support.bad_input_support import (Case, INT64_OVER, RP, RP2, RPS, RP_URL,
                                       TRAIT, UNKNOWN)

CASES = {
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

    # -- parameters and fields before their microversion, more types ----
    'rp-list-forbidden-aggregate-before-1.32': Case(
        'GET', RPS + '?member_of=!' + RP2, 400, version='1.31'),
    'rp-list-any-traits-before-1.39': Case(
        'GET', RPS + '?required=in:%s,HW_CPU_X86_AVX' % TRAIT, 400,
        version='1.38'),
    'rp-create-parent-int': Case('POST', RPS, 400, body={
        'name': 'x', 'parent_provider_uuid': 7}),
}


# The seeded world, built once for this module.
seeded = support.seeded


@pytest.mark.parametrize('case', support.params(CASES))
def test_bad_input_is_a_4xx_error_document(seeded, server, case):
    support.check(seeded, server, case)
