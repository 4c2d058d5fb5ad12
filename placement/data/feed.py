"""The change feed: which resource providers each write changed.

Every write transaction collects the providers it changed (``touch``)
and whether names changed (``touch_names``: resource classes or traits
created, renamed or deleted) and, as its last statement before commit,
``Database.writer`` stores them (``record``) in ``placement_changes``,
a table of this service's own migration history.  A reader keeps a
snapshot current with a ``Cursor``: ``start`` in the snapshot's own read
transaction, then ``poll`` now and then for what changed since.

Ids are handed out when a row is inserted, commits land in any order
(concurrent transactions, rolled-back ids, Galera's auto_increment_offset
leaving permanent holes), so the cursor cannot just remember the highest
id it saw: an id missing below it may still commit.  It keeps such ids as
gaps and reads them again at every poll until they appear or are older
than ``gap_seconds``.  That bound is safe because the feed's INSERT is
the last statement before commit: between an id being allocated and its
transaction committing there is only the commit itself.
"""
import contextlib
import datetime
import threading
import time
import typing
import weakref

import sqlalchemy as sa

from placement.data import own_tables

CHANGES = own_tables.placement_changes
# The key of a transaction's touched providers in ``conn.info``.
_INFO_KEY = 'placement_feed'
# A set member meaning "names changed" (its row's provider_id is NULL).
_NAMES = None
# A provider id no provider has, meaning "read everything again".
_EVERYTHING = 0

# Rows older than RETENTION seconds are deleted, by some write, at most
# once every PRUNE_EVERY seconds per process.
RETENTION = 3600
PRUNE_EVERY = 60
# How long a missing id is waited for, by default ([placement]
# change_feed_gap_seconds).
GAP_SECONDS = 60
# ``Cursor.start`` looks this many ids below the newest for ids still in
# flight.
LOOKBACK = 1000
# More rows than this in one poll: reloading the snapshot is cheaper.
TOO_MANY = 2000
# More open gaps than this are read as a range of ids (filtered here)
# rather than listed in the statement.
LISTED_GAPS = 500


def touch(conn, provider_ids):
    """Record in ``conn``'s transaction that ``provider_ids`` changed."""
    _touched(conn).update(pid for pid in provider_ids if pid is not None)


def touch_names(conn):
    """Record in ``conn``'s transaction that names changed."""
    _touched(conn).add(_NAMES)


def touch_everything(conn):
    """Record in ``conn``'s transaction that anything may have changed,
    deleted providers too: every reader reloads (changes made behind the
    service's back)."""
    _touched(conn).add(_EVERYTHING)


def _touched(conn):
    return conn.info.setdefault(_INFO_KEY, set())


def forget(conn):
    """Drop what ``conn``'s transaction touched (it ended: committed,
    rolled back, or to be run again)."""
    conn.info.pop(_INFO_KEY, None)


_last_prune = {'at': float('-inf')}
_prune_lock = threading.Lock()


def _utcnow():
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def record(conn):
    """Insert the rows of what ``conn``'s transaction touched (one
    statement; nothing if it touched nothing), and now and then prune
    the old rows.  The writer's last statement before commit."""
    touched = conn.info.get(_INFO_KEY)
    if not touched:
        return
    now = _utcnow()
    conn.execute(CHANGES.insert(), [
        {'provider_id': pid, 'changed_at': now}
        for pid in sorted(touched, key=lambda pid: (pid is not None, pid))])
    if _prune_due():
        conn.execute(CHANGES.delete().where(
            CHANGES.c.changed_at < now - datetime.timedelta(
                seconds=RETENTION)))


def _prune_due():
    with _prune_lock:
        now = time.monotonic()
        if now - _last_prune['at'] < PRUNE_EVERY:
            return False
        _last_prune['at'] = now
        return True


class Changes(typing.NamedTuple):
    """What changed since the last poll."""

    providers: frozenset  # ids of the providers written
    names: bool           # resource classes or traits changed
    reload: bool          # read the snapshot again: rows may be missing
                          # (pruned), too many, or asked to


class Cursor:
    """A reader's position in the feed: the highest id it read, and the
    ids below it it has not seen yet (gaps, by the monotonic time they
    were found)."""

    def __init__(self, gap_seconds=GAP_SECONDS):
        self.gap_seconds = gap_seconds
        self.high = 0
        self.gaps = {}
        self.polled_at = None

    def start(self, conn):
        """Position at the newest row; in the snapshot's read
        transaction, before it reads the snapshot's tables, so that
        whatever the snapshot misses has a higher id or is a gap.  Ids
        missing among the LOOKBACK below the newest may belong to
        writes still in flight: they are gaps."""
        now = time.monotonic()
        self.high = conn.execute(
            sa.select(sa.func.max(CHANGES.c.id))).scalar() or 0
        present = set(conn.execute(sa.select(CHANGES.c.id).where(
            CHANGES.c.id > self.high - LOOKBACK)).scalars())
        self.gaps = {i: now for i in range(max(1, self.high - LOOKBACK + 1),
                                           self.high)
                     if i not in present}
        self.polled_at = now

    def poll(self, conn):
        """What committed since the last poll (or ``start``), as
        ``Changes``; in a read transaction on the primary
        (``Database.read_primary``).  It moves the cursor on: a caller
        whose transaction may run again polls a copy of it."""
        with _causal_reads(conn):
            rows = conn.execute(self._statement()).all()
        now = time.monotonic()
        stale = (self.polled_at is None
                 or now - self.polled_at > RETENTION - self.gap_seconds)
        self.polled_at = now
        providers = set()
        names = False
        everything = False
        count = 0
        new_high = self.high
        seen = set()
        for row in rows:
            if row.id <= self.high and row.id not in self.gaps:
                continue  # read by the range form, already seen
            count += 1
            seen.add(row.id)
            self.gaps.pop(row.id, None)
            new_high = max(new_high, row.id)
            if row.provider_id is None:
                names = True
            elif row.provider_id == _EVERYTHING:
                everything = True
            else:
                providers.add(row.provider_id)
        for missing in range(self.high + 1, new_high):
            if missing not in seen:
                self.gaps[missing] = now
        self.high = new_high
        # A gap this old is a rolled-back transaction or a hole Galera's
        # offsets left: no commit takes that long after its last INSERT.
        self.gaps = {i: found for i, found in self.gaps.items()
                     if now - found <= self.gap_seconds}
        return Changes(frozenset(providers), names,
                       stale or everything or count > TOO_MANY)

    def _statement(self):
        columns = sa.select(CHANGES.c.id, CHANGES.c.provider_id)
        if not self.gaps:
            return columns.where(CHANGES.c.id > self.high)
        if len(self.gaps) > LISTED_GAPS:
            return columns.where(CHANGES.c.id >= min(self.gaps))
        return columns.where(sa.or_(CHANGES.c.id > self.high,
                                    CHANGES.c.id.in_(sorted(self.gaps))))


# engine -> whether it is a Galera node, asked once per engine.
_galera = weakref.WeakKeyDictionary()


def _is_galera(conn):
    if conn.dialect.name != 'mysql':
        return False
    engine = conn.engine
    if engine not in _galera:
        row = conn.exec_driver_sql("SHOW VARIABLES LIKE 'wsrep_on'").first()
        _galera[engine] = row is not None and row.Value.upper() == 'ON'
    return _galera[engine]


@contextlib.contextmanager
def _causal_reads(conn):
    """On Galera, the poll waits until this node applied every write the
    cluster committed before it (``wsrep_sync_wait``), so that a write
    another node acknowledged is seen; the session's setting is restored
    after.  A poll that fails leaves the setting on a connection that is
    never used again: restoring it there would hide the failure (a
    connection that died answers every statement with "rollback first")."""
    if not _is_galera(conn):
        yield
        return
    before = conn.exec_driver_sql(
        'SELECT @@SESSION.wsrep_sync_wait').scalar()
    conn.exec_driver_sql('SET SESSION wsrep_sync_wait = 1')
    try:
        yield
    except BaseException:
        conn.invalidate()
        raise
    conn.exec_driver_sql('SET SESSION wsrep_sync_wait = %d' % before)
