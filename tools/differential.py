#!/usr/bin/env python3
"""Send the same requests to this service and to upstream placement, and
print every answer that differs.

    .venv/bin/python tools/differential.py [--upstream-venv DIR]
        [--only SUBSTRING] [--port 19100] [--db-url URL] [--json OUT]

Both servers start on a fresh database of their own (SQLite files in a
temporary directory, or fresh databases on the server of ``--db-url``),
with ``auth_strategy = noauth2``.  The steps of ``steps()`` then run in
order against both: first a small world (providers, a tree, inventories,
traits, aggregates, allocations), then probes over every route, method
and a range of microversions, malformed bodies and query strings, and
conflicts.  The steps that change data are the same for both, so as long
as the two servers agree their states stay the same.

Answers are compared after normalising what may legitimately differ:
request ids, UUIDs the servers generate, timestamps, the order of lists
upstream builds from sets, and the JSON-schema dump that follows
"Failed validating" in a validation error.  The exit status is 1 when an
answer differs and is not in ``ACCEPTED`` (upstream's own 500s and bugs,
kept on purpose, each with its reason).
"""
import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse

import httpx

HERE = os.path.dirname(os.path.abspath(__file__))
UPSTREAM_VENV = os.environ.get(
    'PLACEMENT_UPSTREAM_VENV',
    os.path.expanduser('~/.cache/placement-test-upstream-venv'))

# Fixed names, so that both servers are asked about the same things.
RP = 'd1ff0000-0000-4000-8000-000000000001'     # root with inventory
RP2 = 'd1ff0000-0000-4000-8000-000000000002'    # second root, sharing
CH = 'd1ff0000-0000-4000-8000-000000000003'     # child of RP
GC = 'd1ff0000-0000-4000-8000-000000000004'     # grandchild of RP
EMPTY = 'd1ff0000-0000-4000-8000-000000000005'  # root without inventory
SCRATCH = 'd1ff0000-0000-4000-8000-000000000006'  # created and deleted
PROBE = 'd1ff0000-0000-4000-8000-000000000007'  # a probe's own provider
C1 = 'd1ff0000-0000-4000-8000-00000000c001'     # consumer on RP
C2 = 'd1ff0000-0000-4000-8000-00000000c002'     # consumer on CH
C3 = 'd1ff0000-0000-4000-8000-00000000c003'     # a probe's own consumer
AGG = 'd1ff0000-0000-4000-8000-00000000a001'
AGG2 = 'd1ff0000-0000-4000-8000-00000000a002'
NOPE = 'd1ff0000-0000-4000-8000-00000000ffff'   # exists nowhere
PROJECT = 'd1ff0000-0000-4000-8000-0000000000e1'
USER = 'd1ff0000-0000-4000-8000-0000000000e2'
# [placement] incomplete_consumer_project_id and _user_id by default.
INCOMPLETE = '00000000-0000-0000-0000-000000000000'
KNOWN_UUIDS = {RP, RP2, CH, GC, EMPTY, SCRATCH, PROBE, C1, C2, C3, AGG,
               AGG2, NOPE, PROJECT, USER, INCOMPLETE}

ADMIN = {'x-auth-token': 'admin'}
SERVICE = {'x-auth-token': 'nova', 'x-roles': 'service'}
MEMBER = {'x-auth-token': 'user1', 'x-roles': 'member'}

# Microversions where some behaviour changes, plus the ends.
VERSIONS = ('1.0', '1.3', '1.4', '1.5', '1.6', '1.7', '1.8', '1.9',
            '1.10', '1.11', '1.12', '1.13', '1.14', '1.15', '1.16',
            '1.17', '1.18', '1.19', '1.20', '1.21', '1.22', '1.23',
            '1.24', '1.25', '1.26', '1.27', '1.28', '1.29', '1.30',
            '1.31', '1.32', '1.33', '1.34', '1.35', '1.36', '1.37',
            '1.38', '1.39')
EDGES = ('1.0', '1.14', '1.20', '1.23', '1.28', '1.33', '1.35', '1.38',
         '1.39')

# Differences kept on purpose: (regex on "METHOD path", regex on the
# difference line, why).  A step is accepted when each of its difference
# lines matches an entry.
ACCEPTED = [
    ('', r'^/headers/vary: "openstack-api-version" here, upstream has none',
     "upstream drops Vary from errors that escape its handlers (router "
     "404/405, lookups' 404, policy 403); sending it is harmless"),
    (r'resources=VCPU:99999999999999999999', '',
     'upstream answers 500 (an integer beyond SQLite INTEGER); ours 200'),
    (r'^GET /allocation_candidates\?.*&limit=1(&|$)',
     r'^/body/(allocation_requests|provider_summaries)',
     'which candidate comes first is not part of the contract: upstream '
     'picks among the fitting trees by set order, which changes from one '
     'process to the next (the unlimited query is compared in full)'),
    (r'same_subtree=_A,_B,_C,_D|required_B=CUSTOM_T&required_C',
     r"\['_", 'lists of suffixes: upstream prints a set (random order), '
     'ours sorted'),
    (r'^GET /allocation_candidates\?resources_A=VCPU:2&in_tree_B=', '',
     'a resourceless group with only in_tree: candidate engine semantics, '
     'out of scope here'),
    (r'^DELETE /resource_providers/[^/]+/inventories$',
     r'^/headers/allow: "GET, POST, PUT" here',
     'a 405 names the methods it allows (RFC 9110); upstream sends none'),
    (r'^GET /resource_providers\?uuid=D1FF', '',
     "upper-case UUID filter: upstream's SQLite comparison is case-"
     "sensitive (MariaDB's is not); ours matches the provider"),
    (r'^POST /resource_providers/[^/]+/inventories$',
     r'^/body/(allocation_ratio|resource_provider_generation)',
     'allocation_ratio 1e30 echoed as a float; generations follow'),
    (r'^POST /resource_providers/[^/]+/inventories$',
     r'IntegrityError|already exists',
     "duplicate inventory: upstream shows the driver's IntegrityError "
     '(SQL and parameters); ours names the class'),
    (r'^PUT /allocations/', r"2\.0|/status: 400 here, upstream 409",
     'an amount of 2.0: upstream reads it as an integer then refuses it '
     'with a 409 "violate inventory constraints"; ours is a 400 (not '
     'an integer)'),
    (r'^PUT /allocations/', r'1000000000000000000000000000000 is greater'
     r'|/status: 400 here, upstream 409',
     'an amount beyond 2**31: upstream has no bound in its schema and '
     'answers 409 "violate inventory constraints"; ours 400 at the schema'),
]


class Step:
    """One request: sent to both servers in order."""

    def __init__(self, label, method, path, body=None, version='latest',
                 headers=None, raw=None):
        self.label = label
        self.method = method
        self.path = path
        self.body = body
        self.raw = raw
        self.version = version
        self.headers = headers

    def send(self, http):
        headers = dict(ADMIN)
        if self.version is not None:
            headers['openstack-api-version'] = 'placement ' + self.version
        headers.update(self.headers or {})
        if self.raw is not None:
            headers.setdefault('content-type', 'application/json')
            return http.request(self.method, self.path, content=self.raw,
                                headers=headers)
        if self.body is not None:
            return http.request(self.method, self.path, json=self.body,
                                headers=headers)
        return http.request(self.method, self.path, headers=headers)


class Sql(Step):
    """Statements run on both servers' databases, not a request."""

    def __init__(self, label, statements):
        super().__init__(label, 'SQL', '; '.join(statements))
        self.statements = statements

    def execute(self, db_url):
        import sqlalchemy
        engine = sqlalchemy.create_engine(db_url)
        try:
            with engine.begin() as conn:
                for statement in self.statements:
                    conn.exec_driver_sql(statement)
        finally:
            engine.dispose()


# -- the steps ----------------------------------------------------------------

def _reads(label, base, queries, versions):
    """A GET of ``base`` + each query at each version."""
    for query in queries:
        for version in versions:
            yield Step('%s %s' % (label, version), 'GET', base + query,
                       version=version)


def alloc_body(resources, rp=RP, gen=None, **extra):
    body = {'allocations': {rp: {'resources': resources}},
            'project_id': PROJECT, 'user_id': USER,
            'consumer_generation': gen, 'consumer_type': 'INSTANCE'}
    body.update(extra)
    return body


def world():
    yield Step('world', 'PUT', '/resource_classes/CUSTOM_FOO')
    yield Step('world', 'PUT', '/resource_classes/CUSTOM_BAR')
    yield Step('world', 'PUT', '/traits/CUSTOM_T')
    yield Step('world', 'PUT', '/traits/CUSTOM_U')
    for name, uuid, parent in (('rp1', RP, None), ('rp2', RP2, None),
                               ('child', CH, RP), ('grandchild', GC, CH),
                               ('empty', EMPTY, None)):
        body = {'name': name, 'uuid': uuid}
        if parent:
            body['parent_provider_uuid'] = parent
        yield Step('world', 'POST', '/resource_providers', body)
    yield Step('world', 'PUT', '/resource_providers/%s/inventories' % RP, {
        'resource_provider_generation': 0, 'inventories': {
            'VCPU': {'total': 8, 'max_unit': 4, 'step_size': 2,
                     'min_unit': 2},
            'MEMORY_MB': {'total': 1024},
            'CUSTOM_FOO': {'total': 4}}})
    yield Step('world', 'PUT', '/resource_providers/%s/inventories' % CH, {
        'resource_provider_generation': 0, 'inventories': {
            'VCPU': {'total': 4}, 'CUSTOM_BAR': {'total': 2}}})
    yield Step('world', 'PUT', '/resource_providers/%s/inventories' % RP2, {
        'resource_provider_generation': 0, 'inventories': {
            'DISK_GB': {'total': 100}}})
    yield Step('world', 'PUT', '/resource_providers/%s/traits' % RP, {
        'resource_provider_generation': 1, 'traits': ['CUSTOM_T']})
    yield Step('world', 'PUT', '/resource_providers/%s/traits' % RP2, {
        'resource_provider_generation': 1,
        'traits': ['MISC_SHARES_VIA_AGGREGATE']})
    yield Step('world', 'PUT', '/resource_providers/%s/aggregates' % RP, {
        'resource_provider_generation': 2, 'aggregates': [AGG]})
    yield Step('world', 'PUT', '/resource_providers/%s/aggregates' % RP2, {
        'resource_provider_generation': 2, 'aggregates': [AGG]})
    yield Step('world', 'PUT', '/allocations/' + C1,
               alloc_body({'VCPU': 2, 'CUSTOM_FOO': 1}))
    yield Step('world', 'PUT', '/allocations/' + C2,
               alloc_body({'CUSTOM_BAR': 1}, rp=CH))


def every_route():
    """Every route x method x microversion, with and without bodies."""
    rp = '/resource_providers/' + RP
    paths = ['/', '/resource_providers', rp, rp + '/inventories',
             rp + '/inventories/VCPU', rp + '/usages', rp + '/aggregates',
             rp + '/allocations', rp + '/traits', '/resource_classes',
             '/resource_classes/VCPU', '/resource_classes/CUSTOM_FOO',
             '/traits', '/traits/CUSTOM_T', '/allocations/' + C1,
             '/allocation_candidates?resources=VCPU:2',
             '/usages?project_id=' + PROJECT, '/usages',
             '/resource_providers/' + NOPE,
             '/resource_providers/' + NOPE + '/inventories',
             '/resource_providers/' + NOPE + '/traits',
             '/resource_providers/' + NOPE + '/aggregates',
             '/resource_providers/' + NOPE + '/usages',
             '/resource_providers/' + NOPE + '/allocations',
             '/resource_providers/abc', '/resource_providers/abc/traits',
             '/allocations/' + NOPE, '/allocations/abc',
             '/resource_classes/CUSTOM_NOPE', '/traits/CUSTOM_NOPE',
             '/nowhere', '/resource_providers/', rp + '/',
             '/traits/', '/resource_classes/']
    for path in paths:
        for version in VERSIONS:
            yield Step('read %s' % version, 'GET', path, version=version)
    # Methods nobody serves, and writes with no or an empty body.
    for path in paths + ['/allocations', '/reshaper']:
        for method in ('PATCH', 'OPTIONS', 'HEAD'):
            yield Step('method', method, path)
        for method in ('POST', 'PUT', 'DELETE'):
            if method == 'DELETE' and path in (rp, '/traits/CUSTOM_T',
                                               '/resource_classes/CUSTOM_FOO',
                                               '/allocations/' + C1,
                                               rp + '/traits',
                                               rp + '/inventories',
                                               rp + '/inventories/VCPU'):
                continue     # keep the world; in-use deletes come later
            for version in EDGES:
                yield Step('nobody %s' % version, method, path,
                           version=version)
                if method != 'DELETE':
                    yield Step('empty body %s' % version, method, path,
                               raw=b'', version=version)
                    yield Step('bad json %s' % version, method, path,
                               raw=b'{"a": ', version=version)
                    yield Step('json list %s' % version, method, path,
                               body=[], version=version)


def negotiation():
    for accept in ('text/plain', 'application/xml', '*/*', 'text/*',
                   'application/*', 'application/json;q=0',
                   'text/html, application/json;q=0.1', ''):
        for path in ('/', '/resource_providers', '/nowhere',
                     '/resource_providers/' + NOPE):
            yield Step('accept', 'GET', path, headers={'accept': accept})
    for version in ('', 'placement', 'placement 1', 'placement 1.',
                    'placement 01.1', 'placement 1.01', 'placement 1.100',
                    'placement 0.9',
                    'compute 1.5', 'placement 1.5, compute 2.1',
                    'placement 1.a', 'placement -1.0', 'PLACEMENT 1.5',
                    'placement   1.5'):
        yield Step('version header', 'GET', '/resource_providers',
                   version=None, headers={'openstack-api-version': version})
    for ctype in ('text/plain', 'application/json; charset=utf-8',
                  'application/json-patch+json', 'application/JSON',
                  'multipart/form-data', ''):
        yield Step('content-type', 'POST', '/resource_classes',
                   raw=b'{"name": "CUSTOM_CT"}',
                   headers={'content-type': ctype})
        yield Step('content-type', 'PUT', '/traits/CUSTOM_CTT',
                   raw=b'{}', headers={'content-type': ctype})
        yield Step('content-type', 'POST', '/resource_providers',
                   raw=b'{"name": "ct"}', headers={'content-type': ctype})
    yield Step('content-type', 'DELETE', '/resource_classes/CUSTOM_CT')
    yield Step('content-type', 'DELETE', '/traits/CUSTOM_CTT')


def provider_queries():
    base = '/resource_providers?'
    queries = [
        '', 'name=rp1', 'name=', 'name=nope', 'uuid=' + RP, 'uuid=abc',
        'uuid=', 'uuid=%s&uuid=%s' % (RP, RP2), 'foo=bar', 'limit=1',
        'resources=VCPU:1', 'resources=VCPU:0', 'resources=VCPU:-1',
        'resources=VCPU:abc', 'resources=VCPU', 'resources=',
        'resources=VCPU:1:2', 'resources=CUSTOM_NOPE:1', 'resources=vcpu:1',
        'resources=VCPU:1,VCPU:2', 'resources=VCPU:1,', 'resources=,VCPU:1',
        'resources=VCPU:1&resources=MEMORY_MB:1', 'resources=VCPU:99',
        'resources=VCPU:1.5', 'resources=VCPU:%2B1', 'resources=VCPU: 1',
        'resources=VCPU:99999999999999999999', 'resources=:1',
        'resources=VCPU:1,MEMORY_MB:1024', 'resources=VCPU:1,MEMORY_MB:1025',
        'required=CUSTOM_T', 'required=CUSTOM_NOPE', 'required=',
        'required=!CUSTOM_T', 'required=!', 'required=CUSTOM_T,',
        'required=,CUSTOM_T', 'required=CUSTOM_T,!CUSTOM_T',
        'required=in:CUSTOM_T,CUSTOM_U', 'required=in:',
        'required=in:CUSTOM_T,!CUSTOM_U', 'required=in:!CUSTOM_T',
        'required=CUSTOM_T&required=CUSTOM_U', 'required=in:CUSTOM_NOPE',
        'required=!in:CUSTOM_T', 'required=lower', 'required=%20',
        'required=CUSTOM_T&required=!CUSTOM_T', 'required=in:CUSTOM_T,',
        'member_of=' + AGG, 'member_of=abc', 'member_of=in:abc',
        'member_of=in:', 'member_of=', 'member_of=!', 'member_of=!in:',
        'member_of=!in:abc', 'member_of=%s,%s' % (AGG, AGG2),
        'member_of=in:%s,%s' % (AGG, AGG2), 'member_of=!' + AGG,
        'member_of=!in:%s,%s' % (AGG, AGG2), 'member_of=in:%s,' % AGG,
        'member_of=%s&member_of=%s' % (AGG, AGG2),
        'member_of=%s&member_of=!%s' % (AGG, AGG),
        'member_of=in:!' + AGG, 'member_of=!!' + AGG,
        'in_tree=' + RP, 'in_tree=' + GC, 'in_tree=abc', 'in_tree=',
        'in_tree=' + NOPE, 'in_tree=%s&in_tree=%s' % (RP, RP2),
        'in_tree=%s,%s' % (RP, RP2), 'resources=VCPU:1&in_tree=' + RP,
        'name=rp1&name=rp2', 'uuid=' + RP.upper(),
        'uuid=' + RP.replace('-', ''),
        'name=%C3%A9', 'required=CUSTOM_%C3%A9', 'resources=CUSTOM_%C3%A9:1',
    ]
    versions = ('1.0', '1.2', '1.3', '1.4', '1.13', '1.14', '1.17', '1.18',
                '1.21', '1.22', '1.23', '1.30', '1.31', '1.38', '1.39')
    yield from _reads('rps', base, queries, versions)


def candidate_queries():
    base = '/allocation_candidates?'
    r = 'resources=VCPU:2'
    queries = [
        '', r, 'resources=', 'resources=VCPU:0', 'resources=VCPU',
        'resources=CUSTOM_NOPE:1', 'resources=VCPU:2,VCPU:2',
        'resources=VCPU:99999999999999999999', r + '&foo=1', r + '&limit=0',
        r + '&limit=abc', r + '&limit=1', r + '&limit=-1', r + '&limit=',
        r + '&limit=1&limit=2', r + '&required=CUSTOM_T',
        r + '&required=CUSTOM_NOPE', r + '&required=', r + '&required=!',
        r + '&required=CUSTOM_T,!CUSTOM_T', r + '&required=!CUSTOM_T',
        r + '&required=in:CUSTOM_T,CUSTOM_U', r + '&required=in:',
        r + '&required=in:CUSTOM_T,!CUSTOM_U',
        r + '&required=CUSTOM_T&required=!CUSTOM_T',
        r + '&required=CUSTOM_T&required=CUSTOM_U',
        r + '&member_of=' + AGG, r + '&member_of=abc', r + '&member_of=',
        r + '&member_of=in:', r + '&member_of=!in:abc',
        r + '&member_of=%s,%s' % (AGG, AGG2),
        r + '&member_of=in:%s,%s' % (AGG, AGG2),
        r + '&member_of=!' + AGG, r + '&member_of=%s&member_of=%s' % (AGG,
                                                                      AGG2),
        r + '&in_tree=' + RP, r + '&in_tree=abc', r + '&in_tree=',
        r + '&in_tree=' + NOPE, r + '&in_tree=%s&in_tree=%s' % (RP, RP2),
        r + '&group_policy=none', r + '&group_policy=isolate',
        r + '&group_policy=foo', r + '&group_policy=',
        'resources1=VCPU:2', 'resources1=VCPU:2&resources2=MEMORY_MB:1',
        'resources1=VCPU:2&resources2=VCPU:2&group_policy=isolate',
        'resources1=VCPU:2&group_policy=foo', 'resources_!=VCPU:2',
        'resources_X=VCPU:2', 'resources_' + 'X' * 65 + '=VCPU:2',
        'resources_' + 'X' * 64 + '=VCPU:2', 'resources0=VCPU:2',
        'resources01=VCPU:2', 'resources1=',
        r + '&required1=CUSTOM_T', r + '&member_of1=' + AGG,
        r + '&in_tree1=' + RP, 'resources1=VCPU:2&in_tree1=abc',
        'resources1=VCPU:2&required1=CUSTOM_T,!CUSTOM_T',
        'resources1=VCPU:2&required1=CUSTOM_NOPE',
        'resources1=VCPU:2&member_of1=abc',
        'resources1=VCPU:2&member_of1=%s&member_of1=%s' % (AGG, AGG2),
        'required=CUSTOM_T', 'required=CUSTOM_T&required1=CUSTOM_T',
        'group_policy=isolate', 'member_of=' + AGG, 'limit=1',
        r + '&root_required=CUSTOM_T', r + '&root_required=CUSTOM_NOPE',
        r + '&root_required=!CUSTOM_T', r + '&root_required=',
        r + '&root_required=CUSTOM_T,!CUSTOM_T',
        r + '&root_required=CUSTOM_T&root_required=CUSTOM_U',
        r + '&root_required=in:CUSTOM_T', r + '&root_required=!',
        r + '&root_required=CUSTOM_T,',
        'resources_A=VCPU:2&resources_B=MEMORY_MB:1&group_policy=none'
        '&same_subtree=_A,_B',
        'resources_A=VCPU:2&same_subtree=_A,_B', 'resources_A=VCPU:2'
        '&same_subtree=', 'resources=VCPU:2&resources_A=VCPU:2'
        '&same_subtree=_A,', 'resources_A=VCPU:2&same_subtree=_A',
        'resources_A=VCPU:2&same_subtree=A',
        'resources_A=VCPU:2&required_B=CUSTOM_T&same_subtree=_B',
        'resources_A=VCPU:2&required_B=CUSTOM_T&same_subtree=_A,_B',
        'resources_A=VCPU:2&required_B=CUSTOM_T&same_subtree=_A,_B'
        '&group_policy=none',
        'resources_A=VCPU:2&required_B=CUSTOM_T&group_policy=none',
        'resources_A=VCPU:2&required_B=CUSTOM_T&required_C=CUSTOM_U'
        '&group_policy=none',
        'required_B=CUSTOM_T&same_subtree=_B',
        'resources_A=VCPU:2&resources_B=MEMORY_MB:1&group_policy=none'
        '&same_subtree=_A,_B&same_subtree=_A',
        'resources_A=VCPU:2&resources_B=MEMORY_MB:1&group_policy=none'
        '&same_subtree=_A,_A',
        'resources_A=VCPU:2&resources_B=MEMORY_MB:1&group_policy=none'
        '&same_subtree=_A,_B,_C,_D',
        'resources_A=VCPU:2&member_of_B=%s&same_subtree=_A,_B'
        '&group_policy=none' % AGG,
        'resources_A=VCPU:2&in_tree_B=%s&same_subtree=_A,_B'
        '&group_policy=none' % RP,
        'resources=VCPU:1&resources1=VCPU:1&group_policy=isolate',
        'resources=CUSTOM_BAR:1,VCPU:1', 'resources=DISK_GB:1,VCPU:2',
        'resources=DISK_GB:1,VCPU:2&limit=1',
        'resources1=DISK_GB:1&resources2=VCPU:2&group_policy=none',
        'resources=VCPU:2,MEMORY_MB:100&required=!CUSTOM_T',
        'resources=VCPU:%2B2', 'resources=VCPU:2&resources=MEMORY_MB:1',
    ]
    versions = ('1.10', '1.16', '1.17', '1.20', '1.21', '1.22', '1.24',
                '1.25', '1.29', '1.30', '1.31', '1.32', '1.33', '1.34',
                '1.35', '1.36', '1.38', '1.39')
    yield from _reads('ac', base, queries, versions)


def provider_writes():
    rp = '/resource_providers/'
    bodies = [
        {}, {'name': 'x'}, {'name': ''}, {'name': 'x' * 200},
        {'name': 'x' * 201}, {'name': 1}, {'name': None}, {'name': 'rp1'},
        {'name': 'x', 'uuid': 'abc'}, {'name': 'x', 'uuid': RP},
        {'name': 'x', 'uuid': 1}, {'name': 'x', 'uuid': None},
        {'name': 'x', 'foo': 1}, {'name': 'x', 'generation': 1},
        {'name': 'x', 'parent_provider_uuid': NOPE},
        {'name': 'x', 'parent_provider_uuid': 'abc'},
        {'name': 'x', 'parent_provider_uuid': None},
        {'name': 'x', 'uuid': NOPE, 'parent_provider_uuid': NOPE},
        {'name': '\u00e9\u4e2d\U0001F600'}, {'name': 'a\x00b'},
        {'name': 'x', 'uuid': RP.upper()},
        {'name': 'x', 'uuid': RP.replace('-', '')},
    ]
    names = iter(range(10 ** 6))
    for body in bodies:
        for version in ('1.0', '1.13', '1.14', '1.19', '1.20', 'latest'):
            if body.get('name') == 'x':
                # A name of its own, so that only the cases meant to
                # clash do.
                body = dict(body, name='x%d' % next(names))
            yield Step('rp create %s' % version, 'POST', rp, body,
                       version=version)
    yield Step('rp cleanup', 'POST', rp, {'name': 'scratch', 'uuid': SCRATCH})
    updates = [
        {}, {'name': 'scratch'}, {'name': 'rp1'}, {'name': ''},
        {'name': 'scratch', 'parent_provider_uuid': SCRATCH},
        {'name': 'scratch', 'parent_provider_uuid': NOPE},
        {'name': 'scratch', 'parent_provider_uuid': 'abc'},
        {'name': 'scratch', 'parent_provider_uuid': None},
        {'name': 'scratch', 'uuid': NOPE}, {'name': 'scratch', 'foo': 1},
        {'name': 'scratch', 'generation': 5},
    ]
    for body in updates:
        for version in ('1.0', '1.13', '1.14', '1.36', 'latest'):
            yield Step('rp update %s' % version, 'PUT', rp + SCRATCH, body,
                       version=version)
    for version in ('1.14', '1.36', '1.37'):
        yield Step('rp reparent %s' % version, 'PUT', rp + CH,
                   {'name': 'child', 'parent_provider_uuid': RP2},
                   version=version)
        yield Step('rp loop %s' % version, 'PUT', rp + RP,
                   {'name': 'rp1', 'parent_provider_uuid': GC},
                   version=version)
        yield Step('rp unparent %s' % version, 'PUT', rp + GC,
                   {'name': 'grandchild', 'parent_provider_uuid': None},
                   version=version)
    yield Step('rp reparent back', 'PUT', rp + CH,
               {'name': 'child', 'parent_provider_uuid': RP})
    yield Step('rp show after', 'GET', rp + CH)
    for path in (rp + RP, rp + CH, rp + SCRATCH, rp + NOPE, rp + 'abc'):
        yield Step('rp delete', 'DELETE', path)
    yield Step('rp list after', 'GET', rp)


def inventory_writes():
    inv = '/resource_providers/%s/inventories' % RP
    inv2 = '/resource_providers/%s/inventories' % EMPTY
    records = [
        {'resource_class': 'DISK_GB', 'total': 8},
        {'resource_class': 'DISK_GB', 'total': 0},
        {'resource_class': 'DISK_GB', 'total': -1},
        {'resource_class': 'DISK_GB', 'total': 2 ** 31},
        {'resource_class': 'DISK_GB', 'total': 10 ** 30},
        {'resource_class': 'DISK_GB', 'total': 8.5},
        {'resource_class': 'DISK_GB', 'total': '8'},
        {'resource_class': 'DISK_GB', 'total': True},
        {'resource_class': 'DISK_GB', 'total': None},
        {'resource_class': 'DISK_GB'},
        {'total': 8},
        {'resource_class': 'CUSTOM_NOPE', 'total': 8},
        {'resource_class': 'disk', 'total': 8},
        {'resource_class': 'DISK_GB', 'total': 8, 'reserved': 9},
        {'resource_class': 'DISK_GB', 'total': 8, 'reserved': 8},
        {'resource_class': 'DISK_GB', 'total': 8, 'min_unit': 9},
        {'resource_class': 'DISK_GB', 'total': 8, 'max_unit': 0},
        {'resource_class': 'DISK_GB', 'total': 8, 'min_unit': 4,
         'max_unit': 2},
        {'resource_class': 'DISK_GB', 'total': 8, 'step_size': 0},
        {'resource_class': 'DISK_GB', 'total': 8, 'allocation_ratio': 0},
        {'resource_class': 'DISK_GB', 'total': 8, 'allocation_ratio': -1},
        {'resource_class': 'DISK_GB', 'total': 8, 'allocation_ratio': '1'},
        {'resource_class': 'DISK_GB', 'total': 8, 'allocation_ratio':
         10 ** 30},
        {'resource_class': 'DISK_GB', 'total': 8, 'foo': 1},
        {'resource_class': 'DISK_GB', 'total': 8,
         'resource_provider_generation': 0},
    ]
    for record in records:
        for version in ('1.0', '1.25', '1.26', 'latest'):
            yield Step('inv create %s' % version, 'POST', inv2, record,
                       version=version)
            yield Step('inv reset', 'DELETE', inv2 + '/DISK_GB')
    yield Step('inv create dup', 'POST', inv, {'resource_class': 'VCPU',
                                               'total': 8})
    yield Step('inv create dup', 'POST', inv, {'resource_class': 'VCPU',
                                               'total': 8}, version='1.0')
    yield Step('inv create unknown rp', 'POST',
               '/resource_providers/%s/inventories' % NOPE,
               {'resource_class': 'VCPU', 'total': 8})
    puts = [
        {}, {'inventories': {}},
        {'resource_provider_generation': 99, 'inventories': {}},
        {'resource_provider_generation': 'x', 'inventories': {}},
        {'resource_provider_generation': 0, 'inventories': []},
        {'resource_provider_generation': 0, 'inventories': {'VCPU': {}}},
        {'resource_provider_generation': 0,
         'inventories': {'VCPU': {'total': 8, 'foo': 1}}},
        {'resource_provider_generation': 0,
         'inventories': {'lower': {'total': 8}}},
        {'resource_provider_generation': 0,
         'inventories': {'CUSTOM_NOPE': {'total': 8}}},
        {'resource_provider_generation': 0,
         'inventories': {'VCPU': {'total': 8, 'reserved': 9}}},
        {'resource_provider_generation': 0,
         'inventories': {'VCPU': {'total': 8, 'min_unit': 9}}},
        {'resource_provider_generation': 0,
         'inventories': {'VCPU': {'total': 8, 'max_unit': 9,
                                  'min_unit': 10}}},
        {'resource_provider_generation': 0, 'inventories': {}, 'foo': 1},
    ]
    for body in puts:
        for version in ('1.0', '1.25', '1.26', 'latest'):
            yield Step('inv replace %s' % version, 'PUT', inv2, body,
                       version=version)
    # In use: these change nothing when they answer as they should.
    generation = 4
    for version in ('1.0', '1.25', 'latest'):
        yield Step('inv replace in use %s' % version, 'PUT', inv, {
            'resource_provider_generation': generation,
            'inventories': {'MEMORY_MB': {'total': 8}}}, version=version)
        yield Step('inv shrink below use %s' % version, 'PUT', inv, {
            'resource_provider_generation': generation,
            'inventories': {'VCPU': {'total': 1, 'min_unit': 1, 'max_unit': 1,
                                     'step_size': 1},
                            'MEMORY_MB': {'total': 1024},
                            'CUSTOM_FOO': {'total': 4}}}, version=version)
        yield Step('inv update below use %s' % version, 'PUT',
                   inv + '/VCPU', {'resource_provider_generation': generation,
                                   'total': 1, 'min_unit': 1, 'max_unit': 1},
                   version=version)
        yield Step('inv update reserved %s' % version, 'PUT',
                   inv + '/VCPU', {'resource_provider_generation': generation,
                                   'total': 8, 'reserved': 8},
                   version=version)
        yield Step('inv delete in use %s' % version, 'DELETE',
                   inv + '/VCPU', version=version)
        yield Step('inv delete all in use %s' % version, 'DELETE', inv,
                   version=version)
    updates = [
        {}, {'total': 8}, {'resource_provider_generation': 99, 'total': 8},
        {'resource_provider_generation': 4},
        {'resource_provider_generation': 4, 'total': 8, 'foo': 1},
        {'resource_provider_generation': 4, 'total': 8,
         'resource_class': 'VCPU'},
        {'resource_provider_generation': 4, 'total': 8,
         'resource_class': 'DISK_GB'},
    ]
    for body in updates:
        for path in (inv + '/VCPU', inv + '/DISK_GB', inv + '/CUSTOM_NOPE',
                     inv + '/lower'):
            yield Step('inv update', 'PUT', path, body)
    for path in (inv + '/DISK_GB', inv + '/CUSTOM_NOPE', inv + '/lower',
                 inv2):
        for version in ('1.0', '1.4', '1.5', 'latest'):
            yield Step('inv delete %s' % version, 'DELETE', path,
                       version=version)


def trait_and_class_writes():
    rpt = '/resource_providers/%s/traits' % EMPTY
    for name in ('CUSTOM_NEW_T', 'BAD', 'CUSTOM_bad', 'CUSTOM_', 'CUSTOM_' +
                 'X' * 255, 'HW_CPU_X86_AVX', 'CUSTOM_%C3%A9', 'custom_x'):
        for version in ('1.5', '1.6', 'latest'):
            yield Step('trait put %s' % version, 'PUT', '/traits/' + name,
                       version=version)
        yield Step('trait delete', 'DELETE', '/traits/' + name)
    for query in ('name=in:CUSTOM_T,CUSTOM_U', 'name=startswith:CUSTOM',
                  'name=foo', 'name=in:', 'name=startswith:',
                  'associated=true', 'associated=false', 'associated=maybe',
                  'associated=',
                  'name=in:CUSTOM_T&associated=true', 'foo=1', 'name='):
        yield Step('traits list', 'GET', '/traits?' + query)
    bodies = [
        {}, {'traits': []}, {'resource_provider_generation': 0},
        {'resource_provider_generation': 0, 'traits': ['CUSTOM_NOPE']},
        {'resource_provider_generation': 0, 'traits': ['lower']},
        {'resource_provider_generation': 0, 'traits': ['CUSTOM_T',
                                                       'CUSTOM_T']},
        {'resource_provider_generation': 0, 'traits': 'CUSTOM_T'},
        {'resource_provider_generation': 99, 'traits': []},
        {'resource_provider_generation': 0, 'traits': [], 'foo': 1},
        {'resource_provider_generation': 0, 'traits': [1]},
        {'resource_provider_generation': 0,
         'traits': ['CUSTOM_NOPE', 'CUSTOM_NOPE2']},
    ]
    for body in bodies:
        for version in ('1.6', 'latest'):
            yield Step('rp traits put %s' % version, 'PUT', rpt, body,
                       version=version)
    yield Step('trait delete in use', 'DELETE', '/traits/CUSTOM_T')
    yield Step('trait delete standard', 'DELETE', '/traits/HW_CPU_X86_AVX')
    classes = [{}, {'name': 'CUSTOM_FOO'}, {'name': 'VCPU'}, {'name': 'bad'},
               {'name': 'CUSTOM_'}, {'name': 'CUSTOM_' + 'X' * 250},
               {'name': 'CUSTOM_NEW', 'foo': 1}, {'name': 1},
               {'name': 'CUSTOM_\u00e9'}]
    for body in classes:
        for version in ('1.1', '1.2', '1.6', '1.7', 'latest'):
            yield Step('rc create %s' % version, 'POST', '/resource_classes',
                       body, version=version)
            yield Step('rc reset', 'DELETE', '/resource_classes/CUSTOM_NEW')
    for name in ('CUSTOM_NEW', 'VCPU', 'bad', 'CUSTOM_FOO', 'CUSTOM_'):
        for version in ('1.2', '1.6', '1.7', 'latest'):
            for body in (None, {'name': 'CUSTOM_BAR'}, {'name': 'CUSTOM_NEW2'},
                         {'name': 'bad'}, {}):
                yield Step('rc put %s' % version, 'PUT',
                           '/resource_classes/' + name, body, version=version)
            yield Step('rc reset', 'DELETE', '/resource_classes/CUSTOM_NEW')
            yield Step('rc reset', 'DELETE', '/resource_classes/CUSTOM_NEW2')
    for name in ('CUSTOM_FOO', 'VCPU', 'CUSTOM_NOPE', 'bad'):
        yield Step('rc delete', 'DELETE', '/resource_classes/' + name)


def aggregate_writes():
    rpa = '/resource_providers/%s/aggregates' % EMPTY
    bodies = [
        [], [AGG], ['abc'], [AGG, AGG], {}, {'aggregates': []},
        {'resource_provider_generation': 0},
        {'resource_provider_generation': 0, 'aggregates': ['abc']},
        {'resource_provider_generation': 0, 'aggregates': [AGG, AGG]},
        {'resource_provider_generation': 99, 'aggregates': []},
        {'resource_provider_generation': 0, 'aggregates': [], 'foo': 1},
        {'resource_provider_generation': 0, 'aggregates': [1]},
        {'resource_provider_generation': 0, 'aggregates': AGG},
        {'resource_provider_generation': None, 'aggregates': []},
    ]
    for body in bodies:
        for version in ('1.1', '1.18', '1.19', 'latest'):
            yield Step('agg put %s' % version, 'PUT', rpa, body,
                       version=version)


def allocation_writes():
    path = '/allocations/'
    fresh = iter(range(1, 10 ** 6))

    def consumer():
        return 'd1ff0000-0000-4000-8000-0000001%05d' % next(fresh)

    resources = [
        {'VCPU': 2}, {'VCPU': 0}, {'VCPU': -2}, {'VCPU': 1}, {'VCPU': 3},
        {'VCPU': 6}, {'VCPU': 2.0}, {'VCPU': '2'}, {'VCPU': 10 ** 30},
        {'MEMORY_MB': 4096}, {'DISK_GB': 1}, {'CUSTOM_NOPE': 1},
        {'lower': 1}, {}, {'VCPU': 2, 'MEMORY_MB': 4096},
    ]
    for res in resources:
        for version in ('1.0', '1.8', '1.12', '1.28', '1.33', '1.37',
                        'latest'):
            body = alloc_body(res)
            if version == '1.0':
                body = {'allocations': [{'resource_provider': {'uuid': RP},
                                         'resources': res}]}
            yield Step('alloc put %s' % version, 'PUT', path + consumer(),
                       body, version=version)
    odd = [
        {}, {'allocations': {}}, {'allocations': []},
        alloc_body({'VCPU': 2}, rp='abc'), alloc_body({'VCPU': 2}, rp=NOPE),
        alloc_body({'VCPU': 2}, gen=3), alloc_body({'VCPU': 2}, gen='x'),
        alloc_body({'VCPU': 2}, project_id=''), alloc_body({'VCPU': 2},
                                                           user_id=1),
        alloc_body({'VCPU': 2}, consumer_type='bad!'),
        alloc_body({'VCPU': 2}, consumer_type=''),
        alloc_body({'VCPU': 2}, mappings={}),
        alloc_body({'VCPU': 2}, mappings={'a': []}),
        alloc_body({'VCPU': 2}, mappings={'a': ['abc']}),
        alloc_body({'VCPU': 2}, mappings={'a': [NOPE]}),
        alloc_body({'VCPU': 2}, foo=1),
        {'allocations': {RP: {'resources': {'VCPU': 2}, 'generation': 0}},
         'project_id': PROJECT, 'user_id': USER, 'consumer_generation': None,
         'consumer_type': 'INSTANCE'},
        {'allocations': {RP: {}}, 'project_id': PROJECT, 'user_id': USER,
         'consumer_generation': None, 'consumer_type': 'INSTANCE'},
        {'allocations': {RP: {'resources': {'VCPU': 2}}},
         'consumer_generation': None, 'consumer_type': 'INSTANCE'},
    ]
    for body in odd:
        for version in ('1.8', '1.12', '1.28', '1.37', 'latest'):
            yield Step('alloc put odd %s' % version, 'PUT',
                       path + consumer(), body, version=version)
    for version in ('1.0', '1.12', '1.28', 'latest'):
        yield Step('alloc put existing %s' % version, 'PUT', path + C1,
                   alloc_body({'VCPU': 2, 'CUSTOM_FOO': 1}, gen=99),
                   version=version)
        yield Step('alloc put existing null %s' % version, 'PUT', path + C1,
                   alloc_body({'VCPU': 2, 'CUSTOM_FOO': 1}),
                   version=version)
        yield Step('alloc put bad uuid %s' % version, 'PUT', path + 'abc',
                   alloc_body({'VCPU': 2}), version=version)
        yield Step('alloc delete unknown %s' % version, 'DELETE',
                   path + NOPE, version=version)
        yield Step('alloc delete bad %s' % version, 'DELETE', path + 'abc',
                   version=version)
    posts = [
        {}, [], {consumer(): alloc_body({'VCPU': 2})},
        {consumer(): alloc_body({'VCPU': 2}, rp=NOPE)},
        {consumer(): alloc_body({'MEMORY_MB': 4096})},
        {consumer(): alloc_body({'CUSTOM_NOPE': 1})},
        {consumer(): alloc_body({'DISK_GB': 1})},
        {C1: alloc_body({'VCPU': 2}, gen=7)},
        {'abc': alloc_body({'VCPU': 2})},
        {consumer(): {'allocations': {}, 'project_id': PROJECT,
                      'user_id': USER, 'consumer_generation': None,
                      'consumer_type': 'INSTANCE'}},
        {consumer(): {'allocations': {RP: {'resources': {'VCPU': 2}}}}},
        {consumer(): alloc_body({'VCPU': 2}, gen=5)},
    ]
    for body in posts:
        for version in ('1.13', '1.28', '1.33', '1.37', 'latest'):
            yield Step('alloc post %s' % version, 'POST', '/allocations',
                       body, version=version)
    for version in ('1.0', '1.8', '1.12', '1.28', '1.37', '1.38', 'latest'):
        yield Step('alloc get %s' % version, 'GET', path + C1,
                   version=version)
        yield Step('usages %s' % version, 'GET',
                   '/usages?project_id=' + PROJECT, version=version)
        yield Step('usages %s' % version, 'GET',
                   '/usages?project_id=%s&user_id=%s' % (PROJECT, USER),
                   version=version)
        yield Step('usages %s' % version, 'GET',
                   '/usages?project_id=%s&consumer_type=INSTANCE' % PROJECT,
                   version=version)
        yield Step('usages %s' % version, 'GET',
                   '/usages?project_id=%s&consumer_type=all' % PROJECT,
                   version=version)
        yield Step('usages %s' % version, 'GET',
                   '/usages?project_id=%s&consumer_type=unknown' % PROJECT,
                   version=version)
        yield Step('usages %s' % version, 'GET',
                   '/usages?user_id=' + USER, version=version)
        yield Step('usages %s' % version, 'GET', '/usages?project_id=',
                   version=version)
        yield Step('usages %s' % version, 'GET',
                   '/usages?project_id=a&project_id=b', version=version)
        yield Step('rp allocs %s' % version, 'GET',
                   '/resource_providers/%s/allocations' % RP,
                   version=version)


def reshaper():
    rs = '/reshaper'
    bodies = [
        {}, {'inventories': {}}, {'allocations': {}},
        {'inventories': {}, 'allocations': {}},
        {'inventories': {}, 'allocations': {}, 'foo': 1},
        {'inventories': {'abc': {'resource_provider_generation': 0,
                                 'inventories': {}}}, 'allocations': {}},
        {'inventories': {NOPE: {'resource_provider_generation': 0,
                                'inventories': {}}}, 'allocations': {}},
        {'inventories': {EMPTY: {'resource_provider_generation': 99,
                                 'inventories': {}}}, 'allocations': {}},
        {'inventories': {EMPTY: {'inventories': {}}}, 'allocations': {}},
        {'inventories': {RP: {'resource_provider_generation': 4,
                              'inventories': {'MEMORY_MB': {'total': 8}}}},
         'allocations': {}},
        {'inventories': {}, 'allocations': {C1: alloc_body(
            {'VCPU': 2}, gen=99)}},
        {'inventories': {}, 'allocations': {NOPE: alloc_body(
            {'VCPU': 2}, rp=NOPE)}},
        {'inventories': {}, 'allocations': {NOPE: alloc_body(
            {'MEMORY_MB': 4096})}},
        {'inventories': {}, 'allocations': {NOPE: alloc_body(
            {'VCPU': 2}, gen=3)}},
        {'inventories': {}, 'allocations': {'abc': alloc_body(
            {'VCPU': 2})}},
    ]
    for body in bodies:
        for version in ('1.29', '1.30', '1.34', '1.38', 'latest'):
            yield Step('reshape %s' % version, 'POST', rs, body,
                       version=version, headers=SERVICE)
    yield Step('reshape member', 'POST', rs,
               {'inventories': {}, 'allocations': {}}, headers=MEMBER)
    for path in ('/resource_providers', '/resource_classes', '/traits',
                 '/usages?project_id=' + PROJECT,
                 '/allocation_candidates?resources=VCPU:1'):
        yield Step('member read', 'GET', path, headers=MEMBER)
        yield Step('no token', 'GET', path, headers={'x-auth-token': ''})


def _probe_provider(label, inventories):
    """Create PROBE with ``inventories`` (its generation is then 1)."""
    yield Step(label, 'POST', '/resource_providers',
               {'name': 'probe', 'uuid': PROBE})
    yield Step(label, 'PUT', '/resource_providers/%s/inventories' % PROBE,
               {'resource_provider_generation': 0,
                'inventories': inventories})


def owner_reset():
    """A write before 1.8 (no owner in the body) to an existing consumer:
    which owner, and which generation, GET shows afterwards."""
    label = 'owner reset'
    path = '/allocations/' + C3
    yield from _probe_provider(label, {'DISK_GB': {'total': 100}})
    yield Step(label, 'PUT', path, alloc_body({'DISK_GB': 10}, rp=PROBE))
    yield Step(label, 'PUT', path, {'allocations': [
        {'resource_provider': {'uuid': PROBE},
         'resources': {'DISK_GB': 20}}]}, version='1.7')
    for version in ('1.12', '1.28', 'latest'):
        yield Step(label, 'GET', path, version=version)
    yield Step(label, 'GET', '/usages?project_id=' + INCOMPLETE,
               version='1.9')
    yield Step(label, 'PUT', path, alloc_body({'DISK_GB': 30}, rp=PROBE,
                                              gen=2))
    yield Step(label, 'GET', path)
    yield Step(label, 'DELETE', path)
    yield Step(label, 'DELETE', '/resource_providers/' + PROBE)


def reshape_empty_inventories():
    """A reshape that lists a provider with empty inventories: how far
    its generation moves."""
    label = 'reshape empty inventories'
    yield from _probe_provider(label, {'DISK_GB': {'total': 100}})
    for given in (1, 2):
        # The second time the provider has no inventory left.
        yield Step(label, 'POST', '/reshaper', {
            'inventories': {PROBE: {'resource_provider_generation': given,
                                    'inventories': {}}},
            'allocations': {}}, headers=SERVICE)
        yield Step(label, 'GET', '/resource_providers/' + PROBE)
    yield Step(label, 'DELETE', '/resource_providers/' + PROBE)


# Old releases left rows without created_at / updated_at.  Every table
# with timestamps is stamped with these (fixed, so that both servers'
# Last-Modified can be compared as they are), one table at a time NULL.
STAMPED = ('resource_providers', 'inventories', 'allocations',
           'resource_classes', 'traits', 'resource_provider_traits',
           'placement_aggregates', 'resource_provider_aggregates',
           'projects', 'users', 'consumer_types', 'consumers')
STAMP_CREATED = '2020-01-01 00:00:00'
STAMP_UPDATED = '2020-06-01 00:00:00'
# (path, the first microversion that has it)
_STAMPED_READS = (
    ('/resource_providers', '1.0'),
    ('/resource_providers?in_tree=' + RP, '1.14'),
    ('/resource_providers?resources=VCPU:1', '1.4'),
    ('/resource_providers?member_of=' + AGG, '1.3'),
    ('/resource_providers?required=CUSTOM_T', '1.18'),
    ('/resource_providers/' + RP, '1.0'),
    ('/resource_providers/%s/inventories' % RP, '1.0'),
    ('/resource_providers/%s/inventories/VCPU' % RP, '1.0'),
    ('/resource_providers/%s/inventories' % EMPTY, '1.0'),
    ('/resource_providers/%s/usages' % RP, '1.0'),
    ('/resource_providers/%s/allocations' % RP, '1.0'),
    ('/resource_providers/%s/allocations' % EMPTY, '1.0'),
    ('/resource_providers/%s/traits' % RP, '1.6'),
    ('/resource_providers/%s/aggregates' % RP, '1.1'),
    ('/allocations/' + C1, '1.0'),
    ('/resource_classes', '1.2'),
    ('/resource_classes/VCPU', '1.2'),
    ('/resource_classes/CUSTOM_FOO', '1.2'),
    ('/traits', '1.6'),
    ('/traits?associated=true', '1.6'),
    ('/traits/CUSTOM_T', '1.6'),
    ('/usages?project_id=%s&user_id=%s' % (PROJECT, USER), '1.9'),
    ('/usages?project_id=%s&consumer_type=INSTANCE' % PROJECT, '1.38'),
    ('/allocation_candidates?resources=VCPU:1', '1.10'),
    ('/allocation_candidates?resources=VCPU:1&required=CUSTOM_T'
     '&member_of=' + AGG, '1.21'),
)
# Writes that leave the data as it was (an existing trait, class, name).
_STAMPED_WRITES = (
    ('PUT', '/traits/CUSTOM_T', None, '1.6'),
    ('PUT', '/resource_classes/CUSTOM_FOO', None, '1.7'),
    ('PUT', '/resource_providers/' + RP, {'name': 'rp1'}, '1.0'),
)


def _version_key(version):
    return tuple(int(part) for part in version.split('.'))


def null_timestamps():
    """Every read, at its first microversion, the last without
    Last-Modified, the first with it and the latest, plus writes that
    change nothing, with each table's rows in turn without timestamps."""
    for nulled in (None,) + STAMPED:
        yield Sql('null timestamps', [
            'UPDATE %s SET created_at = %s, updated_at = %s' % (
                table, *(('NULL', 'NULL') if table == nulled else (
                    "'%s'" % STAMP_CREATED, "'%s'" % STAMP_UPDATED)))
            for table in STAMPED])
        for path, first in _STAMPED_READS:
            for version in sorted({first, '1.14', '1.15', '1.39'},
                                  key=_version_key):
                if _version_key(version) >= _version_key(first):
                    yield Step('null timestamps %s' % nulled, 'GET', path,
                               version=version)
        for method, path, body, first in _STAMPED_WRITES:
            for version in (first, '1.15', '1.39'):
                yield Step('null timestamps %s' % nulled, method, path,
                           body, version=version)


def steps():
    sections = (world, every_route, negotiation, provider_queries,
                candidate_queries, aggregate_writes, trait_and_class_writes,
                inventory_writes, allocation_writes, reshaper, owner_reset,
                reshape_empty_inventories, provider_writes,
                null_timestamps)
    for section in sections:
        yield from section()


# -- comparing ----------------------------------------------------------------

UUID_RE = re.compile(r'[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?'
                     r'[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}')
COMPARED_HEADERS = ('content-type', 'location', 'openstack-api-version',
                    'vary', 'cache-control', 'allow')


def _uuid(match):
    value = match.group(0)
    return value if value.lower() in KNOWN_UUIDS else '<uuid>'


def _normal(value):
    """The JSON value with server-chosen details made comparable."""
    if isinstance(value, dict):
        return {key: _normal(item) for key, item in value.items()
                if key not in ('request_id', 'created_at', 'updated_at')}
    if isinstance(value, list):
        items = [_normal(item) for item in value]
        return sorted(items, key=lambda item: json.dumps(item,
                                                         sort_keys=True))
    if isinstance(value, str):
        text = UUID_RE.sub(_uuid, value)
        # The dump of the schema after this is jsonschema's, not ours.
        if 'Failed validating' in text:
            text = text.split('Failed validating', 1)[0].rstrip()
        return text
    return value


def answer(response):
    """The comparable part of a response."""
    headers = {}
    for name in COMPARED_HEADERS:
        value = response.headers.get(name)
        if value is None:
            continue
        if name == 'allow':
            value = ', '.join(sorted(v.strip() for v in value.split(',')))
        elif name == 'vary':
            value = ', '.join(sorted(v.strip().lower()
                                     for v in value.split(',')))
        elif name == 'content-type':
            value = value.replace(' ', '').lower()
        elif name == 'location':
            value = urllib.parse.urlsplit(value).path
        headers[name] = UUID_RE.sub(_uuid, value)
    # Present or not; a stamp of null_timestamps() as it is.
    modified = response.headers.get('last-modified')
    headers['last-modified'] = (modified if modified and ' 2020 ' in modified
                                else modified is not None)
    try:
        body = _normal(response.json())
    except ValueError:
        body = _normal(response.text)
    if response.request.method == 'HEAD':
        body = None
    return {'status': response.status_code, 'headers': headers,
            'body': body}


def _answer_or_failure(step, http):
    try:
        return answer(step.send(http))
    except httpx.HTTPError as exc:
        return {'failure': '%s: %s' % (type(exc).__name__, exc)}


def differences(ours, theirs, path=''):
    """Where two answers differ, one line each."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        lines = []
        for key in sorted(set(ours) | set(theirs), key=str):
            if key not in ours:
                lines.append('%s/%s: missing here, upstream %s'
                             % (path, key, _short(theirs[key])))
            elif key not in theirs:
                lines.append('%s/%s: %s here, upstream has none'
                             % (path, key, _short(ours[key])))
            else:
                lines += differences(ours[key], theirs[key],
                                     '%s/%s' % (path, key))
        return lines
    if ours != theirs:
        return ['%s: %s here, upstream %s' % (path, _short(ours),
                                              _short(theirs))]
    return []


def _short(value, width=600):
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= width else text[:width] + '...'


# -- the servers --------------------------------------------------------------

def _fresh_db_url(template, name, workdir):
    if not template:
        return 'sqlite:///' + os.path.join(workdir, 'placement.sqlite')
    import sqlalchemy
    engine = sqlalchemy.create_engine(template, isolation_level='AUTOCOMMIT')
    with engine.connect() as conn:
        conn.exec_driver_sql('DROP DATABASE IF EXISTS ' + name)
        conn.exec_driver_sql('CREATE DATABASE ' + name)
    engine.dispose()
    url = sqlalchemy.engine.make_url(template).set(database=name)
    return url.render_as_string(hide_password=False)


def _drop_db(template, url):
    if not template:
        return
    import sqlalchemy
    name = sqlalchemy.engine.make_url(url).database
    engine = sqlalchemy.create_engine(template, isolation_level='AUTOCOMMIT')
    with engine.connect() as conn:
        conn.exec_driver_sql('DROP DATABASE IF EXISTS ' + name)
    engine.dispose()


class Server:
    """One server in a process group of its own, on a fresh database."""

    def __init__(self, kind, port, workdir, db_url):
        self.kind = kind
        self.db_url = db_url
        self.url = 'http://127.0.0.1:%d' % port
        os.makedirs(workdir, exist_ok=True)
        with open(os.path.join(workdir, 'placement.conf'), 'w') as conf:
            conf.write('[api]\nauth_strategy = noauth2\n'
                       '[placement_database]\nconnection = %s\n'
                       'sync_on_startup = True\n' % db_url)
        env = dict(os.environ, OS_PLACEMENT_CONFIG_DIR=workdir)
        if kind == 'upstream':
            argv = [os.path.join(UPSTREAM_VENV, 'bin', 'gunicorn'),
                    '--bind', '127.0.0.1:%d' % port, '--workers', '1',
                    'placement.wsgi.api:application']
        else:
            argv = [sys.executable, '-m', 'placement.cmd.api',
                    '--bind', '127.0.0.1:%d' % port, '--workers', '1']
            env['PYTHONPATH'] = os.path.dirname(HERE)
        self.log_path = os.path.join(workdir, 'server.log')
        # In the work directory, so that upstream's gunicorn does not
        # import this repository's placement package.
        with open(self.log_path, 'wb') as log:
            self.process = subprocess.Popen(
                argv, cwd=workdir, env=env, stdout=log,
                stderr=subprocess.STDOUT, start_new_session=True)
        self._wait()

    def _wait(self, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                if httpx.get(self.url + '/', timeout=5).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.2)
        self.stop()
        with open(self.log_path) as log:
            raise RuntimeError('%s did not start:\n%s'
                               % (self.kind, log.read()[-3000:]))

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def upstream_installed():
    return os.path.exists(os.path.join(UPSTREAM_VENV, 'bin', 'gunicorn'))


@contextlib.contextmanager
def servers(port, db_url_template=None):
    workdir = tempfile.mkdtemp(prefix='placement-differential-')
    started = []
    try:
        for offset, kind in enumerate(('ours', 'upstream')):
            name = 'pdiff_%s_%d' % (kind, os.getpid())
            path = os.path.join(workdir, kind)
            os.makedirs(path)
            started.append(Server(kind, port + offset, path,
                                  _fresh_db_url(db_url_template, name,
                                                path)))
        yield started
    finally:
        for server in started:
            server.stop()
            _drop_db(db_url_template, server.db_url)
        shutil.rmtree(workdir, ignore_errors=True)


def run(step_list, port=19100, db_url_template=None):
    """Run the steps on both servers; the list of differing steps."""
    found = []
    with servers(port, db_url_template) as (ours, theirs):
        with httpx.Client(base_url=ours.url, timeout=60) as ours_http, \
                httpx.Client(base_url=theirs.url, timeout=60) as their_http:
            for step in step_list:
                if isinstance(step, Sql):
                    step.execute(ours.db_url)
                    step.execute(theirs.db_url)
                    continue
                mine = _answer_or_failure(step, ours_http)
                upstream = _answer_or_failure(step, their_http)
                lines = differences(mine, upstream)
                if lines:
                    found.append({'label': step.label,
                                  'method': step.method, 'path': step.path,
                                  'version': step.version,
                                  'body': step.body if step.raw is None
                                  else step.raw.decode(),
                                  'headers': step.headers,
                                  'differences': lines,
                                  'accepted': accepted_reason(step, lines)})
    return found


# Requests upstream fails on one database with a 500 of its own making
# (found by the marker in its error body): the whole answer differs.
UPSTREAM_FAILURES = [
    (r'^GET /usages\?', r'GroupingError',
     "upstream's usages by consumer type (1.38) is a 500 on PostgreSQL: "
     'its statement groups by consumer type but selects the resource '
     'class too; ours answers'),
]


def upstream_failure(where, lines):
    """The reason upstream's answer to ``where`` ("METHOD path") is a
    failure of its own (UPSTREAM_FAILURES), or None."""
    return next((why for where_re, marker_re, why in UPSTREAM_FAILURES
                 if re.search(where_re, where)
                 and any(re.search(marker_re, line) for line in lines)),
                None)


def accepted_reason(step, lines):
    """Why these differences of ``step`` are kept, or None."""
    where = '%s %s' % (step.method, step.path)
    failure = upstream_failure(where, lines)
    if failure:
        return failure
    reasons = []
    for line in lines:
        reason = next((why for step_re, line_re, why in ACCEPTED
                       if re.search(step_re, where)
                       and re.search(line_re, line)), None)
        if reason is None:
            return None
        reasons.append(reason)
    return '; '.join(dict.fromkeys(reasons))


def main(argv=None):
    global UPSTREAM_VENV
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--upstream-venv', default=UPSTREAM_VENV)
    parser.add_argument('--port', type=int, default=19100,
                        help='ours on PORT, upstream on PORT+1')
    parser.add_argument('--db-url', help='a server URL that may create '
                        'databases (default: SQLite files)')
    parser.add_argument('--only', action='append', default=[],
                        help='run the world and the steps whose label '
                        'contains this')
    parser.add_argument('--json', help='write the differences here')
    parser.add_argument('--all', action='store_true',
                        help='show accepted differences too')
    args = parser.parse_args(argv)
    UPSTREAM_VENV = args.upstream_venv
    chosen = [step for step in steps()
              if not args.only or step.label == 'world'
              or any(key in step.label for key in args.only)]
    found = run(chosen, args.port, args.db_url)
    shown = [item for item in found if args.all or not item['accepted']]
    for item in shown:
        print('== %s: %s %s (%s)%s' % (
            item['label'], item['method'], item['path'], item['version'],
            ' accepted: ' + item['accepted'] if item['accepted'] else ''))
        if item['body'] is not None:
            print('   body: %s' % _short(item['body'], 300))
        for line in item['differences']:
            print('   ' + line)
    print('%d steps, %d differ, %d of them accepted'
          % (len(chosen), len(found),
             sum(1 for item in found if item['accepted'])))
    if args.json:
        with open(args.json, 'w') as out:
            json.dump(found, out, indent=1, ensure_ascii=False)
    return 1 if any(not item['accepted'] for item in found) else 0


if __name__ == '__main__':
    sys.exit(main())
