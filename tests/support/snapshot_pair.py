"""Two real servers on one database for the tests of reads from memory:
``database`` (one worker) reads SQL, ``snapshot`` (two workers) reads
its workers' snapshots; and how their answers are compared."""
import os
import re
import subprocess
import sys
import time

from support import helpers


def server(database, name, source, workers):
    """A server of ``workers`` workers reading from ``source``."""
    workdir = os.path.join(database.workdir, name)
    os.makedirs(workdir, exist_ok=True)
    helpers.write_config(workdir, database.url,
                         '[placement]\nread_source = %s\n' % source)
    return helpers.Server(workdir, workers=workers)


def wait_loaded(client, server, workers=2):
    """Until every worker has logged its snapshot loaded (each starts
    loading at its first request)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        client.get('/resource_providers')
        pids = set(re.findall(r'^\S+ \S+ (\d+) INFO \S+ snapshot loaded',
                              log(server), re.M))
        if len(pids) >= workers:
            return
        time.sleep(0.05)
    raise AssertionError('snapshots not loaded: ' + server.log())


def log(server):
    with open(server.log_path, errors='replace') as log_file:
        return log_file.read()


def comparable(response):
    """The body, byte for byte; an error's without its request id."""
    if response.status_code < 400:
        return response.content
    return [{key: value for key, value in error.items()
             if key != 'request_id'} for error in response.json()['errors']]


def same(left, right, url, version, params=None, body=None):
    """GET ``url`` of both servers at ``version`` (POST ``body`` when
    given): the same status and comparable body, else an assertion error
    naming the request; both responses."""
    headers = helpers.version(version)
    method = 'GET' if body is None else 'POST'
    one = left.request(method, url, params=params, json=body,
                       headers=headers)
    other = right.request(method, url, params=params, json=body,
                          headers=headers)
    assert (other.status_code, comparable(other)) == (
        one.status_code, comparable(one)), (url, params, body, version)
    return one, other


def reload_snapshots(server):
    """``placement-manage snapshot reload`` on ``server``'s config."""
    subprocess.run(
        [sys.executable, '-m', 'placement.cmd.manage', 'snapshot', 'reload'],
        env=dict(os.environ, OS_PLACEMENT_CONFIG_DIR=server.workdir),
        check=True, capture_output=True)
