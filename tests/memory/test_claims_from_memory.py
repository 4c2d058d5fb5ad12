"""POST /claims' first choice from a worker's snapshot, below HTTP: a
snapshot a moment old costs a second choice, made from the database,
never an over-commit."""
import uuid

import pytest
import sqlalchemy as sa

from placement import errors
from placement import microversions
from placement.candidates import claiming
from placement.candidates import stacks
from placement.data import tables
from placement.memory import snapshot
from placement.objects import allocation as alloc_obj
from placement.web import shapes

LATEST = microversions.Version(1, 39)


def _claim(count, shape='resources=VCPU:1'):
    consumers = [alloc_obj.ConsumerWrite(
        uuid=str(uuid.uuid4()), allocations={}, project_id='p',
        user_id='u', generation=None, consumer_type='INSTANCE')
        for _ in range(count)]
    return claiming.Claim(shapes.parse('', shape, LATEST), consumers,
                          'any', 'default', 0)


@pytest.fixture
def choices(monkeypatch):
    """How many times claims chose again after the room was taken."""
    made_again = []
    again = claiming.Deadline.again

    def counted(deadline):
        made_again.append(1)
        again(deadline)
    monkeypatch.setattr(claiming.Deadline, 'again', counted)
    return made_again


def _roots(body):
    return sorted(claimed['root']
                  for claimed in body['allocations'].values())


def test_a_stale_snapshot_costs_a_choice_from_the_database(
        w, placement_db, choices):
    """The snapshot knows only cn1, with room; by the time of the claim
    cn1 is full and cn2 has room: the choice of cn1 is refused under the
    lock, and the one made again, from the database, is cn2."""
    w.add('cn1', inventory={'VCPU': 1})
    stale = placement_db.read_primary(snapshot.load)
    w.add('cn2', inventory={'VCPU': 1})
    with w.engine.begin() as conn:
        conn.execute(tables.allocations.insert().values(
            resource_provider_id=w.providers['cn1']['id'],
            resource_class_id=w.rc_ids['VCPU'],
            consumer_id=str(uuid.uuid4()), used=1))
    body = stacks.claim(placement_db, stale, _claim(1), LATEST,
                        placement_db.conf.placement)
    assert _roots(body) == [w.uuid('cn2')]
    assert len(choices) == 1


def test_a_current_snapshot_chooses_once(w, placement_db, choices):
    w.add('cn1', inventory={'VCPU': 2})
    w.add('cn2', inventory={'VCPU': 1})
    current = placement_db.read_primary(snapshot.load)
    body = stacks.claim(placement_db, current, _claim(3), LATEST,
                        placement_db.conf.placement)
    assert _roots(body) == sorted([w.uuid('cn1')] * 2 + [w.uuid('cn2')])
    assert not choices


def test_no_room_in_the_snapshot_is_no_fit(w, placement_db, choices):
    w.add('cn1', inventory={'VCPU': 1}, used={'VCPU': 1})
    current = placement_db.read_primary(snapshot.load)
    with pytest.raises(errors.Conflict) as raised:
        stacks.claim(placement_db, current, _claim(1), LATEST,
                     placement_db.conf.placement)
    assert raised.value.code == 'placement.claims.no_fit'
    assert 'lacks capacity for VCPU' in raised.value.detail
    assert not choices


def test_replaced_holdings_are_read_from_the_database(w, placement_db):
    """A consumer replacing its allocations counts them free: usage in a
    snapshot does not say whose they are, so the database is read (here
    the snapshot is empty, and the claim still finds cn1)."""
    empty = placement_db.read_primary(snapshot.load)
    w.add('cn1', inventory={'VCPU': 1}, used={'VCPU': 1})
    with w.engine.connect() as conn:
        holder = conn.execute(sa.select(
            tables.allocations.c.consumer_id)).scalar()
    request = _claim(1)
    request.consumers[0] = alloc_obj.ConsumerWrite(
        uuid=holder, allocations={}, project_id='p', user_id='u',
        generation=0, consumer_type='INSTANCE')
    with w.engine.begin() as conn:
        conn.execute(tables.consumers.insert().values(
            uuid=holder, project_id=_id(conn, tables.projects, 'p'),
            user_id=_id(conn, tables.users, 'u'), generation=0))
    body = stacks.claim(placement_db, empty, request, LATEST,
                        placement_db.conf.placement)
    assert _roots(body) == [w.uuid('cn1')]


def _id(conn, table, external_id):
    found = conn.execute(sa.select(table.c.id).where(
        table.c.external_id == external_id)).scalar()
    if found is None:
        found = conn.execute(table.insert().values(
            external_id=external_id)).inserted_primary_key[0]
    return found
