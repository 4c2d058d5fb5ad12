"""The read path and the write path apply one units rule and one room
rule (objects/figures.py): a provider is listed by GET
/allocation_candidates for ``resources=VCPU:n`` exactly when PUT
/allocations of n on it succeeds, at every boundary of min_unit,
max_unit, step_size, reserved, fractional allocation ratios and usage
near capacity."""
from support.helpers import error, get_candidates, new_uuid, put

# name: (inventory fields, used).  The ratios are exact in single
# precision: MySQL lists by the stored single-precision ratio, a claim
# goes by the ratio its driver reads (10 x 0.7 is 6.99999988 there and
# 7.0 here), as upstream does.
CASES = {
    'plain': ({'total': 10}, 0),
    'reserved-ratio-1.5': ({'total': 10, 'reserved': 2,
                            'allocation_ratio': 1.5, 'max_unit': 20}, 5),
    'ratio-16': ({'total': 4, 'allocation_ratio': 16.0, 'min_unit': 2,
                  'max_unit': 64, 'step_size': 2}, 58),
    'step-3': ({'total': 7, 'reserved': 1, 'allocation_ratio': 1.5,
                'min_unit': 3, 'max_unit': 9, 'step_size': 3}, 0),
    'half-a-unit': ({'total': 3, 'allocation_ratio': 0.5}, 0),
    'quarter-left': ({'total': 5, 'allocation_ratio': 1.25,
                      'max_unit': 10}, 3),
    'half-left': ({'total': 9, 'allocation_ratio': 1.5,
                   'max_unit': 100}, 13),
    'max-below-free': ({'total': 100, 'min_unit': 5, 'max_unit': 20,
                        'step_size': 5}, 50),
    'full': ({'total': 6, 'reserved': 1}, 5),
    'over-committed': ({'total': 4, 'max_unit': 8}, 6),
}
AMOUNTS = range(1, 24)


def test_listed_exactly_when_claimable(client, w):
    for name, (fields, used) in CASES.items():
        w.add(name, inventory={'VCPU': fields}, used={'VCPU': used})
    disagree = []
    claimed = 0
    for amount in AMOUNTS:
        body = get_candidates(client, resources='VCPU:%d' % amount)
        listed = {w.name_of(uuid) for uuid in body['provider_summaries']}
        for name in CASES:
            consumer = new_uuid()
            response = put(client, consumer, {w.uuid(name): {'VCPU': amount}})
            if response.status_code == 204:
                claimed += 1
                assert client.delete(
                    '/allocations/%s' % consumer).status_code == 204
            else:
                assert response.status_code == 409, response.text
                assert 'Unable to allocate inventory' in error(
                    response)['detail'], response.text
            if (response.status_code == 204) != (name in listed):
                disagree.append((name, amount, response.status_code))
    assert not disagree
    # Both answers occur, so the boundaries were crossed.
    assert 0 < claimed < len(AMOUNTS) * len(CASES)


def test_units_fail_before_room(client, w):
    """An amount breaking both rules is refused for its units, as
    upstream words it."""
    w.add('step', inventory={'VCPU': {'total': 4, 'step_size': 3,
                                      'max_unit': 9}}, used={'VCPU': 3})
    response = put(client, new_uuid(), {w.uuid('step'): {'VCPU': 2}})
    assert response.status_code == 409
    assert 'would violate inventory constraints' in error(
        response)['detail']
    response = put(client, new_uuid(), {w.uuid('step'): {'VCPU': 3}})
    assert response.status_code == 409
    assert 'would exceed the capacity' in error(response)['detail']
