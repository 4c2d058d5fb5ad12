"""Pausing the cyclic garbage collector while large answers are built."""
import contextlib
import gc
import threading


class _CollectionPause:
    """``with gc_pause.collection_paused():``

    Tens of thousands of small dicts would trigger collections that each
    walk every live object; what is built here holds no cycles, so
    reference counting frees it and the collector can wait.  Requests run
    in threads: the collector restarts when the last overlapping pause
    ends, and only if it was running when the first began.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._active = 0
        self._resume = False

    @contextlib.contextmanager
    def __call__(self):
        with self._lock:
            if not self._active:
                self._resume = gc.isenabled()
                gc.disable()
            self._active += 1
        try:
            yield
        finally:
            with self._lock:
                self._active -= 1
                if not self._active and self._resume:
                    gc.enable()


collection_paused = _CollectionPause()
