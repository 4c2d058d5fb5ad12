"""Writes refused as a whole leave nothing behind: not a row they
touched before the refusal changes (helpers: bad_input_support.py)."""
import uuid

import pytest

from placement import microversions

from support import bad_input_support as support
from support.bad_input_support import (ALLOC, CLASS, CONSUMER, INV, RP, RP2,
                                       RPS, RP_URL, SERVICE, UNKNOWN,
                                       allocation_body, assert_error_document,
                                       inventory_put)

# The seeded world, built once for this module.
seeded = support.seeded


def state(http, provider=RP):
    """Everything a failed write on ``provider`` could have touched."""
    base = RPS + '/' + provider
    return {
        'provider': http.get(base).json(),
        'inventories': http.get(base + '/inventories').json(),
        'usages': http.get(base + '/usages').json()['usages'],
        'traits': http.get(base + '/traits').json()['traits'],
        'aggregates': http.get(base + '/aggregates').json()['aggregates'],
        'allocations': http.get(base + '/allocations').json()['allocations'],
    }


def both_states(http):
    return state(http, RP), state(http, RP2)


def assert_refused(response, status):
    assert response.status_code == status, response.text
    assert_error_document(response, microversions.MAX)


@pytest.mark.parametrize('inventories,status', [
    pytest.param({'VCPU': {'total': 16}, 'CUSTOM_NOPE': {'total': 1}}, 400,
                 id='one-unknown-class'),
    pytest.param({'VCPU': {'total': 16}, 'MEMORY_MB': {
        'total': 10, 'reserved': 11}}, 400, id='one-reserved-over-total'),
    pytest.param({'MEMORY_MB': {'total': 4096}}, 409,
                 id='drops-a-class-in-use'),
    pytest.param({'VCPU': {'total': 16}, 'MEMORY_MB': {'total': 'x'}}, 400,
                 id='one-bad-type'),
], )
def test_put_inventories_with_one_bad_record_changes_nothing(
        seeded, inventories, status):
    before = both_states(seeded)
    generation = before[0]['provider']['generation']
    response = seeded.put(INV, json=inventory_put(inventories, generation))
    assert_refused(response, status)
    assert both_states(seeded) == before


@pytest.mark.parametrize('bad_body, status', [
    pytest.param(allocation_body({'VCPU': 1}, provider=UNKNOWN), 400,
                 id='unknown-provider'),
    pytest.param(allocation_body({'VCPU': 100}, provider=RP2), 409,
                 id='over-capacity'),
    pytest.param(allocation_body({'DISK_GB': 1}, provider=RP2), 409,
                 id='no-such-inventory'),
    pytest.param(allocation_body({'VCPU': 1}, provider=RP2, generation=5),
                 409, id='stale-consumer-generation'),
])
def test_post_allocations_with_one_bad_consumer_writes_none(
        seeded, bad_body, status):
    before = both_states(seeded)
    good, bad = str(uuid.uuid4()), str(uuid.uuid4())
    response = seeded.post('/allocations', json={
        good: allocation_body({'VCPU': 1, 'MEMORY_MB': 64}),
        bad: bad_body})
    assert_refused(response, status)
    for consumer in (good, bad):
        assert seeded.get('/allocations/' + consumer).json() == {
            'allocations': {}}
    assert both_states(seeded) == before


def test_post_allocations_bad_move_keeps_the_old_allocations(seeded):
    # Moving CONSUMER off RP while another consumer overflows RP2: the
    # move must not happen either.
    before = both_states(seeded)
    current = seeded.get(ALLOC).json()
    response = seeded.post('/allocations', json={
        CONSUMER: allocation_body({'VCPU': 1}, provider=RP2,
                                  generation=current['consumer_generation']),
        str(uuid.uuid4()): allocation_body({'VCPU': 100}, provider=RP2)})
    assert_refused(response, 409)
    assert seeded.get(ALLOC).json() == current
    assert both_states(seeded) == before


def test_put_allocations_over_capacity_on_one_provider_writes_none(seeded):
    before = both_states(seeded)
    consumer = '/allocations/' + str(uuid.uuid4())
    body = allocation_body({'VCPU': 1})
    body['allocations'][RP2] = {'resources': {'VCPU': 100}}
    assert_refused(seeded.put(consumer, json=body), 409)
    assert seeded.get(consumer).json() == {'allocations': {}}
    assert both_states(seeded) == before


@pytest.mark.parametrize('case', [
    'unknown-provider', 'stale-generation', 'shrink-below-use'])
def test_reshaper_with_a_bad_part_changes_nothing(seeded, case):
    before = both_states(seeded)
    generations = [s['provider']['generation'] for s in before]
    current = seeded.get(ALLOC).json()
    inventories = {
        RP: inventory_put({'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 1},
                           CLASS: {'total': 4}}, generations[0]),
        RP2: inventory_put({'VCPU': {'total': 1}}, generations[1])}
    if case == 'unknown-provider':
        # The inventories are fine, a consumer names an unknown provider.
        allocations = {CONSUMER: allocation_body(
            {'VCPU': 1}, provider=UNKNOWN,
            generation=current['consumer_generation'])}
        status = 400
    elif case == 'stale-generation':
        # The allocations are fine, the second provider's generation is
        # stale.
        inventories[RP2] = inventory_put({'VCPU': {'total': 1}},
                                         generations[1] + 5)
        allocations = {CONSUMER: allocation_body(
            {'VCPU': 1}, provider=RP2,
            generation=current['consumer_generation'])}
        status = 409
    else:
        # Shrinking RP's VCPU below what stays allocated there.
        inventories = {RP: inventory_put({'MEMORY_MB': {'total': 1},
                                          CLASS: {'total': 4}},
                                         generations[0])}
        allocations, status = {}, 409
    response = seeded.post('/reshaper', headers=SERVICE, json={
        'inventories': inventories, 'allocations': allocations})
    assert_refused(response, status)
    assert seeded.get(ALLOC).json() == current
    assert both_states(seeded) == before


def test_provider_traits_with_one_unknown_trait_changes_nothing(seeded):
    before = both_states(seeded)
    response = seeded.put(RP_URL + '/traits', json={
        'traits': ['HW_CPU_X86_AVX', 'CUSTOM_NOPE'],
        'resource_provider_generation': before[0]['provider']['generation']})
    assert_refused(response, 400)
    assert both_states(seeded) == before


@pytest.mark.parametrize('body, status', [
    pytest.param({'name': 'orphan', 'parent_provider_uuid': UNKNOWN}, 400,
                 id='unknown-parent'),
    pytest.param({'name': 'rp1'}, 409, id='duplicate-name'),
])
def test_failed_provider_create_leaves_no_provider(seeded, body, status):
    new = str(uuid.uuid4())
    assert_refused(seeded.post(RPS, json=dict(body, uuid=new)), status)
    assert seeded.get(RPS + '/' + new).status_code == 404
    names = [p['name'] for p in seeded.get(RPS).json()['resource_providers']]
    assert sorted(names) == ['rp1', 'rp2']


@pytest.mark.parametrize('body, status', [
    pytest.param({'name': 'rp2'}, 409, id='duplicate-name'),
    pytest.param({'name': 'rp1', 'parent_provider_uuid': RP}, 400,
                 id='own-parent'),
    pytest.param({'name': 'renamed', 'parent_provider_uuid': UNKNOWN}, 400,
                 id='unknown-parent'),
])
def test_failed_provider_update_keeps_name_and_generation(seeded, body,
                                                          status):
    before = both_states(seeded)
    assert_refused(seeded.put(RP_URL, json=body), status)
    assert both_states(seeded) == before
