"""Explain's census: every provider through every check of a request,
from either source of the read step.

Per group a provider passes or fails each check of the group's stack (a
bit of its mask); ``Tally`` keeps, per provider failing some check, the
figures the explanation words the failures with.  The database reads it
in one statement, each check's own SQL condition a bit
(``of_database``); a snapshot asks each check's Python form
(``of_snapshot``).  Both hand the same masks and figures to one Tally.
"""
import dataclasses
import typing

import sqlalchemy as sa

from placement.candidates import checks as checks_mod
from placement.candidates import layouts
from placement.data import tables
from placement.objects import figures

RP = tables.resource_providers
INV = tables.inventories

# Checks per integer column of the census (well within 64-bit integers).
MASK_BITS = 30


class Found(typing.NamedTuple):
    """What a provider has of a class: free space and allocation units."""
    free: float
    min_unit: int
    max_unit: int
    step_size: int


class Provider(typing.NamedTuple):
    id: int
    uuid: str
    name: str
    root: int


@dataclasses.dataclass
class Census:
    """``providers`` {id: Provider}; per group suffix, the providers
    failing some check {rp: {check index: Found or None}}; the roots
    failing ``root_required``."""
    providers: dict
    failures: dict
    root_failing: frozenset

    def rooted(self, trees):
        """The ``trees`` whose root passes ``root_required``, lazily."""
        return (tree for tree in trees if tree.root not in self.root_failing)


class Tally:
    """The Census of ``reading`` (a reader.RequestSearch), provider by
    provider as a source reads them (``add``)."""

    def __init__(self, reading):
        query = reading.query
        self.stacks = [(suffix, group.stack) for suffix, group
                       in zip(query.groups, reading.groups)]
        self.providers = {}
        self.failures = {suffix: {} for suffix in query.groups}
        self.root_failing = set()
        # (group number, mask): [(index, rc)] of the checks failed.
        self._failing = {}
        # The same, as the detail of a provider without any inventory of
        # the classes asked (shared, never changed).
        self._shared = {}

    def add(self, provider, root_passes, masks, found):
        """One provider: whether its root passes root_required, per group
        its mask (bit i set: it passes check i), ``found`` {rc: Found} of
        the classes asked that it has."""
        self.providers[provider.id] = provider
        if not root_passes:
            self.root_failing.add(provider.root)
        for number, (suffix, stack) in enumerate(self.stacks):
            mask = masks[number]
            if mask == (1 << len(stack)) - 1:
                continue
            key = (number, mask)
            failed = self._failing.get(key)
            if failed is None:
                failed = self._failing[key] = [
                    (index, check.figures_class)
                    for index, check in enumerate(stack)
                    if not mask >> index & 1]
            if not found:
                detail = self._shared.get(key)
                if detail is None:
                    # Without an inventory of a class, only that is said.
                    detail = self._shared[key] = {
                        index: None for index, rc in failed if rc is None}
            else:
                detail = {index: found.get(rc) for index, rc in failed
                          if rc is None or rc in found}
            self.failures[suffix][provider.id] = detail

    def census(self):
        return Census(self.providers, self.failures,
                      frozenset(self.root_failing))


def of_database(conn, reading):
    """The Census in one statement, each check's own condition a bit of
    its group's mask."""
    names = reading.names
    query = reading.query
    classes = _classes(query)
    joined = RP
    inventories = {}
    # Every provider is read: the usage of the classes is summed once,
    # not looked up per inventory row.
    usage = figures.usage_table((names.rc[rc] for rc in classes),
                                reading.released)
    for number, rc in enumerate(classes):
        inv = INV.alias('inv_%d' % number)
        used = usage.alias('used_%d' % number)
        joined = joined.outerjoin(inv, sa.and_(
            inv.c.resource_provider_id == RP.c.id,
            inv.c.resource_class_id == names.rc[rc])).outerjoin(
            used, sa.and_(
                used.c.resource_provider_id == RP.c.id,
                used.c.resource_class_id == names.rc[rc]))
        inventories[rc] = (inv, used.c.used)
    plain = checks_mod.Site(RP.c.id, RP.c.root_provider_id)
    root = checks_mod.root_required(query)
    columns = [RP.c.id, RP.c.uuid, RP.c.name, RP.c.root_provider_id,
               sa.true() if root is None else root.clause(names, plain)]
    # Per group, the checks a provider passes as bits of a few integers
    # (MASK_BITS each): summed in SQL, joined again per row.
    spans = []
    for group in reading.groups:
        starts = range(0, len(group.stack), MASK_BITS)
        spans.append(starts)
        for start in starts:
            bits = sa.literal(0)
            for bit, check in enumerate(
                    group.stack[start:start + MASK_BITS]):
                site = plain
                if check.rc is not None:
                    inv, used = inventories[check.rc]
                    site = checks_mod.Site(
                        RP.c.id, RP.c.root_provider_id, inventory=inv,
                        used=used, amount=check.amount)
                bits = bits + sa.case((check.clause(names, site), 1 << bit),
                                      else_=0)
            columns.append(bits)
    for rc in classes:
        inv, used = inventories[rc]
        columns += [figures.free(inv, used), inv.c.min_unit, inv.c.max_unit,
                    inv.c.step_size]
    layout = layouts.CensusLayout([len(starts) for starts in spans], classes)
    tally = Tally(reading)
    # In id order, as a snapshot holds them: ties among misses go to the
    # first provider either way.
    result = conn.execute(sa.select(*columns).select_from(joined)
                          .order_by(RP.c.id))
    for row in result.cursor.fetchall():
        masks = []
        for number, starts in enumerate(spans):
            mask = 0
            for start, value in zip(starts, layout.masks(row, number)):
                mask |= int(value) << start
            masks.append(mask)
        tally.add(Provider(*layout.provider(row)), layout.root_passes(row),
                  masks, {rc: Found(float(free), *units)
                          for rc, (free, *units) in layout.figures(row)})
    return tally.census()


def of_snapshot(snap, reading, dialect):
    """The Census from a snapshot version, each check asked in its Python
    form; what one inventory and usage decide is decided once."""
    names = reading.names
    query = reading.query
    root = checks_mod.root_required(query)
    classes = [(rc, names.rc[rc]) for rc in _classes(query)]
    tally = Tally(reading)
    decided = figures.Decided()
    roots = {}
    for rp in snap.order:
        provider = snap.providers[rp]
        held = snap.inventories.get(rp, {})
        usage = snap.usage.get(rp, {})
        found = {}
        for rc, rc_id in classes:
            inventory = held.get(rc_id)
            if inventory is not None:
                found[rc] = figures.held(inventory, usage.get(rc_id),
                                         dialect)
        masks = []
        for _, stack in tally.stacks:
            mask = 0
            for bit, check in enumerate(stack):
                if check.rc is None:
                    passed = check.passes(names, snap, rp, provider.root_id)
                else:
                    held = found.get(check.rc)
                    passed = held is not None and decided.fits(check, held)
                if passed:
                    mask |= 1 << bit
            masks.append(mask)
        root_passes = roots.get(provider.root_id)
        if root_passes is None:
            root_passes = roots[provider.root_id] = (
                root is None or root.passes(names, snap, provider.root_id))
        tally.add(
            Provider(rp, provider.uuid, provider.name, provider.root_id),
            root_passes, masks,
            {rc: Found(room, inventory.min_unit, inventory.max_unit,
                       inventory.step_size)
             for rc, (inventory, _, room) in found.items()})
    return tally.census()


def _classes(query):
    return sorted({rc for group in query.groups.values()
                   for rc in group.resources})
