#!/usr/bin/env python3
"""Send the same requests to this service and to upstream placement, and
print every answer that differs.

    .venv/bin/python tools/differential.py [--upstream-venv DIR]
        [--only SUBSTRING] [--port 19100] [--db-url URL] [--json OUT]

Both servers start on a fresh database of their own (SQLite files in a
temporary directory, or fresh databases on the server of ``--db-url``),
with ``auth_strategy = noauth2``.  The steps of ``steps()`` then run in
order against both: first a small world (providers, a tree, inventories,
traits, aggregates, allocations), then probes over every route, method
and a range of microversions, malformed bodies and query strings, and
conflicts.  The steps that change data are the same for both, so as long
as the two servers agree their states stay the same.

Answers are compared after normalising what may legitimately differ:
request ids, UUIDs the servers generate, timestamps, the order of lists
upstream builds from sets, and the JSON-schema dump that follows
"Failed validating" in a validation error.  The exit status is 1 when an
answer differs and is not in ``ACCEPTED`` (upstream's own 500s and bugs,
kept on purpose, each with its reason).
"""
import argparse
import json
import os
import sys

import httpx

# Tests load this file by path, so put its sibling modules within reach.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import differential_servers
from differential_allocations import (allocation_writes, owner_reset,
                                      reshape_empty_inventories, reshaper)
from differential_common import Sql
from differential_compare import (ACCEPTED, accepted_reason, answer,
                                  differences, short, upstream_failure)
from differential_reads import (candidate_queries, every_route, negotiation,
                                null_timestamps, provider_queries)
from differential_servers import servers, upstream_installed
from differential_writes import (aggregate_writes, inventory_writes,
                                 provider_writes, trait_and_class_writes,
                                 world)

# The command, and what tests/api/test_differential.py uses.
__all__ = ['ACCEPTED', 'main', 'run', 'steps', 'upstream_failure',
           'upstream_installed']


def steps():
    sections = (world, every_route, negotiation, provider_queries,
                candidate_queries, aggregate_writes, trait_and_class_writes,
                inventory_writes, allocation_writes, reshaper, owner_reset,
                reshape_empty_inventories, provider_writes,
                null_timestamps)
    for section in sections:
        yield from section()


def _answer_or_failure(step, http):
    try:
        return answer(step.send(http))
    except httpx.HTTPError as exc:
        return {'failure': '%s: %s' % (type(exc).__name__, exc)}


def run(step_list, port=19100, db_url_template=None):
    """Run the steps on both servers; the list of differing steps."""
    found = []
    with servers(port, db_url_template) as (ours, theirs):
        with httpx.Client(base_url=ours.url, timeout=60) as ours_http, \
                httpx.Client(base_url=theirs.url, timeout=60) as their_http:
            for step in step_list:
                if isinstance(step, Sql):
                    step.execute(ours.db_url)
                    step.execute(theirs.db_url)
                    continue
                mine = _answer_or_failure(step, ours_http)
                upstream = _answer_or_failure(step, their_http)
                lines = differences(mine, upstream)
                if lines:
                    found.append({'label': step.label,
                                  'method': step.method, 'path': step.path,
                                  'version': step.version,
                                  'body': step.body if step.raw is None
                                  else step.raw.decode(),
                                  'headers': step.headers,
                                  'differences': lines,
                                  'accepted': accepted_reason(step, lines)})
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--upstream-venv',
                        default=differential_servers.UPSTREAM_VENV)
    parser.add_argument('--port', type=int, default=19100,
                        help='ours on PORT, upstream on PORT+1')
    parser.add_argument('--db-url', help='a server URL that may create '
                        'databases (default: SQLite files)')
    parser.add_argument('--only', action='append', default=[],
                        help='run the world and the steps whose label '
                        'contains this')
    parser.add_argument('--json', help='write the differences here')
    parser.add_argument('--all', action='store_true',
                        help='show accepted differences too')
    args = parser.parse_args(argv)
    differential_servers.UPSTREAM_VENV = args.upstream_venv
    chosen = [step for step in steps()
              if not args.only or step.label == 'world'
              or any(key in step.label for key in args.only)]
    found = run(chosen, args.port, args.db_url)
    shown = [item for item in found if args.all or not item['accepted']]
    for item in shown:
        print('== %s: %s %s (%s)%s' % (
            item['label'], item['method'], item['path'], item['version'],
            ' accepted: ' + item['accepted'] if item['accepted'] else ''))
        if item['body'] is not None:
            print('   body: %s' % short(item['body'], 300))
        for line in item['differences']:
            print('   ' + line)
    print('%d steps, %d differ, %d of them accepted'
          % (len(chosen), len(found),
             sum(1 for item in found if item['accepted'])))
    if args.json:
        with open(args.json, 'w') as out:
            json.dump(found, out, indent=1, ensure_ascii=False)
    return 1 if any(not item['accepted'] for item in found) else 0


if __name__ == '__main__':
    sys.exit(main())
