"""Provider aggregates over real HTTP."""
import concurrent.futures
import uuid

import httpx
import sqlalchemy as sa

from support import stress_setup
from support.helpers import new_provider, version


def path(rp_uuid):
    return '/resource_providers/%s/aggregates' % rp_uuid


def put_aggregates(http, rp_uuid, aggregates, generation):
    return http.put(path(rp_uuid), json={
        'aggregates': aggregates, 'resource_provider_generation': generation})


def test_route_starts_at_1_1(client):
    rp_uuid = new_provider(client)
    assert client.get(path(rp_uuid),
                      headers=version('1.0')).status_code == 404
    assert client.get(path(rp_uuid),
                      headers=version('1.1')).status_code == 200


def test_body_shapes_by_microversion(client):
    rp_uuid = new_provider(client)
    assert client.get(path(rp_uuid)).json() == {
        'aggregates': [], 'resource_provider_generation': 0}
    assert client.get(path(rp_uuid), headers=version('1.18')).json() == {
        'aggregates': []}


def test_put_bumps_generation_and_get_is_sorted(client):
    rp_uuid = new_provider(client)
    aggs = sorted(str(uuid.uuid4()) for _ in range(3))[::-1]
    response = put_aggregates(client, rp_uuid, aggs, 0)
    assert response.status_code == 200
    # The answer echoes the request's order; a read is sorted.
    assert response.json() == {'aggregates': aggs,
                               'resource_provider_generation': 1}
    assert client.get(path(rp_uuid)).json() == {
        'aggregates': sorted(aggs), 'resource_provider_generation': 1}
    assert client.get('/resource_providers/' + rp_uuid).json()[
        'generation'] == 1
    response = put_aggregates(client, rp_uuid, aggs[:1], 1)
    assert response.json() == {'aggregates': aggs[:1],
                               'resource_provider_generation': 2}
    assert client.get(path(rp_uuid)).json()['aggregates'] == aggs[:1]


def test_stale_generation_is_409_and_changes_nothing(client):
    rp_uuid = new_provider(client)
    agg = str(uuid.uuid4())
    assert put_aggregates(client, rp_uuid, [agg], 0).status_code == 200
    response = put_aggregates(client, rp_uuid, [], 0)
    assert response.status_code == 409
    error = response.json()['errors'][0]
    assert error['code'] == 'placement.concurrent_update'
    assert client.get(path(rp_uuid)).json() == {
        'aggregates': [agg], 'resource_provider_generation': 1}


def test_list_body_before_1_19_leaves_generation(client):
    rp_uuid = new_provider(client)
    agg = str(uuid.uuid4())
    response = client.put(path(rp_uuid), json=[agg],
                          headers=version('1.18'))
    assert response.status_code == 200
    assert response.json() == {'aggregates': [agg]}
    assert client.get(path(rp_uuid)).json() == {
        'aggregates': [agg], 'resource_provider_generation': 0}


def test_body_must_match_microversion(client):
    rp_uuid = new_provider(client)
    agg = str(uuid.uuid4())
    old_body = client.put(path(rp_uuid), json=[agg])
    assert old_body.status_code == 400
    new_body = client.put(path(rp_uuid), headers=version('1.18'), json={
        'aggregates': [agg], 'resource_provider_generation': 0})
    assert new_body.status_code == 400
    for response in (old_body, new_body):
        assert 'JSON does not validate' in response.text


def test_bad_aggregate_lists(client):
    rp_uuid = new_provider(client)
    not_uuids = put_aggregates(client, rp_uuid, ['harry', 'sally'], 0)
    assert not_uuids.status_code == 400
    assert "is not a 'uuid'" in not_uuids.text
    agg = str(uuid.uuid4())
    twice = put_aggregates(client, rp_uuid, [agg, agg], 0)
    assert twice.status_code == 400
    assert 'has non-unique elements' in twice.text
    no_generation = client.put(path(rp_uuid), json={'aggregates': []})
    assert no_generation.status_code == 400


def test_unknown_provider_is_404_whatever_the_body(client):
    missing = str(uuid.uuid4())
    assert client.get(path(missing)).status_code == 404
    response = client.put(path(missing), json=[])
    assert response.status_code == 404
    assert 'No resource provider with uuid %s found' % missing in (
        response.text)


def test_dashless_uuids_are_stored_canonical(client):
    rp_uuid = new_provider(client)
    agg = uuid.uuid4()
    response = put_aggregates(client, rp_uuid, [agg.hex.upper()], 0)
    assert response.status_code == 200
    assert response.json()['aggregates'] == [str(agg)]
    listed = client.get('/resource_providers',
                        params={'member_of': 'in:' + str(agg)}).json()
    assert [rp['uuid'] for rp in listed['resource_providers']] == [rp_uuid]


def test_aggregates_are_shared_between_providers(client):
    first, second = new_provider(client), new_provider(client)
    shared, own = str(uuid.uuid4()), str(uuid.uuid4())
    assert put_aggregates(client, first, [shared, own], 0).status_code == 200
    assert put_aggregates(client, second, [shared], 0).status_code == 200
    assert put_aggregates(client, first, [own], 1).status_code == 200
    assert client.get(path(second)).json()['aggregates'] == [shared]
    members = client.get('/resource_providers',
                         params={'member_of': shared}).json()
    assert [rp['uuid'] for rp in members['resource_providers']] == [second]


def test_concurrent_joins_of_a_new_aggregate(database):
    agg = str(uuid.uuid4())
    with stress_setup.service(database.backend, workers=3) as svc:
        with httpx.Client(base_url=svc.url, headers=stress_setup.HEADERS,
                          timeout=30) as http:
            providers = [new_provider(http) for _ in range(10)]
            with concurrent.futures.ThreadPoolExecutor(10) as pool:
                statuses = list(pool.map(
                    lambda rp: put_aggregates(http, rp, [agg], 0).status_code,
                    providers))
            members = http.get('/resource_providers',
                               params={'member_of': agg}).json()
        engine = sa.create_engine(svc.db_url)
        try:
            with engine.connect() as conn:
                rows = conn.exec_driver_sql(
                    'SELECT COUNT(*) FROM placement_aggregates').scalar()
        finally:
            engine.dispose()
    assert statuses == [200] * 10
    assert sorted(rp['uuid'] for rp in members['resource_providers']) == (
        sorted(providers))
    assert rows == 1
