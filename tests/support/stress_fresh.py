"""Read your writes under load: ``FreshReads``, a companion of a
``stress_load.Load``, keeps writing to a provider of its own and, as
soon as a write is acknowledged, reads the listings that show it.

Its provider has one unit of a class nobody else asks for, and a trait
it keeps setting and clearing.  A claim of the unit, its release and a
trait change each move what three listings show (GET
/allocation_candidates and GET /resource_providers by resources, GET
/resource_providers by the trait); each listing is read on a new
connection, so by whichever worker accepts it, in turn through every
API process, and must already show the write: otherwise it is a stale
answer (``read_mismatches``).  A write whose answer never came, or was a
503, leaves the truth unknown: it is read again from the database before
the next check.
"""
import time
import uuid

import httpx

from support import stress_load
from support.stress_setup import HEADERS, expect_ok

CLASS = 'CUSTOM_FRESH_READS'
TRAIT = 'CUSTOM_FRESH_READS'
# How long after an unanswered write the truth is read again: what a
# killed worker left in flight has been rolled back or committed by then.
SETTLE_SECONDS = 1.0


class FreshReads(stress_load._Client):

    expected = {'fresh_claim': {204}, 'fresh_release': {204, 404},
                'fresh_provider': {200}, 'fresh_traits': {200},
                # Another trait write of this client may have been
                # committed unanswered: a generation conflict.
                'fresh_trait': {200, 409},
                'fresh_listing': {200}}

    def __init__(self, load, index):
        super().__init__(load, index)
        self.url = load.urls[0]
        self._next_read = 0
        self.provider = None
        self.consumer = None
        # Whether the unit is claimed (by ``consumer``) and the trait
        # set; None while unknown.
        self.claimed = False
        self.marked = False

    def run(self):
        with httpx.Client(base_url=self.url, headers=HEADERS,
                          timeout=self.load.timeout) as self.http, \
                httpx.Client(headers=dict(HEADERS, Connection='close'),
                             timeout=self.load.timeout) as self.reader:
            while not self.load.stopping(0):
                if self.rng.random() < 0.5:
                    self._toggle_claim()
                else:
                    self._toggle_trait()

    def prepare(self):
        """The class, the trait and the provider, before the load (and
        any fault) starts."""
        self.provider = str(uuid.uuid4())
        with httpx.Client(base_url=self.url, headers=HEADERS,
                          timeout=self.load.timeout) as http:
            expect_ok(http.put('/resource_classes/' + CLASS))
            expect_ok(http.put('/traits/' + TRAIT))
            expect_ok(http.post('/resource_providers', json={
                'name': 'fresh-reads-' + self.provider[:8],
                'uuid': self.provider}))
            expect_ok(http.put(
                '/resource_providers/%s/inventories' % self.provider,
                json={'resource_provider_generation': 0,
                      'inventories': {CLASS: {'total': 1}}}))

    def _toggle_claim(self):
        if self.claimed is None:
            # Settle the unknown by releasing: afterwards nothing is held.
            time.sleep(SETTLE_SECONDS)
            response = self._call('fresh_release', 'DELETE',
                                  '/allocations/%s' % self.consumer)
            if response is not None and response.status_code in (204, 404):
                self.ledger.certain(self.consumer, stress_load.EMPTY)
                self.claimed = False
            return
        if self.claimed:
            allocations = {}
            response = self._call('fresh_release', 'DELETE',
                                  '/allocations/%s' % self.consumer)
        else:
            self.consumer = str(uuid.uuid4())
            allocations = {self.provider: {'resources': {CLASS: 1}}}
            response = self._call(
                'fresh_claim', 'PUT', '/allocations/%s' % self.consumer,
                json=self._body(allocations, None))
        if self._settle(response, {self.consumer: allocations}):
            self.claimed = bool(allocations)
            self._check()
        else:
            self.claimed = None

    def _toggle_trait(self):
        if self.marked is None:
            time.sleep(SETTLE_SECONDS)
            response = self._call(
                'fresh_traits', 'GET',
                '/resource_providers/%s/traits' % self.provider)
            if response is not None and response.status_code == 200:
                self.marked = TRAIT in response.json()['traits']
            return
        response = self._call('fresh_provider', 'GET',
                              '/resource_providers/%s' % self.provider)
        if response is None or response.status_code != 200:
            return
        wanted = not self.marked
        response = self._call(
            'fresh_trait', 'PUT',
            '/resource_providers/%s/traits' % self.provider, json={
                'traits': [TRAIT] if wanted else [],
                'resource_provider_generation':
                    response.json()['generation']})
        if response is None or response.status_code >= 500:
            self.marked = None
        elif response.status_code == 200:
            self.marked = wanted
            self._check()

    def _check(self):
        """Read each listing the known state decides, comparing how many
        providers (or candidates) it shows with what it must show."""
        free = {'resources': '%s:1' % CLASS}
        listings = [('/resource_providers', {'required': TRAIT},
                     'resource_providers', self.marked)]
        if self.claimed is not None:
            listings += [
                ('/allocation_candidates', free, 'allocation_requests',
                 not self.claimed),
                ('/resource_providers', free, 'resource_providers',
                 not self.claimed)]
        for path, params, key, shown in listings:
            if shown is None:
                continue
            url = self.load.urls[self._next_read % len(self.load.urls)]
            self._next_read += 1
            response = self._call('fresh_listing', 'GET', url + path,
                                  via=self.reader, params=params)
            if response is None or response.status_code != 200:
                continue
            self.reads_checked += 1
            found = len(response.json()[key])
            if found != int(shown):
                self.read_mismatches.append(
                    ('stale answer', url, path, params, 'expected',
                     int(shown), 'found', found))


def checked(load):
    """How many listings ``load``'s FreshReads compared."""
    return sum(companion.reads_checked for companion in load.companions
               if isinstance(companion, FreshReads))
