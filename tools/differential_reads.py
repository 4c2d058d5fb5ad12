"""Steps of tools/differential.py that mostly ask: every route and
method, content negotiation, the query strings of the two searches, and
the reads of rows without timestamps."""
from differential_common import (AGG, AGG2, C1, EDGES, EMPTY, GC, NOPE,
                                 PROJECT, RP, RP2, USER, VERSIONS, Sql, Step)


def _reads(label, base, queries, versions):
    """A GET of ``base`` + each query at each version."""
    for query in queries:
        for version in versions:
            yield Step('%s %s' % (label, version), 'GET', base + query,
                       version=version)


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
