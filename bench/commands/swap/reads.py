"""Reads from memory under a mixed fleet, for bench/run swap
``--read-source snapshot``.

This service's nodes then answer the provider list and candidates from
their snapshots, which see the upstream nodes' writes (recorded in no
change feed) only by their fleet check: a read that begins more than
``FLEET_CHECK_SECONDS`` after such a write committed must see it
(docs/operators.md, "Reads from memory").  While the fleet holds both
kinds, each round holds the mix's writes, waits until the last one
answered is older than that bound, and asks each of this service's nodes
directly (not through HAProxy) and a reference server of this service
reading the database for the same queries: every answer must be the
same bytes.
"""
import contextlib
import glob
import os
import threading
import time

import httpx

from bench.commands.mix import traffic
from bench.commands.swap.fleet import Node
from bench.common import serving
from bench.common import sources
from bench.common import web
from placement.memory import source

FLAVOR = ','.join('%s:%d' % item for item in traffic.FLAVOR.items())
# The mix's own scheduler query, and ones that the inventory changes
# (max_unit halved and back) and every claim's usage move.
QUERIES = ('/allocation_candidates?resources=%s&limit=%d'
           % (FLAVOR, traffic.CANDIDATE_LIMIT),
           '/allocation_candidates?resources=VCPU:40,MEMORY_MB:1024',
           '/resource_providers?resources=' + FLAVOR,
           '/resource_providers?resources=VCPU:40')
# Each query is asked this many times of a node, on new connections, so
# that more than one of its workers answers.
ASKED = 2
# Past the bound, so that the last write is older than it when the
# first read is sent.
MARGIN_S = 0.05
RELOADED = 'loading the snapshot again'


class WriteGate:
    """The mix's writes pass while it is open; ``close`` lets no new one
    through and waits for those under way to be answered."""

    def __init__(self):
        self._cond = threading.Condition()
        self._open = True
        self._running = 0

    @contextlib.contextmanager
    def passing(self):
        with self._cond:
            self._cond.wait_for(lambda: self._open)
            self._running += 1
        try:
            yield
        finally:
            with self._cond:
                self._running -= 1
                self._cond.notify_all()

    def close(self):
        with self._cond:
            self._open = False
            self._cond.wait_for(lambda: not self._running)

    def open(self):
        with self._cond:
            self._open = True
            self._cond.notify_all()


class Comparison:
    """The reference server and the rounds of comparison."""

    def __init__(self, workdir, db_url, port, fleet, mix, writes):
        config_file = os.path.join(workdir, 'reference', 'placement.conf')
        os.makedirs(os.path.dirname(config_file), exist_ok=True)
        serving.write_conf(config_file, db_url, sync=False)
        self.reference = Node('reference', port, workdir, config_file, None,
                              1)
        self.fleet = fleet
        self.mix = mix
        # The mix's operations that write.
        self.writes = writes
        self.compared = 0
        self.mismatches = []
        self.rounds = []
        # The mix's calls counted by the rounds so far.
        self.calls_seen = 0

    def start(self):
        self.reference.start('ours')

    def stop(self):
        if self.reference.proc is not None:
            self.reference.stop()

    def mixed(self):
        return {'ours', 'upstream'} <= set(self.fleet.kinds())

    def round(self):
        """Hold the writes, wait past the bound, compare every query on
        each of this service's nodes with the reference."""
        nodes = [node for node in self.fleet.nodes if node.kind == 'ours']
        for node in nodes:
            clients = web.Clients('http://127.0.0.1:%d' % node.port)
            try:
                sources.wait_loaded(node, clients, node.workers)
            finally:
                clients.close()
        calls_before = len(self.mix.calls)
        self.mix.writes.close()
        try:
            last_write = time.monotonic()
            upstream_writes = sum(
                1 for call in self.mix.calls[self.calls_seen:calls_before]
                if call[0] in self.writes and call[1] in (200, 204)
                and call[2] in self.fleet.by_name
                and self.fleet.by_name[call[2]].kind_between(
                    call[3], call[4]) == 'upstream')
            time.sleep(max(0, last_write + source.FLEET_CHECK_SECONDS
                           + MARGIN_S - time.monotonic()))
            first_read = time.monotonic()
            compared = 0
            for node in nodes:
                for path in QUERIES:
                    for _ in range(ASKED):
                        compared += 1
                        self._compare(node, path)
            self.rounds.append({
                'at_s': round(last_write - self.mix.start_at, 1),
                'kinds': self.fleet.kinds(), 'compared': compared,
                'upstream_writes_before': upstream_writes,
                'first_read_after_s': round(first_read - last_write, 3),
                'held_s': round(time.monotonic() - last_write, 1)})
            self.compared += compared
            self.calls_seen = calls_before
        finally:
            self.mix.writes.open()

    def _compare(self, node, path):
        ours = _get(node.port, path)
        reference = _get(self.reference.port, path)
        if ours != reference:
            self.mismatches.append({
                'node': node.name, 'path': path,
                'status': [ours[0], reference[0]],
                'bytes': [len(ours[1]), len(reference[1])],
                'at_s': round(time.monotonic() - self.mix.start_at, 1)})

    def result(self, workdir):
        """The figures for the JSON: bound, compared, mismatches, rounds,
        and how often a node loaded its snapshot again on its check."""
        reloads = 0
        for path in glob.glob(os.path.join(workdir, 'node*', 'ours*.log')):
            with open(path, errors='replace') as log:
                reloads += log.read().count(RELOADED)
        return {'bound_s': source.FLEET_CHECK_SECONDS,
                'compared': self.compared, 'mismatches': self.mismatches,
                'rounds': self.rounds, 'fleet_check_reloads': reloads}


def _get(port, path):
    response = httpx.get('http://127.0.0.1:%d%s' % (port, path),
                         headers=traffic.HEADERS, timeout=120)
    return response.status_code, response.content
