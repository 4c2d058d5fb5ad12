"""The server and the recorder behind generate_examples.py.

``Service`` runs ``placement-api`` on a fresh SQLite database; ``Recorder``
sends one request per example and writes the exchange with every
run-to-run difference replaced by a stable stand-in.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import uuid

import httpx

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
    """Send requests and write each exchange as one example file.

    UUIDs in ``named`` are written as they are; any other UUID is one the
    service made up, numbered in order of appearance.
    """

    def __init__(self, url, out, named):
        self.http = httpx.Client(base_url=url, timeout=30)
        self.out = out
        self.known = set(named)
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
