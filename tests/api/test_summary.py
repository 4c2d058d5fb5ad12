"""GET /summary: every figure equals what the REST API says of the same
cloud, provider by provider and project by project, on every database."""
import httpx
import pytest

from support import helpers
from placement.objects import summary as summary_obj

PATH = '/summary'
PROJECTS = ('project-a', 'project-b', 'project-c')
# More providers than the summary's lists name, each fuller than the
# one before; their names sort the same in every collation.
LADDER = 12


@pytest.fixture(scope='module')
def cloud(server):
    """A cloud written through the API: nested and sharing providers,
    reserved units and ratios, one provider without inventory, one whose
    capacity was lowered below its usage, consumers of three projects
    with and without a type."""
    with httpx.Client(base_url=server.url, headers=helpers.ADMIN_HEADERS,
                      timeout=30) as client:
        compute = helpers.make_provider(client, {
            'VCPU': {'total': 16, 'allocation_ratio': 2.0},
            'MEMORY_MB': {'total': 4096, 'reserved': 512,
                          'allocation_ratio': 1.5}})
        numa = helpers.make_provider(client, {
            'PCPU': {'total': 8, 'reserved': 1}}, parent=compute)
        disk = helpers.make_provider(client, {
            'DISK_GB': {'total': 1000, 'reserved': 100}})
        ladder = [helpers.make_provider(client, {'VCPU': {'total': 16}})
                  for _ in range(LADDER)]
        helpers.new_provider(client)
        consume(client, 'project-a', 'INSTANCE',
                {compute: {'VCPU': 4, 'MEMORY_MB': 1024},
                 disk: {'DISK_GB': 100}})
        consume(client, 'project-a', 'INSTANCE', {numa: {'PCPU': 7}})
        consume(client, 'project-a', 'MIGRATION', {compute: {'VCPU': 2}})
        consume(client, 'project-b', 'INSTANCE', {disk: {'DISK_GB': 5}})
        for step, rp in enumerate(ladder):
            consume(client, PROJECTS[step % 3], None,
                    {rp: {'VCPU': step + 1}})
        # Capacity lowered below usage: the provider is over full.
        over = ladder[-1]
        record = client.get('/resource_providers/%s/inventories/VCPU'
                            % over).json()
        response = client.put(
            '/resource_providers/%s/inventories/VCPU' % over,
            json=dict(record, total=8, max_unit=8))
        assert response.status_code == 200, response.text
        return over


def consume(client, project, consumer_type, allocations):
    """A new consumer's allocations; without a type it is "unknown"."""
    body = helpers.body(allocations, consumer_type=consumer_type,
                        project=project)
    headers = None
    if consumer_type is None:
        del body['consumer_type']
        headers = helpers.version('1.37')
    response = client.put('/allocations/' + helpers.new_uuid(), json=body,
                          headers=headers)
    assert response.status_code == 204, response.text


def provider_figures(client):
    """{uuid: (provider, {class: (capacity, used, reserved)})} from each
    provider's inventories and usages."""
    figures = {}
    for rp in client.get('/resource_providers').json()['resource_providers']:
        base = '/resource_providers/%s' % rp['uuid']
        inventories = client.get(base + '/inventories').json()['inventories']
        usages = client.get(base + '/usages').json()['usages']
        figures[rp['uuid']] = (rp, {
            rc: (int((inv['total'] - inv['reserved'])
                     * inv['allocation_ratio']),
                 usages.get(rc, 0), inv['reserved'])
            for rc, inv in inventories.items()})
    return figures


def summary(client):
    response = client.get(PATH)
    assert response.status_code == 200, response.text
    return response.json()


def test_classes_and_counts_equal_the_providers_figures(client, cloud):
    figures = provider_figures(client)
    expected = {}
    for _rp, classes in figures.values():
        for rc, (capacity, used, reserved) in classes.items():
            t = expected.setdefault(rc, dict.fromkeys(
                ('capacity', 'used', 'reserved', 'free', 'providers'), 0))
            t['capacity'] += capacity
            t['used'] += used
            t['reserved'] += reserved
            t['free'] += capacity - used
            t['providers'] += 1
    body = summary(client)
    assert body['resource_classes'] == expected
    assert expected['VCPU']['free'] < sum(
        capacity for _rp, classes in figures.values()
        for rc, (capacity, _u, _r) in classes.items() if rc == 'VCPU')
    assert body['resource_providers'] == {
        'count': len(figures),
        'trees': sum(rp['uuid'] == rp['root_provider_uuid']
                     for rp, _ in figures.values()),
        'without_inventory': sum(not classes
                                 for _rp, classes in figures.values())}
    assert body['providers_without_inventory'] == [
        {'uuid': rp['uuid'], 'name': rp['name']}
        for rp, classes in figures.values() if not classes]


def fullness(classes):
    """(fraction used, class) of a provider's fullest class, the first by
    name among equals; no capacity left counts as one unit."""
    fraction, rc = min((-used / max(capacity, 1), rc)
                       for rc, (capacity, used, _r) in classes.items())
    return -fraction, rc


def assert_ranked_as_the_api_says(client):
    """The summary's fullest and emptiest providers are those of the
    providers' own figures; the fullest one's uuid."""
    figures = provider_figures(client)
    ranked = sorted(
        ((fullness(classes), rp) for rp, classes in figures.values()
         if classes),
        key=lambda entry: (-entry[0][0], entry[1]['name']))

    def shown(entries):
        return [{'uuid': rp['uuid'], 'name': rp['name'],
                 'resource_class': rc,
                 'used': figures[rp['uuid']][1][rc][1],
                 'capacity': figures[rp['uuid']][1][rc][0]}
                for (_fraction, rc), rp in entries]

    body = summary(client)
    limit = summary_obj.PROVIDERS_SHOWN
    assert len(ranked) > limit
    assert body['fullest_providers'] == shown(ranked[:limit])
    emptiest = sorted(ranked, key=lambda entry: (
        entry[0][0], entry[1]['name']))
    assert body['emptiest_providers'] == shown(emptiest[:limit])
    return body['fullest_providers'][0]['uuid']


def test_fullest_and_emptiest_providers(client, cloud):
    # Usage beyond a lowered capacity heads the list.
    assert assert_ranked_as_the_api_says(client) == cloud


def test_usages_equal_get_usages_per_project(client, cloud):
    body = summary(client)
    per_project = {
        project: client.get('/usages', params={
            'project_id': project}).json()['usages']
        for project in PROJECTS}
    assert body['project_count'] == len(PROJECTS)
    assert {entry['project_id']: entry['usages']
            for entry in body['usages_by_project']} == per_project
    # The projects with the most consumers first.
    counts = [entry['consumer_count'] for entry in body['usages_by_project']]
    assert counts == sorted(counts, reverse=True)
    for entry in body['usages_by_project']:
        assert entry['consumer_count'] == sum(
            group['consumer_count'] for group in entry['usages'].values())
    by_type = {}
    for usages in per_project.values():
        for consumer_type, group in usages.items():
            total = by_type.setdefault(consumer_type, {})
            for key, amount in group.items():
                total[key] = total.get(key, 0) + amount
    assert body['usages_by_consumer_type'] == by_type
    assert set(by_type) == {'INSTANCE', 'MIGRATION', 'unknown'}


@pytest.mark.parametrize('idle', [9, 12])
def test_idle_providers_are_the_emptiest(client, w, idle):
    """Providers without allocations fill the fullest list's tail and
    head the emptiest, by name."""
    for index in range(idle):
        w.add('idle-%02d' % index, inventory={'VCPU': 8, 'DISK_GB': 10})
    w.add('full', inventory={'VCPU': 4}, used={'VCPU': 4})
    w.add('half', inventory={'VCPU': 8, 'DISK_GB': {'total': 10,
                                                    'reserved': 10}},
          used={'VCPU': 4})
    assert assert_ranked_as_the_api_says(client) == w.uuid('full')


def test_an_empty_cloud(client, w):
    assert summary(client) == {
        'resource_providers': {'count': 0, 'trees': 0,
                               'without_inventory': 0},
        'resource_classes': {}, 'fullest_providers': [],
        'emptiest_providers': [], 'providers_without_inventory': [],
        'usages_by_consumer_type': {}, 'project_count': 0,
        'usages_by_project': []}

