"""The console's Capacity page in Debian's headless chromium
(tests/support/browser_support.py): its figures are POST /capacity's for the
same shapes.  SQLite only, as the other tests/console/test_console_*.py: the
page is a client of the API.  PLACEMENT_CONSOLE_SCREENSHOTS=DIR saves its
screenshot."""
import json
import shutil
import tempfile
import urllib.parse

import httpx
import pytest

from support.browser_support import (By, assert_clean_log, chromium, open_page,
                                     wait_state)
from support import console_support
from support import helpers
from support import worlds

MARKUP_NAME = '<b id="injected">host</b>'


@pytest.fixture(scope='module')
def server():
    workdir = tempfile.mkdtemp(prefix='placement-console-capacity-')
    database = helpers.TestDatabase('sqlite', workdir)
    helpers.write_config(workdir, database.url)
    srv = helpers.Server(workdir)
    srv.world = worlds.World(database.engine())
    yield srv
    srv.stop()
    shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture(scope='module')
def shapes(server):
    """A small cloud in two availability zones (flat hosts, a NUMA tree,
    disk-less hosts on a shared pool); the flavor list."""
    world = server.world
    for index in range(1, 5):
        world.add('compute-%d' % index, inventory={
            'VCPU': {'total': 8 * index, 'allocation_ratio': 2.0},
            'MEMORY_MB': 8192 * (5 - index), 'DISK_GB': 200},
            used={'VCPU': index}, aggs=['az1' if index % 2 else 'az2'])
    world.add('numa-host', inventory={'DISK_GB': 100}, aggs=['az2'])
    for node in range(2):
        world.add('numa-host-%d' % node, parent='numa-host',
                  inventory={'VCPU': 6, 'MEMORY_MB': 8192})
    world.add('disk-pool', inventory={'DISK_GB': 500},
              traits=[helpers.SHARING], aggs=['pool'])
    world.add(MARKUP_NAME, inventory={'VCPU': 16, 'MEMORY_MB': 16384},
              aggs=['az1', 'pool'])
    return {
        'm1.small': 'resources=VCPU:1,MEMORY_MB:2048,DISK_GB:20',
        'm1.large': 'resources=VCPU:4,MEMORY_MB:8192,DISK_GB:80',
        'az2.medium': ('resources=VCPU:2,MEMORY_MB:4096,DISK_GB:40'
                       '&member_of=' + world.aggs['az2'][1]),
        'numa': ('resources=DISK_GB:10&resources1=VCPU:2,MEMORY_MB:2048'
                 '&resources2=VCPU:2,MEMORY_MB:2048&group_policy=isolate'),
    }


@pytest.fixture(scope='module')
def browser(server):
    with chromium() as driver:
        yield driver


def number(text):
    return int(text.replace(',', ''))


def content(element, selector):
    # textContent: the hosts of a folded shape are not displayed.
    return element.find_element(By.CSS_SELECTOR, selector).get_attribute(
        'textContent')


def test_figures_are_post_capacity_s(browser, server, shapes):
    main = open_page(browser, server, 'capacity')
    # The bodies the page sends (scripts of the test are not under the
    # page's Content-Security-Policy).
    browser.execute_script(
        'window.sentBodies = []; const send = window.fetch;'
        'window.fetch = (url, options) => {'
        '  if (options && options.body) window.sentBodies.push(options.body);'
        '  return send(url, options); };')
    main.find_element(By.ID, 'shapes').send_keys('\n'.join(
        '%s %s' % item for item in shapes.items()))
    main.find_element(By.CSS_SELECTOR,
                      '#capacity-form button[type=submit]').click()
    main = wait_state(browser, 'done')
    # The flavor list is in the location: a bookmark asks again.
    assert browser.current_url.endswith(
        '#/capacity?' + urllib.parse.urlencode(shapes))
    # It asks for the hosts it shows, not every host.
    (sent,) = [json.loads(body) for body in
               browser.execute_script('return window.sentBodies')]
    assert set(sent['shapes']) == set(shapes)
    for name, query in sent['shapes'].items():
        assert urllib.parse.parse_qs(query)['limit'] == ['11'], name
    with httpx.Client(base_url=server.url, headers=helpers.version('1.39'),
                      timeout=30) as client:
        client.headers['x-auth-token'] = 'admin'
        answer = client.post('/capacity', json={'shapes': shapes}).json()
    assert all(len(shape['providers']) <= 10
               for shape in answer['shapes'].values())
    console_support.screenshot(browser, 'capacity')

    for name, shape in answer['shapes'].items():
        row = main.find_element(By.CSS_SELECTOR,
                                '#fits tr[data-shape="%s"]' % name)
        assert number(content(row, '[data-field=fits]')) == shape['fits']
        assert number(content(row, '[data-field=hosts]')) == len(
            shape['providers'])
        hosts = main.find_elements(
            By.CSS_SELECTOR, 'details[data-shape="%s"] tr[data-uuid]' % name)
        assert [(h.get_attribute('data-uuid'),
                 number(content(h, '[data-field=fits]')),
                 content(h, '[data-field=limited-by]')) for h in hosts] == [
            (rp['uuid'], rp['fits'], ', '.join(rp['limited_by']))
            for rp in shape['providers'][:10]]
        assert hosts
    assert answer['shapes']['numa']['fits'] > 0
    assert any(rp['limited_by'] for shape in answer['shapes'].values()
               for rp in shape['providers'])

    shown = {(row.get_attribute('data-aggregate'),
              cell.get_attribute('data-shape')): cell_figures(
                  cell, 'fits', 'roots-fits')
             for row in main.find_elements(By.CSS_SELECTOR,
                                           '#aggregates tr[data-aggregate]')
             for cell in row.find_elements(By.CSS_SELECTOR, 'td')}
    expected = {(agg, name): (0, None) for agg, _ in shown for name in shapes}
    for name, shape in answer['shapes'].items():
        for agg in shape['aggregates']:
            expected[(agg['uuid'], name)] = (agg['fits'],
                                             agg.get('roots_fits'))
    assert shown == expected and len(shown) >= 2 * len(shapes)
    # The disk-less host of az1 draws on a pool outside az1.
    assert any(roots_fits is not None for _, roots_fits in shown.values())

    rows = main.find_elements(By.CSS_SELECTOR, '#stranded tr[data-rc]')
    for field, key in (('all', 'stranded'),
                       ('all-elsewhere', 'stranded_elsewhere')):
        assert {row.get_attribute('data-rc'): number(content(
            row, '[data-field=%s]' % field)) for row in rows} == answer[key]
    assert any(answer['stranded'].values())
    for row in rows:
        rc = row.get_attribute('data-rc')
        for cell in row.find_elements(By.CSS_SELECTOR, 'td[data-shape]'):
            shape = answer['shapes'][cell.get_attribute('data-shape')]
            assert cell_figures(cell, 'stranded', 'elsewhere') == (
                shape['stranded'].get(rc),
                shape['stranded_elsewhere'].get(rc) or None)
    # az2.medium may not use what lies outside az2.
    assert any(answer['shapes']['az2.medium']['stranded_elsewhere'].values())

    # A provider's name is text, never markup.
    assert MARKUP_NAME in main.get_attribute('textContent')
    assert not main.find_elements(By.ID, 'injected')
    assert_clean_log(browser)


def cell_figures(cell, first, second):
    """(the number in ``cell``'s ``first`` field or None, that in
    brackets in its ``second`` or None)."""
    figures = []
    for field in (first, second):
        found = cell.find_elements(By.CSS_SELECTOR,
                                   '[data-field=%s]' % field)
        figures.append(number(found[0].text.strip(' ()')) if found
                       else None)
    return tuple(figures)


def test_what_if_figures_are_post_capacity_s(browser, server, shapes):
    world = server.world
    drained, like = world.uuid('compute-3'), world.uuid('compute-1')
    with httpx.Client(base_url=server.url, headers=helpers.version('1.39'),
                      timeout=30) as client:
        client.headers['x-auth-token'] = 'admin'
        for _ in range(3):
            helpers.allocate(client, drained, VCPU=2, MEMORY_MB=1024)
        main = open_page(browser, server, 'capacity')
        main.find_element(By.ID, 'shapes').send_keys('\n'.join(
            '%s %s' % item for item in shapes.items()))
        fields = {'@without_root': drained, '@with': '%s 2' % like}
        for name, value in fields.items():
            main.find_element(By.NAME, name).send_keys(value)
        for name in ('@evacuate', '@survive'):
            main.find_element(By.NAME, name).click()
        main.find_element(By.CSS_SELECTOR,
                          '#capacity-form button[type=submit]').click()
        main = wait_state(browser, 'done')
        # The changes are in the location too: a bookmark asks again.
        asked = urllib.parse.parse_qs(browser.current_url.split('?', 1)[1])
        assert asked['@without_root'] == [drained]
        assert asked['@evacuate'] == asked['@survive'] == ['1']
        answer = client.post('/capacity', json={
            'shapes': {name: query + '&limit=11'
                       for name, query in shapes.items()},
            'without': {'roots': [drained]},
            'with': [{'like': like, 'count': 2}],
            'evacuate': True, 'survive': 'each_root'}).json()
    console_support.screenshot(browser, 'capacity-what-if', 'what-if')
    for name, shape in answer['shapes'].items():
        row = main.find_element(By.CSS_SELECTOR,
                                '#fits tr[data-shape="%s"]' % name)
        assert number(content(row, '[data-field=fits]')) == shape['fits']
        hosts = main.find_elements(
            By.CSS_SELECTOR, 'details[data-shape="%s"] tr[data-uuid]' % name)
        assert [h.get_attribute('data-uuid') for h in hosts] == [
            rp['uuid'] for rp in shape['providers'][:10]]
    # The copies are counted, by their names, and are not links.
    copies = ['%s#%d' % (like, n) for n in (1, 2)]
    counted = {rp['uuid'] for shape in answer['shapes'].values()
               for rp in shape['providers']}
    assert set(copies) <= counted
    assert not main.find_elements(By.CSS_SELECTOR,
                                  'a[href*="%s%%23"]' % like)
    evacuation = answer['evacuation']
    assert evacuation['moved'] >= 3
    summary = main.find_element(By.ID, 'evacuation')
    for field in ('moved', 'nowhere', 'dropped'):
        assert number(content(summary, '[data-field=%s]' % field)) == (
            evacuation[field])
    shown = {row.get_attribute('data-consumer'): content(
        row, '[data-field=to]') for row in main.find_elements(
            By.CSS_SELECTOR, '#moves tr[data-consumer]')}
    named = {info['uuid']: name for name, info in world.providers.items()}
    assert shown == {consumer: named[move['to']] if move['to'] else
                     'nowhere' for consumer, move
                     in evacuation['consumers'].items()}
    failing = main.find_elements(By.CSS_SELECTOR, '#failing tr[data-uuid]')
    assert [(row.get_attribute('data-uuid'),
             number(content(row, '[data-field=nowhere]'))) for row in failing
            ] == [(root['uuid'], root['nowhere'])
                  for root in answer['survive']['failing']]
    assert_clean_log(browser)


def test_bad_lines_and_refused_shapes(browser, server, shapes):
    main = open_page(browser, server, 'capacity')
    main.find_element(By.ID, 'shapes').send_keys('lonely')
    main.find_element(By.CSS_SELECTOR,
                      '#capacity-form button[type=submit]').click()
    problem = main.find_element(By.ID, 'form-error')
    assert problem.is_displayed()
    assert 'not a name, a space and a query string' in problem.text
    assert browser.current_url.endswith('#/capacity')
    # The API's 400 names the shape.
    main = open_page(browser, server, 'capacity?m1.bad=resources%3DVCPU%3Ax',
                     wait_for='error')
    assert 'The API answered 400: ' in main.text
    assert 'Shape m1.bad: Requested resource VCPU expected' in main.text


def test_phone_sized_window(server, shapes):
    with chromium(390, 844) as phone:
        open_page(phone, server,
                  'capacity?' + urllib.parse.urlencode(shapes))
        assert phone.execute_script(
            'return document.documentElement.scrollWidth'
            ' <= window.innerWidth')
        assert_clean_log(phone)
