"""The console's pages (overview, provider list, tree and consumer, a
phone-sized window) against the REST API on the seeded cloud, and the
overview and provider list at 10,000 providers.
"""
import os
import re
import shutil
import tempfile
import time
import uuid

import sqlalchemy as sa

from support.browser_support import (WAIT, By, WebDriverWait, assert_clean_log,
                                     chromium, need_browser, open_page,
                                     wait_state)
from support import console_support as support
from support.console_support import AGG, rest_usage, screenshot, text_of
from support import helpers
from support.helpers import Server, write_config
from placement.config import conf as placement_conf
from placement.data import db
from placement.data import tables
from placement.objects import base

# The method and path of a request in the server's access log.
ACCESS_LINE = re.compile(r'placement\.access \S+ "(\w+ [^?" ]+)')


# The seeded server, its client and cloud, and the browser
# (console_support.py).
server = support.server
client = support.client
cloud = support.cloud
browser = support.browser


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
