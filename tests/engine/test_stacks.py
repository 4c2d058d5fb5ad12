"""The engine's uses are stacks of the same steps (candidates/stacks.py):
a new use is a few lines composing them, with no flag on any shared
object, and it agrees with the uses already declared."""
import dataclasses

import webob.multidict

from support.helpers import SHARING, get_candidates
from placement import microversions
from placement.candidates import candidate_search
from placement.candidates import database_source
from placement.candidates import query
from placement.candidates import stacks


def _parsed(params):
    return query.parse_candidate_query(webob.multidict.MultiDict(params),
                                       microversions.MAX)


def trees_with_a_candidate(conn, parsed):
    """A use declared here, as stacks.py declares its own: read(WHOLE)
    -> assemble -> combine, kept per tree."""
    source = database_source.DatabaseSource(conn)
    reading = stacks.read(source, parsed, microversions.MAX, stacks.WHOLE)
    request = reading.request()
    roots = {tree.root for tree in reading.trees()
             if next(candidate_search.search_tree(request, tree), None)}
    reading.close()
    return roots


def _cloud(w):
    w.add('cn1', inventory={'VCPU': 8, 'MEMORY_MB': 4096})
    w.add('cn2', inventory={'VCPU': 1, 'MEMORY_MB': 4096},
          used={'VCPU': 1})
    w.add('cn3', inventory={'VCPU': 8})
    w.add('numa', parent='cn3', inventory={'MEMORY_MB': 2048})
    w.add('cn4', inventory={'VCPU': 8}, aggs={'A'})
    w.add('pool', inventory={'MEMORY_MB': 1024}, traits={SHARING},
          aggs={'A'})


def test_a_new_use_is_a_few_steps_and_agrees_with_the_list(client, w):
    _cloud(w)
    params = {'resources': 'VCPU:1,MEMORY_MB:512'}
    with w.engine.connect() as conn:
        roots = trees_with_a_candidate(conn, _parsed(params))
    by_id = {info['id']: name for name, info in w.providers.items()}
    assert {by_id[root] for root in roots} == {'cn1', 'cn3', 'cn4'}
    # The list's own stack finds candidates in exactly those trees.
    listed = get_candidates(client, **params)
    names = {uuid: name for name, info in w.providers.items()
             for uuid in [info['uuid']]}
    used = {names[rp] for request in listed['allocation_requests']
            for rp in request['allocations']}
    assert used == {'cn1', 'cn3', 'numa', 'cn4', 'pool'}


def test_the_plans_differ_only_in_what_they_read():
    plans = {name: getattr(stacks, name)
             for name in ('LIST', 'WHOLE', 'EVERY_TREE', 'ROOMS')}
    # Four uses, four different ways of reading: none is a copy.
    assert len({dataclasses.astuple(plan) for plan in plans.values()}) == 4
    # Only the list may page; only explain reads what root_required
    # keeps out; only the capacity count carries free space per row.
    assert [name for name, plan in plans.items() if plan.paged] == ['LIST']
    assert [name for name, plan in plans.items()
            if not plan.root_filtered] == ['EVERY_TREE']
    assert [name for name, plan in plans.items() if plan.rooms] == ['ROOMS']
