"""Bad input to GET /allocation_candidates: always a 4xx error
document; amounts and limits beyond any column are no error
(helpers: bad_input_support.py)."""
import pytest

from support import bad_input_support as support
from support.bad_input_support import (AC, Case, HUGE, INT32_OVER, INT64_OVER,
                                       RP, RP2, RPS, TRAIT, log_mark,
                                       log_since)

CASES = {
    # -- GET /allocation_candidates -------------------------------------
    'ac-before-1.10': Case('GET', AC + '?resources=VCPU:1', 404,
                           version='1.9'),
    'ac-no-resources': Case('GET', AC, 400, version='1.10'),
    'ac-no-groups': Case('GET', AC, 400),
    'ac-resources-empty': Case('GET', AC + '?resources=', 400),
    'ac-resources-zero': Case('GET', AC + '?resources=VCPU:0', 400),
    'ac-resources-negative': Case('GET', AC + '?resources=VCPU:-1', 400),
    'ac-resources-not-int': Case('GET', AC + '?resources=VCPU:1.5', 400),
    'ac-resources-unknown-class': Case('GET', AC + '?resources=CUSTOM_NOPE:1',
                                       400),
    'ac-unknown-param': Case('GET', AC + '?resources=VCPU:1&colour=red', 400),
    'ac-limit-zero': Case('GET', AC + '?resources=VCPU:1&limit=0', 400),
    'ac-limit-negative': Case('GET', AC + '?resources=VCPU:1&limit=-1', 400),
    'ac-limit-word': Case('GET', AC + '?resources=VCPU:1&limit=all', 400),
    'ac-limit-before-1.16': Case('GET', AC + '?resources=VCPU:1&limit=1', 400,
                                 version='1.15'),
    'ac-required-unknown-trait': Case(
        'GET', AC + '?resources=VCPU:1&required=CUSTOM_NOPE', 400),
    'ac-required-forbidden-before-1.22': Case(
        'GET', AC + '?resources=VCPU:1&required=!' + TRAIT, 400,
        version='1.21'),
    'ac-required-any-before-1.39': Case(
        'GET', AC + '?resources=VCPU:1&required=in:' + TRAIT, 400,
        version='1.38'),
    'ac-required-conflict': Case(
        'GET', AC + '?resources=VCPU:1&required=%s,!%s' % (TRAIT, TRAIT),
        400),
    'ac-member-of-bad-uuid': Case('GET', AC + '?resources=VCPU:1'
                                  '&member_of=nope', 400),
    'ac-member-of-twice-before-1.24': Case(
        'GET', AC + '?resources=VCPU:1&member_of=%s&member_of=%s'
        % (RP, RP2), 400, version='1.23'),
    'ac-in-tree-bad-uuid': Case('GET', AC + '?resources=VCPU:1&in_tree=nope',
                                400),
    'ac-group-policy-bad': Case('GET', AC + '?resources1=VCPU:1'
                                '&group_policy=some', 400),
    'ac-group-policy-missing': Case('GET', AC + '?resources1=VCPU:1'
                                    '&resources2=VCPU:1', 400),
    'ac-string-suffix-before-1.33': Case('GET', AC + '?resources_A=VCPU:1',
                                         400, version='1.32'),
    'ac-suffix-too-long': Case('GET', AC + '?resources%s=VCPU:1' % ('x' * 65),
                               400),
    'ac-orphan-required': Case('GET', AC + '?resources=VCPU:1&required1='
                               + TRAIT, 400),
    'ac-root-required-twice': Case(
        'GET', AC + '?resources=VCPU:1&root_required=%s&root_required=%s'
        % (TRAIT, TRAIT), 400, code='placement.query.duplicate_key'),
    'ac-root-required-conflict': Case(
        'GET', AC + '?resources=VCPU:1&root_required=%s,!%s' % (TRAIT, TRAIT),
        400, code='placement.query.bad_value'),
    'ac-root-required-before-1.35': Case(
        'GET', AC + '?resources=VCPU:1&root_required=' + TRAIT, 400,
        version='1.34'),
    'ac-same-subtree-unknown-suffix': Case(
        'GET', AC + '?resources_A=VCPU:1&same_subtree=_A,_B', 400),
    'ac-same-subtree-empty-suffix': Case(
        'GET', AC + '?resources_A=VCPU:1&same_subtree=_A,', 400),

    # -- parameters and fields before their microversion, more types ----
    'ac-in-tree-suffixed-before-1.31': Case(
        'GET', AC + '?resources1=VCPU:1&in_tree1=' + RP, 400,
        version='1.30'),
    'ac-forbidden-aggregate-before-1.32': Case(
        'GET', AC + '?resources=VCPU:1&member_of=!' + RP2, 400,
        version='1.31'),
    'ac-same-subtree-before-1.36': Case(
        'GET', AC + '?resources_A=VCPU:1&same_subtree=_A', 400,
        version='1.35'),
}


# The seeded world, built once for this module.
seeded = support.seeded


@pytest.mark.parametrize('case', support.params(CASES))
def test_bad_input_is_a_4xx_error_document(seeded, server, case):
    support.check(seeded, server, case)


# Amounts no inventory can hold are valid queries that find nothing.
HUGE_QUERIES = [
    RPS + '?resources=VCPU:%d' % INT64_OVER,
    RPS + '?resources=VCPU:%d' % HUGE,
    AC + '?resources=VCPU:%d' % INT64_OVER,
    AC + '?resources=VCPU:%d' % HUGE,
]


@pytest.mark.parametrize('path', HUGE_QUERIES)
def test_amounts_beyond_any_column_find_nothing(seeded, server, path):
    mark = log_mark(server)
    response = seeded.get(path)
    log = log_since(server, mark)
    assert 'Traceback' not in log, log
    assert response.status_code == 200, response.text
    assert not any(response.json().values()), response.text


@pytest.mark.parametrize('limit', [INT32_OVER, INT64_OVER, HUGE])
def test_candidate_limit_beyond_any_column_is_no_limit(seeded, server, limit):
    mark = log_mark(server)
    response = seeded.get(AC + '?resources=VCPU:1&limit=%d' % limit)
    log = log_since(server, mark)
    assert 'Traceback' not in log, log
    assert response.status_code == 200, response.text
    assert len(response.json()['allocation_requests']) == 2
