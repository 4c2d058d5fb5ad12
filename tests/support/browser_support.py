"""Debian's headless chromium driven by selenium, for the console's tests.

selenium uses /usr/bin/chromedriver and /usr/bin/chromium and never fetches
a driver or browser of its own (SE_OFFLINE).  Without them the tests that
need a browser skip, except under CI=true, where they fail: .ci/run
installs them.
"""
import contextlib
import os
import shutil
import tempfile

import pytest

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:
    webdriver = None

CHROMIUM = '/usr/bin/chromium'
CHROMEDRIVER = '/usr/bin/chromedriver'
WAIT = 20


def need_browser():
    missing = [path for path in (CHROMIUM, CHROMEDRIVER)
               if not os.path.exists(path)]
    if webdriver is None:
        missing.append('the selenium package')
    if missing:
        reason = ('missing %s (apt-get install chromium chromium-driver; '
                  '.ci/run does it)' % ', '.join(missing))
        if os.environ.get('CI') == 'true':
            pytest.fail(reason)
        pytest.skip(reason)


@contextlib.contextmanager
def chromium(width=1280, height=900):
    need_browser()
    # selenium's manager must not go looking for a driver or a browser.
    os.environ['SE_OFFLINE'] = 'true'
    profile = tempfile.mkdtemp(prefix='placement-chromium-')
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ('--headless', '--no-sandbox', '--disable-gpu',
                 '--disable-quic', '--no-first-run',
                 '--disable-background-networking',
                 '--disable-component-update', '--disable-sync',
                 '--disable-dev-shm-usage', '--user-data-dir=' + profile,
                 '--window-size=%d,%d' % (width, height)):
        options.add_argument(flag)
    if width < 500:
        # Below chromium's smallest window: emulate the phone's screen.
        options.add_experimental_option('mobileEmulation', {'deviceMetrics': {
            'width': width, 'height': height, 'pixelRatio': 1}})
    options.set_capability('goog:loggingPrefs', {'browser': 'ALL'})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER),
                              options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def open_page(driver, server, route, wait_for='done'):
    """Show ``#/route`` and wait until the page says it is ``wait_for``."""
    target = server.url + '/console/#/' + route
    if driver.current_url.startswith(server.url + '/console/'):
        # Same document: mark it stale so the wait sees the new page.
        driver.execute_script(
            "document.getElementById('main').dataset.state = 'stale';"
            "location.hash = arguments[0];", '#/' + route)
    else:
        driver.get(target)
    return wait_state(driver, wait_for)


def wait_state(driver, wanted):
    main = driver.find_element(By.ID, 'main')
    WebDriverWait(driver, WAIT).until(
        lambda d: main.get_attribute('data-state') in (wanted, 'error'))
    errors = main.find_elements(By.CLASS_NAME, 'error')
    assert main.get_attribute('data-state') == wanted, (
        errors[0].text if errors else main.text)
    return main


def assert_clean_log(driver):
    """No script error and no Content-Security-Policy violation (an
    answer of 4xx the page expected is only a network entry)."""
    severe = [entry['message'] for entry in driver.get_log('browser')
              if entry['level'] == 'SEVERE' and entry['source'] != 'network']
    assert not severe, severe
