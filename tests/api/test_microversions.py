"""The microversion registry and what is derived from it (no server)."""
import os
import re

import pytest
import webob

from placement import errors
from placement import microversions
from placement.schemas import aggregate
from placement.schemas import allocation
from placement.schemas import allocation_candidate
from placement.schemas import reshaper
from placement.schemas import resource_provider
from placement.schemas import usage
from placement.web import environ_keys
from placement.web import negotiation
import support

ROOT = support.REPO
CHOICES = {
    'aggregate.SET_AGGREGATES': aggregate.SET_AGGREGATES,
    'allocation.PUT': allocation.PUT,
    'allocation.POST': allocation.POST,
    'allocation_candidate.QUERY': allocation_candidate.QUERY,
    'reshaper.POST': reshaper.POST,
    'resource_provider.POST': resource_provider.POST,
    'resource_provider.PUT': resource_provider.PUT,
    'resource_provider.LIST_QUERY': resource_provider.LIST_QUERY,
    'usage.QUERY': usage.QUERY,
}


def test_every_version_is_named_once_in_order():
    assert [tuple(v) for v in microversions.ALL] == [
        (1, minor) for minor in range(len(microversions.ALL))]
    assert microversions.MIN == (1, 0)
    assert microversions.MAX == microversions.ALL[-1]
    names = [v.name for v in microversions.ALL]
    assert len(set(names)) == len(names)
    for version in microversions.ALL:
        assert getattr(microversions, version.name) is version
        assert version.description and '\n' not in version.description


def test_negotiation_uses_the_registry_range():
    assert negotiation.max_version_string() == str(microversions.MAX)
    assert negotiation.parse({}) == microversions.MIN
    assert negotiation.parse(
        {'openstack-api-version': 'placement latest'}) == microversions.MAX


@pytest.mark.parametrize('own,detail', [
    # Upstream's routes answer an older version with an empty 404.
    (False, None),
    # A route of ours says which version it needs.
    (True, 'GET /traits is not available before microversion 1.6.'),
])
def test_route_below_its_version_is_a_404(own, detail):
    @negotiation.since(microversions.TRAITS)
    def handler(req):
        return 'answered'

    # The router marks the routes of ours.
    req = webob.Request.blank('/traits', {environ_keys.OWN_ROUTE: own})
    req.environ[environ_keys.MICROVERSION] = microversions.RESOURCE_CLASSES
    with pytest.raises(errors.NotFound) as caught:
        handler(req)
    assert caught.value.detail == detail
    req.environ[environ_keys.MICROVERSION] = microversions.TRAITS
    assert handler(req) == 'answered'


def test_api_ref_version_table_matches_the_registry():
    text = (ROOT / 'api-ref' / 'README.md').read_text()
    table = re.search(r'^\| Version \| Change \|\n\|---\|---\|\n'
                      r'((?:\|.*\n)+)', text, re.M)
    assert table, 'version table not found in api-ref/README.md'
    expected = ''.join('| %s | %s |\n' % (v, v.description)
                       for v in microversions.ALL)
    # On failure, paste the expected rows into api-ref/README.md.
    assert table.group(1) == expected


def test_no_raw_version_tuples_in_the_service():
    raw = re.compile(r'\(1, \d+\)')
    offenders = []
    for path in (ROOT / 'placement').rglob('*.py'):
        if path.name == 'microversions.py':
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if raw.search(line):
                offenders.append('%s:%d: %s' % (
                    os.path.relpath(path, ROOT), number, line.strip()))
    assert not offenders, 'name the version in microversions.py:\n' + (
        '\n'.join(offenders))


@pytest.mark.parametrize('name', sorted(CHOICES))
def test_schema_choice_ranges_cover_every_version_from_the_first(name):
    choice = CHOICES[name]
    ranges = choice.ranges()
    assert ranges[-1][1] == microversions.MAX
    for (_, last, _), (first, _, _) in zip(ranges, ranges[1:]):
        assert microversions.ALL.index(first) == (
            microversions.ALL.index(last) + 1)
    for first, last, value in ranges:
        assert choice.at(first) is value and choice.at(last) is value
    if ranges[0][0] > microversions.MIN:
        with pytest.raises(LookupError):
            choice.at(microversions.ALL[microversions.ALL.index(
                ranges[0][0]) - 1])


@pytest.mark.parametrize('version', [
    v for v in microversions.ALL
    if v >= microversions.ALLOCATION_CANDIDATES], ids=str)
def test_candidate_query_schema_steps_miss_no_change(version):
    # QUERY lists the versions at which the query schema changes; a
    # version missing from that list would be served an older schema.
    assert allocation_candidate.QUERY.at(version) == (
        allocation_candidate._schema(version))


def test_by_version_refuses_unordered_steps():
    with pytest.raises(ValueError):
        microversions.ByVersion((microversions.TRAITS, 1),
                                (microversions.AGGREGATES, 2))
