"""Error texts of provider inventories and of usages (the world and
the check: error_texts_support.py)."""
from support import error_texts_support as support
from support.error_texts_support import (HUGE, INV, INV2, NOPE, NOPE_404,
                                         NOPE_RP, RP2)

CASES, c = support.cases()

# inventories
c('inv-list-unknown-rp', 'GET', NOPE_RP + '/inventories')
c('inv-show-unknown-rp', 'GET', '/resource_providers/%s/inventories/VCPU' % NOPE)
c('inv-show-absent', 'GET', INV + '/DISK_GB')
c('inv-show-unknown-class', 'GET', INV + '/CUSTOM_NOPE')
c('inv-create-unknown-class', 'POST', INV2,
  {'resource_class': 'CUSTOM_NOPE', 'total': 8})
c('inv-create-reserved', 'POST', INV2,
  {'resource_class': 'DISK_GB', 'total': 8, 'reserved': 9})
c('inv-create-reserved-eq-1.25', 'POST', INV2,
  {'resource_class': 'DISK_GB', 'total': 8, 'reserved': 8}, '1.25')
c('inv-create-unknown-rp', 'POST', NOPE_RP + '/inventories',
  {'resource_class': 'DISK_GB', 'total': 8})
c('inv-create-total-zero', 'POST', INV2,
  {'resource_class': 'DISK_GB', 'total': 0})
c('inv-update-reserved', 'PUT', INV + '/VCPU',
  {'resource_provider_generation': 4, 'total': 8, 'reserved': 9})
c('inv-update-generation', 'PUT', INV + '/VCPU',
  {'resource_provider_generation': 99, 'total': 8})
c('inv-update-absent', 'PUT', INV + '/DISK_GB',
  {'resource_provider_generation': 4, 'total': 8})
c('inv-update-unknown-class', 'PUT', INV + '/CUSTOM_NOPE',
  {'resource_provider_generation': 4, 'total': 8})
c('inv-update-unknown-rp', 'PUT', '/resource_providers/%s/inventories/VCPU' % NOPE, {'resource_provider_generation': 4, 'total': 8})
c('inv-replace-reserved', 'PUT', INV,
  {'resource_provider_generation': 4, 'inventories': {'VCPU': {'total': 8, 'reserved': 9}}})
c('inv-replace-unknown-class', 'PUT', INV,
  {'resource_provider_generation': 4, 'inventories': {'CUSTOM_NOPE': {'total': 8}}})
c('inv-replace-in-use', 'PUT', INV,
  {'resource_provider_generation': 4, 'inventories': {'MEMORY_MB': {'total': 8}}})
c('inv-replace-generation', 'PUT', INV,
  {'resource_provider_generation': 99, 'inventories': {}})
c('inv-replace-unknown-rp', 'PUT', NOPE_RP + '/inventories',
  {'resource_provider_generation': 4, 'inventories': {}})
c('inv-delete-in-use', 'DELETE', INV + '/VCPU')
c('inv-delete-absent', 'DELETE', INV + '/DISK_GB')
c('inv-delete-unknown-class', 'DELETE', INV + '/CUSTOM_NOPE')
c('inv-delete-all-in-use', 'DELETE', INV)
c('inv-delete-all-1.4', 'DELETE', INV, version='1.4')
c('inv-delete-all-unknown-rp', 'DELETE', NOPE_RP + '/inventories')
c('inv-delete-unknown-rp', 'DELETE', '/resource_providers/%s/inventories/VCPU' % NOPE)
# usages
c('rp-usages-unknown', 'GET', NOPE_RP + '/usages')
c('usages-no-project', 'GET', '/usages')
c('usages-1.8', 'GET', '/usages?project_id=p', version='1.8')
c('usages-bad-consumer-type', 'GET', '/usages?project_id=p&consumer_type=bad!',
  version='1.38')
c('usages-consumer-type-1.37', 'GET', '/usages?project_id=p&consumer_type=INSTANCE', version='1.37')
c('usages-extra', 'GET', '/usages?project_id=p&foo=1')
# An integer beyond 64 bits in a body is read exactly.
c('inv-create-huge', 'POST', INV2, {'resource_class': 'DISK_GB',
                                    'total': HUGE})
# Found by running tools/differential.py against upstream.
c('inv-create-unknown-rp-bad-body', 'POST', NOPE_RP + '/inventories', {})
c('inv-replace-unknown-rp-bad-body', 'PUT', NOPE_RP + '/inventories',
  b'{"a": ')
c('inv-update-unknown-rp-bad-body', 'PUT',
  '/resource_providers/%s/inventories/VCPU' % NOPE, {})
c('inv-create-ratio-zero-1.25', 'POST', INV2, {
    'resource_class': 'DISK_GB', 'total': 8, 'allocation_ratio': 0}, '1.25')
c('inv-create-ratio-negative', 'POST', INV2, {
    'resource_class': 'DISK_GB', 'total': 8, 'allocation_ratio': -1})
c('inv-replace-lowercase-class-stale', 'PUT', INV2, {
    'resource_provider_generation': 9, 'inventories': {'vcpu': {'total': 8}}})
c('inv-replace-lowercase-class', 'PUT', INV2, {
    'resource_provider_generation': 0, 'inventories': {'vcpu': {'total': 8}}})


RATIO = ("Unable to create inventory for resource provider %s: Invalid"
         " inventory for 'DISK_GB' on resource provider '%s'. The reserved"
         ' value is greater than ' % (RP2, RP2))

# name: (status, code (None before 1.23), detail text).
EXPECTED = {
    'inv-create-unknown-rp-bad-body': (404, 'placement.undefined_code',
        NOPE_404),
    'inv-replace-unknown-rp-bad-body': (404, 'placement.undefined_code',
        NOPE_404),
    'inv-update-unknown-rp-bad-body': (404, 'placement.undefined_code',
        NOPE_404),
    'inv-create-ratio-zero-1.25': (400, 'placement.undefined_code',
        RATIO + 'or equal to total.'),
    'inv-create-ratio-negative': (400, 'placement.undefined_code',
        RATIO + 'total.'),
    'inv-replace-lowercase-class-stale': (409, 'placement.concurrent_update',
        'resource provider generation conflict'),
    'inv-replace-lowercase-class': (400, 'placement.undefined_code',
        'Unknown resource class in inventory for resource provider %s: No'
        ' such resource class vcpu.' % RP2),
    'inv-create-huge': (400, 'placement.undefined_code',
        'JSON does not validate: 1000000000000000000000000000000 is'
        ' greater than the maximum of 2147483647  Failed validating'),
    'inv-list-unknown-rp': (404, 'placement.undefined_code',
        'No resource provider with uuid'
        ' c0ffee00-0000-4000-8000-00000000efff found : No resource'
        ' provider with uuid c0ffee00-0000-4000-8000-00000000efff found'),
    'inv-show-unknown-rp': (404, 'placement.undefined_code',
        'No resource provider with uuid'
        ' c0ffee00-0000-4000-8000-00000000efff found : No resource'
        ' provider with uuid c0ffee00-0000-4000-8000-00000000efff found'),
    'inv-show-absent': (404, 'placement.undefined_code',
        'No inventory of class DISK_GB for'
        ' c0ffee00-0000-4000-8000-00000000e001'),
    'inv-show-unknown-class': (404, 'placement.undefined_code',
        'No inventory of class CUSTOM_NOPE for'
        ' c0ffee00-0000-4000-8000-00000000e001'),
    'inv-create-unknown-class': (400, 'placement.undefined_code',
        'Unable to create inventory for resource provider'
        ' c0ffee00-0000-4000-8000-00000000e002: No such resource class'
        ' CUSTOM_NOPE.'),
    'inv-create-reserved': (400, 'placement.undefined_code',
        'Unable to create inventory for resource provider'
        ' c0ffee00-0000-4000-8000-00000000e002: Invalid inventory for'
        " 'DISK_GB' on resource provider"
        " 'c0ffee00-0000-4000-8000-00000000e002'. The reserved value is"
        ' greater than total.'),
    'inv-create-reserved-eq-1.25': (400, 'placement.undefined_code',
        'Unable to create inventory for resource provider'
        ' c0ffee00-0000-4000-8000-00000000e002: Invalid inventory for'
        " 'DISK_GB' on resource provider"
        " 'c0ffee00-0000-4000-8000-00000000e002'. The reserved value is"
        ' greater than or equal to total.'),
    'inv-create-unknown-rp': (404, 'placement.undefined_code',
        'No resource provider with uuid'
        ' c0ffee00-0000-4000-8000-00000000efff found'),
    'inv-create-total-zero': (400, 'placement.undefined_code',
        'JSON does not validate: 0 is less than the minimum of 1  Failed'
        ' validating'),
    'inv-update-reserved': (400, 'placement.undefined_code',
        'Unable to update inventory for resource provider'
        ' c0ffee00-0000-4000-8000-00000000e001: Invalid inventory for'
        " 'VCPU' on resource provider"
        " 'c0ffee00-0000-4000-8000-00000000e001'. The reserved value is"
        ' greater than total.'),
    'inv-update-generation': (409, 'placement.concurrent_update',
        'resource provider generation conflict'),
    'inv-update-absent': (400, 'placement.undefined_code',
        'No inventory record with resource class for resource provider'
        ' c0ffee00-0000-4000-8000-00000000e001: No inventory of class'
        ' DISK_GB found.'),
    'inv-update-unknown-class': (404, 'placement.undefined_code',
        'No such resource class CUSTOM_NOPE.'),
    'inv-update-unknown-rp': (404, 'placement.undefined_code',
        'No resource provider with uuid'
        ' c0ffee00-0000-4000-8000-00000000efff found'),
    'inv-replace-reserved': (400, 'placement.undefined_code',
        'Unable to update inventory for resource provider'
        ' c0ffee00-0000-4000-8000-00000000e001: Invalid inventory for'
        " 'VCPU' on resource provider"
        " 'c0ffee00-0000-4000-8000-00000000e001'. The reserved value is"
        ' greater than total.'),
    'inv-replace-unknown-class': (400, 'placement.undefined_code',
        'Unknown resource class in inventory for resource provider'
        ' c0ffee00-0000-4000-8000-00000000e001: No such resource class'
        ' CUSTOM_NOPE.'),
    'inv-replace-in-use': (409, 'placement.inventory.inuse',
        "update conflict: Inventory for 'VCPU, CUSTOM_FOO' on resource"
        " provider 'c0ffee00-0000-4000-8000-00000000e001' in use."),
    'inv-replace-generation': (409, 'placement.concurrent_update',
        'resource provider generation conflict'),
    'inv-replace-unknown-rp': (404, 'placement.undefined_code',
        'No resource provider with uuid'
        ' c0ffee00-0000-4000-8000-00000000efff found'),
    'inv-delete-in-use': (409, 'placement.concurrent_update',
        "Unable to delete inventory of class VCPU: Inventory for 'VCPU'"
        " on resource provider 'c0ffee00-0000-4000-8000-00000000e001' in"
        ' use.'),
    'inv-delete-absent': (404, 'placement.undefined_code',
        'No inventory of class DISK_GB found for delete: No inventory of'
        ' class DISK_GB found for delete'),
    'inv-delete-unknown-class': (404, 'placement.undefined_code',
        'No inventory of class CUSTOM_NOPE found for delete: No such'
        ' resource class CUSTOM_NOPE.'),
    'inv-delete-all-in-use': (409, 'placement.inventory.inuse',
        "Inventory for 'VCPU, CUSTOM_FOO' on resource provider"
        " 'c0ffee00-0000-4000-8000-00000000e001' in use."),
    'inv-delete-all-1.4': (405, None,
        ''),
    'inv-delete-all-unknown-rp': (404, 'placement.undefined_code',
        'No resource provider with uuid'
        ' c0ffee00-0000-4000-8000-00000000efff found'),
    'inv-delete-unknown-rp': (404, 'placement.undefined_code',
        'No resource provider with uuid'
        ' c0ffee00-0000-4000-8000-00000000efff found'),
    'rp-usages-unknown': (404, 'placement.undefined_code',
        'No resource provider with uuid'
        ' c0ffee00-0000-4000-8000-00000000efff found: No resource'
        ' provider with uuid c0ffee00-0000-4000-8000-00000000efff found'),
    'usages-no-project': (400, 'placement.undefined_code',
        "Invalid query string parameters: 'project_id' is a required"
        ' property  Failed validating'),
    'usages-1.8': (404, None,
        ''),
    'usages-bad-consumer-type': (400, 'placement.undefined_code',
        "Invalid query string parameters: 'bad!' does not match"
        " '^[A-Z0-9_]+$|^all|^unknown$'  Failed validating"),
    'usages-consumer-type-1.37': (400, 'placement.undefined_code',
        'Invalid query string parameters: Additional properties are not'
        " allowed ('consumer_type' was unexpected)  Failed validating"),
    'usages-extra': (400, 'placement.undefined_code',
        'Invalid query string parameters: Additional properties are not'
        " allowed ('foo' was unexpected)  Failed validating"),
}


# The fixed world, built once for this module.
world = support.world


@support.parametrize(CASES, EXPECTED)
def test_error_text(world, name, method, path, body, version, headers):
    support.check(world, name, EXPECTED[name], method, path, body, version,
                  headers)
