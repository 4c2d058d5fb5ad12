"""Where each column of the engine's rows sits: the group statements'
(``Layout``, see statements.group_statement) and explain's census
(``CensusLayout``).  Only these classes (and statements.py) read a row
by column number; every other module asks them, so an offset changes
in one place."""
import itertools
import operator

from placement.objects import figures

# The columns of a group's row before its figures (see Layout); its
# summary part starts at the class mask.
_ROOT, _RP, _TRAITS, _FIT = range(4)


class Layout:
    """The columns of a group's statement (see ``group_statement``): root,
    rp, trait mask, class mask; then per class its summary figures; then
    ``listed``, the number of inventories the provider's summary lists;
    then, when ``limits`` (their first index) is not 0, per class (room,
    max_unit); last the provider's uuid.  ``bits``: [(bit, rc)].

    The summary figures of a class are its capacity and usage.  SQLite
    computes the capacity as Python would (both in double precision);
    MySQL and PostgreSQL store allocation_ratio in single precision; read
    through its text (statements.ratio_as_read) it is the shortest
    decimal form, the value Python reads of the column itself, and the
    capacity is computed here from (total, reserved, that ratio, used).

    Without ``rendered`` (GET /capacity renders no candidate) a row has
    no summary figures, and ``listed`` and the uuid are not looked up.
    Other modules read a row through the accessors, built once per layout.
    """

    # A row's root, rp and trait mask (None for 0 on some databases).
    root = operator.itemgetter(_ROOT)
    rp = operator.itemgetter(_RP)
    trait_mask = operator.itemgetter(_TRAITS)
    # A row's class mask, as its group's own statement reads it.
    fit = operator.itemgetter(_FIT)
    # (root, rp, trait mask, class mask, uuid) of a row as a group's own
    # statement reads it.
    head = operator.itemgetter(_ROOT, _RP, _TRAITS, _FIT, -1)

    def __init__(self, amounts, dialect, with_capacity, rendered=True):
        self.bits = list(enumerate(amounts))
        self.in_sql = dialect == 'sqlite'
        self.rendered = rendered
        self.width = (2 if self.in_sql else 4) if rendered else 0
        self.listed = 4 + self.width * len(amounts)
        self.limits = self.listed + 1 if with_capacity and amounts else 0
        # {rc: the index of its free space in a row, its max_unit next}
        # (with ``limits`` set); ``_room_at`` the same in a summary_part.
        self._room = {rc: self.limits + 2 * bit for bit, rc in self.bits}
        self._room_at = {rc: at - _FIT for rc, at in self._room.items()}
        self._limit_at = [(bit, rc, self._room[rc]) for bit, rc in self.bits]

    def columns(self, inventory, used, ratio):
        """The summary figures of one class, as SQL expressions;
        ``ratio``: allocation_ratio as Python reads it (an aggregate of
        MySQL's single-precision column hands over the wider double)."""
        if not self.rendered:
            return []
        if self.in_sql:
            return [figures.capacity(inventory), used]
        return [inventory.c.total, inventory.c.reserved, ratio, used]

    def values(self, inventory, used):
        """``columns`` of values already read (a snapshot's): the same
        figures the statement reads, in Python's arithmetic."""
        if not self.rendered:
            return ()
        if self.in_sql:
            return (figures.capacity_of(inventory.total, inventory.reserved,
                                        inventory.allocation_ratio), used)
        return (inventory.total, inventory.reserved,
                inventory.allocation_ratio, used)

    def parts(self, per_class):
        """(figures, limits) of a row of values already read: the columns
        after its class mask and after ``listed``; ``per_class``
        [(``values``, (room, max_unit)) or None], one per class in order,
        None where the provider cannot serve the class."""
        figures_part, limits_part = [], []
        missing = (None,) * self.width
        for found in per_class:
            if found is None:
                figures_part.extend(missing)
                limits_part.extend((None, None))
            else:
                figures_part.extend(found[0])
                limits_part.extend(found[1])
        return (tuple(figures_part),
                tuple(limits_part) if self.limits else ())

    @staticmethod
    def row(head, parts, listed, uuid):
        """A row as the statement reads it, of values already read:
        ``head`` (root, rp, trait mask, class mask), ``parts`` as
        ``parts`` gives them."""
        figures_part, limits_part = parts
        return head + figures_part + (listed,) + limits_part + (uuid,)

    # What a row says of its provider's inventories: (class mask,
    # figures..., listed, limits...), without its ids; providers with
    # alike inventories have equal parts.
    summary_part = operator.itemgetter(slice(_FIT, -1))

    def listed_of(self, part):
        """The number of inventories a ``summary_part``'s summary lists."""
        return part[self.listed - _FIT]

    def figures(self, part, into):
        """Add {rc: (capacity, used)} of the classes a ``summary_part``
        serves to ``into``."""
        fit = part[0]
        width = self.width
        for bit, rc in self.bits:
            if fit >> bit & 1:
                at = 1 + width * bit
                if self.in_sql:
                    into[rc] = (part[at], part[at + 1])
                else:
                    total, reserved, ratio, used = part[at:at + 4]
                    into[rc] = (figures.capacity_of(total, reserved, ratio),
                                used)

    def rooms(self, part):
        """[(rc, free space)] of the classes a ``summary_part`` serves,
        from the limits columns (with ``limits`` set)."""
        fit = part[0]
        room_at = self._room_at
        return [(rc, part[room_at[rc]]) for bit, rc in self.bits
                if fit >> bit & 1]

    def limits_of(self, row, fit):
        """{rc: most that may be allocated of it} of the classes of class
        mask ``fit`` in ``row`` (with ``limits`` set): the least of its
        free space and max_unit."""
        return {rc: min(row[at], row[at + 1])
                for bit, rc, at in self._limit_at if fit >> bit & 1}

    def free_by_class(self, row):
        """[(rc, free space)] of every class in ``row`` (with ``limits``
        set), None where the provider has none of it."""
        return [(rc, row[at]) for rc, at in self._room.items()]

    def less_room(self, row, taken):
        """``row`` (with ``limits`` set) with ``taken`` {rc: amount} off
        its free space."""
        row = list(row)
        for rc, amount in taken.items():
            at = self._room.get(rc)
            if at is not None and row[at] is not None:
                row[at] -= amount
        return tuple(row)

    def free_of(self, rc):
        """A row's free space of class ``rc`` (with ``limits`` set), as
        an accessor."""
        return operator.itemgetter(self._room[rc])

    @staticmethod
    def of_shapes(row, fits):
        """A row of values already read (``row``) as the statement of
        several shapes at once reads it: one class mask per shape
        (``fits``) at its end."""
        return row + tuple(fits)

    @staticmethod
    def fit_of_shape(index, count):
        """The class mask of the ``index``-th of ``count`` shapes read at
        once (``group_statement``'s ``each``) in a row, as an accessor."""
        return operator.itemgetter(index - count)

    @staticmethod
    def as_read_alone(row, fit, count):
        """A row read for ``count`` shapes at once as the statement of one
        of them, whose class mask is ``fit``, reads it: that mask in place
        of that of any, without the masks of each shape."""
        return (*row[:_FIT], fit, *row[_FIT + 1:-count])


class CensusLayout:
    """The columns of explain's census (explain.census): a provider's id,
    uuid, name and root, whether its root passes root_required; per group
    its check masks (``masks``: how many integers each); per class of
    ``classes`` its free space, min_unit, max_unit and step_size."""

    provider = operator.itemgetter(0, 1, 2, 3)
    root_passes = operator.itemgetter(4)

    def __init__(self, masks, classes):
        ends = list(itertools.accumulate(masks, initial=5))
        self._masks = [slice(*span) for span in zip(ends, ends[1:])]
        self._figures = [(rc, ends[-1] + 4 * at)
                         for at, rc in enumerate(classes)]

    def masks(self, row, number):
        """The mask integers of group ``number`` in ``row``."""
        return row[self._masks[number]]

    def figures(self, row):
        """[(rc, (free space, min_unit, max_unit, step_size))] of the
        classes the provider of ``row`` has."""
        return [(rc, row[at:at + 4]) for rc, at in self._figures
                if row[at] is not None]
