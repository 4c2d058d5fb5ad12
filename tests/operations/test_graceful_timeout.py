"""``[api] graceful_timeout``: a request running when the server is told
to stop (SIGTERM) is answered if it ends within that many seconds, and
cut off if it does not; either way the server is gone soon after.

The request is held in flight by a lock the test takes on the traits
table: it is a real write, waiting inside the service for as long as the
test says."""
import concurrent.futures
import os
import signal
import time

import httpx
import pytest

from support import helpers
from support import lock_support

# Seconds between the request and the SIGTERM, so that it is waiting for
# the lock when the signal comes.
IN_FLIGHT_AFTER = 1.5


def _write(server):
    """A write of a trait: (its status or its error, when it ended)."""
    try:
        outcome = httpx.put(server.url + '/traits/CUSTOM_GRACEFUL',
                            headers=helpers.ADMIN_HEADERS,
                            timeout=60).status_code
    except httpx.TransportError as exc:
        outcome = exc
    return outcome, time.monotonic()


# gunicorn's timeout, not SQL: SQLite is enough (the request held in
# flight on every database: test_worker_model.py).
@pytest.mark.parametrize('graceful_timeout, runs_on, answered', [
    # Longer than the 10 seconds placement-api used to give every request.
    (15, 12, True),
    (2, 4, False),
], ids=['timeout-longer-than-the-request', 'timeout-shorter'])
def test_sigterm_lets_running_requests_finish_within_graceful_timeout(
        tmp_path, graceful_timeout, runs_on, answered):
    # runs_on: seconds the request keeps running after the SIGTERM.
    database = helpers.TestDatabase('sqlite', str(tmp_path))
    helpers.write_config(str(tmp_path), database.url,
                         '[api]\ngraceful_timeout = %d\n' % graceful_timeout)
    server = helpers.Server(str(tmp_path), workers=1)
    try:
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            with lock_support.writes_held(database):
                write = pool.submit(_write, server)
                time.sleep(IN_FLIGHT_AFTER)
                os.kill(server.process.pid, signal.SIGTERM)
                signalled = time.monotonic()
                time.sleep(runs_on)
                released = time.monotonic()
            outcome, ended = write.result()
        if answered:
            assert outcome == 201, (outcome, server.log())
            assert ended > released
        else:
            assert isinstance(outcome, httpx.TransportError), (
                outcome, server.log())
            assert signalled + graceful_timeout < ended < released
        # The server left once its worker had, within the timeout.
        assert server.process.wait(5) == 0, server.log()
        assert time.monotonic() - signalled < graceful_timeout + 5
    finally:
        server.stop()
        database.drop()
