"""The web console at /console/, in Debian's headless chromium
(tests/browser_support.py).

Every page is checked against the REST API on one seeded data set (SQLite
only: the console is a client of the API, the database does not matter
here).  PLACEMENT_CONSOLE_SCREENSHOTS=DIR saves a screenshot of each page.
"""
import os
import re
import shutil
import tempfile
import time
import uuid

import httpx
import pytest
import sqlalchemy as sa

from browser_support import (WAIT, By, WebDriverWait, assert_clean_log,
                             chromium, need_browser, open_page, wait_state)
import helpers
from helpers import ADMIN_HEADERS, Server, write_config
from placement import conf as placement_conf
from placement import db
from placement import tables
from placement.objects import base

SCREENSHOTS = os.environ.get('PLACEMENT_CONSOLE_SCREENSHOTS')
# The method and path of a request in the server's access log.
ACCESS_LINE = re.compile(r'placement\.access \S+ "(\w+ [^?" ]+)')
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


def test_files_are_public_and_strict(server, client):
    page = httpx.get(server.url + '/console/')
    assert page.status_code == 200
    assert page.headers['content-type'].startswith('text/html')
    policy = page.headers['content-security-policy']
    assert "default-src 'self'" in policy and "script-src 'self'" in policy
    assert 'unsafe-inline' not in policy
    assert page.headers['x-content-type-options'] == 'nosniff'
    assert '<script type="module" src="app.js">' in page.text
    script = httpx.get(server.url + '/console/app.js')
    assert script.headers['content-type'].startswith('text/javascript')
    assert 'innerHTML' not in script.text
    again = httpx.get(server.url + '/console/app.js',
                      headers={'If-None-Match': script.headers['etag']})
    assert again.status_code == 304
    redirect = httpx.get(server.url + '/console')
    assert redirect.status_code == 301
    assert redirect.headers['location'] == server.url + '/console/'
    # Only the shipped files, whatever the path says.
    assert httpx.get(server.url + '/console/..%2F__init__.py').status_code \
        == 404
    assert httpx.get(server.url + '/console/nothing.js').status_code == 404
    assert httpx.post(server.url + '/console/').status_code == 405
    # The data still needs a token.
    assert httpx.get(server.url + '/resource_providers').status_code == 401
    assert client.get('/console/config.json').json() == {
        'auth_strategy': 'noauth2'}


def test_no_script_sets_html():
    """Everything from the API goes in as text: no markup sinks at all."""
    static = os.path.join(os.path.dirname(__file__), '..', 'placement',
                          'console', 'static')
    for name in os.listdir(static):
        if name.endswith('.js'):
            with open(os.path.join(static, name)) as f:
                source = f.read()
            for sink in ('innerHTML', 'outerHTML', 'insertAdjacentHTML',
                         'document.write', 'eval(', 'new Function'):
                assert sink not in source, (name, sink)


def test_overview(browser, server, client, cloud):
    main = open_page(browser, server, 'overview')
    screenshot(browser, 'overview')
    providers = client.get('/resource_providers').json()['resource_providers']
    assert text_of(main, '#card-providers [data-field=value]') == str(
        len(providers))
    totals = {}
    for rp in providers:
        for rc, (used, capacity, reserved) in rest_usage(
                client, rp['uuid']).items():
            t = totals.setdefault(rc, [0, 0, 0, 0])
            for i, value in enumerate((used, capacity, reserved,
                                       capacity - used)):
                t[i] += value
    rows = main.find_elements(By.CSS_SELECTOR, '#classes tr[data-rc]')
    shown = {row.get_attribute('data-rc'): [
        int(text_of(row, '[data-field=%s]' % f).replace(',', ''))
        for f in ('used', 'capacity', 'reserved', 'free')] for row in rows}
    assert shown == totals
    # compute-2 is full: it heads the fullest providers.
    first = main.find_element(By.CSS_SELECTOR, '#fullest li')
    assert first.get_attribute('data-uuid') == cloud.uuids['compute-2']
    assert text_of(first, '[data-field=percent]') == '100%'
    empty = [li.get_attribute('data-uuid') for li in main.find_elements(
        By.CSS_SELECTOR, '#no-inventory li')]
    assert empty == [cloud.uuids['no-inventory']]
    # Consumers by type and project, as the API's /usages counts them.
    rows = main.find_elements(By.CSS_SELECTOR, '#consumers tr[data-project]')
    shown = {(r.get_attribute('data-type'), r.get_attribute('data-project')):
             int(text_of(r, '[data-field=count]')) for r in rows}
    expected = {}
    by_type = {}
    for project in ('project-a', 'project-b'):
        usages = client.get('/usages', params={'project_id': project}).json()
        for consumer_type, entry in usages['usages'].items():
            expected[(consumer_type, project)] = entry['consumer_count']
            by_type[consumer_type] = (by_type.get(consumer_type, 0)
                                      + entry['consumer_count'])
    assert shown == expected
    rows = main.find_elements(By.CSS_SELECTOR, '#types tr[data-type]')
    assert {r.get_attribute('data-type'): int(text_of(
        r, '[data-field=count]')) for r in rows} == by_type
    assert_clean_log(browser)


def test_providers_list(browser, server, client, cloud):
    main = open_page(browser, server, 'providers')
    screenshot(browser, 'providers')
    rows = main.find_elements(By.CSS_SELECTOR, '#provider-table tbody tr')
    assert len(rows) == len(cloud.uuids)
    # Sorted by name; each row's usage as the API has it.
    names = [text_of(r, '[data-field=name] a') for r in rows]
    assert names == sorted(names)
    row = main.find_element(
        By.CSS_SELECTOR, 'tr[data-uuid="%s"]' % cloud.uuids['compute-1'])
    assert text_of(row, '[data-field=traits]') == 'HW_CPU_X86_AVX2'
    for rc, (used, cap, _reserved) in rest_usage(
            client, cloud.uuids['compute-1']).items():
        assert text_of(row, '[data-rc=%s] .num' % rc) == '%s/%s' % (
            format(used, ','), format(cap, ','))
    # Placeholders read as examples, not as entered values.
    field = main.find_element(By.ID, 'filter-resources')
    assert field.get_attribute('placeholder').startswith('e.g. ')
    assert browser.execute_script(
        "return getComputedStyle(arguments[0], '::placeholder').fontStyle",
        field) == 'italic'
    # "Has capacity for", traits and aggregate go to the API's filters.
    for query in ({'resources': 'VCPU:5'}, {'required': 'HW_NIC_SRIOV'},
                  {'member_of': AGG}):
        params = '&'.join('%s=%s' % kv for kv in query.items())
        main = open_page(browser, server, 'providers?' + params)
        shown = {r.get_attribute('data-uuid') for r in main.find_elements(
            By.CSS_SELECTOR, '#provider-table tbody tr')}
        expected = {rp['uuid'] for rp in client.get(
            '/resource_providers', params=query).json()['resource_providers']}
        assert shown == expected and shown, query
    # The search box filters as one types; the sort links reverse.
    main = open_page(browser, server, 'providers')
    box = browser.find_element(By.ID, 'search')
    box.send_keys('numa')
    WebDriverWait(browser, WAIT).until(
        lambda d: text_of(d, '#count') == '3 providers match “numa”')
    browser.find_element(By.CSS_SELECTOR, '[data-sort=name]').click()
    wait_state(browser, 'done')
    names = [e.text for e in browser.find_elements(
        By.CSS_SELECTOR, '#provider-table [data-field=name] a')]
    assert names == sorted(names, reverse=True) and len(names) == 3
    assert_clean_log(browser)


def test_tree(browser, server, client, cloud):
    numa0 = cloud.uuids['compute-1-numa-0']
    main = open_page(browser, server, 'provider/' + numa0)
    screenshot(browser, 'tree')
    tree = client.get('/resource_providers',
                      params={'in_tree': numa0}).json()['resource_providers']
    nodes = main.find_elements(By.CSS_SELECTOR, '#tree .node')
    assert {n.get_attribute('data-uuid') for n in nodes} == {
        rp['uuid'] for rp in tree}
    assert len(tree) == 4
    for node in nodes:
        rp = node.get_attribute('data-uuid')
        shown = {r.get_attribute('data-rc'): text_of(r, '[data-field=usage]')
                 for r in node.find_elements(By.CSS_SELECTOR, 'tr[data-rc]')}
        assert shown == {rc: 'used %s of %s' % (format(u, ','), format(c, ','))
                         for rc, (u, c, _r) in rest_usage(client, rp).items()}
    # Drawn as a tree: the PF sits inside NUMA 0, inside the compute node.
    pf = main.find_element(
        By.CSS_SELECTOR, '#tree > li > ul > li > ul > li > .node')
    assert pf.get_attribute('data-uuid') == cloud.uuids['compute-1-numa-0-pf']
    selected = main.find_element(By.CSS_SELECTOR,
                                 '.node[data-uuid="%s"]' % numa0)
    assert 'selected' in selected.get_attribute('class')
    sharing = [n.get_attribute('data-uuid') for n in main.find_elements(
        By.CSS_SELECTOR, '#sharing .node')]
    assert sharing == [cloud.uuids['shared-disk']]
    # An aggregate chip: its uuid's first block, the whole in the title,
    # a link to the list of its members.
    chip = main.find_element(By.CSS_SELECTOR, '#sharing a.agg')
    assert chip.text == 'aggregate ' + AGG[:8]
    assert AGG in chip.get_attribute('title')
    assert chip.get_attribute('href').endswith(
        '#/providers?member_of=' + AGG)
    # Through to the consumer and its allocations.
    vm2 = cloud.consumers['vm2']
    main.find_element(By.CSS_SELECTOR,
                      '#consumers tr[data-consumer="%s"] a' % vm2).click()
    main = wait_state(browser, 'done')
    screenshot(browser, 'consumer')
    doc = client.get('/allocations/' + vm2).json()
    assert text_of(main, '[data-field=project]') == doc['project_id']
    assert text_of(main, '[data-field=type]') == doc['consumer_type']
    rows = main.find_elements(By.CSS_SELECTOR, '#allocations tr[data-uuid]')
    assert {r.get_attribute('data-uuid'): text_of(r, '[data-field=resources]')
            for r in rows} == {
        rp: ', '.join('%s %s' % kv for kv in sorted(a['resources'].items()))
        for rp, a in doc['allocations'].items()}
    assert_clean_log(browser)


def test_markup_in_names_is_text(browser, server, cloud):
    rp = cloud.uuids[XSS_NAME]
    for route in ('provider/' + rp, 'providers?q=script',
                  'explain?resources=VCPU:4&in_tree=' + rp):
        main = open_page(browser, server, route)
        assert XSS_NAME in main.text
        assert browser.execute_script('return window.__xss') is None
        assert not main.find_elements(By.TAG_NAME, 'script')
        assert not main.find_elements(By.CSS_SELECTOR, 'img[src=x]')
    assert_clean_log(browser)


def test_explain(browser, server, client, cloud):
    main = open_page(browser, server, 'explain')
    form = main.find_element(By.ID, 'explain-form')
    form.find_element(By.NAME, 'resources').send_keys('VCPU:4,MEMORY_MB:1024')
    form.find_element(By.NAME, 'required').send_keys('HW_CPU_X86_AVX2')
    form.find_element(By.CSS_SELECTOR, 'button[type=submit]').click()
    main = wait_state(browser, 'done')
    query = {'resources': 'VCPU:4,MEMORY_MB:1024',
             'required': 'HW_CPU_X86_AVX2'}
    answer = client.get('/allocation_candidates', params=query).json()
    assert len(answer['allocation_requests']) == 1
    assert text_of(main, '#candidate-count') == '1 candidate'
    assert [e.get_attribute('data-uuid') for e in main.find_elements(
        By.CSS_SELECTOR, '.candidates li [data-uuid]')] == [
            cloud.uuids['compute-1']]

    # Compute node first, then the sharing provider it draws disk from.
    main = open_page(browser, server, 'explain?resources=VCPU:1,DISK_GB:10'
                     '&required=HW_CPU_X86_AVX2')
    for candidate in main.find_elements(By.CSS_SELECTOR, '.candidates li'):
        assert [e.get_attribute('data-uuid') for e in
                candidate.find_elements(By.CSS_SELECTOR, '[data-uuid]')] == [
            cloud.uuids['compute-1'], cloud.uuids['shared-disk']]

    # Nothing has 40 VCPU free: the explanation, checked against the API.
    main = open_page(browser, server, 'explain?resources=VCPU:40'
                     '&required=HW_CPU_X86_AVX2')
    screenshot(browser, 'explain')
    assert text_of(main, '#candidate-count').startswith('0 candidates')
    # With a query the form folds away: the answer starts on screen.
    assert not main.find_element(By.ID, 'explain-form').is_displayed()
    assert browser.execute_script(
        "return document.getElementById('summary').getBoundingClientRect()"
        ".bottom <= window.innerHeight")
    assert text_of(main, '[data-field=query]') == (
        'resources=VCPU:40&required=HW_CPU_X86_AVX2')
    doc = client.get('/allocation_candidates/explain', params={
        'resources': 'VCPU:40', 'required': 'HW_CPU_X86_AVX2'}).json()
    assert text_of(main, '#summary') == doc['summary']
    group = doc['groups'][0]
    emptying = next(step for step in group['steps']
                    if step['removed'] and not step['remaining'])
    funnel = main.find_element(By.CSS_SELECTOR, '.funnel[data-suffix=""]')
    assert text_of(funnel, '[data-field=emptying-check]') == \
        emptying['check']
    assert [text_of(r, '[data-field=check]') for r in funnel.find_elements(
        By.CSS_SELECTOR, 'tr.step')] == [s['check'] for s in group['steps']]
    assert len(main.find_elements(By.CSS_SELECTOR, '#nearest li')) == len(
        doc['nearest'])

    # A pasted query string with two groups: a funnel for each.
    query = 'resources1=VCPU:1&resources2=PCPU:100&group_policy=isolate'
    main = open_page(browser, server, 'explain')
    main.find_element(By.ID, 'pasted').send_keys('?' + query)
    main.find_element(By.CSS_SELECTOR,
                      '#explain-form button[type=submit]').click()
    main = wait_state(browser, 'done')
    assert browser.current_url.endswith('#/explain?' + query)
    doc = client.get('/allocation_candidates/explain?' + query).json()
    for group in doc['groups']:
        funnel = main.find_element(
            By.CSS_SELECTOR, '.funnel[data-suffix="%s"]' % group['suffix'])
        # Marked only where a check leaves nothing (PCPU, not VCPU).
        emptying = [s['check'] for s in group['steps']
                    if s['removed'] and not s['remaining']]
        shown = funnel.find_elements(By.CSS_SELECTOR,
                                     '[data-field=emptying-check]')
        assert [e.text for e in shown] == emptying[:1]
    assert len(doc['groups']) == 2

    # With candidates, the explanation is one click away.
    main = open_page(browser, server, 'explain?resources=VCPU:1')
    main.find_element(By.CSS_SELECTOR, '#explanation button').click()
    WebDriverWait(browser, WAIT).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, '#explanation #summary'))
    assert text_of(main, '#explanation #summary') == client.get(
        '/allocation_candidates/explain',
        params={'resources': 'VCPU:1'}).json()['summary']
    assert_clean_log(browser)


def test_explain_shows_the_weights_of_a_spread_answer(browser, server,
                                                     cloud):
    """A second server on the same database, ordering by spread: the
    explanation's weights, one row per tree, on the explain page."""
    workdir = tempfile.mkdtemp(prefix='placement-console-spread-')
    write_config(workdir, 'sqlite:///' + os.path.join(
        server.workdir, 'placement.sqlite'),
        '[placement]\ncandidate_order = spread\n')
    spread = Server(workdir)
    try:
        main = open_page(browser, spread, 'explain?resources=VCPU:1')
        main.find_element(By.CSS_SELECTOR, '#explanation button').click()
        WebDriverWait(browser, WAIT).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, '#weights tbody tr'))
        with httpx.Client(base_url=spread.url, headers=ADMIN_HEADERS,
                          timeout=30) as http:
            weights = http.get('/allocation_candidates/explain',
                               params={'resources': 'VCPU:1'}
                               ).json()['weights']
        rows = main.find_elements(By.CSS_SELECTOR, '#weights tbody tr')
        # Trees alike in weight come in a new order per request.
        assert sorted(row.get_attribute('data-uuid') for row in rows) == \
            sorted(item['root'] for item in weights['candidates'])
        assert {text_of(row, '[data-field=score]') for row in rows} == {
            '%.3f' % item['score'] for item in weights['candidates']}
        assert_clean_log(browser)
    finally:
        spread.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def test_phone_sized_window(server, cloud):
    with chromium(390, 844) as phone:
        for route in ('overview', 'providers',
                      'provider/' + cloud.uuids['compute-1'], 'explain'):
            open_page(phone, server, route)
            if route == 'overview':
                screenshot(phone, 'phone')
            # Nothing wider than the screen: no sideways scrolling.
            assert phone.execute_script(
                'return document.documentElement.scrollWidth'
                ' <= window.innerWidth'), route
        assert_clean_log(phone)


def test_keystone_asks_for_a_token():
    """Under keystone the files load without a token, the data does not:
    the page asks for one and keeps it in sessionStorage only."""
    workdir = tempfile.mkdtemp(prefix='placement-console-ks-')
    path = write_config(workdir, helpers.TestDatabase('sqlite', workdir).url)
    with open(path) as f:
        text = f.read().replace('auth_strategy = noauth2',
                                'auth_strategy = keystone')
    with open(path, 'w') as f:
        f.write(text)
    srv = Server(workdir)
    try:
        assert httpx.get(srv.url + '/console/').status_code == 200
        assert httpx.get(srv.url + '/console/app.js').status_code == 200
        # keystone is not configured here: the data is refused, not leaked.
        assert httpx.get(srv.url + '/resource_providers', headers={
            'x-auth-token': 'admin'}).status_code == 503
        with chromium() as driver:
            driver.get(srv.url + '/console/#/overview')
            main = wait_state(driver, 'token')
            screenshot(driver, 'token')
            driver.find_element(By.ID, 'token').send_keys('a-token')
            driver.find_element(By.CSS_SELECTOR,
                                '#token-form button').click()
            main = wait_state(driver, 'error')
            assert '503' in main.text
            assert driver.execute_script(
                'return sessionStorage.getItem("placement-console-token")'
            ) == 'a-token'
            assert driver.execute_script(
                'return localStorage.length') == 0
    finally:
        srv.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def test_ten_thousand_providers():
    """10,000 providers: the provider list's first page, traits and
    usage included, and the whole overview are each complete within 2 s
    and one API request."""
    need_browser()
    workdir = tempfile.mkdtemp(prefix='placement-console-10k-')
    db = helpers.TestDatabase('sqlite', workdir)
    write_config(workdir, db.url)
    # Two workers, as ./run-server and the default on two cores.
    srv = Server(workdir, workers=2)
    try:
        seed_providers(workdir, 10000)
        with chromium() as driver:
            # The best of three fresh loads: one run on a busy machine can
            # stall for reasons of its own.  Each page makes one request.
            for route, request in (('providers', 'GET /summary/providers'),
                                   ('overview', 'GET /summary')):
                timings = [load_page(driver, srv, route) for _ in range(3)]
                print(route, '(seconds, API requests):', timings)
                assert min(seconds for seconds, _ in timings) < 2, timings
                for _seconds, requests in timings:
                    assert requests == [request], requests
                if route == 'providers':
                    main = driver.find_element(By.ID, 'main')
                    assert text_of(main, '#count') == (
                        '10,000 providers · page 1 of 500')
                    assert len(main.find_elements(
                        By.CSS_SELECTOR, '#provider-table tbody tr')) == 20
                    started = time.monotonic()
                    main = open_page(driver, srv, 'providers?page=500')
                    assert time.monotonic() - started < 2
                    assert text_of(main, '#provider-table tbody tr a') \
                        == 'bulk-09980'
            assert text_of(driver, '#card-providers [data-field=value]') \
                == '10,000'
            assert text_of(driver, '#classes [data-rc=VCPU] '
                           '[data-field=capacity]') == '640,000'
            assert_clean_log(driver)
    finally:
        srv.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def load_page(driver, server, route):
    """(seconds from following the link until page ``route`` is complete,
    every figure filled in, as the page's clock measures it; the API
    requests it made, from the server's access log)."""
    driver.get(server.url + '/console/#/explain')
    driver.refresh()  # a new document: nothing cached
    wait_state(driver, 'done')
    mark = os.path.getsize(server.log_path)
    driver.execute_script("""
        const main = document.getElementById('main');
        main.dataset.state = 'stale';
        const started = performance.now();
        window.pageSeconds = null;
        new MutationObserver((changes, observer) => {
          if (main.dataset.state !== 'done') return;
          window.pageSeconds = (performance.now() - started) / 1000;
          observer.disconnect();
        }).observe(main, {attributes: true, attributeFilter: ['data-state']});
        location.hash = arguments[0];""", '#/' + route)
    wait_state(driver, 'done')
    seconds = driver.execute_script('return window.pageSeconds')
    time.sleep(0.2)  # the access log line follows the response
    with open(server.log_path) as f:
        f.seek(mark)
        requests = [match.group(1) for match in map(
            ACCESS_LINE.search, f) if match]
    return round(seconds, 3), [r for r in requests
                               if not r.startswith('GET /console/')]


def seed_providers(workdir, count):
    """``count`` providers with 64 VCPU each, inserted in bulk into the
    service's own tables: the rows the API would write, in a second
    rather than the minutes as many POSTs take."""
    conf = placement_conf.load(config_files=[
        os.path.join(workdir, 'placement.conf')])
    database = db.Database(conf)
    rps = tables.resource_providers
    with database.writer() as conn:
        now = base.now()
        conn.execute(rps.insert(), [
            {'uuid': str(uuid.uuid4()), 'name': 'bulk-%05d' % i,
             'generation': 1, 'created_at': now} for i in range(count)])
        conn.execute(rps.update().where(rps.c.root_provider_id.is_(None))
                     .values(root_provider_id=rps.c.id))
        vcpu = base.resource_class_ids(conn, ['VCPU'])['VCPU']
        conn.execute(tables.inventories.insert().from_select(
            ['resource_provider_id', 'resource_class_id', 'total',
             'reserved', 'min_unit', 'max_unit', 'step_size',
             'allocation_ratio', 'created_at'],
            sa.select(rps.c.id, sa.literal(vcpu), sa.literal(64),
                      sa.literal(0), sa.literal(1), sa.literal(64),
                      sa.literal(1), sa.literal(1.0), sa.literal(now))))
    database.engine.dispose()
