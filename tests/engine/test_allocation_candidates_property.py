"""GET /allocation_candidates over real HTTP held, on small random trees,
to a brute-force enumerator written independently here: every returned
candidate fits and no fitting combination is missed."""
import itertools

import hypothesis
from hypothesis import strategies as st

from support.helpers import SHARING, get_candidates
from support.random_clouds import TRAITS, group_st, over_http, provider_st


def _fits(info, rc, amount):
    inv = info['inventory'].get(rc)
    if inv is None:
        return False
    capacity = (inv['total'] - inv['reserved']) * inv['allocation_ratio']
    return (inv['min_unit'] <= amount <= inv['max_unit']
            and amount % inv['step_size'] == 0
            and info['used'].get(rc, 0) + amount <= capacity)


def brute_force(world, groups, isolate):
    """Every candidate, by trying every provider for every (group, class)
    in every tree plus the sharing providers serving it."""
    infos = list(world.providers.values())
    by_id = {info['id']: info for info in infos}
    results = set()
    for root in {info['root'] for info in infos}:
        tree = [info for info in infos if info['root'] == root]
        tree_aggs = set().union(*(info['aggs'] for info in tree))
        usable = tree + [info for info in infos
                         if SHARING in info['traits']
                         and info['aggs'] & tree_aggs
                         and info['root'] != root]
        options = []
        for suffix, resources, required, forbidden in groups:
            allowed = [info for info in usable
                       if not info['traits'] & forbidden]
            choices = []
            if suffix == '':
                rcs = list(resources)
                per_rc = [[info for info in allowed
                           if _fits(info, rc, resources[rc])] for rc in rcs]
                for picks in itertools.product(*per_rc):
                    have = set().union(*(p['traits'] for p in picks))
                    if required <= have:
                        choices.append(
                            [(p['id'], rc, resources[rc])
                             for p, rc in zip(picks, rcs)])
            else:
                for info in allowed:
                    if required <= info['traits'] and all(
                            _fits(info, rc, amount)
                            for rc, amount in resources.items()):
                        choices.append([(info['id'], rc, amount)
                                        for rc, amount in resources.items()])
            options.append(choices)
        for combo in itertools.product(*options):
            singles = [parts[0][0] for (suffix, *_), parts
                       in zip(groups, combo) if suffix]
            if isolate and len(set(singles)) != len(singles):
                continue
            total = {}
            for parts in combo:
                for rp, rc, amount in parts:
                    total[(rp, rc)] = total.get((rp, rc), 0) + amount
            if not all(_fits(by_id[rp], rc, amount)
                       for (rp, rc), amount in total.items()):
                continue
            allocations = frozenset(
                (by_id[rp]['uuid'], rc, amount)
                for (rp, rc), amount in total.items())
            mappings = frozenset(
                (suffix, frozenset(by_id[rp]['uuid'] for rp, _, _ in parts))
                for (suffix, *_), parts in zip(groups, combo))
            results.add((allocations, mappings))
    return results


def returned(body):
    found = []
    for request in body['allocation_requests']:
        allocations = frozenset(
            (uuid, rc, amount)
            for uuid, value in request['allocations'].items()
            for rc, amount in value['resources'].items())
        mappings = frozenset((suffix, frozenset(uuids))
                             for suffix, uuids in request['mappings'].items())
        found.append((allocations, mappings))
    return found


@over_http(120)
@hypothesis.given(
    providers=st.lists(provider_st, min_size=1, max_size=7),
    groups=st.lists(group_st, min_size=1, max_size=3),
    unsuffixed=st.booleans(),
    isolate=st.booleans())
def test_candidates_match_brute_force(client, world, providers, groups,
                                      unsuffixed, isolate):
    world.clear()
    world.add_random(providers)
    request = [('' if unsuffixed and index == 0 else str(index + 1), group)
               for index, group in enumerate(groups)]
    groups = []
    params = {}
    for suffix, group in request:
        forbidden = group['forbidden'] - group['required']
        groups.append((suffix, group['resources'], group['required'],
                       forbidden))
        params['resources' + suffix] = ','.join(
            '%s:%d' % item for item in group['resources'].items())
        traits = sorted(group['required']) + ['!' + t for t in
                                              sorted(forbidden)]
        if traits:
            params['required' + suffix] = ','.join(traits)
    params['group_policy'] = 'isolate' if isolate else 'none'
    # Custom traits must exist to be named in a query.
    with world.engine.begin() as conn:
        for trait in TRAITS:
            world._trait(conn, trait)
    body = get_candidates(client, **params)
    found = returned(body)
    hypothesis.event('candidates: %s' % min(len(found), 3))
    assert len(found) == len(set(found)), 'duplicate candidates'
    assert set(found) == brute_force(world, groups, isolate)
    assert set(body['provider_summaries']) == {
        info['uuid'] for info in world.providers.values()
        if any(info['root'] == world.providers[world.name_of(uuid)]['root']
               for allocations, _ in found for uuid, _, _ in allocations)}
