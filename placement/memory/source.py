"""A worker's snapshot, kept current by the change feed.

A worker starts loading its snapshot in a thread when it starts (or, if
the database was not known to have the change feed then, at its first
request), and answers from the database until it is loaded.
Then each read first asks the feed what changed since the worker last
looked and reads those providers again (``current``), in a transaction
on the primary: a write acknowledged by any worker or node before the
read began is in the version the read gets.  The feed's cursor moves
only with a snapshot built from what it read, so a read that fails half
way loses no change.

Writers that do not record changes (upstream placement during a rolling
swap, SQL by hand) are caught by figures every write moves: at most every
``FLEET_CHECK_SECONDS`` the database's are compared with the snapshot's,
in the same transaction, and the snapshot is loaded again when they
differ.  So a read that begins more than ``FLEET_CHECK_SECONDS`` after
such a write committed sees it.
"""
import copy
import gc
import logging
import threading
import time
import typing

from placement.data import feed
from placement.memory import snapshot
from placement.objects import snapshot_rows

LOG = logging.getLogger(__name__)

FLEET_CHECK_SECONDS = 1.0


class _State(typing.NamedTuple):
    cursor: object
    snapshot: snapshot.Snapshot
    # When the transaction whose figures last matched the snapshot's
    # began (time.monotonic()).
    checked: float
    # When the transaction that polled the feed last began.
    polled: float


class Source:
    """The snapshot of one worker over ``database``; ``gap_seconds``:
    how long the feed looks again for a change committed out of order."""

    def __init__(self, database, gap_seconds):
        self._database = database
        self._gap_seconds = gap_seconds
        self._state = None
        self._loading = False
        self._lock = threading.Lock()
        self._start_loading()

    def current(self):
        """The snapshot with every change committed before this call, or
        None while it is not loaded (the caller reads the database)."""
        if self._state is None:
            self._start_loading()
            return None
        asked = time.monotonic()
        with self._lock:
            # Requests that queued here while a poll ran share the next
            # one: a poll that began after a request came in has every
            # write committed before it.
            if self._state.polled < asked:
                self._state = self._database.read_primary(
                    self._looked_again, self._state, time.monotonic())
            return self._state.snapshot

    def _start_loading(self):
        with self._lock:
            if self._loading or not self._database.feed_on:
                return
            self._loading = True
        threading.Thread(target=self._load, name='placement-snapshot',
                         daemon=True).start()

    def _load(self):
        try:
            state = self._database.read_primary(self._loaded,
                                                time.monotonic())
            # The snapshot holds no cycle (reference counting frees each
            # version): the collector's full passes, which stop every
            # thread of the worker, need not walk its objects again.
            gc.collect()
            gc.freeze()
            with self._lock:
                self._state = state
            LOG.info('snapshot loaded: %d providers',
                     len(state.snapshot.providers))
        except Exception:
            LOG.exception('snapshot not loaded; reading the database')
        finally:
            self._loading = False

    def _loaded(self, conn, began):
        """The whole cloud: the cursor starts before the tables are read,
        so what commits in between is read again."""
        cursor = feed.Cursor(self._gap_seconds)
        cursor.start(conn)
        return _State(cursor, snapshot.load(conn), began, began)

    def _looked_again(self, conn, state, began):
        # ``began`` is taken before the transaction, so every write
        # committed before it is in what this one reads: a time taken
        # after the reading would count a write committed meanwhile as
        # checked, and leave it unseen for another FLEET_CHECK_SECONDS.
        # The cursor is a copy: this transaction may fail and run again.
        cursor = copy.deepcopy(state.cursor)
        changes = cursor.poll(conn)
        if changes.reload:
            return self._loaded(conn, began)
        snap = state.snapshot
        if changes.providers or changes.names:
            snap = snapshot.changed(conn, snap, changes.providers,
                                    changes.names)
        checked = state.checked
        if began - checked >= FLEET_CHECK_SECONDS:
            if snapshot_rows.fingerprint(conn) != snap.fingerprint():
                LOG.warning('the database changed without a record in the '
                            'change feed (upstream placement or SQL by '
                            'hand): loading the snapshot again')
                return self._loaded(conn, began)
            checked = began
        return _State(cursor, snap, checked, began)
