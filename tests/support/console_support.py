"""What the test_console_*.py modules share: a server on SQLite seeded with
a small cloud (``Cloud``, ``seed``), its admin client, a browser
(tests/support/browser_support.py), and helpers to read pages and the API.

PLACEMENT_CONSOLE_SCREENSHOTS=DIR saves a screenshot of each page.
"""
import os
import shutil
import tempfile
import uuid

import httpx
import pytest

from support.browser_support import By, chromium
from support import helpers
from support.helpers import ADMIN_HEADERS, Server, write_config

SCREENSHOTS = os.environ.get('PLACEMENT_CONSOLE_SCREENSHOTS')
XSS_NAME = ('<script>window.__xss = 1</script>'
            '<img src=x onerror="window.__xss = 2">')


def screenshot(driver, name, scroll_to=None):
    if SCREENSHOTS:
        if scroll_to:
            driver.execute_script(
                'document.getElementById(arguments[0]).scrollIntoView()',
                scroll_to)
        driver.save_screenshot(os.path.join(SCREENSHOTS, name + '.png'))


def text_of(root, selector):
    return root.find_element(By.CSS_SELECTOR, selector).text


# The seeded cloud: a nested compute tree with a sharing disk pool, a flat
# compute node that is full, a provider without inventory, and one whose
# name is markup.
AGG = str(uuid.uuid4())


class Cloud:
    def __init__(self, client):
        self.client = client
        self.uuids = {}

    def provider(self, name, parent=None, inventory=None, traits=(),
                 aggregates=()):
        rp = str(uuid.uuid4())
        body = {'name': name, 'uuid': rp}
        if parent:
            body['parent_provider_uuid'] = self.uuids[parent]
        self._ok(self.client.post('/resource_providers', json=body))
        self.uuids[name] = rp
        if inventory:
            self._ok(self.client.put(
                '/resource_providers/%s/inventories' % rp,
                json={'resource_provider_generation': 0,
                      'inventories': inventory}))
        generation = self.client.get(
            '/resource_providers/%s' % rp).json()['generation']
        if traits:
            self._ok(self.client.put(
                '/resource_providers/%s/traits' % rp,
                json={'resource_provider_generation': generation,
                      'traits': list(traits)}))
            generation += 1
        if aggregates:
            self._ok(self.client.put(
                '/resource_providers/%s/aggregates' % rp,
                json={'resource_provider_generation': generation,
                      'aggregates': list(aggregates)}))
        return rp

    def consume(self, project, consumer_type, **per_provider):
        consumer = str(uuid.uuid4())
        self._ok(self.client.put('/allocations/' + consumer, json={
            'allocations': {self.uuids[name]: {'resources': resources}
                            for name, resources in per_provider.items()},
            'project_id': project, 'user_id': 'user-' + project,
            'consumer_generation': None, 'consumer_type': consumer_type}))
        return consumer

    @staticmethod
    def _ok(response):
        assert response.status_code in (200, 201, 204), response.text


def seed(client):
    cloud = Cloud(client)
    cloud.provider('compute-1', inventory={
        'VCPU': {'total': 16, 'allocation_ratio': 2.0},
        'MEMORY_MB': {'total': 4096, 'reserved': 512}},
        traits=['HW_CPU_X86_AVX2'], aggregates=[AGG])
    for numa in ('numa-0', 'numa-1'):
        cloud.provider('compute-1-' + numa, parent='compute-1', inventory={
            'PCPU': {'total': 8, 'reserved': 1}})
    cloud.provider('compute-1-numa-0-pf', parent='compute-1-numa-0',
                   inventory={'SRIOV_NET_VF': {'total': 8}},
                   traits=['HW_NIC_SRIOV'])
    cloud.provider('compute-2', inventory={
        'VCPU': {'total': 8}, 'MEMORY_MB': {'total': 2048}})
    cloud.provider('shared-disk', inventory={
        'DISK_GB': {'total': 1000, 'reserved': 100}},
        traits=['MISC_SHARES_VIA_AGGREGATE'], aggregates=[AGG])
    cloud.provider('no-inventory')
    cloud.provider(XSS_NAME, inventory={'VCPU': {'total': 4}})
    cloud.consumers = {
        'vm1': cloud.consume(
            'project-a', 'INSTANCE',
            **{'compute-1': {'VCPU': 4, 'MEMORY_MB': 1024},
               'shared-disk': {'DISK_GB': 100}}),
        'vm2': cloud.consume(
            'project-b', 'INSTANCE',
            **{'compute-1-numa-0': {'PCPU': 3},
               'compute-1-numa-0-pf': {'SRIOV_NET_VF': 2}}),
        'vm3': cloud.consume('project-a', 'MIGRATION',
                             **{'compute-2': {'VCPU': 8}}),
    }
    return cloud


@pytest.fixture(scope='module')
def server():
    workdir = tempfile.mkdtemp(prefix='placement-console-')
    write_config(workdir, helpers.TestDatabase('sqlite', workdir).url)
    srv = Server(workdir)
    yield srv
    srv.stop()
    shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture(scope='module')
def client(server):
    with httpx.Client(base_url=server.url, headers=ADMIN_HEADERS,
                      timeout=30) as http:
        yield http


@pytest.fixture(scope='module')
def cloud(client):
    return seed(client)


@pytest.fixture(scope='module')
def browser(server, cloud):
    with chromium() as driver:
        yield driver


def rest_usage(client, rp):
    """{class: (used, capacity, reserved)} of one provider, from the API."""
    inventories = client.get(
        '/resource_providers/%s/inventories' % rp).json()['inventories']
    usages = client.get('/resource_providers/%s/usages' % rp).json()['usages']
    return {rc: (usages.get(rc, 0),
                 int((inv['total'] - inv['reserved'])
                     * inv['allocation_ratio']),
                 inv['reserved'])
            for rc, inv in inventories.items()}
