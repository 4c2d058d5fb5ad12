"""Scheduler-like load on a live service: ``Load``'s client threads claim,
move and release resources, recording each answer (``Outcome``) and the
states each consumer may end in (``Ledger``); ``Probe`` keeps reading.
"""
import collections
import dataclasses
import random
import threading
import time
import uuid

import httpx

from support.stress_setup import HEADERS, PROJECT, USER, clear_error

# A consumer without allocations; states are sorted (provider, class, used)
# tuples so that a duplicated allocation row shows up as a difference.
EMPTY = ()


def state_of(allocations):
    """Canonical state of an ``{rp: {'resources': {rc: n}}}`` mapping."""
    return tuple(sorted((rp, rc, used)
                        for rp, entry in allocations.items()
                        for rc, used in entry['resources'].items()))


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

    # The answers a correct service gives each operation, but for 503.
    expected = {'candidates': {200}, 'read': {200}, 'delete': {204},
                'claim': {204, 409}, 'move': {204, 409},
                'inventories': {200}, 'inventory': {200, 409}}

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
        # Reads compared with what this client knows, and those that
        # disagreed (stale answers).
        self.reads_checked = 0
        self.read_mismatches = []

    def prepare(self):
        """What must be in place before any client starts: nothing, for
        most clients."""

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

    def _call(self, op, method, url, via=None, **kwargs):
        """``method url`` through ``via`` (an httpx client; by default
        the client's own), recorded as an ``Outcome`` of ``op``."""
        started = time.monotonic()
        try:
            response = (via or self.http).request(method, url, **kwargs)
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
        self.reads_checked += 1
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
    the last of the others is done; so do the ``companions``, more client
    classes (built as ``cls(load, index)``, e.g.
    ``stress_fresh.FreshReads``).
    """

    def __init__(self, url, dataset, clients=20, ops=12, duration=40.0,
                 timeout=60.0, fallback=True, seed=None, operator=False,
                 companions=()):
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
        kinds = [_Operator] if operator and dataset.toggled else []
        self.companions = [kind(self, clients + i) for i, kind in
                           enumerate(kinds + list(companions))]

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
        return self.clients + self.companions

    def start(self):
        for thread in self._threads:
            thread.prepare()
        self.started = time.monotonic()
        for thread in self._threads:
            thread.start()
        return self

    def stop(self):
        self._stop.set()

    def wait(self):
        for client in self.clients:
            client.join(self.duration + 2 * self.timeout)
        self.stop()     # the companions run until the clients are done
        for companion in self.companions:
            companion.join(2 * self.timeout)
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
        for client in self._threads:
            merged.states.update(client.ledger.states)
        return merged

    def unexpected(self):
        """Answers a correct service never gives under this load: anything
        but success, a 409 refusal or (when the database is away) a 503 with
        a proper error document."""
        return [o for t in self._threads for o in t.outcomes
                if not o.clear or (o.status not in (None, 503)
                                   and o.status not in t.expected[o.op])]

    @property
    def read_mismatches(self):
        return [m for c in self._threads for m in c.read_mismatches]

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
            'reads_checked': sum(c.reads_checked for c in self._threads),
            'stale_reads': len(self.read_mismatches),
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
