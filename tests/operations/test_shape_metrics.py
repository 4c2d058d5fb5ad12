"""The gauges of ``[metrics] capacity_shape`` over real HTTP: the same
figures as POST /capacity of the same shapes, reused for cache_seconds,
and a shape POST /capacity would refuse stops the start."""
import os
import subprocess
import sys
import tempfile
import time
import urllib.parse

import httpx
import pytest

from support import helpers
from support.helpers import SHARING, scrape, value

API = os.path.join(os.path.dirname(sys.executable), 'placement-api')
AVX2 = 'HW_CPU_X86_AVX2'


@pytest.fixture(scope='module')
def cloud(world):
    """Flat, nested and sharing trees in two availability zones; the
    shapes {name: query}, one pinned to az1."""
    world.clear()
    world.add('cn1', inventory={
        'VCPU': {'total': 16, 'allocation_ratio': 2.0},
        'MEMORY_MB': 16384, 'DISK_GB': 200}, used={'VCPU': 5},
        traits=[AVX2], aggs=['az1'])
    world.add('cn2', inventory={'VCPU': 8, 'MEMORY_MB': 32768,
                                'DISK_GB': 100}, aggs=['az1'])
    world.add('cn3', inventory={'VCPU': 4, 'MEMORY_MB': 4096,
                                'DISK_GB': 50}, aggs=['az2'])
    world.add('numa-host', inventory={'DISK_GB': 100}, aggs=['az2'])
    for node in range(2):
        world.add('numa%d' % node, parent='numa-host',
                  inventory={'VCPU': 6, 'MEMORY_MB': 8192})
    world.add('pool', inventory={'DISK_GB': 300}, traits=[SHARING],
              aggs=['pool'])
    world.add('diskless', inventory={'VCPU': 12, 'MEMORY_MB': 12288},
              aggs=['az2', 'pool'])
    return {
        'm1.small': 'resources=VCPU:1,MEMORY_MB:2048,DISK_GB:20',
        'm1.large': 'resources=VCPU:4,MEMORY_MB:8192,DISK_GB:80',
        'numa': ('resources=DISK_GB:10&resources1=VCPU:2,MEMORY_MB:2048'
                 '&resources2=VCPU:2,MEMORY_MB:2048&group_policy=isolate'),
        'avx2-az1': ('resources=VCPU:2,MEMORY_MB:1024&required=%s'
                     '&member_of=%s' % (AVX2, world.aggs['az1'][1])),
    }


def start(database, cloud, **options):
    workdir = tempfile.mkdtemp(prefix='shapes-', dir=database.workdir)
    lines = ''.join('capacity_shape = %s %s\n' % item
                    for item in cloud.items())
    helpers.write_config(workdir, database.url, '[metrics]\n' + lines + ''.join(
        '%s = %s\n' % item for item in options.items()))
    # One worker: a second would keep a cache of its own.
    return helpers.Server(workdir)


@pytest.fixture(scope='module')
def fresh(database, cloud):
    """Figures recomputed at every scrape."""
    srv = start(database, cloud, cache_seconds=0,
                capacity_per_aggregate=True)
    yield srv
    srv.stop()


def counted(client, cloud):
    """POST /capacity's answer for the configured shapes."""
    response = client.post('/capacity', json={'shapes': cloud})
    assert response.status_code == 200, response.text
    return response.json()


def assert_gauges_are(samples, answer, per_aggregate=True):
    for name, shape in answer['shapes'].items():
        assert value(samples, 'placement_shape_fits', shape=name) == (
            shape['fits']), name
    shown = {(dict(labels)['shape'], dict(labels)['aggregate']): amount
             for (metric, labels), amount in samples.items()
             if metric == 'placement_shape_fits_by_aggregate'}
    assert shown == ({(name, aggregate['uuid']): aggregate['fits']
                      for name, shape in answer['shapes'].items()
                      for aggregate in shape['aggregates']}
                     if per_aggregate else {})
    for metric, key in (('placement_shapes_stranded', 'stranded'),
                        ('placement_shapes_stranded_elsewhere',
                         'stranded_elsewhere')):
        assert {dict(labels)['resource_class']: amount
                for (metric_, labels), amount in samples.items()
                if metric_ == metric} == answer[key], metric


def test_gauges_equal_post_capacity(fresh, client, cloud, world):
    answer = counted(client, cloud)
    # Every shape fits somewhere, some where others do not.
    assert all(shape['fits'] for shape in answer['shapes'].values())
    assert {a['uuid'] for a in answer['shapes']['avx2-az1'][
        'aggregates']} == {world.aggs['az1'][1]}
    assert any(answer['stranded'].values())
    assert_gauges_are(scrape(fresh.url), answer)
    # Taken space shows at the next scrape.
    cn2 = world.uuid('cn2')
    assert helpers.put(client, helpers.new_uuid(), {cn2: {
        'VCPU': 4, 'MEMORY_MB': 16384, 'DISK_GB': 50}}).status_code == 204
    changed = counted(client, cloud)
    assert changed['shapes'] != answer['shapes']
    assert_gauges_are(scrape(fresh.url), changed)


def test_a_zone_s_gauge_is_the_shape_pinned_to_it(fresh, client, cloud,
                                                 world):
    # diskless, in az2, takes its disk from a pool outside az2: nova,
    # pinning az2 with member_of, cannot place there.
    az2 = world.aggs['az2'][1]
    samples = scrape(fresh.url)
    for name in ('m1.small', 'm1.large'):
        pinned = client.get('/capacity', params=dict(
            urllib.parse.parse_qsl(cloud[name]), member_of=az2))
        assert pinned.status_code == 200, pinned.text
        assert value(samples, 'placement_shape_fits_by_aggregate',
                     shape=name, aggregate=az2) == pinned.json()['fits']
    (entry,) = [entry for entry in counted(client, cloud)['shapes'][
        'm1.small']['aggregates'] if entry['uuid'] == az2]
    assert entry['roots_fits'] > entry['fits']


def test_figures_are_reused_for_cache_seconds(database, cloud, client,
                                              world):
    cached = start(database, cloud, cache_seconds=600)
    try:
        before = counted(client, cloud)
        first = scrape(cached.url)
        assert_gauges_are(first, before, per_aggregate=False)
        # More space: POST /capacity sees it, the cached gauges do not.
        world.add('cn-new', inventory={'VCPU': 64, 'MEMORY_MB': 65536,
                                       'DISK_GB': 1000}, aggs=['az1'])
        after = counted(client, cloud)
        assert after['shapes']['m1.small']['fits'] > (
            before['shapes']['m1.small']['fits'])
        again = scrape(cached.url)
        assert_gauges_are(again, before, per_aggregate=False)
        # While the other capacity gauges are cached alike.
        assert value(again, 'placement_resource_providers') == value(
            first, 'placement_resource_providers')
    finally:
        cached.stop()


def test_expired_figures_answer_while_counted_again(database, cloud,
                                                    client, world):
    cached = start(database, cloud, cache_seconds=2)
    try:
        before = counted(client, cloud)
        assert_gauges_are(scrape(cached.url), before, per_aggregate=False)
        cn3 = world.uuid('cn3')
        assert helpers.put(client, helpers.new_uuid(), {cn3: {
            'VCPU': 1, 'MEMORY_MB': 2048, 'DISK_GB': 20}}).status_code == 204
        after = counted(client, cloud)
        assert after['shapes'] != before['shapes']
        time.sleep(2.5)
        # Expired: this scrape does not wait for the count it starts.
        assert_gauges_are(scrape(cached.url), before, per_aggregate=False)
        deadline = time.monotonic() + 30
        while True:
            samples = scrape(cached.url)
            if value(samples, 'placement_shape_fits', shape='m1.small') == (
                    after['shapes']['m1.small']['fits']):
                break
            assert time.monotonic() < deadline, 'never counted again'
            time.sleep(0.2)
        assert_gauges_are(samples, after, per_aggregate=False)
    finally:
        cached.stop()


@pytest.mark.parametrize('lines, reason', [
    (['m1.tiny'], "'m1.tiny' is not a name, a space and a query string"),
    (['m1.tiny resources=VCPU:x'],
     'Shape m1.tiny: Requested resource VCPU expected positive integer'),
    (['m1.tiny resources=VCPU:1&colour=blue'],
     'Shape m1.tiny: Query parameter colour is not allowed; allowed: '),
    (['a/b resources=VCPU:1'], 'does not match'),
    (['a resources=VCPU:1', 'a resources=VCPU:2'], 'shape a is named twice'),
])
def test_a_shape_post_capacity_refuses_stops_the_start(tmp_path, lines,
                                                        reason):
    helpers.write_config(str(tmp_path), 'sqlite:///%s/p.sqlite' % tmp_path,
                         '[metrics]\n' + ''.join(
                             'capacity_shape = %s\n' % line
                             for line in lines))
    result = subprocess.run(
        [API, '--bind', '127.0.0.1:%d' % helpers.free_port(),
         '--workers', '1'], capture_output=True, text=True, timeout=60,
        env=dict(os.environ, OS_PLACEMENT_CONFIG_DIR=str(tmp_path)))
    assert result.returncode != 0
    stderr = result.stderr.strip().splitlines()
    assert len(stderr) == 1, result.stderr
    assert stderr[0].startswith('placement-api: invalid configuration: '
                                '[metrics] capacity_shape: ')
    assert reason in stderr[0]


def test_a_class_not_created_yet_leaves_out_the_shape_gauges(tmp_path):
    """Known only when counted: the scrape answers without them (and
    says why in the log) until the class exists."""
    helpers.write_config(str(tmp_path), 'sqlite:///%s/p.sqlite' % tmp_path,
                         '[metrics]\ncache_seconds = 0\n'
                         'capacity_shape = gpu resources=CUSTOM_GHOST:1\n')
    srv = helpers.Server(str(tmp_path))
    try:
        samples = scrape(srv.url)
        assert not any(name.startswith('placement_shape')
                       for name, _ in samples)
        assert ('placement_resource_providers', ()) in samples
        assert 'capacity_shape: Shape gpu: ' in srv.log()
        with httpx.Client(base_url=srv.url, headers=helpers.ADMIN_HEADERS,
                          timeout=30) as client:
            assert client.put('/resource_classes/CUSTOM_GHOST'
                              ).status_code == 201
            helpers.make_provider(client, {'CUSTOM_GHOST': {'total': 3}})
        assert value(scrape(srv.url), 'placement_shape_fits',
                     shape='gpu') == 3
    finally:
        srv.stop()
