"""Values kept under keys while the rows they hold stay within a bound:
past it, those used longest ago go.  What a snapshot carries from
version to version and what its lineage keeps are both kept so; the
threads reading a worker's versions share them.
"""
import threading


class Recent:
    """{key: value}, in the order of their use (the key used last last);
    ``held(value)`` counts a value's rows each time a value is kept (a
    value may grow after: a carried read fills as it goes)."""

    def __init__(self, held):
        self._held = held
        self._values = {}
        self._lock = threading.Lock()

    def get(self, key):
        """The value kept under ``key``, now the one used last, or
        None."""
        with self._lock:
            value = self._values.pop(key, None)
            if value is not None:
                self._values[key] = value
            return value

    def keep(self, key, value, most):
        """Keep ``value`` under ``key``, used last, the values used
        longest ago going first while all hold more than ``most`` rows
        (``value`` too, when it alone does)."""
        with self._lock:
            values = self._values
            values.pop(key, None)
            held = self._held(value)
            while values and held + sum(map(self._held,
                                            values.values())) > most:
                values.pop(next(iter(values)))
            if held <= most:
                values[key] = value

    def values(self):
        """The values kept, listed at once."""
        with self._lock:
            return list(self._values.values())
