"""A worker's snapshot source below HTTP: it reloads whole when asked,
and requests that meet a poll share the next one."""
import gc
import threading
import time

from placement.data import feed
from placement.data import tables
from placement.memory import source as source_mod


def _loaded(placement_db):
    source = source_mod.Source(placement_db, feed.GAP_SECONDS)
    deadline = time.monotonic() + 30
    while source.current() is None:
        assert time.monotonic() < deadline, 'snapshot not loaded'
        time.sleep(0.05)
    return source


def test_a_loaded_snapshot_is_left_out_of_the_collectors_passes(
        w, placement_db):
    """Once loaded, what the snapshot holds is frozen (gc.freeze): the
    collector's full passes do not walk it (reference counting still
    frees it, see test_freed_without_collector)."""
    w.add('cn1', inventory={'VCPU': 1})
    gc.unfreeze()
    try:
        providers = _loaded(placement_db).current().providers
        assert gc.get_freeze_count() > len(providers)
        assert not any(tracked is providers for tracked in gc.get_objects())
    finally:
        gc.unfreeze()


def _slow_polls(source, monkeypatch, seconds):
    """The polls ``source`` runs, each made to take ``seconds``."""
    began = []
    looked_again = source._looked_again

    def slow(conn, state, at):
        began.append(at)
        time.sleep(seconds)
        return looked_again(conn, state, at)
    monkeypatch.setattr(source, '_looked_again', slow)
    return began


def _poll_running(w, placement_db, monkeypatch):
    """(A loaded source whose polls take 0.3 s, the polls it ran, the
    thread of a request in its first poll, begun)."""
    w.add('cn1', inventory={'VCPU': 1})
    source = _loaded(placement_db)
    polls = _slow_polls(source, monkeypatch, 0.3)
    first = threading.Thread(target=source.current)
    first.start()
    while not polls:
        time.sleep(0.01)
    return source, polls, first


def test_requests_meeting_a_poll_share_the_next(w, placement_db,
                                                monkeypatch):
    source, polls, first = _poll_running(w, placement_db, monkeypatch)
    # Asked while the first poll runs: it began too early for them.
    readers = [threading.Thread(target=source.current) for _ in range(8)]
    for reader in readers:
        reader.start()
    for thread in [first, *readers]:
        thread.join()
    assert len(polls) == 2


def test_a_write_before_the_request_is_seen_past_a_running_poll(
        w, placement_db, monkeypatch):
    source, polls, first = _poll_running(w, placement_db, monkeypatch)
    # Committed after the running poll began, before this request.
    w.add('cn2', inventory={'VCPU': 1})
    placement_db.write(feed.touch_everything)
    assert w.uuid('cn2') in source.current().by_uuid
    first.join()
    assert len(polls) == 2


def test_a_reload_forgets_providers_deleted_by_hand(
        w, placement_db, monkeypatch):
    """``placement-manage snapshot reload`` after a delete by SQL: the
    next read has the provider no more (without the fleet check, which
    would notice it within its second)."""
    monkeypatch.setattr(source_mod, 'FLEET_CHECK_SECONDS', 3600)
    w.add('cn1', inventory={'VCPU': 1})
    w.add('cn2', inventory={'VCPU': 1})
    source = _loaded(placement_db)
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
