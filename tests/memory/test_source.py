"""A worker's snapshot source below HTTP: it reloads whole when asked."""
import time

from placement.data import feed
from placement.data import tables
from placement.memory import source as source_mod


def test_a_reload_forgets_providers_deleted_by_hand(
        w, placement_db, monkeypatch):
    """``placement-manage snapshot reload`` after a delete by SQL: the
    next read has the provider no more (without the fleet check, which
    would notice it within its second)."""
    monkeypatch.setattr(source_mod, 'FLEET_CHECK_SECONDS', 3600)
    w.add('cn1', inventory={'VCPU': 1})
    w.add('cn2', inventory={'VCPU': 1})
    source = source_mod.Source(placement_db, feed.GAP_SECONDS)
    deadline = time.monotonic() + 30
    while source.current() is None:
        assert time.monotonic() < deadline, 'snapshot not loaded'
        time.sleep(0.05)
    gone = w.providers.pop('cn2')
    rp = tables.resource_providers
    with w.engine.begin() as conn:
        # InnoDB checks the row's reference to itself.
        conn.execute(rp.update().where(rp.c.id == gone['id']).values(
            root_provider_id=None))
        conn.execute(tables.inventories.delete().where(
            tables.inventories.c.resource_provider_id == gone['id']))
        conn.execute(rp.delete().where(rp.c.id == gone['id']))
    gone = gone['uuid']
    assert gone in source.current().by_uuid
    placement_db.write(feed.touch_everything)
    current = source.current()
    assert gone not in current.by_uuid
    assert w.uuid('cn1') in current.by_uuid
