"""POST /capacity's what-ifs read from a snapshot against the same from
the database, below HTTP: random clouds with consumers and random
changes (``without`` roots and aggregates, ``with``, ``evacuate``,
``survive``, ``shapes_of``, and the 400s of names that do not exist),
hosts whose consumers are moved or dropped, and the rules both forms of
the free space left apply; the answers byte for byte, or the same
400."""
import hypothesis
from hypothesis import strategies as st
import webob.multidict
from urllib import parse

from placement import errors
from placement import microversions
from placement.candidates import changes
from placement.candidates import database_source
from placement.candidates import memory_source
from placement.candidates import query
from placement.candidates import stacks
from placement.memory import snapshot

from support import helpers
from support import random_clouds
from support import random_queries

LATEST = microversions.Version(1, 39)


def _what_if(where, shapes, asked):
    try:
        return stacks.what_if(where, shapes, LATEST, asked)
    except errors.PlacementError as exc:
        return exc.status, exc.detail


host_st = st.fixed_dictionaries({
    'vcpu': st.lists(st.integers(1, 6), min_size=1, max_size=2),
    'nested': st.booleans(),
    'aggs': st.sets(st.sampled_from(['A', 'B'])),
})
placed_st = st.fixed_dictionaries({
    'host': st.integers(0, 4),
    'numa': st.integers(0, 1),
    'vcpu': st.integers(1, 2),
    'disk': st.booleans(),
    'type': st.sampled_from(['INSTANCE', 'INSTANCE', 'MIGRATION', None]),
})


def _hosts(world, hosts, pool_aggs, placed):
    """Hosts (flat: VCPU on the root; nested: memory on the root, VCPU on
    one or two children), a disk pool in ``pool_aggs`` and consumers on
    them, each where its VCPU still fits; the hosts' names."""
    world.add('pool', inventory={'DISK_GB': 40},
              traits=[helpers.SHARING], aggs=pool_aggs)
    names = []
    for index, host in enumerate(hosts):
        name = 'host%d' % index
        names.append(name)
        if not host['nested']:
            world.add(name, inventory={'VCPU': sum(host['vcpu'])},
                      aggs=host['aggs'])
            continue
        world.add(name, inventory={'MEMORY_MB': 8}, aggs=host['aggs'])
        for numa, vcpu in enumerate(host['vcpu']):
            world.add('%s-numa%d' % (name, numa), parent=name,
                      inventory={'VCPU': vcpu})
    for spec in placed:
        index = spec['host'] % len(hosts)
        host, name = hosts[index], names[index]
        if host['nested']:
            numa = spec['numa'] % len(host['vcpu'])
            allocations = {'%s-numa%d' % (name, numa): {'VCPU': spec['vcpu']},
                           name: {'MEMORY_MB': 1}}
        else:
            allocations = {name: {'VCPU': spec['vcpu']}}
        if spec['disk']:
            allocations['pool'] = {'DISK_GB': 1}
        if all(world.providers[rp]['used'].get(rc, 0) + amount
               <= world.providers[rp]['inventory'][rc]['total']
               for rp, amounts in allocations.items()
               for rc, amount in amounts.items()):
            world.consume(allocations, spec['type'])
    return names


@random_clouds.over_http(60)
@hypothesis.given(
    hosts=st.lists(host_st, min_size=2, max_size=5),
    pool_aggs=st.sets(st.sampled_from(['A', 'B'])),
    placed=st.lists(placed_st, min_size=1, max_size=8),
    out=st.sets(st.integers(0, 4), min_size=1, max_size=2),
    copies=st.lists(st.tuples(st.integers(0, 4), st.integers(1, 2)),
                    max_size=1),
    survive=st.sampled_from([False, True, 'A']),
    given=st.one_of(st.none(), st.integers(1, 3)))
def test_evacuations_answer_alike(world, placement_db, hosts, pool_aggs,
                                  placed, out, copies, survive, given):
    """The consumers of hosts taken out moved (MIGRATION ones dropped)
    and N+1 played, from either source: the same answers."""
    world.clear()
    names = _hosts(world, hosts, pool_aggs, placed)
    shapes = {name: query.parse_candidate_query(
        webob.multidict.MultiDict(parse.parse_qsl(params)), LATEST)
        for name, params in (('vm', 'resources=VCPU:1'),
                             ('vm-disk', 'resources=VCPU:1,DISK_GB:1'))}
    shapes_of = {}
    if given is not None and world.consumers:
        shapes_of[sorted(world.consumers)[0]] = query.parse_candidate_query(
            webob.multidict.MultiDict({'resources1': 'VCPU:%d' % given}),
            LATEST)
    asked = changes.Asked(
        without_roots=tuple(world.uuid(names[index % len(names)])
                            for index in sorted(out)),
        copies=tuple((world.uuid(names[index % len(names)]), count)
                     for index, count in copies),
        evacuate=True, survive=bool(survive),
        survive_member_of=(world.aggs[survive][1]
                           if survive in world.aggs else None),
        shapes_of=shapes_of)
    with placement_db.reader() as conn:
        snap = snapshot.load(conn)
        in_memory = _what_if(memory_source.MemorySource(
            snap, conn.dialect.name), shapes, asked)
        in_database = _what_if(database_source.DatabaseSource(conn), shapes,
                               asked)
    assert in_memory == in_database
    moved = in_database['evacuation']
    hypothesis.event('moved: %d' % min(moved['moved'], 2))
    hypothesis.event('dropped: %d' % min(moved['dropped'], 1))
    hypothesis.event('failing: %d' % min(
        len(in_database.get('survive', {}).get('failing', ())), 1))


def test_a_copy_is_in_no_tree_in_tree_names(w, placement_db):
    """A copy's space is outside a shape naming its original's tree, on
    either source: the rule the free space left applies in both forms,
    to the copy's space and to what the evacuation placed on it."""
    w.add('cn1', inventory={'VCPU': 4})
    w.add('cn2', inventory={'VCPU': 2})
    w.consume({'cn2': {'VCPU': 2}}, 'INSTANCE')
    shapes = {'one': query.parse_candidate_query(webob.multidict.MultiDict(
        {'resources': 'VCPU:3', 'in_tree': w.uuid('cn1')}), LATEST)}
    asked = changes.Asked(without_roots=(w.uuid('cn2'),),
                          copies=((w.uuid('cn1'), 1),), evacuate=True)
    with placement_db.reader() as conn:
        snap = snapshot.load(conn)
        answers = [_what_if(where, shapes, asked) for where in (
            memory_source.MemorySource(snap, conn.dialect.name),
            database_source.DatabaseSource(conn))]
    assert answers[0] == answers[1]
    shape = answers[1]['shapes']['one']
    # The consumer of cn2 went to cn1 (first fit): 4 - 2 left there.
    assert shape['fits'] == 0
    assert shape['stranded'] == {'VCPU': 2}
    assert shape['stranded_elsewhere'] == {'VCPU': 4}


# Shapes whose names all exist (the what-if's own 400s are drawn
# below).
known_group_st = random_queries.group_st.map(lambda group: dict(
    group, required=group['required'] - {'CUSTOM_NEVER_MADE'},
    forbidden=group['forbidden'] - {'CUSTOM_NEVER_MADE'}))
shape_st = st.fixed_dictionaries({
    'groups': st.lists(known_group_st, min_size=1, max_size=2),
    'isolate': st.booleans(),
    'in_tree': st.one_of(st.none(), st.integers(0, 7)),
    'root_required': st.sampled_from([None, 'CUSTOM_A', '!CUSTOM_B']),
    'same_subtree': st.booleans(),
    'limit': st.sampled_from([None, 1, 3]),
})
changes_st = st.fixed_dictionaries({
    # Roots by index among the roots, those with consumers first.
    'roots': st.lists(st.integers(0, 6), max_size=2),
    'copies': st.lists(st.tuples(st.integers(0, 6), st.integers(1, 2)),
                       max_size=2),
    # A and B may have members, E has none.
    'aggregates': st.lists(st.sampled_from(['A', 'A', 'B', 'E']),
                           max_size=1),
    'evacuate': st.booleans(),
    'survive': st.sampled_from([False, False, True, 'A', 'E']),
    # Now and then a field naming a provider that is not a root or does
    # not exist, or an aggregate that does not exist.
    'wrong': st.sampled_from([None] * 8 + ['roots', 'copies', 'aggregates',
                                           'survive']),
    'given': st.one_of(st.none(), st.tuples(st.integers(0, 5),
                                            known_group_st)),
})
# An aggregate and a provider that do not exist.
UNKNOWN = '00000000-0000-0000-0000-00000000000c'


def _asked(world, names, consumers, drawn):
    """The changes.Asked of a ``changes_st`` example on the providers
    ``names`` and the ``consumers`` (uuids)."""
    held = {world.providers[name]['root'] for allocations in
            world.consumers.values() for name in allocations}
    roots = [world.uuid(name) for name in sorted(
        names, key=lambda name: world.providers[name]['id'] not in held)
        if world.providers[name]['parent'] is None]
    inner = [world.uuid(name) for name in names
             if world.providers[name]['parent'] is not None]
    wrong = {field: [] for field in ('roots', 'copies', 'aggregates')}
    if drawn['wrong'] in ('roots', 'copies'):
        wrong[drawn['wrong']].append(inner[0] if inner else UNKNOWN)
    elif drawn['wrong'] == 'aggregates':
        wrong['aggregates'].append(UNKNOWN)

    def aggregate(name):
        return world.aggs[name][1]
    survive = drawn['survive']
    member_of = aggregate(survive) if isinstance(survive, str) else None
    if drawn['wrong'] == 'survive':
        survive, member_of = True, UNKNOWN
    shapes_of = {}
    if drawn['given'] is not None and consumers:
        index, group = drawn['given']
        shapes_of[consumers[index % len(consumers)]] = \
            query.parse_candidate_query(webob.multidict.MultiDict(
                parse.parse_qsl(random_queries.query_string(world, names, {
                    'groups': [group], 'isolate': False, 'in_tree': None,
                    'root_required': None, 'same_subtree': False,
                    'limit': None}))), LATEST)
    return changes.Asked(
        without_roots=tuple(roots[index % len(roots)]
                            for index in drawn['roots']) + tuple(
            wrong['roots']),
        without_aggregates=tuple(map(aggregate, drawn['aggregates'])) + tuple(
            wrong['aggregates']),
        copies=tuple((roots[index % len(roots)], count)
                     for index, count in drawn['copies']) + tuple(
            (uuid, 1) for uuid in wrong['copies']),
        evacuate=drawn['evacuate'], survive=bool(survive),
        survive_member_of=member_of, shapes_of=shapes_of)


@random_clouds.over_http(100)
@hypothesis.given(st.lists(random_clouds.awkward_provider_st, min_size=1,
                           max_size=7),
                  st.lists(random_clouds.consumer_st, min_size=1,
                           max_size=6),
                  st.lists(shape_st, min_size=1, max_size=2),
                  changes_st)
def test_what_ifs_answer_alike(world, placement_db, specs, consumers, drawn,
                               changed):
    """POST /capacity with ``without`` (roots, aggregates), ``with``,
    ``evacuate``, ``survive`` and ``shapes_of``, from either source: the
    answers, or the same 400."""
    world.clear()
    with world.engine.begin() as conn:
        for trait in random_clouds.TRAITS:
            world._trait(conn, trait)
        for aggregate in 'ABE':
            world._agg(conn, aggregate)
    names = world.add_random(specs)
    made = world.add_random_consumers(names, consumers)
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
    asked = _asked(world, names, made, changed)
    with placement_db.reader() as conn:
        snap = snapshot.load(conn)
        in_memory = _what_if(memory_source.MemorySource(
            snap, conn.dialect.name), shapes, asked)
        in_database = _what_if(database_source.DatabaseSource(conn), shapes,
                               asked)
    assert in_memory == in_database
    answered = isinstance(in_database, dict)
    hypothesis.event('answered' if answered else 'refused')
    if answered and 'evacuation' in in_database:
        hypothesis.event('moved: %d' % min(
            in_database['evacuation']['moved'], 2))
        hypothesis.event('nowhere: %d' % min(
            in_database['evacuation']['nowhere'], 2))
        hypothesis.event('dropped: %d' % min(
            in_database['evacuation']['dropped'], 1))
    if answered and 'survive' in in_database:
        hypothesis.event('failing: %d' % min(
            len(in_database['survive']['failing']), 1))
