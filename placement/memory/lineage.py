"""What the versions of one loaded snapshot share besides the values
carried per provider: the trees each version's change touched, and the
values derived from a whole version that a later one patches.

A value derived from every tree of a version (the trees a capacity count
sets apart) costs a pass over the cloud; the next version differs in the
trees its change touched.  Given the newest such value and the roots
touched since it was built, a patch redoes those trees only.
"""
import threading
import typing

from placement.memory import recent

# How many versions back a value is patched from; past that, or past a
# change of names, it is built anew.
VERSIONS = 256


class _Kept(typing.NamedTuple):
    number: int
    value: object
    held: int


class Lineage:
    """Shared by a loaded snapshot version and every version built from
    it (snapshot.changed), each numbered one past the version it was
    built from."""

    def __init__(self):
        # {version number: frozenset of the roots its change touched, or
        # None when names changed}.
        self._touched = {}
        # {key: _Kept}.
        self._values = recent.Recent(held=lambda kept: kept.held)
        self._lock = threading.Lock()

    def record(self, number, roots):
        """Version ``number`` touched the trees of ``roots`` (None: names
        changed: no value derived before it holds).  Recorded again (a
        poll retried), the last one counts: only the version published
        derives values."""
        with self._lock:
            self._touched[number] = roots
            self._touched.pop(number - VERSIONS, None)

    def touched_since(self, since, number):
        """{root} of the trees touched by the versions after ``since`` up
        to ``number``, or None when that is not known (too far back, a
        change of names, or ``since`` after ``number``)."""
        if not 0 <= number - since <= VERSIONS:
            return None
        found = set()
        touched = self._touched
        for version in range(since + 1, number + 1):
            roots = touched.get(version)
            if roots is None:
                return None
            found |= roots
        return found

    def value(self, key):
        """(version number, value) kept under ``key``, or None."""
        found = self._values.get(key)
        return None if found is None else (found.number, found.value)

    def keep(self, key, number, value, held, most):
        """Keep ``value``, built for version ``number`` and holding
        ``held`` rows, under ``key``, unless a later version's is kept
        there; the values used longest ago go while all hold more than
        ``most`` rows."""
        with self._lock:
            found = self._values.get(key)
            if found is None or found.number <= number:
                self._values.keep(key, _Kept(number, value, held), most)
