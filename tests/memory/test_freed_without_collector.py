"""What a worker builds per version and per read holds no reference
cycle: reference counting frees it, the cyclic collector never has to.

A worker freezes its loaded snapshot out of the collector's passes
(memory/source.py), which is sound only while no version is kept alive
by a cycle; and a read left in a cycle would wait, with every row it
read, for a collection that walks the whole worker.
"""
import gc
import json
import uuid
import weakref

import webob.multidict
from urllib import parse

from placement import microversions
from placement.candidates import database_source
from placement.candidates import memory_source
from placement.candidates import query
from placement.candidates import stacks
from placement.data import tables
from placement.memory import snapshot
from placement.web import gc_pause

from support import helpers


def _some_cloud(w):
    w.add('pool', inventory={'DISK_GB': 100}, traits={helpers.SHARING},
          aggs={'P'})
    for number in range(4):
        w.add('cn%d' % number, inventory={'VCPU': 8, 'MEMORY_MB': 4096},
              used={'VCPU': number}, aggs={'P'})
        w.add('numa%d' % number, parent='cn%d' % number,
              inventory={'VCPU': 4, 'MEMORY_MB': 2048})


def test_versions_and_their_lineage_go_with_their_last_reference(
        w, placement_db):
    """A loaded version and one built from it, after a count kept values
    in both, are freed the moment nothing refers to them."""
    _some_cloud(w)
    shapes = {'small': 'resources=VCPU:1,MEMORY_MB:512',
              'large': 'resources=VCPU:4,MEMORY_MB:2048',
              'disk': 'resources=VCPU:1,DISK_GB:10'}
    parsed = {name: query.parse_candidate_query(webob.multidict.MultiDict(
        parse.parse_qsl(asked)), microversions.Version(1, 39))
        for name, asked in shapes.items()}
    with placement_db.reader() as conn:
        old = snapshot.load(conn)
    stacks.count_capacity(memory_source.MemorySource(
        old, placement_db.dialect), parsed, microversions.Version(1, 39))
    with placement_db.engine.begin() as conn:
        conn.execute(tables.allocations.insert().values(
            resource_provider_id=w.providers['cn1']['id'],
            resource_class_id=w.rc_ids['VCPU'],
            consumer_id=str(uuid.uuid4()), used=2))
    with placement_db.reader() as conn:
        new = snapshot.changed(conn, old, {w.providers['cn1']['id']},
                               names=False)
    stacks.count_capacity(memory_source.MemorySource(
        new, placement_db.dialect), parsed, microversions.Version(1, 39))
    with gc_pause.collection_paused():
        refs = [weakref.ref(old), weakref.ref(new), weakref.ref(old.lineage)]
        del old, new
        assert [ref() for ref in refs] == [None, None, None]


def test_a_read_goes_with_its_search_from_either_source(w, placement_db):
    """The rows of a read are freed with its search, from the snapshot
    and from the database; a list from the snapshot (granular groups,
    isolated: the combiner matches them to providers) leaves nothing
    for the collector."""
    _some_cloud(w)
    version = microversions.Version(1, 39)
    parsed = query.parse_candidate_query(webob.multidict.MultiDict(
        parse.parse_qsl('resources1=VCPU:1&resources2=VCPU:1'
                        '&group_policy=isolate')), version)
    with placement_db.reader() as conn:
        snap = snapshot.load(conn)
        in_memory = memory_source.MemorySource(snap, conn.dialect.name)
        for where in (in_memory, database_source.DatabaseSource(conn)):
            with gc_pause.collection_paused():
                reading = stacks.read(where, parsed, version, stacks.LIST)
                assert list(reading.trees())
                refs = [weakref.ref(reading), weakref.ref(reading.rows)]
                reading.close()
                del reading
                assert [ref() for ref in refs] == [None, None]
        gc.collect()
        with gc_pause.collection_paused():
            found = stacks.list_candidates(in_memory, parsed, version,
                                           placement_db.conf.placement)
            assert json.loads(found.body)['allocation_requests']
            del found
            assert gc.collect() == 0
