"""Every error path answers with upstream's status, code and text.

Clients and operators match on the detail text of errors (nova and
osc-placement grep them), so they are part of the contract.  Each case
sends one request to a small fixed world and checks the status, the error
``code`` (absent before microversion 1.23) and the detail text, word for
word; for JSON-schema errors up to "Failed validating" (the schema dump
after it is not part of the contract).  The expected answers are upstream
placement's, taken from its observable behaviour.  The cases run in order
and none of them changes the world.

Deliberate differences, not tested here: a duplicate inventory's 409
(upstream shows the driver's IntegrityError), and lists of group suffixes
or trait names in upstream's set order (sorted here).
"""
import httpx
import pytest

ADMIN = {'x-auth-token': 'admin', 'accept': 'application/json'}
SVC = {'x-auth-token': 'nova', 'x-roles': 'service'}

RP = 'c0ffee00-0000-4000-8000-00000000e001'
RP2 = 'c0ffee00-0000-4000-8000-00000000e002'
CH = 'c0ffee00-0000-4000-8000-00000000e003'
GC = 'c0ffee00-0000-4000-8000-00000000e004'
C1 = 'c0ffee00-0000-4000-8000-00000000ec01'
AGG = 'c0ffee00-0000-4000-8000-00000000ea01'
NOPE = 'c0ffee00-0000-4000-8000-00000000efff'
RPU = '/resource_providers/' + RP
RP2U = '/resource_providers/' + RP2
CHU = '/resource_providers/' + CH
NOPE_RP = '/resource_providers/' + NOPE
INV = RPU + '/inventories'
INV2 = RP2U + '/inventories'


def alloc(resources, rp=RP, gen=None, **extra):
    body = {'allocations': {rp: {'resources': resources}},
            'project_id': 'p', 'user_id': 'u', 'consumer_generation': gen,
            'consumer_type': 'INSTANCE'}
    body.update(extra)
    return body


_consumers = iter(range(1, 100000))


def new_consumer():
    """A consumer UUID no other case uses."""
    return 'c0ffee00-0000-4000-8000-0000001%05d' % next(_consumers)


def new_alloc():
    return '/allocations/' + new_consumer()


WORLD = [
    ('PUT', '/resource_classes/CUSTOM_FOO', None),
    ('PUT', '/traits/CUSTOM_T', None),
    ('PUT', '/resource_classes/CUSTOM_BAR', None),
    ('POST', '/resource_providers', {'name': 'rp1', 'uuid': RP}),
    ('POST', '/resource_providers', {'name': 'rp2', 'uuid': RP2}),
    ('POST', '/resource_providers', {'name': 'child', 'uuid': CH,
                                     'parent_provider_uuid': RP}),
    ('POST', '/resource_providers', {'name': 'grandchild', 'uuid': GC,
                                     'parent_provider_uuid': CH}),
    ('PUT', INV, {'resource_provider_generation': 0, 'inventories': {
        'VCPU': {'total': 8, 'max_unit': 4, 'step_size': 2, 'min_unit': 2},
        'MEMORY_MB': {'total': 1024}, 'CUSTOM_FOO': {'total': 4}}}),
    ('PUT', RPU + '/traits', {'resource_provider_generation': 1,
                              'traits': ['CUSTOM_T']}),
    ('PUT', RPU + '/aggregates', {'resource_provider_generation': 2,
                                  'aggregates': [AGG]}),
    ('PUT', '/allocations/' + C1, alloc({'VCPU': 2, 'CUSTOM_FOO': 1})),
]


CASES = []


def c(name, method, path, body=None, version='latest', headers=None):
    CASES.append((name, method, path, body, version, headers))


# microversion header
c('version-bad-string', 'GET', '/', version='abc')
c('version-too-high', 'GET', '/', version='1.99')
c('version-major', 'GET', '/', version='2.0')
c('route-unknown', 'GET', '/nowhere')
c('method-not-allowed', 'PATCH', '/resource_providers')
c('not-acceptable', 'GET', '/resource_providers',
  headers={'accept': 'text/plain'})
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
# aggregates
c('agg-unknown-rp', 'GET', NOPE_RP + '/aggregates')
c('agg-1.0', 'GET', RPU + '/aggregates', version='1.0')
c('agg-put-bad-uuid', 'PUT', RPU + '/aggregates',
  {'resource_provider_generation': 4, 'aggregates': ['abc']})
c('agg-put-generation', 'PUT', RPU + '/aggregates',
  {'resource_provider_generation': 99, 'aggregates': []})
c('agg-put-no-generation', 'PUT', RPU + '/aggregates', {'aggregates': []})
c('agg-put-dup', 'PUT', RPU + '/aggregates',
  {'resource_provider_generation': 4, 'aggregates': [AGG, AGG]})
c('agg-put-unknown-rp', 'PUT', NOPE_RP + '/aggregates',
  {'resource_provider_generation': 4, 'aggregates': []})
# traits
c('traits-bad-name-filter', 'GET', '/traits?name=foo')
c('traits-bad-associated', 'GET', '/traits?associated=maybe')
c('traits-1.5', 'GET', '/traits', version='1.5')
c('trait-show-unknown', 'GET', '/traits/CUSTOM_NOPE')
c('trait-put-bad', 'PUT', '/traits/BAD')
c('trait-put-lower', 'PUT', '/traits/CUSTOM_bad')
c('trait-delete-standard', 'DELETE', '/traits/HW_CPU_X86_AVX')
c('trait-delete-in-use', 'DELETE', '/traits/CUSTOM_T')
c('trait-delete-unknown', 'DELETE', '/traits/CUSTOM_NOPE')
c('rp-traits-unknown-rp', 'GET', NOPE_RP + '/traits')
c('rp-traits-put-unknown', 'PUT', RPU + '/traits',
  {'resource_provider_generation': 4, 'traits': ['CUSTOM_NOPE']})
c('rp-traits-put-generation', 'PUT', RPU + '/traits',
  {'resource_provider_generation': 99, 'traits': []})
c('rp-traits-put-no-generation', 'PUT', RPU + '/traits', {'traits': []})
c('rp-traits-put-unknown-rp', 'PUT', NOPE_RP + '/traits',
  {'resource_provider_generation': 0, 'traits': []})
c('rp-traits-delete-unknown-rp', 'DELETE', NOPE_RP + '/traits')
# resource classes
c('rc-show-unknown', 'GET', '/resource_classes/CUSTOM_NOPE')
c('rc-create-dup', 'POST', '/resource_classes', {'name': 'CUSTOM_FOO'})
c('rc-create-standard', 'POST', '/resource_classes', {'name': 'VCPU'})
c('rc-create-bad', 'POST', '/resource_classes', {'name': 'bad'})
c('rc-put-standard', 'PUT', '/resource_classes/VCPU')
c('rc-put-bad', 'PUT', '/resource_classes/bad')
c('rc-rename-dup-1.6', 'PUT', '/resource_classes/CUSTOM_FOO',
  {'name': 'CUSTOM_BAR'}, '1.6')
c('rc-rename-bad-1.6', 'PUT', '/resource_classes/CUSTOM_FOO',
  {'name': 'bad'}, '1.6')
c('rc-rename-standard-1.6', 'PUT', '/resource_classes/VCPU',
  {'name': 'CUSTOM_X'}, '1.6')
c('rc-rename-unknown-1.6', 'PUT', '/resource_classes/CUSTOM_NOPE',
  {'name': 'CUSTOM_X'}, '1.6')
c('rc-delete-standard', 'DELETE', '/resource_classes/VCPU')
c('rc-delete-in-use', 'DELETE', '/resource_classes/CUSTOM_FOO')
c('rc-delete-unknown', 'DELETE', '/resource_classes/CUSTOM_NOPE')
c('rc-1.1', 'GET', '/resource_classes', version='1.1')
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
# allocation candidates
A = '/allocation_candidates?'
c('ac-1.9', 'GET', A + 'resources=VCPU:2', version='1.9')
c('ac-no-resources', 'GET', A)
c('ac-only-required', 'GET', A + 'required=CUSTOM_T')
c('ac-unknown-param', 'GET', A + 'resources=VCPU:2&foo=1')
c('ac-resources-zero', 'GET', A + 'resources=VCPU:0')
c('ac-resources-bad', 'GET', A + 'resources=VCPU')
c('ac-resources-unknown-class', 'GET', A + 'resources=CUSTOM_NOPE:1')
c('ac-required-unknown', 'GET', A + 'resources=VCPU:2&required=CUSTOM_NOPE')
c('ac-required-conflict', 'GET', A + 'resources=VCPU:2&required=CUSTOM_T,!CUSTOM_T')
c('ac-required-empty', 'GET', A + 'resources=VCPU:2&required=')
c('ac-required-1.16', 'GET', A + 'resources=VCPU:2&required=CUSTOM_T',
  version='1.16')
c('ac-limit-zero', 'GET', A + 'resources=VCPU:2&limit=0')
c('ac-limit-bad', 'GET', A + 'resources=VCPU:2&limit=abc')
c('ac-limit-1.15', 'GET', A + 'resources=VCPU:2&limit=1', version='1.15')
c('ac-member-of-bad', 'GET', A + 'resources=VCPU:2&member_of=abc')
c('ac-member-of-1.20', 'GET', A + 'resources=VCPU:2&member_of=' + AGG,
  version='1.20')
c('ac-member-of-multi-1.23', 'GET', A + 'resources=VCPU:2&member_of=%s&member_of=%s' % (AGG, NOPE), version='1.23')
c('ac-member-of-forbidden-1.31', 'GET', A + 'resources=VCPU:2&member_of=!' + AGG, version='1.31')
c('ac-member-of-comma', 'GET', A + 'resources=VCPU:2&member_of=%s,%s' % (AGG,
  NOPE))
c('ac-granular-1.24', 'GET', A + 'resources1=VCPU:2', version='1.24')
c('ac-granular-bad-suffix', 'GET', A + 'resources_!=VCPU:2')
c('ac-granular-bad-suffix-1.32', 'GET', A + 'resources_X=VCPU:2',
  version='1.32')
c('ac-granular-long-suffix', 'GET', A + 'resources_' + 'X' * 70 + '=VCPU:2')
c('ac-group-policy-missing', 'GET', A + 'resources1=VCPU:2&resources2=MEMORY_MB:1')
c('ac-group-policy-bad', 'GET', A + 'resources1=VCPU:2&group_policy=foo')
c('ac-orphan-required', 'GET', A + 'resources=VCPU:2&required1=CUSTOM_T')
c('ac-orphan-member-of', 'GET', A + 'resources=VCPU:2&member_of1=' + AGG)
c('ac-orphan-in-tree', 'GET', A + 'resources=VCPU:2&in_tree1=' + RP)
c('ac-orphan-1.35', 'GET', A + 'resources=VCPU:2&required1=CUSTOM_T',
  version='1.35')
c('ac-in-tree-bad', 'GET', A + 'resources=VCPU:2&in_tree=abc')
c('ac-in-tree-1.30', 'GET', A + 'resources=VCPU:2&in_tree=' + RP,
  version='1.30')
c('ac-in-tree-granular-bad', 'GET', A + 'resources1=VCPU:2&in_tree1=abc')
c('ac-root-required-1.34', 'GET', A + 'resources=VCPU:2&root_required=CUSTOM_T', version='1.34')
c('ac-root-required-unknown', 'GET', A + 'resources=VCPU:2&root_required=CUSTOM_NOPE')
c('ac-root-required-conflict', 'GET', A + 'resources=VCPU:2&root_required=CUSTOM_T,!CUSTOM_T')
c('ac-root-required-twice', 'GET', A + 'resources=VCPU:2&root_required=CUSTOM_T&root_required=CUSTOM_T')
c('ac-root-required-empty', 'GET', A + 'resources=VCPU:2&root_required=')
c('ac-root-required-in', 'GET', A + 'resources=VCPU:2&root_required=in:CUSTOM_T')
c('ac-same-subtree-1.35', 'GET', A + 'resources1=VCPU:2&resources2=MEMORY_MB:1&group_policy=none&same_subtree=1,2', version='1.35')
c('ac-same-subtree-unknown', 'GET', A + 'resources_A=VCPU:2&same_subtree=_A,_B')
c('ac-same-subtree-unsuffixed', 'GET', A + 'resources=VCPU:2&resources_A=VCPU:2&same_subtree=_A,')
c('ac-same-subtree-empty', 'GET', A + 'resources_A=VCPU:2&same_subtree=')
c('ac-same-subtree-single-noresources', 'GET', A + 'resources_A=VCPU:2&required_B=CUSTOM_T&same_subtree=_B')
c('ac-resourceless-no-subtree', 'GET', A + 'resources_A=VCPU:2&required_B=CUSTOM_T')
c('ac-resourceless-only', 'GET', A + 'required_B=CUSTOM_T&same_subtree=_B')
c('ac-resourceless-1.35', 'GET', A + 'resources_A=VCPU:2&required_B=CUSTOM_T&same_subtree=_A,_B', version='1.35')
c('ac-required-in-1.38', 'GET', A + 'resources=VCPU:2&required=in:CUSTOM_T',
  version='1.38')
c('ac-required-in-empty', 'GET', A + 'resources=VCPU:2&required=in:')
c('ac-required-in-forbidden', 'GET', A + 'resources=VCPU:2&required=in:CUSTOM_T,!CUSTOM_X')
c('ac-required-granular-conflict', 'GET', A + 'resources1=VCPU:2&required1=CUSTOM_T,!CUSTOM_T')
c('ac-group-policy-dup', 'GET', A + 'resources1=VCPU:2&group_policy=none&group_policy=foo')
c('ac-orphans-1.25', 'GET', A + 'required=CUSTOM_T&required1=CUSTOM_T',
  version='1.25')
c('ac-no-groups-1.35', 'GET', A + 'group_policy=isolate', version='1.35')
c('ac-no-groups', 'GET', A + 'group_policy=isolate')
# integers beyond 64 bits in bodies are read exactly
HUGE = 10 ** 30
c('inv-create-huge', 'POST', INV2, {'resource_class': 'DISK_GB',
                                    'total': HUGE})
c('agg-put-huge-generation', 'PUT', RPU + '/aggregates',
  {'resource_provider_generation': HUGE, 'aggregates': []})
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
# GET /summary, an addition of this service, words its errors as the
# upstream routes do.
c('summary-unknown-param', 'GET', '/summary?limit=5')
c('summary-not-admin', 'GET', '/summary', headers=SVC)
# Found by running tools/differential.py against upstream.  A bytes body
# is sent as it is (as JSON unless the headers say otherwise).
NO_TYPE = {'content-type': ''}
c('json-malformed', 'PUT', RPU, b'{"a": ')
c('json-empty', 'POST', '/resource_providers', b'')
c('content-type-missing', 'POST', '/resource_classes')
c('content-type-empty', 'POST', '/resource_classes', b'{"name": "CUSTOM_CT"}',
  headers=NO_TYPE)
c('content-type-empty-unknown-url', 'POST', '/nowhere', b'{}',
  headers=NO_TYPE)
c('content-type-empty-trait', 'PUT', '/traits/CUSTOM_CTT', b'{}',
  headers=NO_TYPE)
c('accept-empty', 'GET', NOPE_RP, headers={'accept': ''})
c('token-empty', 'GET', '/resource_providers', headers={'x-auth-token': ''})
c('rp-update-unknown-bad-body', 'PUT', NOPE_RP, {})
c('inv-create-unknown-rp-bad-body', 'POST', NOPE_RP + '/inventories', {})
c('inv-replace-unknown-rp-bad-body', 'PUT', NOPE_RP + '/inventories',
  b'{"a": ')
c('inv-update-unknown-rp-bad-body', 'PUT',
  '/resource_providers/%s/inventories/VCPU' % NOPE, {})
c('rps-member-of-bang-1.30', 'GET', P + 'member_of=!', version='1.30')
c('ac-member-of-forbidden-in-bad-1.30', 'GET',
  A + 'resources=VCPU:2&member_of=!in:abc', version='1.30')
c('rps-uuid-dashless', 'GET', P + 'uuid=' + RP.replace('-', ''))
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
c('inv-create-ratio-zero-1.25', 'POST', INV2, {
    'resource_class': 'DISK_GB', 'total': 8, 'allocation_ratio': 0}, '1.25')
c('inv-create-ratio-negative', 'POST', INV2, {
    'resource_class': 'DISK_GB', 'total': 8, 'allocation_ratio': -1})
c('inv-replace-lowercase-class-stale', 'PUT', INV2, {
    'resource_provider_generation': 9, 'inventories': {'vcpu': {'total': 8}}})
c('inv-replace-lowercase-class', 'PUT', INV2, {
    'resource_provider_generation': 0, 'inventories': {'vcpu': {'total': 8}}})
c('agg-put-no-content-type-1.0', 'PUT', RPU + '/aggregates', version='1.0')


MEDIA_TYPE_NONE = 'The media type None is not supported, use application/json'
CONTENT_TYPE_REQUIRED = 'content-type header required when content-length > 0'
NOPE_404 = 'No resource provider with uuid %s found' % NOPE
AGG_UUIDS = ("Invalid query string parameters: Expected 'member_of' parameter"
             ' to contain valid UUID(s). Got:')
KEY_PATTERN = "does not match any of the regexes: '^[0-9a-fA-F-]{36}$'"
RATIO = ("Unable to create inventory for resource provider %s: Invalid"
         " inventory for 'DISK_GB' on resource provider '%s'. The reserved"
         ' value is greater than ' % (RP2, RP2))

# name: (status, code (None before 1.23), detail text).
EXPECTED = {
    'json-malformed': (400, 'placement.undefined_code',
        'Malformed JSON: Expecting value: line 1 column 7 (char 6)'),
    'json-empty': (400, 'placement.undefined_code',
        'Malformed JSON: Expecting value: line 1 column 1 (char 0)'),
    'content-type-missing': (415, 'placement.undefined_code',
        MEDIA_TYPE_NONE),
    'content-type-empty': (400, 'placement.undefined_code',
        CONTENT_TYPE_REQUIRED),
    'content-type-empty-unknown-url': (400, 'placement.undefined_code',
        CONTENT_TYPE_REQUIRED),
    'content-type-empty-trait': (400, 'placement.undefined_code',
        CONTENT_TYPE_REQUIRED),
    'accept-empty': (404, 'placement.undefined_code', NOPE_404),
    'token-empty': (403, 'placement.undefined_code',
        'Policy does not allow placement:resource_providers:list to be'
        ' performed.'),
    'rp-update-unknown-bad-body': (404, 'placement.undefined_code',
        NOPE_404),
    'inv-create-unknown-rp-bad-body': (404, 'placement.undefined_code',
        NOPE_404),
    'inv-replace-unknown-rp-bad-body': (404, 'placement.undefined_code',
        NOPE_404),
    'inv-update-unknown-rp-bad-body': (404, 'placement.undefined_code',
        NOPE_404),
    'rps-member-of-bang-1.30': (400, 'placement.undefined_code', AGG_UUIDS),
    'ac-member-of-forbidden-in-bad-1.30': (400, 'placement.undefined_code',
        AGG_UUIDS + ' abc'),
    'rps-uuid-dashless': (400, 'placement.undefined_code',
        "Invalid query string parameters: '%s' is not a 'uuid'  Failed"
        ' validating' % RP.replace('-', '')),
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
    'inv-create-ratio-zero-1.25': (400, 'placement.undefined_code',
        RATIO + 'or equal to total.'),
    'inv-create-ratio-negative': (400, 'placement.undefined_code',
        RATIO + 'total.'),
    'inv-replace-lowercase-class-stale': (409, 'placement.concurrent_update',
        'resource provider generation conflict'),
    'inv-replace-lowercase-class': (400, 'placement.undefined_code',
        'Unknown resource class in inventory for resource provider %s: No'
        ' such resource class vcpu.' % RP2),
    'agg-put-no-content-type-1.0': (415, None, MEDIA_TYPE_NONE),
    'inv-create-huge': (400, 'placement.undefined_code',
        'JSON does not validate: 1000000000000000000000000000000 is'
        ' greater than the maximum of 2147483647  Failed validating'),
    'agg-put-huge-generation': (409, 'placement.concurrent_update',
        "Resource provider's generation already changed. Please update"
        ' the generation and try again.'),
    'ac-orphans-1.25': (400, 'placement.undefined_code',
        'All traits parameters must be associated with resources.  Found'
        ' the following orphaned traits keys: required, required1'),
    'ac-no-groups-1.35': (400, 'placement.undefined_code',
        'At least one request group (`resources` or `resources{$S}`) is'
        ' required.'),
    'ac-no-groups': (400, 'placement.query.missing_value',
        'There must be at least one resources or resources[$S]'
        ' parameter.'),
    'version-bad-string': (400, None,
        'Invalid microversion: invalid version string: abc; invalid'
        " literal for int() with base 10: 'abc'"),
    'version-too-high': (406, None,
        'Invalid microversion: Unacceptable version header: 1.99'),
    'version-major': (406, None,
        'Invalid microversion: Unacceptable version header: 2.0'),
    'route-unknown': (404, 'placement.undefined_code',
        ''),
    'method-not-allowed': (405, 'placement.undefined_code',
        'The method specified is not allowed for this resource.'),
    'not-acceptable': (406, None,
        'Only application/json is provided'),
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
    'agg-unknown-rp': (404, 'placement.undefined_code',
        'No resource provider with uuid'
        ' c0ffee00-0000-4000-8000-00000000efff found'),
    'agg-1.0': (404, None,
        ''),
    'agg-put-bad-uuid': (400, 'placement.undefined_code',
        "JSON does not validate: 'abc' is not a 'uuid'  Failed validating"),
    'agg-put-generation': (409, 'placement.concurrent_update',
        "Resource provider's generation already changed. Please update"
        ' the generation and try again.'),
    'agg-put-no-generation': (400, 'placement.undefined_code',
        "JSON does not validate: 'resource_provider_generation' is a"
        ' required property  Failed validating'),
    'agg-put-dup': (400, 'placement.undefined_code',
        "JSON does not validate: ['c0ffee00-0000-4000-8000-00000000ea01',"
        " 'c0ffee00-0000-4000-8000-00000000ea01'] has non-unique elements"
        '  Failed validating'),
    'agg-put-unknown-rp': (404, 'placement.undefined_code',
        'No resource provider with uuid'
        ' c0ffee00-0000-4000-8000-00000000efff found'),
    'traits-bad-name-filter': (400, 'placement.undefined_code',
        'Badly formatted name parameter. Expected name query string'
        ' parameter in form: ?name=[in|startswith]:[name1,name2|prefix].'
        ' Got: "foo"'),
    'traits-bad-associated': (400, 'placement.undefined_code',
        'The query parameter "associated" only accepts "true" or "false"'),
    'traits-1.5': (404, None,
        ''),
    'trait-show-unknown': (404, 'placement.undefined_code',
        'No such trait(s): CUSTOM_NOPE.'),
    'trait-put-bad': (400, 'placement.undefined_code',
        'The trait is invalid. A valid trait must be no longer than 255'
        ' characters, start with the prefix "CUSTOM_" and use following'
        ' characters: "A"-"Z", "0"-"9" and "_"'),
    'trait-put-lower': (400, 'placement.undefined_code',
        'The trait is invalid. A valid trait must be no longer than 255'
        ' characters, start with the prefix "CUSTOM_" and use following'
        ' characters: "A"-"Z", "0"-"9" and "_"'),
    'trait-delete-standard': (400, 'placement.undefined_code',
        'Cannot delete standard trait HW_CPU_X86_AVX.'),
    'trait-delete-in-use': (409, 'placement.undefined_code',
        'The trait CUSTOM_T is in use by a resource provider.'),
    'trait-delete-unknown': (404, 'placement.undefined_code',
        'No such trait(s): CUSTOM_NOPE.'),
    'rp-traits-unknown-rp': (404, 'placement.undefined_code',
        'No resource provider with uuid'
        ' c0ffee00-0000-4000-8000-00000000efff found: No resource'
        ' provider with uuid c0ffee00-0000-4000-8000-00000000efff found'),
    'rp-traits-put-unknown': (400, 'placement.undefined_code',
        'No such trait CUSTOM_NOPE'),
    'rp-traits-put-generation': (409, 'placement.concurrent_update',
        "Resource provider's generation already changed. Please update"
        ' the generation and try again.'),
    'rp-traits-put-no-generation': (400, 'placement.undefined_code',
        "JSON does not validate: 'resource_provider_generation' is a"
        ' required property  Failed validating'),
    'rp-traits-put-unknown-rp': (404, 'placement.undefined_code',
        'No resource provider with uuid'
        ' c0ffee00-0000-4000-8000-00000000efff found'),
    'rp-traits-delete-unknown-rp': (404, 'placement.undefined_code',
        'No resource provider with uuid'
        ' c0ffee00-0000-4000-8000-00000000efff found'),
    'rc-show-unknown': (404, 'placement.undefined_code',
        'No such resource class CUSTOM_NOPE.'),
    'rc-create-dup': (409, 'placement.undefined_code',
        'Conflicting resource class already exists: CUSTOM_FOO'),
    'rc-create-standard': (400, 'placement.undefined_code',
        "JSON does not validate: 'VCPU' does not match"
        " '^CUSTOM_[A-Z0-9_]+$'  Failed validating"),
    'rc-create-bad': (400, 'placement.undefined_code',
        "JSON does not validate: 'bad' does not match"
        " '^CUSTOM_[A-Z0-9_]+$'  Failed validating"),
    'rc-put-standard': (400, 'placement.undefined_code',
        "JSON does not validate: 'VCPU' does not match"
        " '^CUSTOM_[A-Z0-9_]+$'  Failed validating"),
    'rc-put-bad': (400, 'placement.undefined_code',
        "JSON does not validate: 'bad' does not match"
        " '^CUSTOM_[A-Z0-9_]+$'  Failed validating"),
    'rc-rename-dup-1.6': (409, None,
        'Resource class already exists: CUSTOM_BAR'),
    'rc-rename-bad-1.6': (400, None,
        "JSON does not validate: 'bad' does not match"
        " '^CUSTOM_[A-Z0-9_]+$'  Failed validating"),
    'rc-rename-standard-1.6': (400, None,
        'Cannot update standard resource class VCPU'),
    'rc-rename-unknown-1.6': (404, None,
        'No such resource class CUSTOM_NOPE.'),
    'rc-delete-standard': (400, 'placement.undefined_code',
        'Error in delete resource class: Cannot delete standard resource'
        ' class VCPU.'),
    'rc-delete-in-use': (409, 'placement.undefined_code',
        'Error in delete resource class: Cannot delete resource class'
        ' CUSTOM_FOO. Class is in use in inventory.'),
    'rc-delete-unknown': (404, 'placement.undefined_code',
        'No such resource class CUSTOM_NOPE.'),
    'rc-1.1': (404, None,
        ''),
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
    'ac-1.9': (404, None,
        ''),
    'ac-no-resources': (400, 'placement.query.missing_value',
        'There must be at least one resources or resources[$S] parameter.'),
    'ac-only-required': (400, 'placement.query.missing_value',
        'There must be at least one resources or resources[$S] parameter.'),
    'ac-unknown-param': (400, 'placement.undefined_code',
        "Invalid query string parameters: 'foo' does not match any of the"
        " regexes: '^in_tree([a-zA-Z0-9_-]{1,64})?$',"
        " '^member_of([a-zA-Z0-9_-]{1,64})?$',"
        " '^required([a-zA-Z0-9_-]{1,64})?$',"
        " '^resources([a-zA-Z0-9_-]{1,64})?$'  Failed validating"),
    'ac-resources-zero': (400, 'placement.undefined_code',
        'Requested resource VCPU requires amount >= 1. Got: 0.'),
    'ac-resources-bad': (400, 'placement.undefined_code',
        'Badly formed resources parameter. Expected resources query'
        ' string parameter in form: ?resources=VCPU:2,MEMORY_MB:1024.'
        ' Got: VCPU.'),
    'ac-resources-unknown-class': (400, 'placement.undefined_code',
        'Invalid resource class in resources parameter: No such resource'
        ' class CUSTOM_NOPE.'),
    'ac-required-unknown': (400, 'placement.undefined_code',
        'No such trait(s): CUSTOM_NOPE.'),
    'ac-required-conflict': (400, 'placement.undefined_code',
        'Conflicting required and forbidden traits found in the following'
        ' traits keys: required: (CUSTOM_T)'),
    'ac-required-empty': (400, 'placement.undefined_code',
        "Invalid query string parameters: Expected 'required' parameter"
        ' value of the form: HW_CPU_X86_VMX,!CUSTOM_MAGIC. Got an empty'
        ' trait in:'),
    'ac-required-1.16': (400, None,
        'Invalid query string parameters: Additional properties are not'
        " allowed ('required' was unexpected)  Failed validating"),
    'ac-limit-zero': (400, 'placement.undefined_code',
        "Invalid query string parameters: '0' does not match"
        " '^[1-9][0-9]*$'  Failed validating"),
    'ac-limit-bad': (400, 'placement.undefined_code',
        "Invalid query string parameters: 'abc' does not match"
        " '^[1-9][0-9]*$'  Failed validating"),
    'ac-limit-1.15': (400, None,
        'Invalid query string parameters: Additional properties are not'
        " allowed ('limit' was unexpected)  Failed validating"),
    'ac-member-of-bad': (400, 'placement.undefined_code',
        "Invalid query string parameters: Expected 'member_of' parameter"
        ' to contain valid UUID(s). Got: abc'),
    'ac-member-of-1.20': (400, None,
        'Invalid query string parameters: Additional properties are not'
        " allowed ('member_of' was unexpected)  Failed validating"),
    'ac-member-of-multi-1.23': (400, 'placement.undefined_code',
        'Multiple member_of parameters are not supported'),
    'ac-member-of-forbidden-1.31': (400, 'placement.undefined_code',
        'Forbidden member_of parameters are not supported in the'
        ' specified microversion'),
    'ac-member-of-comma': (400, 'placement.undefined_code',
        "Multiple values for 'member_of' must be prefixed with the 'in:'"
        " or '!in:' keyword using the valid microversion. Got:"
        ' c0ffee00-0000-4000-8000-00000000ea01,c0ffee00-0000-4000-8000-00000000efff'),
    'ac-granular-1.24': (400, 'placement.undefined_code',
        "Invalid query string parameters: 'resources' is a required"
        ' property  Failed validating'),
    'ac-granular-bad-suffix': (400, 'placement.undefined_code',
        "Invalid query string parameters: 'resources_!' does not match"
        " any of the regexes: '^in_tree([a-zA-Z0-9_-]{1,64})?$',"
        " '^member_of([a-zA-Z0-9_-]{1,64})?$',"
        " '^required([a-zA-Z0-9_-]{1,64})?$',"
        " '^resources([a-zA-Z0-9_-]{1,64})?$'  Failed validating"),
    'ac-granular-bad-suffix-1.32': (400, 'placement.undefined_code',
        "Invalid query string parameters: 'resources_X' does not match"
        " any of the regexes: '^in_tree([1-9][0-9]*)?$',"
        " '^member_of([1-9][0-9]*)?$', '^required([1-9][0-9]*)?$',"
        " '^resources([1-9][0-9]*)?$'  Failed validating"),
    'ac-granular-long-suffix': (400, 'placement.undefined_code',
        'Invalid query string parameters:'
        " 'resources_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX'"
        ' does not match any of the regexes:'
        " '^in_tree([a-zA-Z0-9_-]{1,64})?$',"
        " '^member_of([a-zA-Z0-9_-]{1,64})?$',"
        " '^required([a-zA-Z0-9_-]{1,64})?$',"
        " '^resources([a-zA-Z0-9_-]{1,64})?$'  Failed validating"),
    'ac-group-policy-missing': (400, 'placement.undefined_code',
        'The "group_policy" parameter is required when specifying more'
        ' than one "resources{N}" parameter.'),
    'ac-group-policy-bad': (400, 'placement.undefined_code',
        "Invalid query string parameters: 'foo' is not one of ['none',"
        " 'isolate']  Failed validating"),
    'ac-orphan-required': (400, 'placement.query.bad_value',
        'Resourceless suffixed group request should be specified in'
        " `same_subtree` query param: bad group(s) - ['1']."),
    'ac-orphan-member-of': (400, 'placement.query.bad_value',
        'Resourceless suffixed group request should be specified in'
        " `same_subtree` query param: bad group(s) - ['1']."),
    'ac-orphan-in-tree': (400, 'placement.query.bad_value',
        'Resourceless suffixed group request should be specified in'
        " `same_subtree` query param: bad group(s) - ['1']."),
    'ac-orphan-1.35': (400, 'placement.undefined_code',
        'All traits parameters must be associated with resources.  Found'
        ' the following orphaned traits keys: required1'),
    'ac-in-tree-bad': (400, 'placement.undefined_code',
        "Invalid query string parameters: Expected 'in_tree' parameter to"
        ' be a format of uuid. Got: abc'),
    'ac-in-tree-1.30': (400, 'placement.undefined_code',
        "Invalid query string parameters: 'in_tree' does not match any of"
        " the regexes: '^member_of([1-9][0-9]*)?$',"
        " '^required([1-9][0-9]*)?$', '^resources([1-9][0-9]*)?$'  Failed"
        ' validating'),
    'ac-in-tree-granular-bad': (400, 'placement.undefined_code',
        "Invalid query string parameters: Expected 'in_tree' parameter to"
        ' be a format of uuid. Got: abc'),
    'ac-root-required-1.34': (400, 'placement.undefined_code',
        "Invalid query string parameters: 'root_required' does not match"
        " any of the regexes: '^in_tree([a-zA-Z0-9_-]{1,64})?$',"
        " '^member_of([a-zA-Z0-9_-]{1,64})?$',"
        " '^required([a-zA-Z0-9_-]{1,64})?$',"
        " '^resources([a-zA-Z0-9_-]{1,64})?$'  Failed validating"),
    'ac-root-required-unknown': (400, 'placement.undefined_code',
        'No such trait(s): CUSTOM_NOPE.'),
    'ac-root-required-conflict': (400, 'placement.query.bad_value',
        'Conflicting required and forbidden traits found in'
        ' root_required: CUSTOM_T'),
    'ac-root-required-twice': (400, 'placement.query.duplicate_key',
        "Query parameter 'root_required' may be specified only once."),
    'ac-root-required-empty': (400, 'placement.undefined_code',
        "Invalid query string parameters: Expected 'required' parameter"
        ' value of the form: HW_CPU_X86_VMX,!CUSTOM_MAGIC. Got an empty'
        ' trait in:'),
    'ac-root-required-in': (400, 'placement.undefined_code',
        'Invalid query string parameters: The format'
        " 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only supported since"
        ' microversion 1.39. Got: in:CUSTOM_T'),
    'ac-same-subtree-1.35': (400, 'placement.undefined_code',
        "Invalid query string parameters: 'same_subtree' does not match"
        " any of the regexes: '^in_tree([a-zA-Z0-9_-]{1,64})?$',"
        " '^member_of([a-zA-Z0-9_-]{1,64})?$',"
        " '^required([a-zA-Z0-9_-]{1,64})?$',"
        " '^resources([a-zA-Z0-9_-]{1,64})?$'  Failed validating"),
    'ac-same-subtree-unknown': (400, 'placement.query.bad_value',
        "Real suffixes should be specified in `same_subtree`: ['_B'] not"
        " found in ['_A']."),
    'ac-same-subtree-unsuffixed': (400, 'placement.query.bad_value',
        'Empty string (unsuffixed group) can not be specified in'
        ' `same_subtree`'),
    'ac-same-subtree-empty': (400, 'placement.query.bad_value',
        'Empty string (unsuffixed group) can not be specified in'
        ' `same_subtree`'),
    'ac-same-subtree-single-noresources': (400, 'placement.undefined_code',
        'The "group_policy" parameter is required when specifying more'
        ' than one "resources{N}" parameter.'),
    'ac-resourceless-no-subtree': (400, 'placement.query.bad_value',
        'Resourceless suffixed group request should be specified in'
        " `same_subtree` query param: bad group(s) - ['_B']."),
    'ac-resourceless-only': (400, 'placement.query.missing_value',
        'There must be at least one resources or resources[$S] parameter.'),
    'ac-resourceless-1.35': (400, 'placement.undefined_code',
        "Invalid query string parameters: 'same_subtree' does not match"
        " any of the regexes: '^in_tree([a-zA-Z0-9_-]{1,64})?$',"
        " '^member_of([a-zA-Z0-9_-]{1,64})?$',"
        " '^required([a-zA-Z0-9_-]{1,64})?$',"
        " '^resources([a-zA-Z0-9_-]{1,64})?$'  Failed validating"),
    'ac-required-in-1.38': (400, 'placement.undefined_code',
        'Invalid query string parameters: The format'
        " 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only supported since"
        ' microversion 1.39. Got: in:CUSTOM_T'),
    'ac-required-in-empty': (400, 'placement.undefined_code',
        "Invalid query string parameters: Expected 'required' parameter"
        ' value of the form: in:HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an empty'
        ' trait in: in:'),
    'ac-required-in-forbidden': (400, 'placement.undefined_code',
        'Invalid query string parameters: The format'
        " 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' does not support forbidden"
        ' traits. Got: in:CUSTOM_T,!CUSTOM_X'),
    'ac-required-granular-conflict': (400, 'placement.undefined_code',
        'Conflicting required and forbidden traits found in the following'
        ' traits keys: required1: (CUSTOM_T)'),
    'ac-group-policy-dup': (400, 'placement.undefined_code',
        "Invalid query string parameters: 'foo' is not one of ['none',"
        " 'isolate']  Failed validating"),
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
    'summary-unknown-param': (400, 'placement.undefined_code',
        'Invalid query string parameters: Additional properties are not'
        " allowed ('limit' was unexpected)  Failed validating"),
    'summary-not-admin': (403, 'placement.undefined_code',
        'Policy does not allow placement:summary to be performed.'),
}


@pytest.fixture(scope='module')
def world(server):
    with httpx.Client(base_url=server.url, headers=ADMIN,
                      timeout=30) as http:
        for method, path, body in WORLD:
            response = http.request(
                method, path, json=body,
                headers={'openstack-api-version': 'placement latest'})
            assert response.status_code < 300, response.text
        yield http


def test_every_case_has_an_expectation():
    assert sorted(name for name, *_ in CASES) == sorted(EXPECTED)


def detail_of(response):
    """The detail text, without webob's generic explanation before it."""
    if response.headers['content-type'].startswith('application/json'):
        error = response.json()['errors'][0]
        detail, code = error['detail'], error.get('code')
    else:
        # The client asked for another type; no code in a text body.
        detail, code = response.text, None
    return detail.rsplit('\n\n', 1)[-1].strip(), code


# webob's explanation before the detail, where upstream's differs from
# webob's template.
EXPLANATIONS = {
    'content-type-missing':
        'The request media type None is not supported by this server.',
}


@pytest.mark.parametrize('name,method,path,body,version,headers', CASES,
                         ids=[case[0] for case in CASES])
def test_error_text(world, name, method, path, body, version, headers):
    status, code, text = EXPECTED[name]
    request_headers = {'openstack-api-version': 'placement ' + version}
    if isinstance(body, bytes):
        request_headers['content-type'] = 'application/json'
        sent = {'content': body}
    else:
        sent = {'json': body}
    request_headers.update(headers or {})
    response = world.request(method, path, headers=request_headers, **sent)
    assert response.status_code == status, response.text
    if name in EXPLANATIONS:
        whole = response.json()['errors'][0]['detail']
        assert whole.startswith(EXPLANATIONS[name]), whole
    detail, got_code = detail_of(response)
    assert got_code == code, response.text
    if text.endswith('Failed validating'):
        assert detail.startswith(text), detail
    else:
        assert detail == text


# Behaviour the differential run found different, besides error texts.

def test_version_document_ignores_accept(world):
    response = world.get('/', headers={'accept': 'text/plain'})
    assert response.status_code == 200
    assert response.json()['versions'][0]['id'] == 'v1.0'


def test_empty_name_filters_nothing(world):
    response = world.get('/resource_providers?name=')
    assert response.status_code == 200
    assert len(response.json()['resource_providers']) == 4


def test_bodiless_writes_have_no_cache_headers(world):
    # As upstream: of the 204s, only a trait's own URL sends them.
    latest = {'openstack-api-version': 'placement latest'}
    found = world.put('/resource_classes/CUSTOM_FOO', headers=latest)
    assert found.status_code == 204
    created = world.put('/traits/CUSTOM_GONE', headers=latest)
    assert created.status_code == 201
    assert created.headers['cache-control'] == 'no-cache'
    deleted = world.delete('/traits/CUSTOM_GONE', headers=latest)
    assert deleted.status_code == 204
    for response in (found, deleted):
        assert 'cache-control' not in response.headers
        assert 'last-modified' not in response.headers
