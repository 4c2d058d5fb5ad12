"""testsupport/ports.py: the free loopback ports the test, bench
and example servers are started on skip those something listens on."""
import socket

import pytest

from testsupport import ports


@pytest.fixture
def busy():
    """A loopback port something listens on."""
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        sock.listen()
        yield sock.getsockname()[1]


def test_free_ports_skip_a_busy_one(busy):
    assert not ports.is_free(busy)
    found = ports.free_ports(2, busy, busy + 50)
    assert busy not in found and len(found) == 2
    assert found == sorted(found) and all(map(ports.is_free, found))


def test_consecutive_ports_skip_a_run_with_a_busy_one(busy):
    found = ports.free_ports(3, busy - 1, busy + 60, consecutive=True)
    assert busy not in range(found[0], found[-1] + 1)
    assert found == list(range(found[0], found[0] + 3))


def test_too_few_free_ports_is_an_error(busy):
    with pytest.raises(RuntimeError, match='no 1 free ports'):
        ports.free_ports(1, busy, busy)
