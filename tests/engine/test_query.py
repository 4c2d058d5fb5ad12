"""The query-string parser shared by provider listing and allocation
candidates (pure functions: no server needed)."""
import pytest
from webob.multidict import MultiDict

from placement import errors
from placement import microversions
from placement.candidates import query
from placement.candidates import query_filters

LATEST = microversions.MAX
AGG1 = '11111111-1111-1111-1111-111111111111'
AGG2 = '22222222-2222-2222-2222-222222222222'


def params(*pairs):
    return MultiDict(list(pairs))


def detail(exc_info):
    exc = exc_info.value
    assert isinstance(exc, errors.BadRequest)
    return exc.detail


@pytest.mark.parametrize('value, expected', [
    ('VCPU:1', {'VCPU': 1}),
    ('VCPU:1,MEMORY_MB:512', {'VCPU': 1, 'MEMORY_MB': 512}),
    ('CUSTOM_X:10', {'CUSTOM_X': 10}),
])
def test_resources(value, expected):
    assert query.parse_resources(value) == expected


@pytest.mark.parametrize('value, message', [
    ('', 'Got: empty string.'),
    ('VCPU', 'Badly formed resources parameter'),
    ('VCPU:1:2', 'Badly formed resources parameter'),
    ('VCPU:0', 'Requested resource VCPU requires amount >= 1. Got: 0.'),
    ('VCPU:x', 'Requested resource VCPU expected positive integer amount'),
    ('VCPU:-1', 'Requested resource VCPU requires amount >= 1. Got: -1.'),
])
def test_bad_resources(value, message):
    with pytest.raises(errors.BadRequest) as exc:
        query.parse_resources(value)
    assert message in detail(exc)


def test_traits_by_microversion():
    traits = query_filters.required_traits(params(('required', 'A,!B')),
                                           (1, 22))
    assert traits.required == (frozenset({'A'}),)
    assert traits.forbidden == frozenset({'B'})
    with pytest.raises(errors.BadRequest) as exc:
        query_filters.required_traits(params(('required', '!B')), (1, 21))
    assert detail(exc) == (
        "Invalid query string parameters: Expected 'required' parameter "
        "value of the form: HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: !B")
    with pytest.raises(errors.BadRequest) as exc:
        query_filters.required_traits(params(('required', 'A,,B')), LATEST)
    assert 'HW_CPU_X86_VMX,!CUSTOM_MAGIC' in detail(exc)


def test_repeated_and_any_traits():
    both = params(('required', 'in:A,B'), ('required', 'C,!D'))
    traits = query_filters.required_traits(both, LATEST)
    assert traits.required == (frozenset({'A', 'B'}), frozenset({'C'}))
    assert traits.forbidden == frozenset({'D'})
    # Required names in request order first: the 400 names the first.
    assert traits.names() == ['A', 'B', 'C', 'D']
    # Before 1.39 the last value wins.
    old = query_filters.required_traits(
        params(('required', 'A'), ('required', 'B')), (1, 38))
    assert old.required == (frozenset({'B'}),)
    with pytest.raises(errors.BadRequest) as exc:
        query_filters.required_traits(params(('required', 'in:A,B')), (1, 38))
    assert 'only supported since microversion 1.39' in detail(exc)
    with pytest.raises(errors.BadRequest):
        query_filters.required_traits(params(('required', 'in:A,!B')), LATEST)


def test_member_of():
    agg = query_filters.member_of(
        params(('member_of', 'in:%s,%s' % (AGG1, AGG2)),
               ('member_of', '!' + AGG1)), LATEST)
    assert agg.required == (frozenset({AGG1, AGG2}),)
    assert agg.forbidden == frozenset({AGG1})
    dashless = query_filters.member_of(
        params(('member_of', AGG1.replace('-', ''))), LATEST)
    assert dashless.required == (frozenset({AGG1}),)


@pytest.mark.parametrize('version, values, message', [
    # The versions just before MULTI_MEMBER_OF and FORBIDDEN_AGGREGATES.
    (microversions.ERROR_CODES, [AGG1, AGG2],
     'Multiple member_of parameters are not supported'),
    (LATEST, ['%s,%s' % (AGG1, AGG2)], "must be prefixed with the 'in:'"),
    (LATEST, ['in:'], "contain valid UUID(s)"),
    (LATEST, ['in:%s,!%s' % (AGG1, AGG2)], "contain valid UUID(s)"),
    (microversions.CANDIDATE_IN_TREE, ['!' + AGG1],
     'Forbidden member_of parameters are not supported'),
])
def test_bad_member_of(version, values, message):
    with pytest.raises(errors.BadRequest) as exc:
        query_filters.member_of(
            params(*[('member_of', v) for v in values]), version)
    assert message in detail(exc)


def test_request_groups_and_orphans():
    parsed = query.parse_candidate_query(params(
        ('resources', 'VCPU:1'), ('resources_NET', 'CUSTOM_BW:10'),
        ('required_NET', 'CUSTOM_PHYS'), ('member_of_NET', AGG1),
        ('in_tree_NET', AGG2), ('group_policy', 'isolate'),
        ('group_policy', 'none'), ('limit', '5'), ('limit', '1')), LATEST)
    assert list(parsed.groups) == ['', '_NET']
    net = parsed.groups['_NET']
    assert net.resources == {'CUSTOM_BW': 10}
    assert net.traits.required == (frozenset({'CUSTOM_PHYS'}),)
    assert net.member_of.required == (frozenset({AGG1}),)
    assert net.in_tree == AGG2
    # The first of repeated group_policy and limit counts.
    assert (parsed.group_policy, parsed.limit) == ('isolate', 5)


@pytest.mark.parametrize('pairs, message', [
    ([('required', 'A'), ('required1', 'B')],
     'There must be at least one resources or resources[$S] '
     'parameter.'),
    ([('resources', 'VCPU:1'), ('member_of2', AGG1)],
     "should be specified in `same_subtree` query param: bad group(s) "
     "- ['2']."),
    ([('group_policy', 'none')], 'There must be at least one'),
    ([('resources1', 'VCPU:1'), ('resources2', 'VCPU:1')],
     'The "group_policy" parameter is required'),
    ([('resources', 'VCPU:1'), ('in_tree', 'nope')],
     "Expected 'in_tree' parameter to be a format of uuid"),
    ([('resources1', 'VCPU:1'), ('required1', 'A,!A')],
     'Conflicting required and forbidden traits found in the following '
     'traits keys: required1: (A)'),
    ([('resources', 'VCPU:1'), ('same_subtree', '_A')],
     "`same_subtree`: ['_A'] not found in ['']."),
    ([('resources', 'VCPU:1'), ('limit', 'cow'), ('limit', '1')],
     "'cow' does not match"),
    ([('resources1', 'VCPU:1'), ('group_policy', 'bogus'),
      ('group_policy', 'none')], "'bogus' is not one of"),
])
def test_bad_candidate_query(pairs, message):
    with pytest.raises(errors.BadRequest) as exc:
        query.parse_candidate_query(params(*pairs), LATEST)
    assert message in detail(exc)


def test_resourceless_groups_need_same_subtree():
    pairs = [('resources_A', 'VCPU:1'), ('required_B', 'CUSTOM_X'),
             ('group_policy', 'none')]
    with pytest.raises(errors.BadRequest):
        query.parse_candidate_query(params(*pairs), LATEST)
    parsed = query.parse_candidate_query(
        params(*pairs, ('same_subtree', '_A,_B')), LATEST)
    assert parsed.groups['_B'].resources == {}
    assert parsed.same_subtree == [('_A', '_B')]


def test_root_required():
    root = query_filters.parse_root_required(params(('root_required', 'A,!B')))
    assert root.required == (frozenset({'A'}),)
    assert root.forbidden == frozenset({'B'})
    with pytest.raises(errors.BadRequest) as exc:
        query_filters.parse_root_required(params(('root_required', 'A'),
                                         ('root_required', 'B')))
    assert exc.value.detail == (
        "Query parameter 'root_required' may be specified only once.")
    with pytest.raises(errors.BadRequest) as exc:
        query_filters.parse_root_required(params(('root_required', 'A,B,!A')))
    assert 'found in root_required: A' in detail(exc)
