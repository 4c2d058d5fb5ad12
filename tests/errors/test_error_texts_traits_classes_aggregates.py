"""Error texts of traits, resource classes and provider aggregates
(the world and the check: error_texts_support.py)."""
from support import error_texts_support as support
from support.error_texts_support import (AGG, HUGE, MEDIA_TYPE_NONE, NOPE_RP,
                                         RPU)

CASES, c = support.cases()

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
# An integer beyond 64 bits in a body is read exactly.
c('agg-put-huge-generation', 'PUT', RPU + '/aggregates',
  {'resource_provider_generation': HUGE, 'aggregates': []})
# Found by running tools/differential.py against upstream.
c('agg-put-no-content-type-1.0', 'PUT', RPU + '/aggregates', version='1.0')


# name: (status, code (None before 1.23), detail text).
EXPECTED = {
    'agg-put-no-content-type-1.0': (415, None, MEDIA_TYPE_NONE),
    'agg-put-huge-generation': (409, 'placement.concurrent_update',
        "Resource provider's generation already changed. Please update"
        ' the generation and try again.'),
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
}


# The fixed world, built once for this module.
world = support.world


@support.parametrize(CASES, EXPECTED)
def test_error_text(world, name, method, path, body, version, headers):
    support.check(world, name, EXPECTED[name], method, path, body, version,
                  headers)
