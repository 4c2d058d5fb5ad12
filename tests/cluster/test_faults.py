"""The claim load of test_concurrency_claims while things break
underneath it.

* The database restarts once mid-load.  This needs a database server the
  test may stop, so it starts a private MariaDB and a private PostgreSQL in
  temporary directories (never the shared ones other tests use), and skips
  when their binaries are not installed.  While the database is away the
  service answers 503 with a JSON error (never 500); once it is back the
  same API processes answer 200 again within seconds.
* A gunicorn worker is SIGKILLed mid-load, twice, on every database.  Only
  the requests the dead worker was serving go unanswered; the master
  replaces it.
* The database server ends every connection of the service, thrice,
  mid-load (shared MariaDB and PostgreSQL, the test's own database only).
  Only requests whose connection was ended under them may fail, with a
  503; the pools connect again.

Either way no provider ends up over-committed and the database holds
exactly the acknowledged allocations.  Each runs with either read source
(``[placement] read_source``): with ``snapshot`` the listings come from
the workers' snapshots, loaded before the load starts.  Throughout, a
``stress_fresh.FreshReads`` client checks that a listing read right after
an acknowledged write, on whichever worker, shows it: no stale answer.
"""
import os
import signal
import time

import httpx
import psutil
import pytest

from support import helpers
from support import db_servers
from support import stress_check
from support import stress_fresh
from support import stress_load
from support import stress_setup

# How long after the database is back the service must answer 200 again.
RECOVERY_SECONDS = 10
SOURCES = ['database', 'snapshot']
# The operations of the load (and of FreshReads) that only read.
READS = {'candidates', 'read', 'fresh_listing', 'fresh_provider',
         'fresh_traits'}
# The shared servers the environment names (their connections are ended).
SERVER_BACKENDS = [backend for backend in helpers.BACKENDS
                   if backend != 'sqlite']


@pytest.fixture(scope='module', params=[db_servers.PrivateMariaDB,
                                        db_servers.PrivatePostgreSQL],
                ids=['mysql', 'postgresql'])
def private_db(request):
    kind = request.param
    db_servers.require(kind)
    server = kind()
    try:
        server.start()
        yield server
    finally:
        server.stop()
        server.cleanup()


def _workers(server):
    return {p.pid for p in psutil.Process(server.process.pid).children()}


def _wait_for_workers(server, count, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pids = _workers(server)
        if len(pids) == count:
            return pids
        time.sleep(0.1)
    raise AssertionError('gunicorn did not get back to %d workers' % count)


def _ready(svc, data, workers, source):
    """Build ``data``; the workers' pids once all ``workers`` are up and,
    reading from snapshots, have theirs loaded."""
    with httpx.Client(base_url=svc.url, headers=stress_setup.HEADERS,
                      timeout=30) as http:
        data.build(http)
    pids = _wait_for_workers(svc.server, workers)
    if source == 'snapshot':
        svc.wait_loaded(workers)
    return pids


def _load(svc, data, duration):
    """The claim load, with a FreshReads client; started."""
    return stress_load.Load(svc.url, data, clients=20, ops=None,
                            duration=duration,
                            companions=[stress_fresh.FreshReads]).start()


def _assert_fresh(load):
    assert stress_fresh.checked(load) > 0, 'no read after a write checked'
    assert not load.read_mismatches, load.read_mismatches[:5]


@pytest.mark.parametrize('source', SOURCES)
def test_database_restart_mid_load(private_db, source, capsys):
    with stress_setup.service(private_db.backend, 4,
                              server_url=private_db.url,
                              source=source) as svc:
        data = stress_setup.Flat()
        workers = _ready(svc, data, 4, source)
        probe = stress_load.Probe(svc.url)
        probe.start()
        load = _load(svc, data, 45.0)
        try:
            time.sleep(3)
            down = time.monotonic()
            private_db.stop()
            stopped = time.monotonic()
            time.sleep(5)
            starting = time.monotonic()
            private_db.start()
            up = time.monotonic()
            back = probe.first_ok_after(up, RECOVERY_SECONDS)
            time.sleep(3)
        finally:
            load.stop()
            probe.stop()
        load.wait()
        check = stress_check.check_database(svc.db_url, load.ledger)
        same_workers = _workers(svc.server) == workers
        server_alive = svc.server.process.poll() is None
    with capsys.disabled():
        print('\n' + stress_check.summary(
            '%s restart/4 workers/flat/%s outage=%.1fs '
            'recovered_after=%s' % (
                private_db.backend, source, up - down,
                '%.1fs' % (back - up) if back else 'never'), load, check))

    assert back is not None, (
        'no 200 within %d s of the database coming back' % RECOVERY_SECONDS)
    assert server_alive and same_workers, 'the API processes were restarted'
    every = load.outcomes + probe.outcomes
    # Every request here needs the database: the ones served while it was
    # gone answer 503 (with a JSON error, checked below).  Requests that
    # waited for a worker until it was back may well succeed.
    assert any(o.status == 503 and o.ended >= stopped for o in every), (
        'the outage went unseen')
    outage = [o for o in every
              if stopped <= o.started and o.ended <= starting]
    assert all(o.status == 503 for o in outage), [
        o for o in outage if o.status != 503][:5]
    assert not [o for o in every if o.status is None], 'requests dropped'
    assert not [o for o in every if not o.clear], [
        o for o in every if not o.clear][:5]
    # 5xx only while the database was away, and only ever 503.
    # A request may overlap the stop or the first moments after the start
    # (before its worker's pool noticed the new server).
    strays = [o for o in every if o.status is not None and o.status >= 500
              and (o.status != 503 or o.ended < down or o.started > back)]
    assert not strays, (strays[:5], svc.log[-3000:])
    stress_check.assert_sound(load, check, svc.log, allow_503=True)
    _assert_fresh(load)


@pytest.mark.parametrize('source', SOURCES)
@pytest.mark.parametrize('backend', helpers.BACKENDS)
def test_worker_killed_mid_load(backend, source, capsys):
    workers = 2 if backend == 'sqlite' else 4
    kills = 2
    killed_at = []
    with stress_setup.service(backend, workers, source=source) as svc:
        data = stress_setup.Sharing()
        _ready(svc, data, workers, source)
        load = _load(svc, data, 40.0)
        try:
            for _kill in range(kills):
                time.sleep(2)
                victim = sorted(_wait_for_workers(svc.server, workers))[0]
                os.kill(victim, signal.SIGKILL)
                killed_at.append(time.monotonic())
            _wait_for_workers(svc.server, workers)
            time.sleep(3)
        finally:
            load.stop()
        load.wait()
        check = stress_check.check_database(svc.db_url, load.ledger)
        with httpx.Client(base_url=svc.url, headers=stress_setup.HEADERS,
                          timeout=30) as http:
            after = http.get('/resource_providers').status_code
    with capsys.disabled():
        print('\n' + stress_check.summary(
            '%s/%d workers/sharing/%s, %d workers '
            'killed' % (backend, workers, source, kills), load, check))
    assert after == 200
    # A threaded worker holds the requests of every connection it accepted
    # (running, queued or still arriving): a kill may drop those, and
    # nothing else may go unanswered.
    dropped = [o for o in load.outcomes if o.status is None]
    # (A second of slack: the kill is noted just after it happened.)
    assert all(any(o.started - 1 <= kill <= o.ended + 1
                   for kill in killed_at) for o in dropped), (
        killed_at, dropped)
    stress_check.assert_sound(load, check, svc.log,
                              allow_503=backend == 'sqlite')
    _assert_fresh(load)


@pytest.mark.parametrize('source', SOURCES)
@pytest.mark.parametrize('backend', SERVER_BACKENDS)
def test_database_connections_dropped_mid_load(backend, source, capsys):
    drops = 3
    dropped_at, ended = [], []
    with stress_setup.service(backend, 4, source=source) as svc:
        data = stress_setup.Flat()
        _ready(svc, data, 4, source)
        load = _load(svc, data, 40.0)
        try:
            for _drop in range(drops):
                time.sleep(2)
                ended.append(svc.drop_connections())
                dropped_at.append(time.monotonic())
            time.sleep(3)
        finally:
            load.stop()
        load.wait()
        check = stress_check.check_database(svc.db_url, load.ledger)
    with capsys.disabled():
        print('\n' + stress_check.summary(
            '%s/4 workers/flat/%s, connections ended %s' % (
                backend, source, '+'.join(map(str, ended))), load, check))
    assert all(ended), ('no connection of the service to end', ended)
    # Only a write whose connection was ended under it may fail (it
    # cannot know whether it committed): a 503, never a 500.  A read runs
    # again on a fresh connection.  (A second of slack: the drop is noted
    # just after the last KILL.)
    failed = [o for o in load.outcomes
              if o.status is None or o.status >= 500]
    assert all(o.status == 503 and o.op not in READS and any(
        o.started - 1 <= drop <= o.ended + 1 for drop in dropped_at)
        for o in failed), (dropped_at, failed[:5], svc.log[-3000:])
    stress_check.assert_sound(load, check, svc.log, allow_503=True)
    _assert_fresh(load)
