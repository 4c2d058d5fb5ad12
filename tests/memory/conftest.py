"""The pair of servers the tests of reads from memory compare."""
import httpx
import pytest

from support import helpers
from support import snapshot_pair


@pytest.fixture(scope='module')
def pair(database):
    """(client of ``database``, client of ``snapshot``, ``snapshot``'s
    server), both servers on the module's database, every snapshot
    loaded."""
    from_database = snapshot_pair.server(database, 'database', 'database', 1)
    from_memory = snapshot_pair.server(database, 'snapshot', 'snapshot', 2)
    try:
        with httpx.Client(base_url=from_database.url, timeout=30,
                          headers=helpers.ADMIN_HEADERS) as left, \
                httpx.Client(base_url=from_memory.url, timeout=30,
                             headers=helpers.ADMIN_HEADERS) as right:
            snapshot_pair.wait_loaded(right, from_memory)
            yield left, right, from_memory
    finally:
        from_database.stop()
        from_memory.stop()
