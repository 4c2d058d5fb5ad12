"""Error texts of allocations and of POST /reshaper (the world and
the check: error_texts_support.py)."""
from support import error_texts_support as support
from support.error_texts_support import (C1, NOPE, NOPE_RP, RP, SVC, alloc,
                                         new_alloc, new_consumer)

CASES, c = support.cases()

# allocations
c('alloc-put-bad-uuid', 'PUT', '/allocations/abc', alloc({'VCPU': 2}))
c('alloc-put-unknown-rp', 'PUT', new_alloc(), alloc({'VCPU': 2}, rp=NOPE))
c('alloc-put-unknown-class', 'PUT',
  '/allocations/c0ffee00-0000-4000-8000-000000000002',
  alloc({'CUSTOM_NOPE': 2}))
c('alloc-put-no-inventory', 'PUT', new_alloc(), alloc({'DISK_GB': 2}))
c('alloc-put-over-capacity', 'PUT', new_alloc(), alloc({'MEMORY_MB': 2048}))
c('alloc-put-over-max-unit', 'PUT', new_alloc(), alloc({'VCPU': 6}))
c('alloc-put-below-min-unit', 'PUT', new_alloc(), alloc({'VCPU': 1}))
c('alloc-put-step', 'PUT', new_alloc(), alloc({'VCPU': 3}))
c('alloc-put-new-with-gen', 'PUT', new_alloc(), alloc({'VCPU': 2}, gen=3))
c('alloc-put-gen-conflict', 'PUT', '/allocations/' + C1,
  alloc({'VCPU': 2}, gen=7))
c('alloc-put-gen-null-existing', 'PUT', '/allocations/' + C1,
  alloc({'VCPU': 2}, gen=None))
c('alloc-put-no-gen-1.28', 'PUT', new_alloc(),
  {'allocations': {RP: {'resources': {'VCPU': 2}}}, 'project_id': 'p', 'user_id': 'u'}, '1.28')
c('alloc-put-no-consumer-type', 'PUT', new_alloc(),
  {'allocations': {RP: {'resources': {'VCPU': 2}}}, 'project_id': 'p', 'user_id': 'u', 'consumer_generation': None}, '1.38')
c('alloc-put-empty-1.11', 'PUT', new_alloc(),
  {'allocations': {}, 'project_id': 'p', 'user_id': 'u'}, '1.11')
c('alloc-put-list-1.12', 'PUT', new_alloc(),
  {'allocations': [{'resource_provider': {'uuid': RP}, 'resources': {'VCPU': 2}}], 'project_id': 'p', 'user_id': 'u'}, '1.12')
c('alloc-put-list-unknown-rp-1.0', 'PUT', new_alloc(),
  {'allocations': [{'resource_provider': {'uuid': NOPE}, 'resources': {'VCPU': 2}}]}, '1.0')
c('alloc-put-zero', 'PUT', new_alloc(), alloc({'VCPU': 0}))
c('alloc-put-mappings-1.33', 'PUT', new_alloc(),
  alloc({'VCPU': 2}, mappings={'a': [RP]}), '1.33')
c('alloc-put-mappings-bad', 'PUT', new_alloc(),
  alloc({'VCPU': 2}, mappings={'a': ['abc']}), '1.38')
c('alloc-put-mappings-empty', 'PUT', new_alloc(),
  alloc({'VCPU': 2}, mappings={}), '1.38')
c('alloc-delete-unknown', 'DELETE',
  '/allocations/c0ffee00-0000-4000-8000-000000000018')
c('alloc-delete-bad-uuid', 'DELETE', '/allocations/abc')
c('rp-allocs-unknown', 'GET', NOPE_RP + '/allocations')
c('alloc-post-unknown-rp', 'POST', '/allocations',
  {new_consumer(): alloc({'VCPU': 2}, rp=NOPE)})
c('alloc-post-gen-conflict', 'POST', '/allocations',
  {C1: alloc({'VCPU': 2}, gen=7)})
c('alloc-post-over', 'POST', '/allocations',
  {new_consumer(): alloc({'MEMORY_MB': 4096})})
c('alloc-post-1.12', 'POST', '/allocations',
  {new_consumer(): alloc({'VCPU': 2})}, '1.12')
c('alloc-post-unknown-class', 'POST', '/allocations',
  {new_consumer(): alloc({'CUSTOM_NOPE': 2})})
c('alloc-post-no-inventory', 'POST', '/allocations',
  {new_consumer(): alloc({'DISK_GB': 2})})
# reshaper
c('reshape-1.29', 'POST', '/reshaper',
  {'inventories': {}, 'allocations': {}}, '1.29', SVC)
c('reshape-unknown-rp', 'POST', '/reshaper',
  {'inventories': {NOPE: {'resource_provider_generation': 0, 'inventories': {}}}, 'allocations': {}}, headers=SVC)
c('reshape-generation', 'POST', '/reshaper',
  {'inventories': {RP: {'resource_provider_generation': 99, 'inventories': {}}}, 'allocations': {}}, headers=SVC)
c('reshape-in-use', 'POST', '/reshaper',
  {'inventories': {RP: {'resource_provider_generation': 4, 'inventories': {'MEMORY_MB': {'total': 8}}}}, 'allocations': {}}, headers=SVC)
c('reshape-unknown-class', 'POST', '/reshaper',
  {'inventories': {RP: {'resource_provider_generation': 4, 'inventories': {'CUSTOM_NOPE': {'total': 8}}}}, 'allocations': {}}, headers=SVC)
c('reshape-reserved', 'POST', '/reshaper',
  {'inventories': {RP: {'resource_provider_generation': 4, 'inventories': {'VCPU': {'total': 8, 'reserved': 9}}}}, 'allocations': {}}, headers=SVC)
c('reshape-alloc-unknown-rp', 'POST', '/reshaper',
  {'inventories': {}, 'allocations': {new_consumer(): alloc({'VCPU': 2}, rp=NOPE)}}, headers=SVC)
c('reshape-alloc-over', 'POST', '/reshaper',
  {'inventories': {}, 'allocations': {new_consumer(): alloc({'MEMORY_MB': 4096})}}, headers=SVC)
c('reshape-alloc-gen', 'POST', '/reshaper',
  {'inventories': {}, 'allocations': {C1: alloc({'VCPU': 2}, gen=9)}}, headers=SVC)
c('reshape-not-service', 'POST', '/reshaper',
  {'inventories': {}, 'allocations': {}},
  headers={'x-auth-token': 'user1', 'x-roles': 'member'})
# Found by running tools/differential.py against upstream.
c('alloc-put-new-fields-1.8', 'PUT', new_alloc(), alloc({'VCPU': 2}), '1.8')
c('alloc-put-list-1.28', 'PUT', new_alloc(), {'allocations': []}, '1.28')
c('alloc-put-no-project-extra-1.28', 'PUT', new_alloc(),
  {'allocations': {RP: {'resources': {'VCPU': 2}}}, 'consumer_generation':
   None, 'consumer_type': 'INSTANCE'}, '1.28')
c('alloc-put-bad-rp-key', 'PUT', new_alloc(), alloc({'VCPU': 2}, rp='abc'))
c('alloc-post-bad-key', 'POST', '/allocations', {'abc': alloc({'VCPU': 2})})
DASHLESS = 'c0ffee0000004000800000000000ec99'
c('alloc-post-dashless-key', 'POST', '/allocations',
  {DASHLESS: alloc({'VCPU': 2})})
c('reshape-no-allocations', 'POST', '/reshaper', {'inventories': {}},
  headers=SVC)


KEY_PATTERN = "does not match any of the regexes: '^[0-9a-fA-F-]{36}$'"

# name: (status, code (None before 1.23), detail text).
EXPECTED = {
    'alloc-put-new-fields-1.8': (400, None,
        'JSON does not validate: Additional properties are not allowed'
        " ('consumer_generation', 'consumer_type' were unexpected)  Failed"
        ' validating'),
    'alloc-put-list-1.28': (400, 'placement.undefined_code',
        "JSON does not validate: 'project_id' is a required property  Failed"
        ' validating'),
    'alloc-put-no-project-extra-1.28': (400, 'placement.undefined_code',
        'JSON does not validate: Additional properties are not allowed'
        " ('consumer_type' was unexpected)  Failed validating"),
    'alloc-put-bad-rp-key': (400, 'placement.undefined_code',
        "JSON does not validate: 'abc' %s  Failed validating" % KEY_PATTERN),
    'alloc-post-bad-key': (400, 'placement.undefined_code',
        "JSON does not validate: 'abc' %s  Failed validating" % KEY_PATTERN),
    'alloc-post-dashless-key': (400, 'placement.undefined_code',
        "JSON does not validate: '%s' %s  Failed validating"
        % (DASHLESS, KEY_PATTERN)),
    'reshape-no-allocations': (400, 'placement.undefined_code',
        "JSON does not validate: 'allocations' is a required property"
        '  Failed validating'),
    'alloc-put-bad-uuid': (400, 'placement.undefined_code',
        'Malformed consumer_uuid: abc'),
    'alloc-put-unknown-rp': (400, 'placement.undefined_code',
        'Allocation for resource provider'
        " 'c0ffee00-0000-4000-8000-00000000efff' that does not exist."),
    'alloc-put-unknown-class': (400, 'placement.undefined_code',
        'Unable to allocate inventory for consumer'
        ' c0ffee00-0000-4000-8000-000000000002: No such resource class'
        ' CUSTOM_NOPE.'),
    'alloc-put-no-inventory': (409, 'placement.undefined_code',
        "Unable to allocate inventory: Inventory for 'DISK_GB' on"
        " resource provider 'c0ffee00-0000-4000-8000-00000000e001'"
        ' invalid.'),
    'alloc-put-over-capacity': (409, 'placement.undefined_code',
        'Unable to allocate inventory: Unable to create allocation for'
        " 'MEMORY_MB' on resource provider"
        " 'c0ffee00-0000-4000-8000-00000000e001'. The requested amount"
        ' would exceed the capacity.'),
    'alloc-put-over-max-unit': (409, 'placement.undefined_code',
        'Unable to allocate inventory: Unable to create allocation for'
        " 'VCPU' on resource provider"
        " 'c0ffee00-0000-4000-8000-00000000e001'. The requested amount"
        ' would violate inventory constraints.'),
    'alloc-put-below-min-unit': (409, 'placement.undefined_code',
        'Unable to allocate inventory: Unable to create allocation for'
        " 'VCPU' on resource provider"
        " 'c0ffee00-0000-4000-8000-00000000e001'. The requested amount"
        ' would violate inventory constraints.'),
    'alloc-put-step': (409, 'placement.undefined_code',
        'Unable to allocate inventory: Unable to create allocation for'
        " 'VCPU' on resource provider"
        " 'c0ffee00-0000-4000-8000-00000000e001'. The requested amount"
        ' would violate inventory constraints.'),
    'alloc-put-new-with-gen': (409, 'placement.concurrent_update',
        'consumer generation conflict - expected null but got 3'),
    'alloc-put-gen-conflict': (409, 'placement.concurrent_update',
        'consumer generation conflict - expected 1 but got 7'),
    'alloc-put-gen-null-existing': (409, 'placement.concurrent_update',
        'consumer generation conflict - expected 1 but got None'),
    'alloc-put-no-gen-1.28': (400, 'placement.undefined_code',
        "JSON does not validate: 'consumer_generation' is a required"
        ' property  Failed validating'),
    'alloc-put-no-consumer-type': (400, 'placement.undefined_code',
        "JSON does not validate: 'consumer_type' is a required property "
        ' Failed validating'),
    'alloc-put-empty-1.11': (400, None,
        "JSON does not validate: {} is not of type 'array'  Failed"
        ' validating'),
    'alloc-put-list-1.12': (400, None,
        "JSON does not validate: [{'resource_provider': {'uuid':"
        " 'c0ffee00-0000-4000-8000-00000000e001'}, 'resources': {'VCPU':"
        " 2}}] is not of type 'object'  Failed validating"),
    'alloc-put-list-unknown-rp-1.0': (400, None,
        'Allocation for resource provider'
        " 'c0ffee00-0000-4000-8000-00000000efff' that does not exist."),
    'alloc-put-zero': (400, 'placement.undefined_code',
        'JSON does not validate: 0 is less than the minimum of 1  Failed'
        ' validating'),
    'alloc-put-mappings-1.33': (400, 'placement.undefined_code',
        'JSON does not validate: Additional properties are not allowed'
        " ('consumer_type', 'mappings' were unexpected)  Failed"
        ' validating'),
    'alloc-put-mappings-bad': (400, 'placement.undefined_code',
        "JSON does not validate: 'abc' is not a 'uuid'  Failed validating"),
    'alloc-put-mappings-empty': (400, 'placement.undefined_code',
        'JSON does not validate: {} should be non-empty  Failed'
        ' validating'),
    'alloc-delete-unknown': (404, 'placement.undefined_code',
        'No allocations for consumer'
        " 'c0ffee00-0000-4000-8000-000000000018'"),
    'alloc-delete-bad-uuid': (404, 'placement.undefined_code',
        "No allocations for consumer 'abc'"),
    'rp-allocs-unknown': (404, 'placement.undefined_code',
        "Resource provider 'c0ffee00-0000-4000-8000-00000000efff' not"
        ' found: No resource provider with uuid'
        ' c0ffee00-0000-4000-8000-00000000efff found'),
    'alloc-post-unknown-rp': (400, 'placement.undefined_code',
        'Allocation for resource provider'
        " 'c0ffee00-0000-4000-8000-00000000efff' that does not exist."),
    'alloc-post-gen-conflict': (409, 'placement.concurrent_update',
        'consumer generation conflict - expected 1 but got 7'),
    'alloc-post-over': (409, 'placement.undefined_code',
        'Unable to allocate inventory: Unable to create allocation for'
        " 'MEMORY_MB' on resource provider"
        " 'c0ffee00-0000-4000-8000-00000000e001'. The requested amount"
        ' would exceed the capacity.'),
    'alloc-post-1.12': (404, None,
        ''),
    'alloc-post-unknown-class': (400, 'placement.undefined_code',
        'Unable to allocate inventory No such resource class CUSTOM_NOPE.'),
    'alloc-post-no-inventory': (409, 'placement.undefined_code',
        "Unable to allocate inventory: Inventory for 'DISK_GB' on"
        " resource provider 'c0ffee00-0000-4000-8000-00000000e001'"
        ' invalid.'),
    'reshape-1.29': (404, 'placement.undefined_code',
        ''),
    'reshape-unknown-rp': (400, 'placement.resource_provider.not_found',
        'Resource provider c0ffee00-0000-4000-8000-00000000efff in'
        ' inventories not found: No resource provider with uuid'
        ' c0ffee00-0000-4000-8000-00000000efff found'),
    'reshape-generation': (409, 'placement.concurrent_update',
        'resource provider generation conflict for provider'
        ' c0ffee00-0000-4000-8000-00000000e001: actual: 4, given: 99'),
    'reshape-in-use': (409, 'placement.inventory.inuse',
        "update conflict: Inventory for 'VCPU, CUSTOM_FOO' on resource"
        " provider 'c0ffee00-0000-4000-8000-00000000e001' in use."),
    'reshape-unknown-class': (400, 'placement.undefined_code',
        'malformed reshaper data: No such resource class CUSTOM_NOPE.'),
    'reshape-reserved': (409, 'placement.inventory.inuse',
        "update conflict: Inventory for 'CUSTOM_FOO' on resource provider"
        " 'c0ffee00-0000-4000-8000-00000000e001' in use."),
    'reshape-alloc-unknown-rp': (400, 'placement.undefined_code',
        'JSON does not validate: {} should be non-empty  Failed'
        ' validating'),
    'reshape-alloc-over': (400, 'placement.undefined_code',
        'JSON does not validate: {} should be non-empty  Failed'
        ' validating'),
    'reshape-alloc-gen': (400, 'placement.undefined_code',
        'JSON does not validate: {} should be non-empty  Failed'
        ' validating'),
    'reshape-not-service': (403, 'placement.undefined_code',
        'Policy does not allow placement:reshaper:reshape to be'
        ' performed.'),
}


# The fixed world, built once for this module.
world = support.world


@support.parametrize(CASES, EXPECTED)
def test_error_text(world, name, method, path, body, version, headers):
    support.check(world, name, EXPECTED[name], method, path, body, version,
                  headers)
