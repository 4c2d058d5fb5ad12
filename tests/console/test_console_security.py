"""What keeps the console safe: how its files are served, no HTML sinks in
its scripts, provider names shown as text, and asking for a token under
keystone.
"""
import os
import shutil
import tempfile

import httpx

from placement import console
from support.browser_support import (By, assert_clean_log, chromium, open_page,
                                     wait_state)
from support import console_support as support
from support.console_support import XSS_NAME, screenshot
from support import helpers
from support.helpers import Server, write_config


# The seeded server, its client and cloud, and the browser
# (console_support.py).
server = support.server
client = support.client
cloud = support.cloud
browser = support.browser


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
    static = console.STATIC_DIR
    for name in os.listdir(static):
        if name.endswith('.js'):
            with open(os.path.join(static, name)) as f:
                source = f.read()
            for sink in ('innerHTML', 'outerHTML', 'insertAdjacentHTML',
                         'document.write', 'eval(', 'new Function'):
                assert sink not in source, (name, sink)


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
