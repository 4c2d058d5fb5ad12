#!/usr/bin/env python3
"""Record the request/response examples of the API reference.

Starts ``placement-api`` (noauth2, a fresh SQLite database in a temporary
directory) on a free local port, plays one scripted scenario over HTTP and
writes every exchange to ``api-ref/examples/<name>.json``:

    {"request": {"method", "path", "headers", "body"},
     "response": {"status", "headers", "body"}}

Only the headers a reader needs are kept.  Everything that changes from
run to run is replaced by a stable stand-in, so that a rerun only changes a
file when the API itself changed: request ids become ``req-<zeros>``,
Last-Modified a fixed date, and the UUIDs the service makes up itself are
numbered in order of appearance (the scenario names all others).

Usage: ``python api-ref/generate_examples.py [--check] [--port-min N
--port-max M]`` (``placement-api`` must be on PATH, e.g. ``.venv/bin``).
Exits 1 if any step did not answer with the status the scenario expects;
those examples are not written.  ``--check`` writes nothing: it records
into a temporary directory and exits 1 if any example differs from the
committed one (CI runs it, so examples cannot drift from the code).

The scenario is in ``example_scenario.py``, the server and the recorder
in ``example_recording.py``.
"""
import argparse
import filecmp
import os
import shutil
import sys
import tempfile

from testsupport import ports

from example_recording import Recorder, Service
from example_scenario import named_uuids, scenario

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, 'examples')


def check(rec, out):
    """0 if the recorded examples equal the committed ones, else 1."""
    recorded = {name + '.json' for name in rec.written}
    committed = set(os.listdir(OUT))
    problems = ['FAILED ' + failure for failure in rec.failures]
    problems += ['missing from api-ref/examples: ' + name
                 for name in sorted(recorded - committed)]
    problems += ['no longer produced: ' + name
                 for name in sorted(committed - recorded)]
    problems += ['differs: ' + name for name in sorted(recorded & committed)
                 if not filecmp.cmp(os.path.join(out, name),
                                    os.path.join(OUT, name), shallow=False)]
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print('regenerate with: python api-ref/generate_examples.py',
              file=sys.stderr)
        return 1
    print('%d examples match api-ref/examples' % len(recorded))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--port-min', type=int, default=18550)
    parser.add_argument('--port-max', type=int, default=18599)
    parser.add_argument('--check', action='store_true',
                        help='compare with the committed examples, '
                        'write nothing')
    args = parser.parse_args()
    out = tempfile.mkdtemp(prefix='placement-examples-check-') \
        if args.check else OUT
    os.makedirs(out, exist_ok=True)
    (port,) = ports.free_ports(1, args.port_min, args.port_max)
    service = Service(port)
    try:
        rec = Recorder(service.url, out, named_uuids())
        scenario(rec)
    finally:
        service.stop()
    if args.check:
        try:
            return check(rec, out)
        finally:
            shutil.rmtree(out, ignore_errors=True)
    # Examples the scenario no longer makes would mislead readers; those
    # of failed steps stay as they were.
    for stale in sorted(set(os.listdir(OUT)) -
                        {name + '.json' for name in rec.attempted}):
        os.remove(os.path.join(OUT, stale))
    print('%d examples written to %s' % (len(rec.written), OUT))
    for failure in rec.failures:
        print('FAILED ' + failure, file=sys.stderr)
    return 1 if rec.failures else 0


if __name__ == '__main__':
    sys.exit(main())
