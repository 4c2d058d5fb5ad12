"""Error texts of GET /allocation_candidates (the world and the
check: error_texts_support.py)."""
from support import error_texts_support as support
from support.error_texts_support import AGG, AGG_UUIDS, NOPE, RP

CASES, c = support.cases()

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
# Found by running tools/differential.py against upstream.
c('ac-member-of-forbidden-in-bad-1.30', 'GET',
  A + 'resources=VCPU:2&member_of=!in:abc', version='1.30')


# name: (status, code (None before 1.23), detail text).
EXPECTED = {
    'ac-member-of-forbidden-in-bad-1.30': (400, 'placement.undefined_code',
        AGG_UUIDS + ' abc'),
    'ac-orphans-1.25': (400, 'placement.undefined_code',
        'All traits parameters must be associated with resources.  Found'
        ' the following orphaned traits keys: required, required1'),
    'ac-no-groups-1.35': (400, 'placement.undefined_code',
        'At least one request group (`resources` or `resources{$S}`) is'
        ' required.'),
    'ac-no-groups': (400, 'placement.query.missing_value',
        'There must be at least one resources or resources[$S]'
        ' parameter.'),
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
}


# The fixed world, built once for this module.
world = support.world


@support.parametrize(CASES, EXPECTED)
def test_error_text(world, name, method, path, body, version, headers):
    support.check(world, name, EXPECTED[name], method, path, body, version,
                  headers)
