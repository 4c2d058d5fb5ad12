"""GET /allocation_candidates/explain where a sharing provider falls
short: the computes of an aggregate take their disk from one shared pool,
which has too little left, or takes too little in one allocation.  The
explanation names the pool, not the computes' lack of disk."""
import tempfile

import httpx

from support import helpers
from support.explain_support import combined, explain
from support.helpers import SHARING, get_candidates

REQUEST = {'resources': 'VCPU:1,MEMORY_MB:512,DISK_GB:20'}


def pooled_cloud(w, pool):
    """Three computes in aggregate A without disk of their own, a fourth
    outside it with its own, and the pool (``pool``: its DISK_GB
    inventory, 90 of it used) shared in A; the request for them."""
    for number in range(1, 4):
        w.add('cn%d' % number, inventory={'VCPU': 16, 'MEMORY_MB': 8192},
              aggs={'A'})
    w.add('cn4', inventory={'VCPU': 16, 'MEMORY_MB': 8192, 'DISK_GB': 500})
    w.add('pool', inventory={'DISK_GB': pool}, used={'DISK_GB': 90},
          traits={SHARING}, aggs={'A'})
    return dict(REQUEST, member_of=w.aggs['A'][1])


def head(shortfall, aggregate):
    return (
        "0 of 5 provider trees can satisfy the request: 3 trees cannot "
        "serve group '' because their sharing provider pool %s; 1 provider "
        "is in none of the aggregates %s; 1 provider has no VCPU "
        "inventory; 3 providers have no DISK_GB inventory; 2 trees cannot "
        "serve group ''." % (shortfall, aggregate))


def test_short_pool_leads_the_summary_and_the_nearest_misses(
        server, client, w):
    params = pooled_cloud(w, 100)
    listed = client.get('/allocation_candidates', params=params)
    assert listed.json()['allocation_requests'] == []
    body = explain(client, **params)
    assert body['candidates'] == 0
    summary = head('lacks capacity for DISK_GB (10 free, 20 requested)',
                   w.aggs['A'][1])
    assert body['summary'] == summary
    # The funnels are the providers' own: unchanged by where the summary
    # places the shortfall.
    assert combined(body)[
        "group '' in one tree with its sharing providers"] == (5, 0)
    # The three computes' miss is the pool's, named once.
    assert body['nearest'][0] == {
        'uuid': w.uuid('pool'), 'name': 'pool', 'group': '',
        'check': 'resources=DISK_GB:20 (capacity)',
        'detail': 'DISK_GB: 10 free, 20 requested'}
    assert [n['name'] for n in body['nearest']] == ['pool', 'cn4']
    # The empty list says the same in its log line.
    request_id = listed.headers['openstack-request-id']
    line, = [line for line in server.log().splitlines()
             if request_id in line and 'no allocation candidates' in line]
    assert line.endswith(summary)


def test_pool_taking_too_little_in_one_allocation(client, w):
    params = pooled_cloud(w, {'total': 1000, 'max_unit': 10})
    body = explain(client, **params)
    assert body['candidates'] == 0
    assert body['summary'] == head(
        'cannot take DISK_GB:20 in one allocation (min_unit 1, max_unit '
        '10, step_size 1)', w.aggs['A'][1])
    # As near as cn4's aggregate (a rule, not a shortfall): by name.
    cn4, pool = body['nearest']
    assert cn4['name'] == 'cn4'
    assert pool == {
        'uuid': w.uuid('pool'), 'name': 'pool', 'group': '',
        'check': 'resources=DISK_GB:20 (min_unit, max_unit, step_size)',
        'detail': 'DISK_GB: 20 requested, min_unit 1, max_unit 10, '
                  'step_size 1'}


def test_short_pool_of_a_suffixed_group(client, w):
    params = pooled_cloud(w, 100)
    body = explain(client, resources='VCPU:1,MEMORY_MB:512',
                   resources1='DISK_GB:20', member_of=params['member_of'],
                   group_policy='none')
    assert body['candidates'] == 0
    # cn4 has disk of its own, but is outside the aggregate.
    assert body['summary'].startswith(
        "0 of 5 provider trees can satisfy the request: 3 trees cannot "
        "serve group '1' because their sharing provider pool lacks "
        "capacity for DISK_GB (10 free, 20 requested); ")
    assert body['nearest'][0] == {
        'uuid': w.uuid('pool'), 'name': 'pool', 'group': '1',
        'check': 'resources=DISK_GB:20 (capacity)',
        'detail': 'DISK_GB: 10 free, 20 requested'}


def test_pool_with_room_serves_the_computes(client, w):
    params = pooled_cloud(w, 1000)
    body = explain(client, **params)
    assert body['candidates'] == 3 == len(
        get_candidates(client, **params)['allocation_requests'])
    assert body['summary'].startswith(
        '3 of 5 provider trees can satisfy the request: ')
    assert 'pool' not in body['summary']
    assert 'pool' not in [n['name'] for n in body['nearest']]


def test_weighed_empty_list_logs_the_pool(database, world):
    """With a weighed order the empty list's log line comes from the
    trees the list weighed, not from a second run."""
    world.clear()
    params = pooled_cloud(world, 100)
    workdir = tempfile.mkdtemp(prefix='explain-spread-', dir=database.workdir)
    helpers.write_config(workdir, database.url,
                         '[placement]\ncandidate_order = spread\n')
    server = helpers.Server(workdir)
    try:
        with httpx.Client(base_url=server.url, headers=helpers.ADMIN_HEADERS,
                          timeout=30) as http:
            listed = http.get('/allocation_candidates', params=params)
            assert listed.json()['allocation_requests'] == []
            body = explain(http, **params)
        assert body['weights']['candidates'] == []
        request_id = listed.headers['openstack-request-id']
        line, = [line for line in server.log().splitlines()
                 if request_id in line
                 and 'no allocation candidates' in line]
        assert line.endswith(body['summary'])
        assert 'sharing provider pool lacks capacity' in line
    finally:
        server.stop()
