"""GET /metrics over real HTTP, with two gunicorn workers."""
import concurrent.futures
import os
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time

import httpx
import pytest

from support import helpers
from support.helpers import make_provider
from support.helpers import new_uuid
from support.helpers import put
from support.helpers import scrape
from support.helpers import value
from placement import errors
from placement.metrics import metrics


def start_server(database, metrics_options):
    workdir = tempfile.mkdtemp(prefix='metrics-', dir=database.workdir)
    extra = '[metrics]\n' + ''.join(
        '%s = %s\n' % item for item in metrics_options.items())
    helpers.write_config(workdir, database.url, extra)
    return helpers.Server(workdir, workers=2)


@pytest.fixture(scope='module')
def server(database):
    srv = start_server(database, {'cache_seconds': 0})
    yield srv
    srv.stop()


def workers(server):
    found = subprocess.run(['pgrep', '-P', str(server.process.pid)],
                           capture_output=True, text=True).stdout.split()
    return sorted(int(pid) for pid in found)


def get_many(server, path, count):
    """``count`` GETs on fresh connections, four at a time, so that both
    workers answer some."""
    def one(_):
        return httpx.get(server.url + path, headers=helpers.ADMIN_HEADERS,
                         timeout=30).status_code
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        assert set(pool.map(one, range(count))) == {200}


def test_counts_add_up_across_workers_and_restarts(server):
    key = dict(method='GET', route='/resource_providers', status='200')
    before = value(scrape(server.url), 'placement_http_requests_total', **key)
    get_many(server, '/resource_providers', 40)
    middle = scrape(server.url)
    assert value(middle, 'placement_http_requests_total', **key) == (
        before + 40)
    assert value(middle, 'placement_http_request_duration_seconds_count',
                 method='GET', route='/resource_providers') >= 40
    # Both workers answered: each wrote its own access lines.
    with open(server.log_path) as f:
        pids = {line.split()[2] for line in f
                if '"GET /resource_providers"' in line}
    assert len(pids) == 2

    # A worker dies and gunicorn replaces it: nothing it counted is lost.
    old = workers(server)
    os.kill(old[0], signal.SIGKILL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        current = workers(server)
        if len(current) == 2 and current != old:
            break
        time.sleep(0.1)
    else:
        pytest.fail('the killed worker was not replaced')
    get_many(server, '/resource_providers', 10)
    after = scrape(server.url)
    assert value(after, 'placement_http_requests_total', **key) == (
        before + 50)
    # The dead worker's connections no longer count as in use.
    assert value(after, 'placement_db_connections_in_use') >= 0


def test_route_label_is_the_template(server, client):
    rp = helpers.new_provider(client)
    assert client.get('/resource_providers/%s/traits' % rp).status_code == 200
    assert client.get('/no/such/url').status_code == 404
    assert client.request('PATCH', '/traits').status_code == 405
    samples = scrape(server.url)
    assert value(samples, 'placement_http_requests_total', method='GET',
                 route='/resource_providers/{uuid}/traits',
                 status='200') >= 1
    assert value(samples, 'placement_http_requests_total', method='GET',
                 route='unmatched', status='404') >= 1
    assert value(samples, 'placement_http_requests_total', method='PATCH',
                 route='/traits', status='405') >= 1
    assert not any(rp in str(labels) for _, labels in samples)


# Header values of None are left out of the request.
LABELLED = {
    'console-file': ('GET', '/console/app.js', {}, 200, '/console/{file}'),
    'console-404': ('GET', '/console/nothing', {}, 404, '/console/{file}'),
    'no-token': ('GET', '/resource_providers', {'x-auth-token': None}, 401,
                 'refused:auth'),
    'version-too-new': ('GET', '/resource_providers', {
        'openstack-api-version': 'placement 9.0'}, 406,
        'refused:microversion'),
    'version-malformed': ('GET', '/resource_providers', {
        'openstack-api-version': 'placement 1.x'}, 400,
        'refused:microversion'),
    'no-content-type': ('POST', '/resource_providers', {
        'content-length': '2'}, 400, 'refused:content_type'),
    'body-too-large': ('POST', '/resource_providers', {
        'content-type': 'application/json',
        'content-length': str(17 * 1024 * 1024)}, 413,
        'refused:body_size'),
}


@pytest.mark.parametrize('method, path, headers, status, route', [
    pytest.param(*case, id=name) for name, case in LABELLED.items()])
def test_route_label_names_what_answered(server, method, path, headers,
                                         status, route):
    """Not ``unmatched``: the console's files, and requests refused
    before routing by the layer that refused them."""
    headers = {name: text for name, text in dict(
        helpers.ADMIN_HEADERS, **headers).items() if text is not None}
    key = dict(method=method, route=route, status=str(status))
    before = value(scrape(server.url), 'placement_http_requests_total',
                   **key)
    assert _status_of(server, method, path, headers) == status
    after = scrape(server.url)
    assert value(after, 'placement_http_requests_total', **key) == before + 1


def _status_of(server, method, path, headers):
    """The status of a request whose body (if its headers announce one)
    is two bytes, whatever its Content-Length says: an announced body
    larger than that is answered without being read."""
    host, port = server.url.rsplit('/', 1)[1].split(':')
    head = '%s %s HTTP/1.1\r\nHost: placement\r\n' % (method, path) + ''.join(
        '%s: %s\r\n' % item for item in headers.items())
    body = b'{}' if 'content-length' in headers else b''
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(head.encode() + b'\r\n' + body)
        return int(s.makefile('rb').readline().split()[1])


def test_every_counter_is_exported_at_zero_from_the_start(database):
    fresh = start_server(database, {'cache_seconds': 0})
    try:
        samples = scrape(fresh.url)
    finally:
        fresh.stop()
    for kind in errors.CONFLICT_KINDS:
        assert samples[('placement_write_conflicts_total',
                        (('kind', kind),))] == 0
    for kind, reasons in metrics.RETRY_REASONS.items():
        for reason in reasons:
            assert samples[('placement_%s_retries_total' % kind,
                            (('reason', reason),))] == 0
    for phase in metrics.PHASES:
        assert samples[('placement_allocation_candidates_phase_seconds_count',
                        (('phase', phase),))] == 0
    assert samples[('placement_allocation_candidates_empty_total', ())] == 0


def test_conflicts_by_kind(server, client):
    before = scrape(server.url)
    rp = make_provider(client, {'VCPU': {'total': 4}})
    # A stale provider generation.
    response = client.put('/resource_providers/%s/traits' % rp, json={
        'resource_provider_generation': 0, 'traits': []})
    assert response.status_code == 409
    # More than the inventory holds.
    assert put(client, new_uuid(), {rp: {'VCPU': 5}}).status_code == 409
    # A stale consumer generation.
    consumer = new_uuid()
    assert put(client, consumer, {rp: {'VCPU': 1}}).status_code == 204
    response = put(client, consumer, {rp: {'VCPU': 2}},
                   consumer_generation=7)
    assert response.status_code == 409
    after = scrape(server.url)
    for kind in ('provider_generation', 'capacity', 'consumer_generation'):
        assert value(after, 'placement_write_conflicts_total', kind=kind) == (
            value(before, 'placement_write_conflicts_total', kind=kind) + 1)


def test_candidates_phases_and_counts(server, client):
    before = scrape(server.url)
    client.put('/resource_classes/CUSTOM_METRICS_A')
    make_provider(client, {'CUSTOM_METRICS_A': {'total': 2}})
    url = '/allocation_candidates?resources=CUSTOM_METRICS_A:1'
    assert len(client.get(url).json()['allocation_requests']) == 1
    url = '/allocation_candidates?resources=CUSTOM_METRICS_A:3'
    assert client.get(url).json()['allocation_requests'] == []
    after = scrape(server.url)

    def delta(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta('placement_allocation_candidates_returned_count') == 2
    assert delta('placement_allocation_candidates_returned_sum') == 1
    assert delta('placement_allocation_candidates_empty_total') == 1
    for phase in ('database', 'combining', 'rendering'):
        assert delta('placement_allocation_candidates_phase_seconds_count',
                     phase=phase) == 2
        assert delta('placement_allocation_candidates_phase_seconds_sum',
                     phase=phase) > 0
    assert delta('placement_db_checkout_wait_seconds_count') >= 2


def rest_totals(client):
    """Capacity and usage per class, as the REST API reports them."""
    capacity, usage = {}, {}
    providers = client.get('/resource_providers').json()['resource_providers']
    for provider in providers:
        base = '/resource_providers/%s' % provider['uuid']
        inventories = client.get(base + '/inventories').json()['inventories']
        for name, inv in inventories.items():
            capacity[(provider['uuid'], name)] = (
                (inv['total'] - inv['reserved']) * inv['allocation_ratio'])
        for name, used in client.get(base + '/usages').json()[
                'usages'].items():
            usage[(provider['uuid'], name)] = used
    return providers, capacity, usage


def by_class(per_provider):
    totals = {}
    for (_, name), amount in per_provider.items():
        totals[name] = totals.get(name, 0) + amount
    return totals


def test_capacity_gauges_equal_the_rest_api(server, client):
    rp = make_provider(client, {
        'VCPU': {'total': 16, 'reserved': 2, 'allocation_ratio': 4.0},
        'MEMORY_MB': {'total': 4096, 'reserved': 512,
                      'allocation_ratio': 1.5},
        'DISK_GB': {'total': 100}})
    assert put(client, new_uuid(), {rp: {'VCPU': 3, 'DISK_GB': 7}}
               ).status_code == 204
    providers, capacity, usage = rest_totals(client)
    samples = scrape(server.url)
    for name, amount in by_class(capacity).items():
        assert value(samples, 'placement_capacity',
                     resource_class=name) == pytest.approx(amount)
    for name, amount in by_class(usage).items():
        assert value(samples, 'placement_usage', resource_class=name) == amount
    assert value(samples, 'placement_resource_providers') == len(providers)
    assert value(samples, 'placement_consumers') >= 1
    # Only the cloud-wide figures by default.
    assert not any(name == 'placement_provider_capacity'
                   for name, _ in samples)


def test_scrape_needs_an_admin_token(server):
    response = httpx.get(server.url + '/metrics')
    assert response.status_code == 401
    response = httpx.get(server.url + '/metrics',
                         headers={'x-auth-token': 'someone'})
    assert response.status_code == 403
    assert 'placement:metrics' in response.json()['errors'][0]['detail']
    response = httpx.post(server.url + '/metrics',
                          headers=helpers.ADMIN_HEADERS)
    assert response.status_code == 405


def test_open_scrape_and_per_provider_figures(database, server, client):
    make_provider(client, {'VCPU': {'total': 3, 'allocation_ratio': 2.0}})
    open_server = start_server(database, {'require_auth': False,
                                          'per_provider': True,
                                          'cache_seconds': 60})
    try:
        _, capacity, usage = rest_totals(client)
        samples = scrape(open_server.url, headers={})
        for (uuid, name), amount in capacity.items():
            assert value(samples, 'placement_provider_capacity',
                         provider=uuid, resource_class=name) == (
                pytest.approx(amount))
            assert value(samples, 'placement_provider_usage', provider=uuid,
                         resource_class=name) == usage.get((uuid, name), 0)
        # The rest of the API still wants a token.
        assert httpx.get(open_server.url + '/resource_providers'
                         ).status_code == 401
    finally:
        open_server.stop()


def test_disabled(tmp_path):
    helpers.write_config(str(tmp_path), 'sqlite:///%s/p.sqlite' % tmp_path,
                         '[metrics]\nenabled = false\n')
    srv = helpers.Server(str(tmp_path))
    try:
        response = httpx.get(srv.url + '/metrics',
                             headers=helpers.ADMIN_HEADERS)
        assert response.status_code == 404
    finally:
        srv.stop()


def test_threads_in_one_worker_count_exactly(tmp_path):
    """Threaded workers (e.g. gunicorn's gthread) share one process's
    files: no update is lost."""
    script = textwrap.dedent('''
        import os, sys, threading
        os.environ['PROMETHEUS_MULTIPROC_DIR'] = sys.argv[1]
        from placement.metrics import metrics
        from prometheus_client import CollectorRegistry, multiprocess
        m = metrics.configure()

        def work():
            for _ in range(2000):
                m.requests.labels('GET', '/traits', '200').inc()
                m.duration.labels('GET', '/traits').observe(0.01)

        threads = [threading.Thread(target=work) for _ in range(8)]
        [t.start() for t in threads]
        [t.join() for t in threads]
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=sys.argv[1])
        print(registry.get_sample_value(
            'placement_http_requests_total',
            {'method': 'GET', 'route': '/traits', 'status': '200'}),
            registry.get_sample_value(
            'placement_http_request_duration_seconds_count',
            {'method': 'GET', 'route': '/traits'}))
    ''')
    output = subprocess.run([sys.executable, '-c', script, str(tmp_path)],
                            capture_output=True, text=True, check=True)
    assert output.stdout.split() == ['16000.0', '16000.0']
