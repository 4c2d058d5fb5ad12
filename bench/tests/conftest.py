"""Each benchmark command run as its users run it (``bench/run COMMAND``)
on a tiny cloud: SQLite, real servers, seconds each."""
import os
import subprocess
import sys
import urllib.parse
import uuid

import pytest

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


# The database servers of the test suite, when given: the commands that
# take --db-url run on them too.
SERVER_URLS = {backend: os.environ.get(variable) for backend, variable in (
    ('mysql', 'PLACEMENT_TEST_MYSQL_URL'),
    ('postgresql', 'PLACEMENT_TEST_POSTGRESQL_URL'))}


class Database:
    """The backend of a run and the arguments choosing it: none for
    SQLite; else --db-url naming a prefix of its own, so that runs
    elsewhere on the same server do not take its database names."""

    def __init__(self, backend):
        self.backend = backend
        self.args = []
        if backend != 'sqlite':
            parts = urllib.parse.urlsplit(SERVER_URLS[backend])
            self.args = ['--db-url', urllib.parse.urlunsplit(parts._replace(
                path='/bench_' + uuid.uuid4().hex[:8]))]

    def check_cpu(self, seconds):
        """The database server's CPU time of a run: none on SQLite (the
        work is in the placement server), some on a server."""
        if self.backend == 'sqlite':
            assert seconds == 0
        else:
            assert seconds > 0


@pytest.fixture(params=['sqlite'] + [backend for backend, url
                                     in SERVER_URLS.items() if url])
def database(request):
    return Database(request.param)


@pytest.fixture
def bench(tmp_path):
    """Run ``bench/run ARGS`` from ``tmp_path``; its stdout.  Its exit
    status must be ``status`` (any with None); if not, its stderr is in
    the failure message."""
    def run(*args, status=0):
        proc = subprocess.run(
            [os.path.join(REPOSITORY, 'bench', 'run'), *args],
            cwd=tmp_path, capture_output=True, text=True, timeout=120,
            env=dict(os.environ, PYTHON=sys.executable))
        assert status is None or proc.returncode == status, (
            proc.stdout + proc.stderr[-3000:])
        return proc.stdout
    return run


def rows(markdown):
    """The rows of the Markdown tables in ``markdown`` (headers too) as
    lists of cells; separator lines left out."""
    found = []
    for line in markdown.splitlines():
        if line.startswith('|') and not set(line) <= set('|-: '):
            found.append([cell.strip() for cell in line.strip('|').split('|')])
    return found
