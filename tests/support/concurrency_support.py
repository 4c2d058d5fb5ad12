"""Shared by the test_concurrency_*.py modules."""
import pytest

from support import helpers


def backends():
    """One (backend, workers) parameter per database under test."""
    return [pytest.param(backend, 2 if backend == 'sqlite' else 4,
                         id=backend) for backend in helpers.BACKENDS]
