"""Claims from many clients at once against a multi-worker service on
every database, checked from the tables afterwards: never an over-commit.

The load of 20 scheduler-like clients runs MariaDB under REPEATABLE-READ
and READ-COMMITTED (set per connection with PyMySQL's ``init_command``),
PostgreSQL under its two levels, and SQLite with two workers, where
writers queue on the database lock.  Two smaller races send their
requests all at once: ten writers of one consumer, and the delete of a
provider against claims on it.
"""
import concurrent.futures
import threading
import uuid

import httpx
import pytest
import sqlalchemy as sa

from support.concurrency_support import backends
from support import helpers
from support import stress_check
from support import stress_load
from support import stress_setup

# Isolation levels the service's connections are put in, per backend,
# through the URL: PyMySQL runs an ``init_command`` on connect, libpq takes
# server ``options``.
ISOLATION = {
    'mysql': {
        'repeatable-read': {'init_command': 'SET SESSION TRANSACTION '
                            'ISOLATION LEVEL REPEATABLE READ'},
        'read-committed': {'init_command': 'SET SESSION TRANSACTION '
                           'ISOLATION LEVEL READ COMMITTED'},
    },
    'postgresql': {
        # The server's default; FOR UPDATE waits, then reads the latest.
        'read-committed': None,
        # A locked row changed since the snapshot is a serialization
        # failure, which the service retries.
        'repeatable-read': {'options': '-c default_transaction_isolation='
                            'repeatable\\ read'},
    },
}
SHOW_ISOLATION = {
    'mysql': 'SELECT @@SESSION.tx_isolation',
    'postgresql': 'SHOW transaction_isolation',
}


def _runs():
    runs = [('sqlite', None, 2)]
    for backend in ('mysql', 'postgresql'):
        if backend in helpers.BACKENDS:
            runs += [(backend, level, 4) for level in ISOLATION[backend]]
    return [pytest.param(backend, level, workers, dataset,
                         id='-'.join(filter(None, (backend, level,
                                                   dataset))))
            for backend, level, workers in runs
            for dataset in stress_setup.DATA_SETS]


def _session_isolation(backend, url):
    """The isolation level a new connection made with ``url`` gets, in
    MariaDB's spelling."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            level = conn.exec_driver_sql(SHOW_ISOLATION[backend]).scalar()
    finally:
        engine.dispose()
    return level.upper().replace(' ', '-')


@pytest.mark.parametrize('backend,isolation,workers,dataset', _runs())
def test_no_over_commit_under_concurrent_claims(backend, isolation, workers,
                                                dataset, capsys):
    query = ISOLATION[backend][isolation] if isolation else None
    with stress_setup.service(backend, workers, query=query) as svc:
        if isolation:
            # The service's own connections are out of reach; one made
            # with the very same URL shows the setting takes effect.
            assert _session_isolation(backend, svc.db_url) == (
                isolation.upper())
        data = stress_setup.DATA_SETS[dataset]()
        with httpx.Client(base_url=svc.url, headers=stress_setup.HEADERS,
                          timeout=30) as http:
            data.build(http)
        load = stress_load.Load(svc.url, data, clients=20, ops=10,
                                duration=30.0, operator=True).run()
        check = stress_check.check_database(svc.db_url, load.ledger)
    with capsys.disabled():
        print('\n' + stress_check.summary(
            '%s/%d workers/%s' % ('-'.join(filter(None, (backend,
                                                         isolation))),
                                  workers, dataset), load, check))
    # SQLite may refuse with 503 when its lock cannot be had in time;
    # the servers with row locks must never fail a request.
    stress_check.assert_sound(load, check, svc.log,
                              allow_503=backend == 'sqlite')
    figures = load.figures()
    assert figures['no_answer'] == 0
    # The load really contended: claims were both granted and refused.
    assert figures['refused_409'] + figures['no_candidates'] > 0


def _race(url, requests):
    """Send ``requests`` ((method, path, json) each) all at once, one
    client each; return the responses in the same order."""
    barrier = threading.Barrier(len(requests))

    def send(request):
        method, path, body = request
        with httpx.Client(base_url=url, headers=stress_setup.HEADERS,
                          timeout=60) as http:
            barrier.wait()
            return http.request(method, path, json=body)

    with concurrent.futures.ThreadPoolExecutor(len(requests)) as pool:
        return list(pool.map(send, requests))


def _claim_body(provider, vcpus, generation):
    return {'allocations': {provider: {'resources': {'VCPU': vcpus}}},
            'project_id': stress_setup.PROJECT, 'user_id': stress_setup.USER,
            'consumer_generation': generation, 'consumer_type': 'INSTANCE'}


@pytest.mark.parametrize('backend,workers', backends())
def test_racing_writers_of_one_consumer(backend, workers):
    """Ten clients write one consumer with the same expected generation
    (null: "new", then the current one): exactly one wins each round, the
    others get 409 concurrent_update, and the database holds the winner's
    allocation."""
    with stress_setup.service(backend, workers) as svc:
        data = stress_setup.DataSet()
        with httpx.Client(base_url=svc.url, headers=stress_setup.HEADERS,
                          timeout=30) as http:
            provider = data.provider(http, 'big', {
                'VCPU': {'total': 100}})
        consumer = str(uuid.uuid4())
        ledger = stress_load.Ledger()
        generation = None
        for _round in range(4):
            responses = _race(svc.url, [
                ('PUT', '/allocations/%s' % consumer,
                 _claim_body(provider, vcpus, generation))
                for vcpus in range(1, 11)])
            statuses = [r.status_code for r in responses]
            assert sorted(statuses) == [204] + [409] * 9, [
                r.text for r in responses if r.status_code != 409]
            assert all(r.json()['errors'][0]['code']
                       == 'placement.concurrent_update'
                       for r in responses if r.status_code == 409)
            winner = statuses.index(204) + 1
            ledger.certain(consumer, ((provider, 'VCPU', winner),))
            check = stress_check.check_database(svc.db_url, ledger)
            assert check.ok, (check.over_committed, check.wrong)
            generation = 1 if generation is None else generation + 1


@pytest.mark.parametrize('backend,workers', backends())
def test_provider_delete_racing_claims(backend, workers):
    """A provider with room for one claim is deleted while five clients
    claim it: either the delete wins and nothing is allocated, or it is
    refused as in use and exactly one claim holds the provider."""
    with stress_setup.service(backend, workers) as svc:
        data = stress_setup.DataSet()
        ledger = stress_load.Ledger()
        with httpx.Client(base_url=svc.url, headers=stress_setup.HEADERS,
                          timeout=30) as http:
            for index in range(6):
                provider = data.provider(http, 'victim%d' % index, {
                    'VCPU': {'total': 1}})
                consumers = [str(uuid.uuid4()) for _ in range(5)]
                requests = [('PUT', '/allocations/%s' % c,
                             _claim_body(provider, 1, None))
                            for c in consumers]
                requests.insert(index % 6, (
                    'DELETE', '/resource_providers/%s' % provider, None))
                responses = _race(svc.url, requests)
                deleted = responses.pop(index % 6).status_code
                claims = [r.status_code for r in responses]
                if deleted == 204:
                    # Too late for the provider: refused as missing (400)
                    # or as having no room left (409).
                    assert set(claims) <= {400, 409}, (deleted, claims)
                else:
                    assert deleted == 409, (deleted, claims)
                    assert sorted(claims) == [204] + [409] * 4, claims
                for consumer, status in zip(consumers, claims):
                    ledger.certain(consumer, ((provider, 'VCPU', 1),)
                                   if status == 204 else stress_load.EMPTY)
                assert all(stress_setup.clear_error(r) for r in responses
                           if r.status_code >= 400)
        check = stress_check.check_database(svc.db_url, ledger)
        assert check.ok, (check.over_committed, check.wrong)
