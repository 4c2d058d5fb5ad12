"""POST /claims held to an oracle over HTTP on generated clouds (flat,
nested, sharing): a group of consumers is placed exactly when a
brute-force search over GET /allocation_candidates' answer finds room
for all of them together under the roots rule, every allocation written
is one of those candidates, and a refused group writes nothing, in
every order."""
import hypothesis
from hypothesis import strategies as st
import pytest

from support import helpers
from support.random_clouds import group_st, over_http, provider_st
from support.helpers import SHARING


def _query(groups, unsuffixed, isolate):
    params = {}
    for index, group in enumerate(groups):
        suffix = '' if unsuffixed and index == 0 else str(index + 1)
        params['resources' + suffix] = ','.join(
            '%s:%d' % item for item in sorted(group['resources'].items()))
    if len(groups) > 1:
        params['group_policy'] = 'isolate' if isolate else 'none'
    return params


def _root(candidate, summaries, sharing):
    """The root of a candidate's tree: that of its first provider other
    than a sharing one, in mapping order, else of its first."""
    providers = [rp for rps in candidate['mappings'].values() for rp in rps]
    own = [rp for rp in providers if rp not in sharing] or providers
    return summaries[own[0]]['root_provider_uuid']


def _placeable(candidates, free, count, roots):
    """Whether ``count`` candidates (repeats allowed) fit together in
    ``free`` {(rp, rc): free}, their roots obeying ``roots``."""
    def fits(candidate, taken):
        return all(taken.get((rp, rc), 0) + amount <= free[rp, rc]
                   for rp, entry in candidate['allocations'].items()
                   for rc, amount in entry['resources'].items())

    def place(start, left, taken, used_roots):
        if not left:
            return True
        for index in range(start, len(candidates)):
            candidate, root = candidates[index]
            if roots == 'distinct' and root in used_roots:
                continue
            if roots == 'same' and used_roots and root not in used_roots:
                continue
            if not fits(candidate, taken):
                continue
            more = dict(taken)
            for rp, entry in candidate['allocations'].items():
                for rc, amount in entry['resources'].items():
                    more[rp, rc] = more.get((rp, rc), 0) + amount
            if place(index, left - 1, more, used_roots | {root}):
                return True
        return False

    return place(0, count, {}, frozenset())


def _usages(client, world):
    return {name: client.get('/resource_providers/%s/usages'
                             % info['uuid']).json()['usages']
            for name, info in world.providers.items()}


@pytest.mark.parametrize('roots', ['any', 'distinct', 'same'])
@over_http(40)
@hypothesis.given(
    providers=st.lists(provider_st, min_size=1, max_size=5),
    groups=st.lists(group_st, min_size=1, max_size=2),
    unsuffixed=st.booleans(),
    isolate=st.booleans(),
    count=st.integers(1, 8),
    order=st.sampled_from(['default', 'spread', 'pack']))
def test_a_group_is_placed_exactly_when_the_candidates_hold_it(
        client, world, providers, groups, unsuffixed, isolate, count,
        order, roots):
    world.clear()
    world.add_random(providers)
    params = _query(groups, unsuffixed, isolate)
    listed = helpers.get_candidates(client, **params)
    summaries = listed['provider_summaries']
    sharing = {info['uuid'] for info in world.providers.values()
               if SHARING in info['traits']}
    candidates = [(candidate, _root(candidate, summaries, sharing))
                  for candidate in listed['allocation_requests']]
    # A shape without candidates says the same for any group: once is
    # enough.
    hypothesis.assume(candidates or count == 1)
    free = {(rp, rc): figures['capacity'] - figures['used']
            for rp, summary in summaries.items()
            for rc, figures in summary['resources'].items()}
    expected = _placeable(candidates, free, count, roots)
    before = _usages(client, world)
    group = {helpers.new_uuid(): {
        'project_id': helpers.PROJECT, 'user_id': helpers.USER,
        'consumer_generation': None, 'consumer_type': 'INSTANCE'}
        for _ in range(count)}
    response = client.post('/claims', json={
        'shape': params, 'consumers': group, 'roots': roots,
        'order': order})
    hypothesis.event('placed' if expected else 'refused' if not candidates
                     else 'refused, with candidates')
    hypothesis.event('nested' if any(
        info['parent'] for info in world.providers.values()) else 'flat')
    hypothesis.event('sharing' if sharing else 'no sharing')
    hypothesis.event(order)
    if not expected:
        assert response.status_code == 409, response.text
        assert helpers.error(response)['code'] == 'placement.claims.no_fit'
        assert _usages(client, world) == before
        return
    assert response.status_code == 200, response.text
    claimed = response.json()['allocations']
    assert set(claimed) == set(group)
    allowed = [(candidate['allocations'], root)
               for candidate, root in candidates]
    for uuid, entry in claimed.items():
        assert (entry['allocations'], entry['root']) in allowed
        written = client.get('/allocations/' + uuid).json()['allocations']
        assert {rp: {'resources': found['resources']}
                for rp, found in written.items()} == entry['allocations']
    found_roots = [entry['root'] for entry in claimed.values()]
    if roots == 'distinct':
        assert len(set(found_roots)) == count
    elif roots == 'same':
        assert len(set(found_roots)) == 1
