"""GET /resource_providers over real HTTP: filters, bad queries, cache
headers, and the listing body's template against the serializer."""
import collections
import datetime
import uuid

import orjson
import pytest
import webob

from support.helpers import allocate, error, version
from support.resource_providers_support import (create, listed, put_inventory,
                                                show)
from placement import microversions
from placement.handlers import resource_provider as handler
from placement.objects import resource_provider as rp_obj
from placement.web import environ_keys


def test_list_filters(client):
    marker = str(uuid.uuid4())[:8]
    big = create(client, name='big-' + marker)
    small = create(client, name='small-' + marker)
    child = create(client, parent=big)
    put_inventory(client, big, VCPU={'total': 16}, DISK_GB={'total': 100})
    put_inventory(client, small, VCPU={'total': 2, 'max_unit': 2})
    allocate(client, big, VCPU=10)

    assert listed(client, name='big-' + marker) == {big}
    assert listed(client, uuid=small) == {small}
    # Upstream's query schema wants the dashes (bodies need not have them).
    dashless = client.get('/resource_providers',
                          params={'uuid': small.replace('-', '')})
    assert dashless.status_code == 400
    assert listed(client, in_tree=child) == {big, child}
    assert listed(client, in_tree=str(uuid.uuid4())) == set()
    # Capacity counts usage (16 - 10 left) and max_unit.
    mine = {big, small, child}
    assert listed(client, resources='VCPU:2') & mine == {big, small}
    assert listed(client, resources='VCPU:3') & mine == {big}
    assert listed(client, resources='VCPU:7') & mine == set()
    assert listed(client, resources='VCPU:1,DISK_GB:100') & mine == {big}


def test_list_by_traits_and_aggregates(client):
    with_trait, without = create(client), create(client)
    generation = show(client, with_trait)['generation']
    assert client.put('/resource_providers/%s/traits' % with_trait, json={
        'traits': ['HW_CPU_X86_AVX2'],
        'resource_provider_generation': generation}).status_code == 200
    mine = {with_trait, without}
    assert listed(client, required='HW_CPU_X86_AVX2') & mine == {with_trait}
    assert listed(client, required='!HW_CPU_X86_AVX2') & mine == {without}
    # 1.39: any-of lists, and repeated keys that must all hold.
    assert listed(client, required='in:HW_CPU_X86_AVX2,HW_CPU_X86_SSE'
                  ) & mine == {with_trait}
    both = client.get('/resource_providers?required=HW_CPU_X86_AVX2'
                      '&required=!HW_CPU_X86_SSE').json()
    assert {rp['uuid'] for rp in both['resource_providers']} & mine == {
        with_trait}
    old = client.get('/resource_providers?required=in:HW_CPU_X86_AVX2',
                     headers=version('1.38'))
    assert old.status_code == 400

    agg = str(uuid.uuid4())
    generation = show(client, without)['generation']
    assert client.put('/resource_providers/%s/aggregates' % without, json={
        'aggregates': [agg],
        'resource_provider_generation': generation}).status_code == 200
    assert listed(client, member_of=agg) == {without}
    assert listed(client, member_of='in:%s,%s' % (agg, uuid.uuid4())) == {
        without}
    assert listed(client, member_of='!' + agg) & mine == {with_trait}


@pytest.mark.parametrize('query,ver,text', [
    ('spam=eggs', 'latest', 'Invalid query string parameters'),
    ('uuid=not-a-uuid', 'latest', 'Invalid query string parameters'),
    ('resources=VCPU:1', '1.3', 'Additional properties are not allowed'),
    ('in_tree=%s' % uuid.UUID(int=1), '1.13', 'Additional properties'),
    ('required=HW_CPU_X86_AVX2', '1.17', 'Additional properties'),
    ('resources=VCPU', 'latest', 'Badly formed resources parameter'),
    ('resources=NO_SUCH_CLASS:1', 'latest', 'No such resource class'),
    ('required=CUSTOM_NO_SUCH_TRAIT', 'latest', 'No such trait(s)'),
    ('required=!HW_CPU_X86_AVX2', '1.21', "Expected 'required' parameter"),
    ('member_of=not-a-uuid', 'latest', "Expected 'member_of' parameter"),
])
def test_list_rejects_bad_queries(client, query, ver, text):
    response = client.get('/resource_providers?' + query,
                          headers=version(ver))
    assert response.status_code == 400
    assert text in error(response)['detail']


def test_list_cache_headers_from_1_15(client):
    create(client)
    old = client.get('/resource_providers', headers=version('1.14'))
    assert 'cache-control' not in old.headers
    assert 'last-modified' not in old.headers
    new = client.get('/resource_providers', headers=version('1.15'))
    assert new.headers['cache-control'] == 'no-cache'
    assert new.headers['last-modified'].endswith('GMT')


@pytest.mark.parametrize('script_name', ['', '/placement', '/a%20b%s',
                                         '/back\\slash', '/nul\x00'])
@pytest.mark.parametrize('minor', [0, 1, 6, 13, 14, 38, 39])
def test_listing_template_matches_the_serializer(script_name, minor):
    # The listing's body comes from a per-request template; it must be
    # the very bytes orjson makes of the serializer's dicts.
    req = webob.Request.blank('/resource_providers')
    req.script_name = script_name
    req.environ[environ_keys.MICROVERSION] = microversions.Version(1, minor)
    names = ['plain', 'quote " and \\ backslash', 'é ☃ 𝄞', '\x01\x1f',
             '%s %d %%', '\\u0000n', '']
    row = collections.namedtuple('Row', rp_obj.SHOWN)
    changed = datetime.datetime(2026, 1, 1)
    providers = [row(
        uuid=str(uuid.UUID(int=index + 1)), name=name, generation=index * 7,
        parent_provider_uuid=None if index % 2 else str(uuid.UUID(int=99)),
        root_provider_uuid=str(uuid.UUID(int=99 + index)),
        changed=changed + datetime.timedelta(days=index % 3))
        for index, name in enumerate(names)]
    expected = orjson.dumps({'resource_providers': [
        handler.serializer(req)(provider) for provider in providers]})
    body, modified = handler._listing(req, providers)
    assert body == expected
    assert modified == datetime.datetime(2026, 1, 3,
                                         tzinfo=datetime.timezone.utc)
    assert handler._listing(req, [])[0] == b'{"resource_providers":[]}'
