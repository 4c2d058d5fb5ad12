"""The snapshot against the database, below HTTP, on random clouds: the
provider list's filters answer alike from either, and a snapshot brought
up to date from the providers a change touched equals one loaded whole.
"""
import hypothesis
from hypothesis import strategies as st
import pytest

from placement import errors
from placement.candidates import query_filters
from placement.data import tables
from placement.memory import lineage
from placement.memory import provider_list
from placement.memory import snapshot
from placement.objects import resource_provider as rp_obj
from placement.objects import snapshot_rows

from support import random_clouds

TRAITS = random_clouds.TRAITS + ('HW_CPU_X86_AVX', 'CUSTOM_NEVER_MADE')

provider_st = random_clouds.awkward_provider_st

filters_st = st.fixed_dictionaries({}, optional={
    'resources': st.dictionaries(
        st.sampled_from(random_clouds.RCS + ('MEMORY_MB', 'CUSTOM_NONE')),
        st.integers(1, 12), min_size=1, max_size=2),
    'traits': st.builds(
        query_filters.TraitFilter,
        st.lists(st.frozensets(st.sampled_from(TRAITS), min_size=1,
                               max_size=2), max_size=2).map(tuple),
        st.frozensets(st.sampled_from(TRAITS), max_size=1)),
    'member_of': st.sampled_from(['A', 'B', 'C']),
    'in_tree': st.integers(0, 7),
    'name': st.integers(0, 7),
})


def _resolved(world, filters):
    """``filters`` with the world's names for the drawn indexes."""
    found = dict(filters)
    names = list(world.providers)
    for key in ('in_tree', 'name'):
        if key in found:
            index = found[key]
            name = names[index] if index < len(names) else 'nobody'
            found[key] = (world.uuid(name) if key == 'in_tree'
                          and name in world.providers else name)
    if 'member_of' in found:
        agg = world.aggs.get(found['member_of'])
        found['member_of'] = query_filters.AggregateFilter(
            (frozenset([agg[1] if agg else 'none']),), frozenset())
    return found


def _matching(snap, placement_db, filters):
    """The snapshot's rows of the providers matching ``filters``."""
    return [snap.shown[rp] for rp in provider_list.matching(
        snap, placement_db.dialect, **filters)]


def _listed(read):
    try:
        return [tuple(row) for row in read()]
    except errors.PlacementError as exc:
        return (exc.status, exc.detail)


@random_clouds.over_http(100)
@hypothesis.given(st.lists(provider_st, min_size=1,
                           max_size=7),
                  st.lists(filters_st, min_size=1, max_size=4))
def test_the_list_answers_alike(world, placement_db, specs, drawn):
    w = world
    w.clear()
    w.add_random(specs)
    with placement_db.reader() as conn:
        snap = snapshot.load(conn)
        for filters in drawn:
            filters = _resolved(w, filters)
            if not provider_list.answerable(placement_db.dialect, filters):
                continue
            assert _listed(lambda: _matching(snap, placement_db, filters)) \
                == _listed(lambda: rp_obj.get_all(conn, **filters))


def _contents(snap):
    return (snap.providers, snap.inventories, snap.usage, snap.traits,
            snap.aggregates, snap.holdings, snap.class_ids, snap.trait_ids,
            snap.aggregate_uuids, snap.by_uuid, snap.order, snap.root_order,
            snap.shown, snap.indexes, snap.holders())


@random_clouds.over_http(30)
@hypothesis.given(st.lists(random_clouds.provider_st, min_size=1,
                           max_size=6),
                  st.lists(random_clouds.consumer_st, max_size=4))
def test_touched_providers_bring_a_snapshot_up_to_date(world, placement_db,
                                                       specs, consumers):
    w = world
    w.clear()
    names = w.add_random(specs)
    made = w.add_random_consumers(names, consumers)
    with placement_db.reader() as conn:
        old = snapshot.load(conn)
    gone = w.providers[names[0]]
    w.add('added', parent=names[-1], inventory={'CUSTOM_NEW': 4},
          used={'CUSTOM_NEW': 3}, traits={'CUSTOM_ADDED'}, aggs={'Z'})
    w.consume({'added': {'CUSTOM_NEW': 1}}, 'MIGRATION')
    with placement_db.engine.begin() as conn:
        if made:
            # A consumer of another type, as PUT /allocations at 1.38
            # makes it.
            conn.execute(tables.consumers.update().where(
                tables.consumers.c.uuid == made[0]).values(
                    consumer_type_id=None))
        # The first provider loses everything; its children become roots.
        conn.execute(tables.resource_providers.update()
                     .where(tables.resource_providers.c.parent_provider_id
                            == gone['id'])
                     .values(parent_provider_id=None))
        for table in (tables.inventories, tables.allocations,
                      tables.resource_provider_traits,
                      tables.resource_provider_aggregates):
            conn.execute(table.delete().where(
                table.c.resource_provider_id == gone['id']))
    touched = {info['id'] for info in w.providers.values()}
    with placement_db.reader() as conn:
        assert _contents(snapshot.changed(conn, old, touched, names=True)) \
            == _contents(snapshot.load(conn))


def test_a_version_keeps_derived_values_up_to_its_bound(w, placement_db):
    """What a version derives is kept while the rows it holds stay
    within DERIVED_ROWS_PER_PROVIDER per provider; past that it is built
    again each time it is asked for."""
    w.add('cn', inventory={'VCPU': 4})
    with placement_db.reader() as conn:
        snap = snapshot.load(conn)
    bound = snapshot.DERIVED_ROWS_PER_PROVIDER
    built = []

    def build(size):
        built.append(size)
        return [None] * size
    for _ in range(2):
        snap.derived('most', lambda: build(bound - 1), len)
        snap.derived('one more', lambda: build(1), len)
        snap.derived('past the bound', lambda: build(1), len)
    assert built == [bound - 1, 1, 1, 1]


def test_an_empty_cloud(w, placement_db):
    with placement_db.reader() as conn:
        snap = snapshot.load(conn)
    assert provider_list.matching(snap, placement_db.dialect) == []
    with pytest.raises(errors.BadRequest):
        provider_list.matching(snap, placement_db.dialect,
                               resources={'CUSTOM_NONE': 1})


def test_capacities_compare_as_the_database_computes_them(w, placement_db):
    """10 x 0.7 is 7.000000000000001 in double precision and 6.99999988
    with MySQL's single-precision column: whether 7 fits is the
    database's answer, on each database."""
    ratios = (0.7, 0.9, 1.1, 1.3)
    for ratio in ratios:
        w.add('ratio-%s' % ratio, inventory={'VCPU': {
            'total': 10, 'max_unit': 20, 'allocation_ratio': ratio}})
    with placement_db.reader() as conn:
        snap = snapshot.load(conn)
        for amount in sorted({round(10 * ratio) for ratio in ratios}):
            filters = {'resources': {'VCPU': amount}}
            assert _matching(snap, placement_db, filters) == [
                tuple(row) for row in rp_obj.get_all(conn, **filters)]


@random_clouds.over_http(20)
@hypothesis.given(st.lists(random_clouds.provider_st, max_size=6),
                  st.lists(random_clouds.consumer_st, max_size=3))
def test_the_snapshot_figures_are_the_databases(world, placement_db, specs,
                                                consumers):
    """What the snapshot compares with the database to notice writes that
    record no change (source.FLEET_CHECK_SECONDS)."""
    world.clear()
    world.add_random_consumers(world.add_random(specs), consumers)
    with placement_db.reader() as conn:
        assert snapshot.load(conn).fingerprint() == \
            snapshot_rows.fingerprint(conn)


def test_an_id_taken_again_by_a_new_provider(w, placement_db):
    """SQLite gives a deleted provider's id to the next one: brought up
    to date, the snapshot finds the new provider by its uuid."""
    w.add('first', inventory={'VCPU': 4}, traits={'CUSTOM_A'})
    with placement_db.reader() as conn:
        old = snapshot.load(conn)
    gone = w.providers.pop('first')
    with placement_db.engine.begin() as conn:
        # InnoDB checks the row's reference to itself.
        conn.execute(tables.resource_providers.update().where(
            tables.resource_providers.c.id == gone['id']).values(
                root_provider_id=None))
        for table in (tables.inventories, tables.allocations,
                      tables.resource_provider_traits,
                      tables.resource_providers):
            column = (table.c.id if table is tables.resource_providers
                      else table.c.resource_provider_id)
            conn.execute(table.delete().where(column == gone['id']))
    w.next_id = gone['id']
    w.add('second', inventory={'DISK_GB': 8})
    with placement_db.reader() as conn:
        brought = snapshot.changed(conn, old, {gone['id']}, names=False)
        assert _contents(brought) == _contents(snapshot.load(conn))
    assert brought.by_uuid == {w.uuid('second'): gone['id']}


def test_values_are_carried_to_later_versions_until_touched(
        w, placement_db, monkeypatch):
    """A value kept under a key is used again by the versions built after
    it until a change touches its provider or the provider's root; past
    CARRIED_ROWS_PER_PROVIDER the key used longest ago goes."""
    w.add('cn1', inventory={'VCPU': 4})
    w.add('numa1', parent='cn1', inventory={'VCPU': 2})
    w.add('cn2', inventory={'VCPU': 8})
    ids = {name: info['id'] for name, info in w.providers.items()}
    with placement_db.reader() as conn:
        old = snapshot.load(conn)
    made = []

    def carry(snap, key):
        def value_of(rp):
            made.append((key, rp))
            return (key, rp)
        found = dict(snap.carried(key, sorted(ids.values()), value_of))
        assert found == {rp: (key, rp) for rp in ids.values()}
    carry(old, 'a')
    with placement_db.reader() as conn:
        new = snapshot.changed(conn, old, {ids['cn1']}, names=False)
    del made[:]
    carry(new, 'a')
    assert sorted(made) == sorted([('a', ids['cn1']), ('a', ids['numa1'])])

    monkeypatch.setattr(snapshot, 'CARRIED_ROWS_PER_PROVIDER', 1)
    carry(new, 'b')
    carry(new, 'a')
    del made[:]
    carry(new, 'c')
    carry(new, 'a')
    carry(new, 'b')
    assert [key for key, _ in made] == ['c'] * 3 + ['b'] * 3


def test_values_derived_to_be_patched_get_the_roots_touched_since(
        w, placement_db):
    """A value derived with a patch is, in a later version, the patch of
    the newest one built, given the roots of every tree touched since
    (a child's root among them); a change of names, or a patch giving
    None, builds it anew."""
    w.add('cn1', inventory={'VCPU': 4})
    w.add('numa1', parent='cn1', inventory={'VCPU': 2})
    w.add('cn2', inventory={'VCPU': 8})
    w.add('cn3', inventory={'VCPU': 8})
    ids = {name: info['id'] for name, info in w.providers.items()}
    with placement_db.reader() as conn:
        first = snapshot.load(conn)
    calls = []

    def derive(snap, answer=True):
        def patch(value, roots):
            calls.append(('patch', value, roots))
            return (snap.number, 'patched') if answer else None

        def build():
            calls.append(('build', snap.number))
            return (snap.number, 'built')
        return snap.derived(('k',), build, patch=patch)

    def changed(snap, touched, names=False):
        with placement_db.reader() as conn:
            return snapshot.changed(conn, snap, touched, names=names)
    assert derive(first) == (0, 'built')
    second = changed(first, {ids['numa1']})
    third = changed(second, {ids['cn2']})
    assert derive(third) == (2, 'patched')
    assert calls[-1] == ('patch', (0, 'built'), {ids['cn1'], ids['cn2']})
    # Kept for the version, and the newest for later ones.
    assert derive(third) == (2, 'patched') and len(calls) == 2
    fourth = changed(third, {ids['cn3']})
    assert derive(fourth, answer=False) == (3, 'built')
    assert calls[-2:] == [('patch', (2, 'patched'), {ids['cn3']}),
                          ('build', 3)]
    # An older version does not patch what a newer one built.
    assert derive(second) == (1, 'built')
    fifth = changed(fourth, set(), names=True)
    assert derive(fifth) == (4, 'built')


def test_the_lineage_keeps_the_values_used_last_within_its_rows():
    """Past ``most`` rows held in all, the values used longest ago go;
    an earlier version's value never replaces a later one's."""
    kept = lineage.Lineage()
    kept.keep('a', 1, 'A1', 3, most=10)
    kept.keep('b', 1, 'B1', 5, most=10)
    kept.keep('a', 2, 'A2', 3, most=10)
    kept.keep('c', 2, 'C2', 4, most=10)
    assert [kept.value(key) for key in 'abc'] == [(2, 'A2'), None, (2, 'C2')]
    kept.keep('a', 1, 'A1', 3, most=10)
    assert kept.value('a') == (2, 'A2')
    kept.keep('d', 3, 'D3', 11, most=10)
    assert [kept.value(key) for key in 'acd'] == [None, None, None]
