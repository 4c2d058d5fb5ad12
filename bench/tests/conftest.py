"""Each benchmark command run as its users run it (``bench/run COMMAND``)
on a tiny cloud: SQLite, real servers, seconds each."""
import os
import subprocess
import sys

import pytest

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


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
