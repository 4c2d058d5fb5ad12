"""Error texts of listing, showing, creating, updating and deleting
resource providers (the world and the check: error_texts_support.py)."""
from support import error_texts_support as support
from support.error_texts_support import (AGG, AGG_UUIDS, CHU, GC, NOPE,
                                         NOPE_404, NOPE_RP, RP, RP2, RP2U, RPU)

CASES, c = support.cases()

# provider listing
P = '/resource_providers?'
c('rps-unknown-param', 'GET', P + 'foo=bar')
c('rps-bad-uuid', 'GET', P + 'uuid=abc')
c('rps-resources-1.3', 'GET', P + 'resources=VCPU:1', version='1.3')
c('rps-resources-zero', 'GET', P + 'resources=VCPU:0')
c('rps-resources-neg', 'GET', P + 'resources=VCPU:-1')
c('rps-resources-nan', 'GET', P + 'resources=VCPU:abc')
c('rps-resources-noamount', 'GET', P + 'resources=VCPU')
c('rps-resources-empty', 'GET', P + 'resources=')
c('rps-resources-twocolons', 'GET', P + 'resources=VCPU:1:2')
c('rps-resources-unknown-class', 'GET', P + 'resources=CUSTOM_NOPE:1')
c('rps-required-unknown', 'GET', P + 'required=CUSTOM_NOPE')
c('rps-required-empty', 'GET', P + 'required=')
c('rps-required-forbidden-1.21', 'GET', P + 'required=!CUSTOM_T',
  version='1.21')
c('rps-required-bang-only', 'GET', P + 'required=!')
c('rps-required-in-1.38', 'GET', P + 'required=in:CUSTOM_T,HW_CPU_X86_AVX',
  version='1.38')
c('rps-required-in-forbidden', 'GET', P + 'required=in:CUSTOM_T,!HW_CPU_X86_AVX')
c('rps-required-1.17', 'GET', P + 'required=CUSTOM_T', version='1.17')
c('rps-member-of-bad', 'GET', P + 'member_of=abc')
c('rps-member-of-in-bad', 'GET', P + 'member_of=in:abc')
c('rps-member-of-comma', 'GET', P + 'member_of=%s,%s' % (AGG, NOPE))
c('rps-member-of-forbidden-1.31', 'GET', P + 'member_of=!' + AGG,
  version='1.31')
c('rps-member-of-multi-1.23', 'GET', P + 'member_of=%s&member_of=%s' % (AGG,
  NOPE), version='1.23')
c('rps-member-of-forbidden-in-bad', 'GET', P + 'member_of=!in:abc')
c('rps-member-of-empty', 'GET', P + 'member_of=')
c('rps-member-of-in-empty', 'GET', P + 'member_of=in:')
c('rps-member-of-1.2', 'GET', P + 'member_of=' + AGG, version='1.2')
c('rps-in-tree-bad', 'GET', P + 'in_tree=abc')
c('rps-in-tree-1.13', 'GET', P + 'in_tree=' + RP, version='1.13')
# provider create/update/delete
c('rp-create-no-name', 'POST', '/resource_providers', {})
c('rp-create-dup-name', 'POST', '/resource_providers', {'name': 'rp1'})
c('rp-create-dup-uuid', 'POST', '/resource_providers',
  {'name': 'x', 'uuid': RP})
c('rp-create-bad-uuid', 'POST', '/resource_providers',
  {'name': 'x', 'uuid': 'abc'})
c('rp-create-parent-unknown', 'POST', '/resource_providers',
  {'name': 'x', 'uuid': 'c0ffee00-0000-4000-8000-00000000e005', 'parent_provider_uuid': NOPE})
c('rp-create-parent-1.13', 'POST', '/resource_providers',
  {'name': 'x', 'parent_provider_uuid': RP}, '1.13')
c('rp-create-parent-self', 'POST', '/resource_providers',
  {'name': 'x', 'uuid': NOPE, 'parent_provider_uuid': NOPE})
c('rp-create-name-long', 'POST', '/resource_providers', {'name': 'x' * 201})
c('rp-show-unknown', 'GET', NOPE_RP)
c('rp-show-bad-uuid', 'GET', '/resource_providers/abc')
c('rp-update-dup-name', 'PUT', RP2U, {'name': 'rp1'})
c('rp-update-unknown', 'PUT', NOPE_RP, {'name': 'rpx'})
c('rp-update-no-name', 'PUT', RP2U, {})
c('rp-update-parent-self', 'PUT', RP2U,
  {'name': 'rp2', 'parent_provider_uuid': RP2})
c('rp-update-parent-loop', 'PUT', RPU,
  {'name': 'rp1', 'parent_provider_uuid': GC})
c('rp-update-parent-unknown', 'PUT', RP2U,
  {'name': 'rp2', 'parent_provider_uuid': NOPE})
c('rp-update-reparent-1.36', 'PUT', CHU,
  {'name': 'child', 'parent_provider_uuid': RP2}, '1.36')
c('rp-update-unparent-1.36', 'PUT', CHU,
  {'name': 'child', 'parent_provider_uuid': None}, '1.36')
c('rp-delete-in-use', 'DELETE', RPU)
c('rp-delete-parent', 'DELETE', CHU)
c('rp-delete-unknown', 'DELETE', NOPE_RP)
# Found by running tools/differential.py against upstream.
c('rp-update-unknown-bad-body', 'PUT', NOPE_RP, {})
c('rps-member-of-bang-1.30', 'GET', P + 'member_of=!', version='1.30')
c('rps-uuid-dashless', 'GET', P + 'uuid=' + RP.replace('-', ''))


# name: (status, code (None before 1.23), detail text).
EXPECTED = {
    'rp-update-unknown-bad-body': (404, 'placement.undefined_code',
        NOPE_404),
    'rps-member-of-bang-1.30': (400, 'placement.undefined_code', AGG_UUIDS),
    'rps-uuid-dashless': (400, 'placement.undefined_code',
        "Invalid query string parameters: '%s' is not a 'uuid'  Failed"
        ' validating' % RP.replace('-', '')),
    'rps-unknown-param': (400, 'placement.undefined_code',
        'Invalid query string parameters: Additional properties are not'
        " allowed ('foo' was unexpected)  Failed validating"),
    'rps-bad-uuid': (400, 'placement.undefined_code',
        "Invalid query string parameters: 'abc' is not a 'uuid'  Failed"
        ' validating'),
    'rps-resources-1.3': (400, None,
        'Invalid query string parameters: Additional properties are not'
        " allowed ('resources' was unexpected)  Failed validating"),
    'rps-resources-zero': (400, 'placement.undefined_code',
        'Requested resource VCPU requires amount >= 1. Got: 0.'),
    'rps-resources-neg': (400, 'placement.undefined_code',
        'Requested resource VCPU requires amount >= 1. Got: -1.'),
    'rps-resources-nan': (400, 'placement.undefined_code',
        'Requested resource VCPU expected positive integer amount. Got:'
        ' abc.'),
    'rps-resources-noamount': (400, 'placement.undefined_code',
        'Badly formed resources parameter. Expected resources query'
        ' string parameter in form: ?resources=VCPU:2,MEMORY_MB:1024.'
        ' Got: VCPU.'),
    'rps-resources-empty': (400, 'placement.undefined_code',
        'Badly formed resources parameter. Expected resources query'
        ' string parameter in form: ?resources=VCPU:2,MEMORY_MB:1024.'
        ' Got: empty string.'),
    'rps-resources-twocolons': (400, 'placement.undefined_code',
        'Badly formed resources parameter. Expected resources query'
        ' string parameter in form: ?resources=VCPU:2,MEMORY_MB:1024.'
        ' Got: VCPU:1:2.'),
    'rps-resources-unknown-class': (400, 'placement.undefined_code',
        'Invalid resource class in resources parameter: No such resource'
        ' class CUSTOM_NOPE.'),
    'rps-required-unknown': (400, 'placement.undefined_code',
        'Invalid trait(s) in "required" parameter: No such trait(s):'
        ' CUSTOM_NOPE.'),
    'rps-required-empty': (400, 'placement.undefined_code',
        "Invalid query string parameters: Expected 'required' parameter"
        ' value of the form: HW_CPU_X86_VMX,!CUSTOM_MAGIC. Got an empty'
        ' trait in:'),
    'rps-required-forbidden-1.21': (400, None,
        "Invalid query string parameters: Expected 'required' parameter"
        ' value of the form: HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: !CUSTOM_T'),
    'rps-required-bang-only': (400, 'placement.undefined_code',
        "Invalid query string parameters: Expected 'required' parameter"
        ' value of the form: HW_CPU_X86_VMX,!CUSTOM_MAGIC. Got an empty'
        ' trait in: !'),
    'rps-required-in-1.38': (400, 'placement.undefined_code',
        'Invalid query string parameters: The format'
        " 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only supported since"
        ' microversion 1.39. Got: in:CUSTOM_T,HW_CPU_X86_AVX'),
    'rps-required-in-forbidden': (400, 'placement.undefined_code',
        'Invalid query string parameters: The format'
        " 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' does not support forbidden"
        ' traits. Got: in:CUSTOM_T,!HW_CPU_X86_AVX'),
    'rps-required-1.17': (400, None,
        'Invalid query string parameters: Additional properties are not'
        " allowed ('required' was unexpected)  Failed validating"),
    'rps-member-of-bad': (400, 'placement.undefined_code',
        "Invalid query string parameters: Expected 'member_of' parameter"
        ' to contain valid UUID(s). Got: abc'),
    'rps-member-of-in-bad': (400, 'placement.undefined_code',
        "Invalid query string parameters: Expected 'member_of' parameter"
        ' to contain valid UUID(s). Got: abc'),
    'rps-member-of-comma': (400, 'placement.undefined_code',
        "Multiple values for 'member_of' must be prefixed with the 'in:'"
        " or '!in:' keyword using the valid microversion. Got:"
        ' c0ffee00-0000-4000-8000-00000000ea01,c0ffee00-0000-4000-8000-00000000efff'),
    'rps-member-of-forbidden-1.31': (400, 'placement.undefined_code',
        'Forbidden member_of parameters are not supported in the'
        ' specified microversion'),
    'rps-member-of-multi-1.23': (400, 'placement.undefined_code',
        'Multiple member_of parameters are not supported'),
    'rps-member-of-forbidden-in-bad': (400, 'placement.undefined_code',
        "Invalid query string parameters: Expected 'member_of' parameter"
        ' to contain valid UUID(s). Got: abc'),
    'rps-member-of-empty': (400, 'placement.undefined_code',
        "Invalid query string parameters: Expected 'member_of' parameter"
        ' to contain valid UUID(s). Got:'),
    'rps-member-of-in-empty': (400, 'placement.undefined_code',
        "Invalid query string parameters: Expected 'member_of' parameter"
        ' to contain valid UUID(s). Got:'),
    'rps-member-of-1.2': (400, None,
        'Invalid query string parameters: Additional properties are not'
        " allowed ('member_of' was unexpected)  Failed validating"),
    'rps-in-tree-bad': (400, 'placement.undefined_code',
        "Invalid query string parameters: 'abc' is not a 'uuid'  Failed"
        ' validating'),
    'rps-in-tree-1.13': (400, None,
        'Invalid query string parameters: Additional properties are not'
        " allowed ('in_tree' was unexpected)  Failed validating"),
    'rp-create-no-name': (400, 'placement.undefined_code',
        "JSON does not validate: 'name' is a required property  Failed"
        ' validating'),
    'rp-create-dup-name': (409, 'placement.duplicate_name',
        'Conflicting resource provider name: rp1 already exists.'),
    'rp-create-dup-uuid': (409, 'placement.duplicate_name',
        'Conflicting resource provider uuid:'
        ' c0ffee00-0000-4000-8000-00000000e001 already exists.'),
    'rp-create-bad-uuid': (400, 'placement.undefined_code',
        "JSON does not validate: 'abc' is not a 'uuid'  Failed validating"),
    'rp-create-parent-unknown': (400, 'placement.undefined_code',
        'Unable to create resource provider "x",'
        ' c0ffee00-0000-4000-8000-00000000e005: Object action create'
        ' failed because: parent provider UUID does not exist.'),
    'rp-create-parent-1.13': (400, None,
        'JSON does not validate: Additional properties are not allowed'
        " ('parent_provider_uuid' was unexpected)  Failed validating"),
    'rp-create-parent-self': (400, 'placement.undefined_code',
        'Unable to create resource provider "x",'
        ' c0ffee00-0000-4000-8000-00000000efff: Object action create'
        ' failed because: parent provider UUID cannot be same as UUID.'
        ' Please set parent provider UUID to None if there is no parent.'),
    'rp-create-name-long': (400, 'placement.undefined_code',
        'JSON does not validate:'
        " 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'"
        ' is too long  Failed validating'),
    'rp-show-unknown': (404, 'placement.undefined_code',
        'No resource provider with uuid'
        ' c0ffee00-0000-4000-8000-00000000efff found'),
    'rp-show-bad-uuid': (404, 'placement.undefined_code',
        'No resource provider with uuid abc found'),
    'rp-update-dup-name': (409, 'placement.duplicate_name',
        'Conflicting resource provider rp1 already exists.'),
    'rp-update-unknown': (404, 'placement.undefined_code',
        'No resource provider with uuid'
        ' c0ffee00-0000-4000-8000-00000000efff found'),
    'rp-update-no-name': (400, 'placement.undefined_code',
        "JSON does not validate: 'name' is a required property  Failed"
        ' validating'),
    'rp-update-parent-self': (400, 'placement.undefined_code',
        'Unable to save resource provider'
        ' c0ffee00-0000-4000-8000-00000000e002: Object action update'
        ' failed because: creating loop in the provider tree is not'
        ' allowed.'),
    'rp-update-parent-loop': (400, 'placement.undefined_code',
        'Unable to save resource provider'
        ' c0ffee00-0000-4000-8000-00000000e001: Object action update'
        ' failed because: creating loop in the provider tree is not'
        ' allowed.'),
    'rp-update-parent-unknown': (400, 'placement.undefined_code',
        'Unable to save resource provider'
        ' c0ffee00-0000-4000-8000-00000000e002: Object action create'
        ' failed because: parent provider UUID does not exist.'),
    'rp-update-reparent-1.36': (400, 'placement.undefined_code',
        'Unable to save resource provider'
        ' c0ffee00-0000-4000-8000-00000000e003: Object action update'
        ' failed because: re-parenting a provider is not currently'
        ' allowed.'),
    'rp-update-unparent-1.36': (400, 'placement.undefined_code',
        'Unable to save resource provider'
        ' c0ffee00-0000-4000-8000-00000000e003: Object action update'
        ' failed because: un-parenting a provider is not currently'
        ' allowed.'),
    'rp-delete-in-use': (409, 'placement.resource_provider.cannot_delete_parent',
        'Unable to delete parent resource provider'
        ' c0ffee00-0000-4000-8000-00000000e001: It has child resource'
        ' providers.'),
    'rp-delete-parent': (409, 'placement.resource_provider.cannot_delete_parent',
        'Unable to delete parent resource provider'
        ' c0ffee00-0000-4000-8000-00000000e003: It has child resource'
        ' providers.'),
    'rp-delete-unknown': (404, 'placement.undefined_code',
        'No resource provider with uuid'
        ' c0ffee00-0000-4000-8000-00000000efff found for delete'),
}


# The fixed world, built once for this module.
world = support.world


@support.parametrize(CASES, EXPECTED)
def test_error_text(world, name, method, path, body, version, headers):
    support.check(world, name, EXPECTED[name], method, path, body, version,
                  headers)


# Behaviour the differential run found different, besides error texts.

def test_empty_name_filters_nothing(world):
    response = world.get('/resource_providers?name=')
    assert response.status_code == 200
    assert len(response.json()['resource_providers']) == 4
