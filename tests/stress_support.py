"""Concurrent claim load against a live service, and an independent check.

Shared by ``test_concurrency.py`` (plain load) and ``test_faults.py`` (the
same load while the database restarts or a worker dies).  ``Load`` runs
many HTTP clients that claim, move and release resources the way a
scheduler does and records every request's outcome plus what each consumer
must look like afterwards (``Ledger``).  ``check_database`` then reads the
tables directly, with no help from the service, and reports over-committed
providers and consumers whose allocations differ from what was
acknowledged.
"""
import collections
import contextlib
import dataclasses
import os
import random
import shutil
import tempfile
import threading
import time
import uuid

import httpx
import sqlalchemy as sa

import helpers
from placement import tables

VERSION = 'placement 1.39'
HEADERS = dict(helpers.ADMIN_HEADERS, **{'openstack-api-version': VERSION})
PROJECT = str(uuid.uuid4())
USER = str(uuid.uuid4())
# A consumer without allocations; states are sorted (provider, class, used)
# tuples so that a duplicated allocation row shows up as a difference.
EMPTY = ()


def state_of(allocations):
    """Canonical state of an ``{rp: {'resources': {rc: n}}}`` mapping."""
    return tuple(sorted((rp, rc, used)
                        for rp, entry in allocations.items()
                        for rc, used in entry['resources'].items()))


def clear_error(response):
    """True when an error response is the upstream JSON error document."""
    try:
        error = response.json()['errors'][0]
    except (ValueError, KeyError, IndexError, TypeError):
        return False
    return (error.get('status') == response.status_code
            and bool(error.get('detail')) and bool(error.get('code')))


def expect_ok(response):
    assert response.status_code < 300, (
        '%s %s -> %s %s' % (response.request.method, response.request.url,
                            response.status_code, response.text))
    return response


# --- the service under test ----------------------------------------------

@dataclasses.dataclass
class Service:
    servers: list          # helpers.Server, one per API process
    db_url: str
    # The end of the servers' logs once they stopped, for failure messages.
    log: str = ''

    @property
    def server(self):
        return self.servers[0]

    @property
    def url(self):
        return self.server.url

    @property
    def urls(self):
        return [server.url for server in self.servers]


def _with_server(url, server_url):
    """``url`` (a database URL) on the host and port of ``server_url``."""
    target = sa.engine.make_url(server_url)
    return sa.engine.make_url(url).set(
        host=target.host, port=target.port).render_as_string(
            hide_password=False)


@contextlib.contextmanager
def service(backend, workers, query=None, server_url=None, nodes=(),
            replica_url=None, extra_config=''):
    """A fresh database on ``backend`` and placement-api on it.

    ``query`` adds URL query parameters for the service's connections
    (e.g. a PyMySQL ``init_command``); ``server_url`` points at a database
    server other than the one the test environment names.  ``nodes`` are
    more servers of the same cluster (Galera nodes): each gets an API
    process of its own.  ``replica_url`` is a replica server every API
    process reads from (``slave_connection``).  ``extra_config`` is added
    to every process's placement.conf.
    """
    workdir = tempfile.mkdtemp(prefix='placement-stress-')
    database = helpers.TestDatabase(backend, workdir, server_url=server_url)
    servers = []
    try:
        url = database.url
        if query:
            url = sa.engine.make_url(url).update_query_dict(
                query).render_as_string(hide_password=False)
        extra = ('slave_connection = %s\n' % _with_server(url, replica_url)
                 if replica_url else '') + extra_config
        # The first process migrates the database; the others, started
        # once it has, find it ready.
        for index, node in enumerate([None, *nodes]):
            directory = os.path.join(workdir, 'api%d' % index)
            os.mkdir(directory)
            helpers.write_config(
                directory, _with_server(url, node) if node else url, extra)
            servers.append(helpers.Server(directory, workers=workers))
        svc = Service(servers, url)
        try:
            yield svc
        finally:
            for server in servers:
                server.stop()
            svc.log = '\n'.join(server.log() for server in servers)
    finally:
        for server in servers:
            server.stop()
        database.drop()
        shutil.rmtree(workdir, ignore_errors=True)


# --- data sets --------------------------------------------------------------

def _inventory(total, reserved=0, ratio=1.0):
    return {'total': total, 'reserved': reserved, 'allocation_ratio': ratio}


class DataSet:
    """Providers built over HTTP, plus the request a scheduler would make.

    ``toggled`` is a (provider, class) whose inventory an operator keeps
    removing and restoring during the load.
    """

    label = None
    toggled = None

    def __init__(self):
        self.providers = []

    def provider(self, http, name, inventories=None, parent=None):
        rp = str(uuid.uuid4())
        body = {'name': '%s-%s' % (name, rp[:8]), 'uuid': rp}
        if parent:
            body['parent_provider_uuid'] = parent
        expect_ok(http.post('/resource_providers', json=body))
        if inventories:
            expect_ok(http.put('/resource_providers/%s/inventories' % rp,
                               json={'resource_provider_generation': 0,
                                     'inventories': inventories}))
        self.providers.append(rp)
        return rp

    @staticmethod
    def _generation(http, rp):
        return expect_ok(
            http.get('/resource_providers/%s' % rp)).json()['generation']

    def resources(self, rng):
        """The resources one claim asks for."""
        raise NotImplementedError

    def direct_claim(self, rng, resources):
        """A plausible allocation built without allocation candidates."""
        raise NotImplementedError


class Flat(DataSet):
    """A few small compute nodes; VCPU is the scarce class."""

    label = 'flat'

    def build(self, http):
        self.computes = [
            self.provider(http, 'cn%d' % i, {
                'VCPU': _inventory(8, reserved=1),
                'MEMORY_MB': _inventory(2048, reserved=256, ratio=1.5)})
            for i in range(4)]
        # The last node: free at first, so removals can succeed, and then
        # raced by the claims that fill it once it is restored.
        self.toggled = (self.computes[-1], 'VCPU')

    def resources(self, rng):
        return {'VCPU': rng.choice((1, 2)), 'MEMORY_MB': 256}

    def direct_claim(self, rng, resources):
        return {rng.choice(self.computes): {'resources': resources}}


class Nested(DataSet):
    """compute -> 2 NUMA nodes -> one FPGA each (total=1): a tree whose
    scarce class sits two levels below the root."""

    label = 'nested'

    def build(self, http):
        self.trees = []
        for i in range(3):
            cn = self.provider(http, 'cn%d' % i,
                               {'DISK_GB': _inventory(500)})
            numas = []
            for n in range(2):
                numa = self.provider(http, 'cn%d-numa%d' % (i, n), {
                    'VCPU': _inventory(4),
                    'MEMORY_MB': _inventory(2048)}, parent=cn)
                fpga = self.provider(http, 'cn%d-numa%d-fpga' % (i, n),
                                     {'FPGA': _inventory(1)}, parent=numa)
                numas.append((numa, fpga))
            self.trees.append((cn, numas))
        self.toggled = (self.trees[0][1][0][1], 'FPGA')

    def resources(self, rng):
        return {'VCPU': 1, 'MEMORY_MB': 128, 'FPGA': 1, 'DISK_GB': 10}

    def direct_claim(self, rng, resources):
        cn, numas = rng.choice(self.trees)
        numa, fpga = rng.choice(numas)
        return {cn: {'resources': {'DISK_GB': resources['DISK_GB']}},
                numa: {'resources': {'VCPU': resources['VCPU'],
                                     'MEMORY_MB': resources['MEMORY_MB']}},
                fpga: {'resources': {'FPGA': resources['FPGA']}}}


class Sharing(DataSet):
    """Compute nodes sharing DISK_GB providers through an aggregate."""

    label = 'sharing'

    def build(self, http):
        aggregate = str(uuid.uuid4())
        self.computes = [
            self.provider(http, 'cn%d' % i, {'VCPU': _inventory(8)})
            for i in range(3)]
        self.storage = self.provider(
            http, 'shared-disk', {'DISK_GB': _inventory(100, reserved=10)})
        # A second, small sharing provider comes and goes.
        spare = self.provider(http, 'spare-disk',
                              {'DISK_GB': _inventory(30)})
        self.toggled = (spare, 'DISK_GB')
        for rp in (self.storage, spare):
            expect_ok(http.put(
                '/resource_providers/%s/traits' % rp,
                json={'traits': ['MISC_SHARES_VIA_AGGREGATE'],
                      'resource_provider_generation':
                          self._generation(http, rp)}))
        for rp in self.computes + [self.storage, spare]:
            expect_ok(http.put(
                '/resource_providers/%s/aggregates' % rp,
                json={'aggregates': [aggregate],
                      'resource_provider_generation':
                          self._generation(http, rp)}))

    def resources(self, rng):
        return {'VCPU': 1, 'DISK_GB': 10}

    def direct_claim(self, rng, resources):
        return {rng.choice(self.computes):
                {'resources': {'VCPU': resources['VCPU']}},
                self.storage: {'resources': {'DISK_GB': resources['DISK_GB']}}}


DATA_SETS = {cls.label: cls for cls in (Flat, Nested, Sharing)}


# --- the load -------------------------------------------------------------

@dataclasses.dataclass
class Outcome:
    op: str               # candidates, claim, move, read, delete, probe
    status: int           # None when no HTTP answer came back
    started: float        # time.monotonic()
    ended: float
    clear: bool = True    # an error answer was a proper JSON error document
    detail: str = ''
    code: str = None      # the error code of an error answer


class Ledger:
    """For each consumer, the states the database may hold at the end.

    An acknowledged (2xx) or refused (4xx) write leaves one possible state;
    a write whose answer never arrived or was a 503 may or may not have
    committed, so both the old and the new state stay possible.
    """

    def __init__(self):
        self.states = {}

    def certain(self, consumer, state):
        self.states[consumer] = {state}

    def uncertain(self, consumer, state):
        self.states.setdefault(consumer, {EMPTY}).add(state)


class _Client(threading.Thread):
    """One scheduler-like client; it only ever touches its own consumers,
    so the state it expects for them is exact."""

    def __init__(self, load, index):
        super().__init__(name='stress-client-%d' % index, daemon=True)
        self.load = load
        # Each client keeps to one API process, as a scheduler keeps its
        # connection: what it wrote, it reads back through the same node.
        self.url = load.urls[index % len(load.urls)]
        self.rng = random.Random('%s-%d' % (load.seed, index))
        self.ledger = Ledger()
        self.outcomes = []
        self.held = {}          # consumer -> allocations it certainly holds
        self.fallbacks = 0
        self.read_mismatches = []

    def run(self):
        with httpx.Client(base_url=self.url, headers=HEADERS,
                          timeout=self.load.timeout) as self.http:
            done = 0
            while not self.load.stopping(done):
                roll = self.rng.random()
                if self.held and roll < 0.2:
                    self.release()
                elif self.held and roll < 0.4:
                    self.move()
                else:
                    self.claim()
                done += 1

    def _call(self, op, method, url, **kwargs):
        started = time.monotonic()
        try:
            response = self.http.request(method, url, **kwargs)
        except httpx.TransportError as exc:
            self.outcomes.append(Outcome(op, None, started, time.monotonic(),
                                         detail=repr(exc)))
            time.sleep(0.05)   # the service is away; do not spin
            return None
        outcome = Outcome(op, response.status_code, started,
                          time.monotonic())
        if response.status_code >= 400:
            outcome.clear = clear_error(response)
            outcome.detail = response.text[:600]
            if outcome.clear:
                outcome.code = response.json()['errors'][0]['code']
            if response.status_code >= 500:
                time.sleep(0.05)
        self.outcomes.append(outcome)
        return response

    def _choices(self, resources):
        """Allocation requests for ``resources``, best first.

        While the service lacks GET /allocation_candidates (and the load
        allows it) the claim is built from the data set instead.
        """
        query = ','.join('%s:%d' % item for item in sorted(resources.items()))
        response = self._call('candidates', 'GET', '/allocation_candidates',
                              params={'resources': query, 'limit': 10})
        if response is None:
            return []
        if response.status_code in (404, 405, 501) and self.load.fallback:
            self.outcomes.pop()     # a missing route, not a failure
            self.fallbacks += 1
            return [self.load.dataset.direct_claim(self.rng, resources)]
        if response.status_code != 200:
            return []
        return [request['allocations']
                for request in response.json()['allocation_requests']]

    def _body(self, allocations, generation):
        return {'allocations': allocations, 'project_id': PROJECT,
                'user_id': USER, 'consumer_generation': generation,
                'consumer_type': 'INSTANCE'}

    def _settle(self, response, changes):
        """Record in the ledger what ``changes`` ({consumer: allocations})
        did, judging by ``response``; True when it was acknowledged."""
        if response is not None and response.status_code < 300:
            for consumer, allocations in changes.items():
                self.ledger.certain(consumer, state_of(allocations))
                if allocations:
                    self.held[consumer] = allocations
                else:
                    self.held.pop(consumer, None)
            return True
        if response is None or response.status_code >= 500:
            for consumer, allocations in changes.items():
                self.ledger.uncertain(consumer, state_of(allocations))
                # Its true state is unknown now: leave it alone.
                self.held.pop(consumer, None)
        else:
            for consumer in changes:
                self.ledger.states.setdefault(consumer, {EMPTY})
        return False

    def claim(self):
        resources = self.load.dataset.resources(self.rng)
        consumer = str(uuid.uuid4())
        for _attempt in range(3):
            choices = self._choices(resources)
            if not choices:
                self.load.count('no_candidates')
                return
            response = self._call(
                'claim', 'PUT', '/allocations/%s' % consumer,
                json=self._body(choices[0], None))
            if self._settle(response, {consumer: choices[0]}):
                return
            if response is None or response.status_code != 409:
                return

    def _read(self, consumer):
        """The consumer's generation, checking the service agrees with
        what this client knows it holds."""
        response = self._call('read', 'GET', '/allocations/%s' % consumer)
        if response is None or response.status_code != 200:
            return None
        body = response.json()
        if state_of(body['allocations']) != state_of(self.held[consumer]):
            self.read_mismatches.append((consumer, body))
        # Absent when a lagging replica does not show the consumer yet.
        return body.get('consumer_generation')

    def move(self):
        """Move a consumer to other providers and hand its old allocation
        to a new "migration" consumer, in one POST /allocations."""
        consumer = self.rng.choice(sorted(self.held))
        old = self.held[consumer]
        generation = self._read(consumer)
        if generation is None:
            return
        resources = collections.Counter()
        for entry in old.values():
            resources.update(entry['resources'])
        targets = [c for c in self._choices(dict(resources))
                   if set(c) != set(old)]
        if not targets:
            self.load.count('no_move_target')
            return
        migration = str(uuid.uuid4())
        response = self._call('move', 'POST', '/allocations', json={
            consumer: self._body(targets[0], generation),
            migration: self._body(old, None)})
        self._settle(response, {consumer: targets[0], migration: old})

    def release(self):
        consumer = self.rng.choice(sorted(self.held))
        response = self._call('delete', 'DELETE',
                              '/allocations/%s' % consumer)
        self._settle(response, {consumer: {}})


class _Operator(_Client):
    """Keeps removing and restoring the inventory ``dataset.toggled``
    names.  Removal must be refused (409 inventory in use) while the class
    is allocated; the checker finds any allocation left without inventory
    (its capacity counts as 0)."""

    def run(self):
        provider, name = self.load.dataset.toggled
        path = '/resource_providers/%s/inventories' % provider
        with httpx.Client(base_url=self.url, headers=HEADERS,
                          timeout=self.load.timeout) as self.http:
            response = self._call('inventories', 'GET', path)
            saved = response.json()['inventories'][name]
            while not self.load.stopping(0):
                response = self._call('inventories', 'GET', path)
                if response is not None and response.status_code == 200:
                    body = response.json()
                    inventories = body['inventories']
                    if inventories.pop(name, None) is None:
                        inventories[name] = saved
                    self._call('inventory', 'PUT', path, json={
                        'resource_provider_generation':
                            body['resource_provider_generation'],
                        'inventories': inventories})
                time.sleep(0.1)


class Load:
    """``clients`` concurrent clients against the service at ``url`` (or,
    given a list, spread over those API processes).

    Each runs ``ops`` operations (claim / move / release), or until
    ``stop()`` when ``ops`` is None; ``duration`` bounds the run either way.
    With ``operator`` one more client toggles an inventory meanwhile, until
    the last of the others is done.
    """

    def __init__(self, url, dataset, clients=20, ops=12, duration=40.0,
                 timeout=60.0, fallback=True, seed=None, operator=False):
        self.urls = [url] if isinstance(url, str) else list(url)
        self.dataset = dataset
        self.ops = ops
        self.duration = duration
        self.timeout = timeout
        self.fallback = fallback
        self.seed = seed if seed is not None else random.randrange(10 ** 6)
        self._stop = threading.Event()
        self._counts = collections.Counter()
        self._lock = threading.Lock()
        self.clients = [_Client(self, i) for i in range(clients)]
        self.operator = (_Operator(self, clients)
                         if operator and dataset.toggled else None)

    def count(self, name):
        with self._lock:
            self._counts[name] += 1

    def stopping(self, done):
        if self.ops is not None and done >= self.ops:
            return True
        return (self._stop.is_set()
                or time.monotonic() - self.started > self.duration)

    @property
    def _threads(self):
        return self.clients + ([self.operator] if self.operator else [])

    def start(self):
        self.started = time.monotonic()
        for thread in self._threads:
            thread.start()
        return self

    def stop(self):
        self._stop.set()

    def wait(self):
        for client in self.clients:
            client.join(self.duration + 2 * self.timeout)
        self.stop()     # the operator runs until the clients are done
        if self.operator:
            self.operator.join(2 * self.timeout)
        assert not any(t.is_alive() for t in self._threads), 'clients hung'
        return self

    def run(self):
        return self.start().wait()

    @property
    def outcomes(self):
        return [o for t in self._threads for o in t.outcomes]

    @property
    def ledger(self):
        merged = Ledger()
        for client in self.clients:
            merged.states.update(client.ledger.states)
        return merged

    def unexpected(self):
        """Answers a correct service never gives under this load: anything
        but success, a 409 refusal or (when the database is away) a 503 with
        a proper error document."""
        expected = {'candidates': {200}, 'read': {200}, 'delete': {204},
                    'claim': {204, 409}, 'move': {204, 409},
                    'inventories': {200}, 'inventory': {200, 409}}
        return [o for o in self.outcomes
                if not o.clear or (o.status not in (None, 503)
                                   and o.status not in expected[o.op])]

    @property
    def read_mismatches(self):
        return [m for c in self.clients for m in c.read_mismatches]

    def figures(self):
        """Counts by operation and status, for the summary line."""
        outcomes = self.outcomes
        claims = [o for o in outcomes if o.op == 'claim']
        moves = [o for o in outcomes if o.op == 'move']
        return {
            'claims': len(claims),
            'acknowledged': sum(o.status is not None and o.status < 300
                                for o in claims),
            'refused_409': sum(o.status == 409 for o in claims),
            # Lost races the service gave up retrying (or a consumer
            # generation clash), as opposed to "no room".
            'concurrent_409': sum(o.code == 'placement.concurrent_update'
                                  for o in claims + moves),
            'moves': len(moves),
            'moves_ok': sum(o.status is not None and o.status < 300
                            for o in moves),
            'deletes': sum(o.op == 'delete' for o in outcomes),
            'requests': len(outcomes),
            '5xx': sum(o.status is not None and o.status >= 500
                       for o in outcomes),
            '503': sum(o.status == 503 for o in outcomes),
            'no_answer': sum(o.status is None for o in outcomes),
            'no_candidates': self._counts['no_candidates'],
            'direct_claims': sum(c.fallbacks for c in self.clients),
            'inventory_writes': sum(o.op == 'inventory' for o in outcomes),
            'inventory_ok': sum(o.op == 'inventory' and o.status == 200
                                for o in outcomes),
        }


class Probe(threading.Thread):
    """GET /resource_providers (a database read) every 50 ms."""

    def __init__(self, url):
        super().__init__(name='stress-probe', daemon=True)
        self.url = url
        self.outcomes = []
        self._halt = threading.Event()

    def run(self):
        with httpx.Client(base_url=self.url, headers=HEADERS,
                          timeout=30) as http:
            while not self._halt.is_set():
                started = time.monotonic()
                try:
                    response = http.get('/resource_providers')
                except httpx.TransportError as exc:
                    self.outcomes.append(Outcome(
                        'probe', None, started, time.monotonic(),
                        detail=repr(exc)))
                else:
                    self.outcomes.append(Outcome(
                        'probe', response.status_code, started,
                        time.monotonic(),
                        clear=(response.status_code < 400
                               or clear_error(response)),
                        detail=response.text[:300]))
                time.sleep(0.05)

    def first_ok_after(self, moment, timeout):
        """When the first 200 started after ``moment``; None if none did
        within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for outcome in list(self.outcomes):
                if outcome.started >= moment and outcome.status == 200:
                    return outcome.ended
            time.sleep(0.05)
        return None

    def stop(self):
        self._halt.set()
        self.join(35)


# --- the independent check ------------------------------------------------

@dataclasses.dataclass
class Check:
    over_committed: list   # (provider, class, used, capacity)
    wrong: list            # (consumer, found state, allowed states)
    usage: dict            # (provider, class) -> used

    @property
    def ok(self):
        return not self.over_committed and not self.wrong


def check_database(db_url, ledger):
    """Compare the tables with ``ledger``; nothing here uses the service."""
    rp, rc = tables.resource_providers, tables.resource_classes
    inv, alloc = tables.inventories, tables.allocations
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            capacity = {
                (row.uuid, row.name): (row.total - row.reserved)
                * row.allocation_ratio
                for row in conn.execute(
                    sa.select(rp.c.uuid, rc.c.name, inv.c.total,
                              inv.c.reserved, inv.c.allocation_ratio)
                    .select_from(inv.join(rp, rp.c.id ==
                                          inv.c.resource_provider_id)
                                 .join(rc, rc.c.id ==
                                       inv.c.resource_class_id)))}
            rows = conn.execute(
                sa.select(alloc.c.consumer_id, rp.c.uuid, rc.c.name,
                          alloc.c.used)
                .select_from(alloc.join(rp, rp.c.id ==
                                        alloc.c.resource_provider_id)
                             .join(rc, rc.c.id == alloc.c.resource_class_id))
            ).all()
            orphans = conn.execute(
                sa.select(sa.func.count()).select_from(alloc).where(
                    ~alloc.c.resource_provider_id.in_(sa.select(rp.c.id)))
            ).scalar()
    finally:
        engine.dispose()
    assert not orphans, '%d allocations of vanished providers' % orphans
    usage = collections.Counter()
    found = collections.defaultdict(list)
    for consumer, provider, name, used in rows:
        usage[(provider, name)] += used
        found[consumer].append((provider, name, used))
    over = [(provider, name, used, capacity.get((provider, name), 0))
            for (provider, name), used in sorted(usage.items())
            if used > capacity.get((provider, name), 0)]
    wrong = []
    for consumer in set(found) | set(ledger.states):
        state = tuple(sorted(found.get(consumer, ())))
        allowed = ledger.states.get(consumer, {EMPTY})
        if state not in allowed:
            wrong.append((consumer, state, allowed))
    return Check(over, wrong, dict(usage))


def assert_sound(load, check, server_log='', allow_503=False):
    """What every run must show: no over-commit, the database holding
    exactly what was acknowledged, reads agreeing with it, and only the
    answers a correct service gives (503 only where ``allow_503``)."""
    assert not check.over_committed, check.over_committed
    assert not check.wrong, check.wrong[:5]
    assert not load.read_mismatches, load.read_mismatches[:3]
    bad = load.unexpected()
    if not allow_503:
        bad += [o for o in load.outcomes if o.status == 503]
    assert not bad, (bad[:5], server_log[-3000:])
    assert load.figures()['acknowledged'] > 0


def summary(label, load, check):
    figures = load.figures()
    return ('[stress] %s: claims attempted=%d acknowledged=%d refused_409=%d '
            '(concurrent_update=%d) 5xx=%d (503=%d) no_answer=%d moves=%d/%d '
            'deletes=%d '
            'no_candidates=%d direct_claims=%d inventory_writes=%d/%d '
            'requests=%d over_committed_providers=%d wrong_consumers=%d '
            'seed=%s' % (
                label, figures['claims'], figures['acknowledged'],
                figures['refused_409'], figures['concurrent_409'],
                figures['5xx'], figures['503'],
                figures['no_answer'], figures['moves_ok'], figures['moves'],
                figures['deletes'], figures['no_candidates'],
                figures['direct_claims'], figures['inventory_ok'],
                figures['inventory_writes'], figures['requests'],
                len({o[0] for o in check.over_committed}),
                len(check.wrong), load.seed))
