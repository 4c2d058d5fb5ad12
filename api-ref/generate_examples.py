#!/usr/bin/env python3
"""Record the request/response examples of the API reference.

Starts ``placement-api`` (noauth2, a fresh SQLite database in a temporary
directory) on a free local port, plays one scripted scenario over HTTP and
writes every exchange to ``api-ref/examples/<name>.json``:

    {"request": {"method", "path", "headers", "body"},
     "response": {"status", "headers", "body"}}

Only the headers a reader needs are kept.  Everything that changes from
run to run is replaced by a stable stand-in, so that a rerun only changes a
file when the API itself changed: request ids become ``req-<zeros>``,
Last-Modified a fixed date, and the UUIDs the service makes up itself are
numbered in order of appearance (the scenario names all others).

Usage: ``python api-ref/generate_examples.py [--check] [--port-min N
--port-max M]`` (``placement-api`` must be on PATH, e.g. ``.venv/bin``).
Exits 1 if any step did not answer with the status the scenario expects;
those examples are not written.  ``--check`` writes nothing: it records
into a temporary directory and exits 1 if any example differs from the
committed one (CI runs it, so examples cannot drift from the code).
"""
import argparse
import filecmp
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid

import httpx

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'examples')

REQUEST_HEADERS = ('openstack-api-version', 'content-type', 'x-roles')
RESPONSE_HEADERS = ('content-type', 'location', 'openstack-api-version',
                    'cache-control', 'last-modified', 'allow')
FIXED_DATE = 'Thu, 01 Jan 2026 00:00:00 GMT'
FIXED_REQUEST_ID = 'req-00000000-0000-0000-0000-000000000000'
UUID_RE = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-'
                     r'[0-9a-f]{12}')
REQUEST_ID_RE = re.compile(r'req-' + UUID_RE.pattern)


def named_uuid(label):
    """A readable, stable UUID for a thing the scenario names."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, 'placement-example:' + label))


COMPUTE = named_uuid('compute')
NUMA0 = named_uuid('numa0')
NUMA1 = named_uuid('numa1')
SHARED = named_uuid('shared-storage')
SCRATCH = named_uuid('scratch')
AGGREGATE = named_uuid('aggregate')
INSTANCE1 = named_uuid('instance-1')
INSTANCE2 = named_uuid('instance-2')
MIGRATION = named_uuid('migration')
PROJECT = named_uuid('project').replace('-', '')
USER = named_uuid('user').replace('-', '')
SERVICE = {'x-auth-token': 'nova', 'x-roles': 'service'}


def free_port(low, high):
    for port in range(low, high + 1):
        with socket.socket() as sock:
            try:
                sock.bind(('127.0.0.1', port))
            except OSError:
                continue
            return port
    raise SystemExit('no free port in %d-%d' % (low, high))


class Service:
    """placement-api on a fresh SQLite database, stopped on exit."""

    def __init__(self, port):
        self.workdir = tempfile.mkdtemp(prefix='placement-examples-')
        with open(os.path.join(self.workdir, 'placement.conf'), 'w') as f:
            f.write('[api]\nauth_strategy = noauth2\n'
                    '[placement_database]\n'
                    'connection = sqlite:///%s/placement.sqlite\n'
                    'sync_on_startup = True\n' % self.workdir)
        self.url = 'http://127.0.0.1:%d' % port
        self.log = open(os.path.join(self.workdir, 'server.log'), 'wb')
        self.process = subprocess.Popen(
            ['placement-api', '--bind', '127.0.0.1:%d' % port,
             '--workers', '1'],
            env=dict(os.environ, OS_PLACEMENT_CONFIG_DIR=self.workdir),
            stdout=self.log, stderr=subprocess.STDOUT,
            start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit('placement-api exited; see %s'
                                 % self.log.name)
            try:
                httpx.get(self.url + '/', timeout=1)
                return
            except httpx.TransportError:
                time.sleep(0.2)
        self.stop()
        raise SystemExit('placement-api did not start')

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, 15)
            self.process.wait(10)
        self.log.close()
        shutil.rmtree(self.workdir, ignore_errors=True)


class Recorder:
    """Send requests and write each exchange as one example file."""

    def __init__(self, url, out):
        self.http = httpx.Client(base_url=url, timeout=30)
        self.out = out
        self.known = {value for name, value in globals().items()
                      if name.isupper() and isinstance(value, str)
                      and UUID_RE.fullmatch(value)}
        self.known.add(FIXED_REQUEST_ID[len('req-'):])
        self.invented = {}
        self.failures = []
        self.attempted = []
        self.written = []

    def generation(self, provider_uuid):
        """The current generation of a provider (not an example)."""
        return self.http.get('/resource_providers/' + provider_uuid,
                             headers={'x-auth-token': 'admin'}
                             ).json()['generation']

    def consumer_generation(self, consumer_uuid):
        return self.http.get(
            '/allocations/' + consumer_uuid,
            headers={'x-auth-token': 'admin',
                     'openstack-api-version': 'placement latest'}
        ).json()['consumer_generation']

    def _stable(self, text):
        text = REQUEST_ID_RE.sub(FIXED_REQUEST_ID, text)

        def replace(match):
            value = match.group(0)
            if value in self.known:
                return value
            if value not in self.invented:
                self.invented[value] = str(uuid.UUID(
                    int=len(self.invented) + 1))
            return self.invented[value]
        return UUID_RE.sub(replace, text)

    def __call__(self, name, method, path, status, body=None,
                 version='latest', headers=None):
        self.attempted.append(name)
        sent = {'x-auth-token': 'admin', 'accept': 'application/json'}
        if version is not None:
            sent['openstack-api-version'] = 'placement ' + version
        if body is not None:
            sent['content-type'] = 'application/json'
        sent.update(headers or {})
        response = self.http.request(
            method, path, headers=sent,
            content=None if body is None else json.dumps(body))
        if response.status_code != status:
            self.failures.append('%s: %s %s answered %d, expected %d: %s' % (
                name, method, path, response.status_code, status,
                response.text[:300]))
            return None
        answer = response.json() if response.content else None
        example = {
            'request': {
                'method': method,
                'path': path,
                'headers': {k: v for k, v in sent.items()
                            if k in REQUEST_HEADERS},
                'body': body,
            },
            'response': {
                'status': response.status_code,
                'headers': {k: (FIXED_DATE if k == 'last-modified' else
                                response.headers[k])
                            for k in RESPONSE_HEADERS
                            if k in response.headers},
                'body': answer,
            },
        }
        if 'location' in example['response']['headers']:
            # The host and port are those of this run.
            example['response']['headers']['location'] = (
                example['response']['headers']['location'].replace(
                    str(self.http.base_url).rstrip('/'),
                    'http://placement.example.com'))
        text = self._stable(json.dumps(example, indent=2, sort_keys=False,
                                       ensure_ascii=False)) + '\n'
        with open(os.path.join(self.out, name + '.json'), 'w') as f:
            f.write(text)
        self.written.append(name)
        return answer


def provider(name, uuid_, parent=None):
    body = {'name': name, 'uuid': uuid_}
    if parent:
        body['parent_provider_uuid'] = parent
    return body


def consumer(allocations, generation=None, consumer_type='INSTANCE'):
    return {'allocations': allocations, 'project_id': PROJECT,
            'user_id': USER, 'consumer_generation': generation,
            'consumer_type': consumer_type}


def scenario(rec):
    """The walk through the API; each call writes one example."""
    rp = '/resource_providers/'
    gen = rec.generation

    # Versions and microversion negotiation.
    rec('root-get', 'GET', '/', 200, version=None)
    rec('root-version-not-acceptable', 'GET', '/', 406, version='1.40')

    # Resource classes.
    rec('resource_classes-list', 'GET', '/resource_classes', 200)
    rec('resource_classes-create', 'POST', '/resource_classes', 201,
        body={'name': 'CUSTOM_FPGA'})
    rec('resource_classes-show', 'GET', '/resource_classes/CUSTOM_FPGA', 200)
    rec('resource_classes-update-create', 'PUT',
        '/resource_classes/CUSTOM_GOLD', 201)
    rec('resource_classes-update-exists', 'PUT',
        '/resource_classes/CUSTOM_GOLD', 204)
    rec('resource_classes-create-duplicate', 'POST', '/resource_classes',
        409, body={'name': 'CUSTOM_FPGA'})
    rec('resource_classes-rename-1.6', 'PUT', '/resource_classes/CUSTOM_GOLD',
        200, body={'name': 'CUSTOM_SILVER'}, version='1.6')
    rec('resource_classes-delete', 'DELETE',
        '/resource_classes/CUSTOM_SILVER', 204)
    rec('resource_classes-delete-standard', 'DELETE',
        '/resource_classes/VCPU', 400)

    # Traits.
    rec('traits-create', 'PUT', '/traits/CUSTOM_RAID', 201)
    rec('traits-create-exists', 'PUT', '/traits/CUSTOM_RAID', 204)
    rec('traits-create-bad-name', 'PUT', '/traits/RAID', 400)
    rec('traits-show', 'GET', '/traits/CUSTOM_RAID', 204)
    rec('traits-list-filtered', 'GET',
        '/traits?name=startswith:HW_CPU_X86_AVX', 200)
    rec('traits-list-in', 'GET',
        '/traits?name=in:CUSTOM_RAID,COMPUTE_VOLUME_MULTI_ATTACH', 200)
    rec('traits-create-unused', 'PUT', '/traits/CUSTOM_UNUSED', 201)
    rec('traits-delete', 'DELETE', '/traits/CUSTOM_UNUSED', 204)

    # Resource providers: a compute node with two NUMA children and a
    # sharing storage provider.
    rec('resource_providers-create', 'POST', '/resource_providers', 200,
        body=provider('compute-1', COMPUTE))
    rec('resource_providers-create-1.19', 'POST', '/resource_providers', 201,
        body=provider('compute-1-numa0', NUMA0, COMPUTE), version='1.19')
    rec('resource_providers-create-child', 'POST', '/resource_providers', 200,
        body=provider('compute-1-numa1', NUMA1, COMPUTE))
    rec('resource_providers-create-duplicate', 'POST', '/resource_providers',
        409, body={'name': 'compute-1'})
    rec('resource_providers-create-bad-body', 'POST', '/resource_providers',
        400, body={'name': 'x', 'colour': 'red'})
    rec('resource_providers-create-shared', 'POST', '/resource_providers',
        200, body=provider('shared-storage', SHARED))
    rec('resource_providers-show', 'GET', rp + COMPUTE, 200)
    rec('resource_providers-show-1.0', 'GET', rp + COMPUTE, 200,
        version='1.0')
    rec('resource_providers-show-unknown', 'GET', rp + SCRATCH, 404)
    rec('resource_providers-update', 'PUT', rp + SHARED, 200,
        body={'name': 'shared-storage-1'})
    rec('resource_providers-list-in-tree', 'GET',
        '/resource_providers?in_tree=' + NUMA1, 200)

    # Inventories.
    rec('inventories-put', 'PUT', rp + COMPUTE + '/inventories', 200, body={
        'resource_provider_generation': gen(COMPUTE),
        'inventories': {
            'MEMORY_MB': {'total': 65536, 'reserved': 512, 'min_unit': 256,
                          'max_unit': 65536, 'step_size': 256,
                          'allocation_ratio': 1.5},
            'VCPU': {'total': 32, 'allocation_ratio': 4.0}}})
    rec('inventories-put-stale-generation', 'PUT',
        rp + COMPUTE + '/inventories', 409, body={
            'resource_provider_generation': gen(COMPUTE) - 1,
            'inventories': {'VCPU': {'total': 64}}})
    rec('inventories-list', 'GET', rp + COMPUTE + '/inventories', 200)
    rec('inventories-create', 'POST', rp + SHARED + '/inventories', 201,
        body={'resource_class': 'DISK_GB', 'total': 2048, 'reserved': 100,
              'min_unit': 10, 'max_unit': 1024, 'step_size': 10})
    rec('inventories-show', 'GET', rp + SHARED + '/inventories/DISK_GB', 200)
    rec('inventories-update', 'PUT', rp + SHARED + '/inventories/DISK_GB',
        200, body={'resource_provider_generation': gen(SHARED), 'total': 4096,
                   'max_unit': 2048, 'step_size': 10, 'min_unit': 10})
    rec('inventories-create-fpga', 'POST', rp + NUMA0 + '/inventories', 201,
        body={'resource_class': 'CUSTOM_FPGA', 'total': 2})
    rec('inventories-delete', 'DELETE',
        rp + NUMA0 + '/inventories/CUSTOM_FPGA', 204)
    rec('inventories-put-numa', 'PUT', rp + NUMA0 + '/inventories', 200,
        body={'resource_provider_generation': gen(NUMA0),
              'inventories': {'CUSTOM_FPGA': {'total': 2}}})
    rec('inventories-put-bad-reserved', 'PUT', rp + NUMA1 + '/inventories',
        400, body={'resource_provider_generation': gen(NUMA1),
                   'inventories': {'CUSTOM_FPGA': {'total': 2,
                                                   'reserved': 3}}})

    # Aggregates (and sharing: the storage shares its disk with the
    # compute node's aggregate).
    rec('aggregates-put', 'PUT', rp + COMPUTE + '/aggregates', 200, body={
        'aggregates': [AGGREGATE], 'resource_provider_generation':
        gen(COMPUTE)})
    rec('aggregates-put-1.1', 'PUT', rp + SHARED + '/aggregates', 200,
        body=[AGGREGATE], version='1.1')
    rec('aggregates-get', 'GET', rp + SHARED + '/aggregates', 200)
    rec('aggregates-get-1.1', 'GET', rp + SHARED + '/aggregates', 200,
        version='1.1')
    rec('aggregates-put-stale-generation', 'PUT', rp + COMPUTE +
        '/aggregates', 409, body={'aggregates': [],
                                  'resource_provider_generation':
                                  gen(COMPUTE) - 1})

    # Provider traits.
    rec('resource_provider_traits-put', 'PUT', rp + SHARED + '/traits', 200,
        body={'traits': ['MISC_SHARES_VIA_AGGREGATE', 'CUSTOM_RAID'],
              'resource_provider_generation': gen(SHARED)})
    rec('resource_provider_traits-put-compute', 'PUT', rp + COMPUTE +
        '/traits', 200, body={'traits': ['HW_CPU_X86_AVX2'],
                              'resource_provider_generation':
                              gen(COMPUTE)})
    rec('resource_provider_traits-get', 'GET', rp + SHARED + '/traits', 200)
    rec('resource_provider_traits-put-unknown', 'PUT', rp + SHARED +
        '/traits', 400, body={'traits': ['CUSTOM_NOPE'],
                              'resource_provider_generation': gen(SHARED)})
    rec('resource_provider_traits-delete', 'DELETE', rp + NUMA1 + '/traits',
        204)
    rec('resource_providers-list-required', 'GET',
        '/resource_providers?required=HW_CPU_X86_AVX2&resources=VCPU:2', 200)
    rec('resource_providers-list-member-of', 'GET',
        '/resource_providers?member_of=in:' + AGGREGATE, 200)

    # Allocation candidates before anything is allocated.
    rec('allocation_candidates-get', 'GET',
        '/allocation_candidates?resources=VCPU:2,MEMORY_MB:1024,DISK_GB:20'
        '&required=HW_CPU_X86_AVX2', 200)
    rec('allocation_candidates-get-granular', 'GET',
        '/allocation_candidates?resources_CPU=VCPU:2'
        '&resources_ACCEL=CUSTOM_FPGA:1&group_policy=none'
        '&same_subtree=_CPU,_ACCEL', 200)
    rec('allocation_candidates-get-1.10', 'GET',
        '/allocation_candidates?resources=VCPU:1,MEMORY_MB:512', 200,
        version='1.10')
    rec('allocation_candidates-get-no-groups', 'GET',
        '/allocation_candidates?limit=1', 400)
    rec('allocation_candidates-explain', 'GET',
        '/allocation_candidates/explain?resources=VCPU:1000,MEMORY_MB:1024'
        '&required=HW_CPU_X86_AVX2', 200)

    # Allocations.
    rec('allocations-put', 'PUT', '/allocations/' + INSTANCE1, 204,
        body=consumer({COMPUTE: {'resources': {'VCPU': 2,
                                               'MEMORY_MB': 1024}},
                       SHARED: {'resources': {'DISK_GB': 20}}}))
    rec('allocations-get', 'GET', '/allocations/' + INSTANCE1, 200)
    rec('allocations-get-1.0', 'GET', '/allocations/' + INSTANCE1, 200,
        version='1.0')
    rec('allocations-put-1.0', 'PUT', '/allocations/' + INSTANCE2, 204,
        version='1.0', body={'allocations': [
            {'resource_provider': {'uuid': COMPUTE},
             'resources': {'VCPU': 1}}]})
    rec('allocations-put-stale-generation', 'PUT', '/allocations/' +
        INSTANCE1, 409, body=consumer({COMPUTE: {'resources': {'VCPU': 4}}},
                                      generation=0))
    rec('allocations-put-over-capacity', 'PUT', '/allocations/' + MIGRATION,
        409, body=consumer({COMPUTE: {'resources': {'VCPU': 1000}}},
                           consumer_type='MIGRATION'))
    rec('allocations-post', 'POST', '/allocations', 204, body={
        INSTANCE2: consumer({COMPUTE: {'resources': {'VCPU': 2,
                                                     'MEMORY_MB': 2048}}},
                            generation=rec.consumer_generation(INSTANCE2)),
        MIGRATION: consumer({COMPUTE: {'resources': {'VCPU': 1}}},
                            consumer_type='MIGRATION')})
    rec('resource_provider_allocations-get', 'GET',
        rp + COMPUTE + '/allocations', 200)
    rec('allocations-delete', 'DELETE', '/allocations/' + MIGRATION, 204)
    rec('allocations-delete-unknown', 'DELETE', '/allocations/' + MIGRATION,
        404)

    # Usages.
    rec('resource_provider_usages-get', 'GET', rp + COMPUTE + '/usages', 200)
    rec('usages-get', 'GET', '/usages?project_id=' + PROJECT, 200)
    rec('usages-get-1.9', 'GET', '/usages?project_id=%s&user_id=%s'
        % (PROJECT, USER), 200, version='1.9')
    rec('usages-get-no-project', 'GET', '/usages', 400)

    # Capacity: how many more of a shape fit, and the space left over.
    rec('capacity-get', 'GET', '/capacity?resources=VCPU:2,MEMORY_MB:4096,'
        'DISK_GB:20', 200)
    rec('capacity-post', 'POST', '/capacity', 200, body={'shapes': {
        'm1.small': 'resources=VCPU:1,MEMORY_MB:2048,DISK_GB:20',
        'm1.large': {'resources': 'VCPU:4,MEMORY_MB:8192,DISK_GB:80',
                     'member_of': 'in:' + AGGREGATE}}})
    rec('capacity-post-bad-shape', 'POST', '/capacity', 400, body={
        'shapes': {'m1.tiny': 'resources=VCPU:0'}})

    # Reshaper: VCPU moves from the compute node to its first NUMA node,
    # together with the allocations against it.
    generations = {uuid_: gen(uuid_) for uuid_ in (COMPUTE, NUMA0)}
    rec('reshaper-post', 'POST', '/reshaper', 204, headers=SERVICE, body={
        'inventories': {
            COMPUTE: {'resource_provider_generation': generations[COMPUTE],
                      'inventories': {'MEMORY_MB': {
                          'total': 65536, 'reserved': 512, 'min_unit': 256,
                          'max_unit': 65536, 'step_size': 256,
                          'allocation_ratio': 1.5}}},
            NUMA0: {'resource_provider_generation': generations[NUMA0],
                    'inventories': {
                        'CUSTOM_FPGA': {'total': 2},
                        'VCPU': {'total': 32, 'allocation_ratio': 4.0}}}},
        'allocations': {
            INSTANCE1: consumer({
                NUMA0: {'resources': {'VCPU': 2}},
                COMPUTE: {'resources': {'MEMORY_MB': 1024}},
                SHARED: {'resources': {'DISK_GB': 20}}},
                generation=rec.consumer_generation(INSTANCE1)),
            INSTANCE2: consumer({
                NUMA0: {'resources': {'VCPU': 2}},
                COMPUTE: {'resources': {'MEMORY_MB': 2048}}},
                generation=rec.consumer_generation(INSTANCE2))}})
    rec('reshaper-post-stale-generation', 'POST', '/reshaper', 409,
        headers=SERVICE, body={
            'inventories': {COMPUTE: {
                'resource_provider_generation': generations[COMPUTE],
                'inventories': {}}},
            'allocations': {}})
    rec('resource_provider_usages-get-after-reshape', 'GET',
        rp + NUMA0 + '/usages', 200)

    # Listing and deleting providers.
    rec('resource_providers-list', 'GET', '/resource_providers', 200)
    rec('resource_providers-delete-in-use', 'DELETE', rp + NUMA0, 409)
    rec('resource_providers-delete-parent', 'DELETE', rp + COMPUTE, 409)
    rec('resource_providers-create-scratch', 'POST', '/resource_providers',
        200, body=provider('scratch', SCRATCH))
    rec('inventories-put-scratch', 'PUT', rp + SCRATCH + '/inventories', 200,
        body={'resource_provider_generation': gen(SCRATCH),
              'inventories': {'DISK_GB': {'total': 100}}})
    rec('inventories-delete-all', 'DELETE', rp + SCRATCH + '/inventories',
        204)
    rec('resource_providers-delete', 'DELETE', rp + SCRATCH, 204)
    rec('method-not-allowed', 'PATCH', rp + COMPUTE, 405)


def check(rec, out):
    """0 if the recorded examples equal the committed ones, else 1."""
    recorded = {name + '.json' for name in rec.written}
    committed = set(os.listdir(OUT))
    problems = ['FAILED ' + failure for failure in rec.failures]
    problems += ['missing from api-ref/examples: ' + name
                 for name in sorted(recorded - committed)]
    problems += ['no longer produced: ' + name
                 for name in sorted(committed - recorded)]
    problems += ['differs: ' + name for name in sorted(recorded & committed)
                 if not filecmp.cmp(os.path.join(out, name),
                                    os.path.join(OUT, name), shallow=False)]
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print('regenerate with: python api-ref/generate_examples.py',
              file=sys.stderr)
        return 1
    print('%d examples match api-ref/examples' % len(recorded))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--port-min', type=int, default=18550)
    parser.add_argument('--port-max', type=int, default=18599)
    parser.add_argument('--check', action='store_true',
                        help='compare with the committed examples, '
                        'write nothing')
    args = parser.parse_args()
    out = tempfile.mkdtemp(prefix='placement-examples-check-') \
        if args.check else OUT
    os.makedirs(out, exist_ok=True)
    service = Service(free_port(args.port_min, args.port_max))
    try:
        rec = Recorder(service.url, out)
        scenario(rec)
    finally:
        service.stop()
    if args.check:
        try:
            return check(rec, out)
        finally:
            shutil.rmtree(out, ignore_errors=True)
    # Examples the scenario no longer makes would mislead readers; those
    # of failed steps stay as they were.
    for stale in sorted(set(os.listdir(OUT)) -
                        {name + '.json' for name in rec.attempted}):
        os.remove(os.path.join(OUT, stale))
    print('%d examples written to %s' % (len(rec.written), OUT))
    for failure in rec.failures:
        print('FAILED ' + failure, file=sys.stderr)
    return 1 if rec.failures else 0


if __name__ == '__main__':
    sys.exit(main())
