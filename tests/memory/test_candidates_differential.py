"""Allocation candidates from memory are the database's, byte for byte.

The pair of servers of tests/memory/conftest.py (``database`` reads SQL,
``snapshot`` its workers' snapshots) on random clouds written through the
API to either server (support/api_clouds.py).  Random writes follow
(consumers moved, their types changed at microversion 1.38, deleted
among them), and after each the same random GET /allocation_candidates
at microversions 1.10 to 1.39, its explanation and GET /capacity, and
random POST /capacity what-ifs (``without``, ``with``, ``evacuate``,
``survive``, ``shapes_of``) and shapes alike but for their amounts
must answer alike on both: status and body
bytes (an error's without its request id).  Bytes, not sorted
candidates: with the default configuration
(``randomize_allocation_candidates`` off) the order is part of the
answer.
"""
import random
import urllib.parse

import pytest
import sqlalchemy as sa

from support import api_clouds
from support import helpers
from support import snapshot_pair

VERSIONS = ['1.10', '1.17', '1.21', '1.25', '1.29', '1.33', '1.35',
            '1.36', '1.39']
# The classes requests ask for, the common ones more often.
ASKED = api_clouds.CLASSES + ['VCPU', 'MEMORY_MB', 'DISK_GB']


# -- queries ----------------------------------------------------------------

def _traits_param(rng, minor):
    traits = rng.sample(api_clouds.TRAITS, rng.randint(1, 2))
    if minor >= 39 and rng.random() < 0.3:
        return 'in:' + ','.join(traits)
    return ','.join(('!' if minor >= 22 and rng.random() < 0.3 else '') + t
                    for t in traits)


def _member_of_param(rng, minor):
    aggregates = rng.sample(api_clouds.AGGREGATES, rng.randint(1, 2))
    if minor >= 32 and rng.random() < 0.3:
        return '!' + aggregates[0]
    return ('in:' + ','.join(aggregates) if len(aggregates) > 1
            else aggregates[0])


def _resources(rng, classes):
    """A ``resources`` value of ``classes``, each amount drawn from the
    cloud's shapes of its class."""
    return ','.join('%s:%d' % (rc, rng.choice(api_clouds.SHAPES[rc][3]))
                    for rc in sorted(classes))


def _group(rng, cloud, minor, suffix):
    """One request group's parameters."""
    params = []
    if not (minor >= 36 and suffix and rng.random() < 0.15):
        classes = {rng.choice(ASKED) for _ in range(rng.choice([1, 2, 3]))}
        params.append(('resources' + suffix, _resources(rng, classes)))
    for _ in range(2 if minor >= 39 else 1):
        if minor >= 17 and rng.random() < 0.25:
            params.append(('required' + suffix, _traits_param(rng, minor)))
    for _ in range(2 if minor >= 24 else 1):
        if minor >= 21 and rng.random() < 0.2:
            params.append(('member_of' + suffix,
                           _member_of_param(rng, minor)))
    if minor >= 31 and rng.random() < 0.15:
        params.append(('in_tree' + suffix, rng.choice(
            cloud.of('root', 'numa', 'pf') + [cloud.uuid()])))
    return params


def _query(rng, cloud, version):
    """Parameters of a GET /allocation_candidates valid at ``version``
    (but for a few: an unknown name, a missing group_policy)."""
    minor = int(version.split('.')[1])
    suffixes = []
    if minor >= 25 and rng.random() < 0.5:
        names = ['1', '2', '3'] if minor < 33 else ['1', '_NET', '_ACCEL']
        suffixes = rng.sample(names, rng.randint(1, 2))
    params = []
    if not suffixes or rng.random() < 0.7:
        params += _group(rng, cloud, minor, '')
    for suffix in suffixes:
        params += _group(rng, cloud, minor, suffix)
    if suffixes and rng.random() < 0.95:
        params.append(('group_policy', rng.choice(['none', 'isolate'])))
    if minor >= 16 and rng.random() < 0.3:
        params.append(('limit', str(rng.randint(1, 4))))
    if minor >= 35 and rng.random() < 0.3:
        params.append(('root_required', ','.join(rng.sample(
            ['HW_CPU_X86_AVX', '!COMPUTE_STATUS_DISABLED', 'CUSTOM_FAST'],
            rng.randint(1, 2)))))
    if minor >= 36 and len(suffixes) > 1 and rng.random() < 0.5:
        params.append(('same_subtree', ','.join(suffixes)))
    if rng.random() < 0.05:
        params.append(rng.choice([('resources', 'CUSTOM_NOPE:1'),
                                  ('required', 'CUSTOM_NOPE')]))
    return params


def _what_if(rng, cloud, version):
    """A POST /capacity body with random changes: roots taken out (now
    and then one that is not a root), aggregates (some never made),
    copies, the evacuation, N+1 and a consumer's shape given."""
    body = {'shapes': {'s%d' % number: urllib.parse.urlencode(
        _query(rng, cloud, version)) for number in range(rng.randint(1, 2))}}
    roots = cloud.of('root', 'sharing')
    without = {}
    if rng.random() < 0.7:
        without['roots'] = rng.sample(roots, min(len(roots),
                                                 rng.randint(0, 2)))
        if rng.random() < 0.1 and cloud.of('numa'):
            without['roots'].append(cloud.pick('numa'))
    if rng.random() < 0.25:
        without['aggregates'] = rng.sample(api_clouds.AGGREGATES, 1)
    if without:
        body['without'] = without
        body['evacuate'] = rng.random() < 0.7
    if roots and rng.random() < 0.4:
        body['with'] = [{'like': rng.choice(roots),
                         'count': rng.randint(1, 2)}]
    if rng.random() < 0.3:
        body['survive'] = rng.choice(['each_root', {
            'each_root': True,
            'member_of': rng.choice(api_clouds.AGGREGATES)}])
    if cloud.consumers and (body.get('evacuate') or 'survive' in body) \
            and rng.random() < 0.3:
        body['shapes_of'] = {rng.choice(cloud.consumers): 'resources=VCPU:1'}
    if len(body) == 1:
        body['without'] = {'roots': []}
    return body


def _family(rng, version, count):
    """A POST /capacity body of ``count`` shapes alike but for their
    amounts (one: a shape read alone); asked again after each write, the
    trees its count set apart are patched from one snapshot version to
    the next."""
    minor = int(version.split('.')[1])
    classes = {rng.choice(ASKED) for _ in range(rng.choice([1, 2]))}
    rest = []
    if minor >= 17 and rng.random() < 0.4:
        rest.append(('required', _traits_param(rng, minor)))
    if minor >= 21 and rng.random() < 0.3:
        rest.append(('member_of', _member_of_param(rng, minor)))
    return {'shapes': {'f%d' % number: urllib.parse.urlencode(
        [('resources', _resources(rng, classes))] + rest)
        for number in range(count)}}


def _compare(left, right, cloud, counts, asked, queries=8, what_ifs=2):
    """``queries`` random queries alike on both servers, each answered,
    explained and counted (GET /capacity), the POST /capacity ``asked``
    [(version, body)], and ``what_ifs`` random POST /capacity with
    changes; ``counts`` of the statuses seen, of answers with candidates
    and of what-ifs that moved consumers."""
    for _ in range(queries):
        version = cloud.rng.choice(VERSIONS)
        params = _query(cloud.rng, cloud, version)
        one, _ = snapshot_pair.same(
            left, right, '/allocation_candidates', version, params=params)
        for url in ('/allocation_candidates/explain', '/capacity'):
            snapshot_pair.same(left, right, url, version, params=params)
        counts[one.status_code] = counts.get(one.status_code, 0) + 1
        if one.status_code == 200 and one.json()['allocation_requests']:
            counts['found'] = counts.get('found', 0) + 1
    for version, body in asked:
        snapshot_pair.same(left, right, '/capacity', version, body=body)
    for _ in range(what_ifs):
        version = cloud.rng.choice(VERSIONS)
        one, _ = snapshot_pair.same(
            left, right, '/capacity', version,
            body=_what_if(cloud.rng, cloud, version))
        key = 'what-if %d' % one.status_code
        counts[key] = counts.get(key, 0) + 1
        evacuation = one.json().get('evacuation', {}) \
            if one.status_code == 200 else {}
        for what in ('moved', 'dropped'):
            if evacuation.get(what):
                counts[what] = counts.get(what, 0) + 1


@pytest.mark.parametrize(**helpers.seeded([1, 2, 3]))
def test_random_clouds_have_the_same_candidates(pair, seed):
    left, right, server = pair
    cloud = api_clouds.Cloud(random.Random(seed))
    # Drawn apart, so that the cloud's draws stay those of its seed.
    families = random.Random(-seed)
    asked = [(version, _family(families, version, count))
             for count in (1, 2, 3)
             for version in (families.choice(VERSIONS),)]
    counts = {}
    kinds = [step for step, weight in api_clouds.STEPS for _ in range(weight)]
    try:
        api_clouds.build([left, right], cloud)
        _compare(left, right, cloud, counts, asked)
        for _ in range(25):
            cloud.rng.choice(kinds)(cloud.rng.choice([left, right]), cloud)
            _compare(left, right, cloud, counts, asked)
    finally:
        api_clouds.tear_down(left, cloud)
    # The queries found candidates, found none, and were refused; the
    # what-ifs moved consumers, dropped some and were refused.
    found, answered = counts.get('found', 0), counts.get(200, 0)
    assert answered > found > answered / 5 and counts.get(400), counts
    assert counts.get('moved') and counts.get('dropped') \
        and counts.get('what-if 400'), counts
    assert 'without a record in the change feed' not in snapshot_pair.log(
        server)


def _vcpu_capacity(client, rp):
    response = client.get('/allocation_candidates', params={
        'resources': 'VCPU:1', 'in_tree': rp}, headers=helpers.version('1.39'))
    summaries = response.json()['provider_summaries']
    return summaries[rp]['resources']['VCPU']['capacity']


def test_answers_come_from_memory_until_reloaded(pair, engine):
    """A total changed by SQL by hand, which moves none of the figures
    the snapshot compares (no generation, no allocation), is not seen
    until ``placement-manage snapshot reload``."""
    left, right, server = pair
    rp = helpers.make_provider(left, {'VCPU': {'total': 8}})
    for _ in range(4):
        assert _vcpu_capacity(right, rp) == 8
    with engine.begin() as conn:
        conn.execute(sa.text(
            'UPDATE inventories SET total = 4 WHERE resource_provider_id = '
            '(SELECT id FROM resource_providers WHERE uuid = :uuid)'),
            {'uuid': rp})
    assert _vcpu_capacity(left, rp) == 4
    for _ in range(4):
        assert _vcpu_capacity(right, rp) == 8
    snapshot_pair.reload_snapshots(server)
    for _ in range(4):
        assert _vcpu_capacity(right, rp) == 4
        snapshot_pair.same(left, right, '/allocation_candidates', '1.39',
                           params={'resources': 'VCPU:1', 'in_tree': rp})
