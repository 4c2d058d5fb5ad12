"""Where things are in the checkout."""
import os

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
# Scripts run under another Python (upstream's venv): they import nothing
# of bench/.
ENGINES = os.path.join(REPOSITORY, 'bench', 'engines')
# The test suite's server harnesses, which some benchmarks reuse.
TESTS = os.path.join(REPOSITORY, 'tests')
