"""Loopback ports nothing listens on, for the servers the tests, the
benchmarks and the api-ref example recorder start."""
import itertools
import socket


def is_free(port):
    """Whether a socket can bind ``port`` on loopback now."""
    with socket.socket() as sock:
        try:
            sock.bind(('127.0.0.1', port))
        except OSError:
            return False
    return True


def free_ports(count, low, high, consecutive=False):
    """``count`` ports of ``low``..``high`` that nothing listens on, in
    order (a run of consecutive ones with ``consecutive``, for a server
    that takes a base port and the ones after it)."""
    if consecutive:
        for start in range(low, high - count + 2, count):
            ports = list(range(start, start + count))
            if all(map(is_free, ports)):
                return ports
    else:
        found = list(itertools.islice(filter(is_free, range(low, high + 1)),
                                      count))
        if len(found) == count:
            return found
    raise RuntimeError('no %d free ports in %d-%d' % (count, low, high))
