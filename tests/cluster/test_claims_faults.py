"""POST /claims when its worker dies mid-call: a group is written in one
transaction, so a SIGKILL at any moment leaves either every consumer of
the group with its allocation or none of them."""
import concurrent.futures
import os
import signal
import time
import uuid

import httpx
import psutil
import pytest
import sqlalchemy as sa

from support import helpers
from support import stress_setup
from support import worlds
from placement.data import tables

GROUP = 150
COMPUTES = 200
# When the kill comes, as a share of an unhurried call's time.
KILL_AT = (0.1, 0.3, 0.5, 0.7, 0.9)


def _group_body():
    return {'shape': 'resources=VCPU:1,MEMORY_MB:256',
            'roots': 'distinct',
            'consumers': {str(uuid.uuid4()): {
                'project_id': 'p', 'user_id': 'u',
                'consumer_generation': None, 'consumer_type': 'INSTANCE'}
                for _ in range(GROUP)}}


def _holding(engine, consumers):
    """How many of ``consumers`` hold an allocation."""
    alloc = tables.allocations
    with engine.connect() as conn:
        return conn.execute(sa.select(
            sa.func.count(sa.distinct(alloc.c.consumer_id)))
            .where(alloc.c.consumer_id.in_(list(consumers)))).scalar()


def _workers(server):
    return sorted(p.pid for p in psutil.Process(server.process.pid)
                  .children())


def _wait_for_workers(server, count, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(_workers(server)) == count:
            return
        time.sleep(0.1)
    raise AssertionError('gunicorn did not get back to %d workers' % count)


@pytest.mark.parametrize('backend', helpers.BACKENDS)
def test_a_group_claim_killed_mid_call_is_all_or_nothing(backend):
    with stress_setup.service(backend, 1) as svc:
        engine = sa.create_engine(svc.db_url)
        world = worlds.World(engine)
        for index in range(COMPUTES):
            world.add('cn%d' % index,
                      inventory={'VCPU': 4, 'MEMORY_MB': 4096})
        pool = concurrent.futures.ThreadPoolExecutor(1)
        with httpx.Client(base_url=svc.url, headers=stress_setup.HEADERS,
                          timeout=60) as http:
            # An unhurried call sets the pace of the kills; its group is
            # then released.
            body = _group_body()
            started = time.monotonic()
            assert http.post('/claims', json=body).status_code == 200
            took = time.monotonic() - started
            for consumer in body['consumers']:
                http.delete('/allocations/' + consumer)
            outcomes = []
            for share in KILL_AT:
                _wait_for_workers(svc.server, 1)
                body = _group_body()
                call = pool.submit(http.post, '/claims', json=body)
                time.sleep(took * share)
                for pid in _workers(svc.server):
                    os.kill(pid, signal.SIGKILL)
                try:
                    status = call.result().status_code
                except httpx.HTTPError:
                    status = None
                _wait_for_workers(svc.server, 1)
                held = _holding(engine, body['consumers'])
                outcomes.append((share, status, held))
                assert held in (0, GROUP), outcomes
                if status == 200:
                    assert held == GROUP, outcomes
        pool.shutdown()
        engine.dispose()
    # At least one kill came before the answer: the test saw a group cut
    # off mid-call, not only finished ones.
    assert any(status != 200 for _, status, _ in outcomes), outcomes
