"""The console's explain page: candidates, the explanation of why there
are none, granular groups, and the weights of a spread ordering, each
checked against the REST API.
"""
import os
import shutil
import tempfile

import httpx

from support.browser_support import (WAIT, By, WebDriverWait, assert_clean_log,
                                     open_page, wait_state)
from support import console_support as support
from support.console_support import screenshot, text_of
from support.helpers import ADMIN_HEADERS, Server, write_config


# The seeded server, its client and cloud, and the browser
# (console_support.py).
server = support.server
client = support.client
cloud = support.cloud
browser = support.browser


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
