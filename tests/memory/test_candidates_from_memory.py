"""GET /allocation_candidates, its explanation and the capacity count
read from a snapshot against the same reads from the database, below
HTTP, on random clouds: every group's rows and the whole answers, byte
for byte, default and weighed orders (the what-ifs:
test_whatif_from_memory.py)."""
import dataclasses
import uuid

import hypothesis
from hypothesis import strategies as st
import pytest
import sqlalchemy
import webob.multidict
from urllib import parse

from placement import errors
from placement import microversions
from placement.candidates import alike
from placement.candidates import changes
from placement.candidates import database_source
from placement.candidates import memory_source
from placement.candidates import query
from placement.candidates import stacks
from placement.data import tables
from placement.memory import snapshot

from support import helpers
from support import random_clouds
from support import random_queries

LATEST = microversions.Version(1, 39)


def _answer(where, parsed, version, conf):
    try:
        return stacks.list_candidates(where, parsed, version, conf).body
    except errors.PlacementError as exc:
        return exc.status, exc.detail


def _rows(where, parsed, version, plan):
    """Every group's rows, the sharing providers' reach and the ranking
    rows of one read."""
    try:
        reading = stacks.read(where, parsed, version, plan)
    except errors.PlacementError as exc:
        return exc.status, exc.detail
    found = [reading.served]
    for index in reading.reading:
        found.append([tuple(row) for row in reading.rows.of_trees(index)])
        found.append(reading.rows.ranking_bounds(index, lowest=True))
    found.append(list(reading.rows.parents()))
    reading.close()
    return found


@pytest.fixture
def weighed(placement_db):
    conf = placement_db.conf
    conf.set_override('candidate_order', 'spread', group='placement')
    yield conf.placement
    conf.clear_override('candidate_order', group='placement')


@random_clouds.over_http(60)
@hypothesis.given(st.lists(random_clouds.awkward_provider_st, min_size=1,
                           max_size=7),
                  st.lists(random_queries.request_st, min_size=1, max_size=3))
def test_candidates_answer_alike(world, placement_db, specs, drawn):
    world.clear()
    names = world.add_random(specs)
    conf = placement_db.conf.placement
    with placement_db.reader() as conn:
        snap = snapshot.load(conn)
        in_memory = memory_source.MemorySource(snap, conn.dialect.name)
        in_database = database_source.DatabaseSource(conn)
        for request in drawn:
            query_string = random_queries.query_string(world, names, request)
            params = webob.multidict.MultiDict(parse.parse_qsl(query_string))
            for minor in (39, 25, 17):
                version = microversions.Version(1, minor)
                try:
                    parsed = query.parse_candidate_query(params, version)
                except errors.PlacementError:
                    continue
                assert _answer(in_memory, parsed, version, conf) == \
                    _answer(in_database, parsed, version, conf), query_string
                for plan in (stacks.LIST, stacks.EVERY_TREE):
                    assert _rows(in_memory, parsed, version, plan) == \
                        _rows(in_database, parsed, version, plan), \
                        query_string


@random_clouds.over_http(25)
@hypothesis.given(st.lists(random_clouds.awkward_provider_st, min_size=1,
                           max_size=7),
                  random_queries.request_st)
def test_weighed_candidates_answer_alike(world, placement_db, weighed, specs,
                                         drawn):
    world.clear()
    names = world.add_random(specs)
    params = webob.multidict.MultiDict(parse.parse_qsl(
        random_queries.query_string(world, names, drawn)))
    try:
        parsed = query.parse_candidate_query(params, LATEST)
    except errors.PlacementError:
        return
    with placement_db.reader() as conn:
        snap = snapshot.load(conn)
        in_memory = memory_source.MemorySource(snap, conn.dialect.name)
        assert _answer(in_memory, parsed, LATEST, weighed) == \
            _answer(database_source.DatabaseSource(conn), parsed, LATEST,
                    weighed)


def test_the_roots_aggregates_count_for_the_unsuffixed_group(w, placement_db):
    """A child serves the unsuffixed group with its root's aggregates
    (required and forbidden alike), a suffixed group with its own: the
    rule each source must apply the same way."""
    w.add('root', aggs={'A'})
    w.add('child', parent='root', inventory={'VCPU': 4})
    aggregate = w.aggs['A'][1]
    expected = {'resources=VCPU:1&member_of=' + aggregate: 1,
                'resources=VCPU:1&member_of=!' + aggregate: 0,
                'resources1=VCPU:1&member_of1=' + aggregate: 0,
                'resources1=VCPU:1&member_of1=!' + aggregate: 1}
    with placement_db.reader() as conn:
        snap = snapshot.load(conn)
        for query_string, count in expected.items():
            parsed = query.parse_candidate_query(webob.multidict.MultiDict(
                parse.parse_qsl(query_string)), LATEST)
            answers = [stacks.list_candidates(where, parsed, LATEST,
                                              placement_db.conf.placement)
                       for where in (memory_source.MemorySource(
                                         snap, conn.dialect.name),
                                     database_source.DatabaseSource(conn))]
            assert [answer.count for answer in answers] == [count, count], \
                query_string
            assert answers[0].body == answers[1].body


def _counted(where, shapes):
    try:
        return stacks.count_capacity(where, shapes, LATEST)
    except errors.PlacementError as exc:
        return exc.status, exc.detail


def _explained(where, parsed, conf):
    try:
        return stacks.explain(where, parsed, LATEST, conf)
    except errors.PlacementError as exc:
        return exc.status, exc.detail


@random_clouds.over_http(40)
@hypothesis.given(st.lists(random_clouds.awkward_provider_st, min_size=1,
                           max_size=7),
                  st.lists(random_queries.request_st, min_size=1, max_size=3),
                  st.integers(1, 3))
def test_capacity_and_explain_answer_alike(world, placement_db, specs,
                                           drawn, times):
    """GET and POST /capacity (the shapes, and a copy of the first asking
    ``times`` as much: shapes alike are read at once) and the
    explanation of each shape, from either source."""
    world.clear()
    names = world.add_random(specs)
    conf = placement_db.conf.placement
    shapes = {}
    for number, request in enumerate(drawn):
        params = webob.multidict.MultiDict(parse.parse_qsl(
            random_queries.query_string(world, names, request)))
        try:
            shapes['s%d' % number] = query.parse_candidate_query(params,
                                                                 LATEST)
        except errors.PlacementError:
            continue
    if not shapes:
        return
    first = next(iter(shapes.values()))
    shapes['more'] = dataclasses.replace(first, groups={
        suffix: dataclasses.replace(group, resources={
            rc: amount * times for rc, amount in group.resources.items()})
        for suffix, group in first.groups.items()})
    with placement_db.reader() as conn:
        snap = snapshot.load(conn)
        sources = (memory_source.MemorySource(snap, conn.dialect.name),
                   database_source.DatabaseSource(conn))
        in_memory, in_database = (_counted(where, shapes)
                                  for where in sources)
        assert in_memory == in_database
        for parsed in shapes.values():
            assert _explained(sources[0], parsed, conf) == \
                _explained(sources[1], parsed, conf)


def _shapes(query_strings):
    return {name: query.parse_candidate_query(webob.multidict.MultiDict(
        parse.parse_qsl(query_string)), LATEST)
        for name, query_string in query_strings.items()}


def test_a_count_after_a_write_reads_the_new_version(w, placement_db):
    """What the count keeps of a snapshot version (the rows, the trees
    set apart, the free space) is that version's: a write between two
    counts makes a new one, whose count sees it as the database's does,
    and the old version still counts as it did."""
    w.add('pool', inventory={'DISK_GB': 100}, traits={helpers.SHARING},
          aggs={'P'})
    for name in ('cn0', 'cn1', 'cn2'):
        w.add(name, inventory={'VCPU': 8, 'MEMORY_MB': 4096},
              used={'VCPU': 2}, aggs={'P', 'A'})
    w.add('cn3', inventory={'VCPU': 8, 'MEMORY_MB': 4096, 'DISK_GB': 50})
    aggregate = w.aggs['A'][1]
    shapes = _shapes({
        'small': 'resources=VCPU:1,MEMORY_MB:512,DISK_GB:10',
        'large': 'resources=VCPU:4,MEMORY_MB:2048,DISK_GB:10',
        'pinned': 'resources=VCPU:2,DISK_GB:5&member_of=' + aggregate,
        'alone': 'resources=VCPU:1'})
    with placement_db.reader() as conn:
        old = snapshot.load(conn)
    before = stacks.count_capacity(
        memory_source.MemorySource(old, placement_db.dialect), shapes,
        LATEST)
    taken = w.providers['cn0']
    with placement_db.engine.begin() as conn:
        conn.execute(tables.allocations.insert().values(
            resource_provider_id=taken['id'],
            resource_class_id=w.rc_ids['VCPU'],
            consumer_id=str(uuid.uuid4()), used=6))
    with placement_db.reader() as conn:
        new = snapshot.changed(conn, old, {taken['id']}, names=False)
        in_database = stacks.count_capacity(
            database_source.DatabaseSource(conn), shapes, LATEST)
    after = stacks.count_capacity(
        memory_source.MemorySource(new, placement_db.dialect), shapes,
        LATEST)
    assert after == in_database
    assert after != before
    assert stacks.count_capacity(
        memory_source.MemorySource(old, placement_db.dialect), shapes,
        LATEST) == before



def test_counts_of_later_versions_patch_the_trees_set_apart(
        w, placement_db, monkeypatch):
    """Version after version, a count patches what the last one set
    apart (the trees a write touched, and those a sharing provider now
    serves otherwise, read again) and answers as the database does."""
    w.add('pool', inventory={'DISK_GB': 1000}, traits={helpers.SHARING},
          aggs={'P'})
    for number in range(16):
        w.add('cn%d' % number, inventory={'VCPU': 8, 'MEMORY_MB': 4096},
              used={'VCPU': number % 3},
              aggs={'P'} if number < 6 else {'A', 'S%d' % (number % 5)})
    for number in range(4):
        w.add('host%d' % number, inventory={'MEMORY_MB': 4096}, aggs={'A'})
        w.add('host%d-numa' % number, parent='host%d' % number,
              inventory={'VCPU': 4})
    shapes = _shapes({
        'small': 'resources=VCPU:1,MEMORY_MB:512',
        'large': 'resources=VCPU:4,MEMORY_MB:2048',
        'disk': 'resources=VCPU:2,DISK_GB:10',
        'pinned': 'resources=VCPU:2&member_of=' + w.aggs['A'][1],
        'alone': 'resources=VCPU:3'})
    patched = []
    merged = alike._merged
    monkeypatch.setattr(alike, '_merged', lambda old, fresh, changed, layout: (
        patched.append(sorted(changed)) or merged(old, fresh, changed,
                                                  layout)))

    def ids(*names):
        return {w.providers[name]['id'] for name in names}

    def join(name, aggregate):
        with placement_db.engine.begin() as conn:
            conn.execute(tables.resource_provider_aggregates.insert().values(
                resource_provider_id=w.providers[name]['id'],
                aggregate_id=w.aggs[aggregate][0]))
    writes = [
        (lambda: w.consume({'cn7': {'VCPU': 6}}), ('cn7',)),
        (lambda: w.consume({'host1-numa': {'VCPU': 3}}), ('host1-numa',)),
        (lambda: join('cn9', 'P'), ('cn9',)),
        # Touched, the pool serves trees that were not.
        (lambda: join('pool', 'S2'), ('pool',)),
        (lambda: w.consume({'pool': {'DISK_GB': 995}}), ('pool',)),
        (lambda: w.add('cn16', inventory={'VCPU': 8, 'MEMORY_MB': 4096}),
         ('cn16',)),
    ]
    with placement_db.reader() as conn:
        snap = snapshot.load(conn)
    counts = [stacks.count_capacity(memory_source.MemorySource(
        snap, placement_db.dialect), shapes, LATEST)]
    for write, touched in writes:
        write()
        with placement_db.reader() as conn:
            snap = snapshot.changed(conn, snap, ids(*touched), names=False)
            in_database = stacks.count_capacity(
                database_source.DatabaseSource(conn), shapes, LATEST)
        counts.append(stacks.count_capacity(memory_source.MemorySource(
            snap, placement_db.dialect), shapes, LATEST))
        assert counts[-1] == in_database
    # Every write changed a count; each version patched.
    assert all(one != two for one, two in zip(counts, counts[1:]))
    assert len(patched) >= len(writes), patched


def test_shapes_alike_read_for_some_trees_read_those_trees_rows(
        w, placement_db):
    """The rows of shapes alike read for some trees (what a patch reads)
    are those of the read of every tree that are in them, alike from
    either source."""
    w.add('pool', inventory={'DISK_GB': 100}, traits={helpers.SHARING},
          aggs={'P'})
    for number in range(6):
        w.add('cn%d' % number, inventory={'VCPU': 8, 'MEMORY_MB': 4096},
              used={'VCPU': 3 * (number % 3)}, aggs={'P'})
        w.add('numa%d' % number, parent='cn%d' % number,
              inventory={'VCPU': 4})
    shapes = _shapes({'small': 'resources=VCPU:1,MEMORY_MB:512',
                      'large': 'resources=VCPU:6,MEMORY_MB:2048'})
    roots = sorted(w.providers['cn%d' % number]['id'] for number in (1, 4))
    with placement_db.reader() as conn:
        snap = snapshot.load(conn)
        found = []
        for where in (memory_source.MemorySource(snap, conn.dialect.name),
                      database_source.DatabaseSource(conn)):
            readings = []
            for parsed in shapes.values():
                readings.append(stacks.read(
                    where, dataclasses.replace(parsed, limit=None), LATEST,
                    stacks.ROOMS))
            rows = readings[0].rows
            layout = readings[0].groups[0].layout
            every = [tuple(row) for row in rows.of_shapes(readings)]
            some = [tuple(row) for row in rows.of_shapes(readings, roots)]
            assert some == [row for row in every
                            if layout.root(row) in roots]
            assert {layout.root(row) for row in some} == set(roots)
            found.append(some)
    assert found[0] == found[1]


def _listed(parsed, placement_db, w):
    """The list's use of the answer's queries, and what it found: both
    computes."""
    return (stacks.list_candidates, parsed, LATEST,
            placement_db.conf.placement), lambda answer: answer.count == 2


def _evacuated(parsed, placement_db, w):
    """A what-if's use, and what it found: the consumer of cn moved."""
    return (stacks.what_if, {'one': parsed}, LATEST, changes.Asked(
        without_roots=(w.uuid('cn'),), evacuate=True)), (
        lambda answer: answer['evacuation']['moved'] == 1)


@pytest.mark.parametrize('use', [_listed, _evacuated])
def test_an_answer_from_memory_opens_no_transaction(w, placement_db, use):
    """Read from a snapshot, an answer takes no pooled connection; without
    one it reads in one transaction."""
    w.add('cn', inventory={'VCPU': 4})
    w.add('other', inventory={'VCPU': 4})
    w.consume({'cn': {'VCPU': 1}}, 'INSTANCE')
    parsed = query.parse_candidate_query(
        webob.multidict.MultiDict({'resources': 'VCPU:1'}), LATEST)
    args, found = use(parsed, placement_db, w)
    with placement_db.reader() as conn:
        snap = snapshot.load(conn)
    begun = []
    listener = (placement_db.engine, 'begin',
                lambda conn: begun.append(conn))
    sqlalchemy.event.listen(*listener)
    try:
        for snap_or_none, transactions in ((snap, 0), (None, 1)):
            del begun[:]
            answer = stacks.answer(placement_db, snap_or_none, [parsed],
                                   *args)
            assert found(answer)
            assert len(begun) == transactions
    finally:
        sqlalchemy.event.remove(*listener)
