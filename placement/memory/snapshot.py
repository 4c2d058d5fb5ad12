"""One version of the cloud in memory: providers, their inventories,
usage, traits, aggregates and the consumers' holdings, and the names of
classes, traits and aggregates.

A version never changes once built: a request reads one version from
start to end while other threads of the worker build the next.
``changed`` builds the next version from the rows of the providers a
change touched, copying the rest by reference.  (What a version builds
per provider, listing bytes and the read step's rows, is a memo its
successors share, each entry checked against the reader's own version.)
"""
import typing

from placement.memory import indexes as indexes_mod
from placement.memory import lineage as lineage_mod
from placement.memory import recent
from placement.objects import snapshot_rows


class Provider(typing.NamedTuple):
    id: int
    uuid: str
    name: str
    generation: int
    parent_id: typing.Optional[int]
    root_id: int
    changed: object


class Inventory(typing.NamedTuple):
    total: int
    reserved: int
    min_unit: int
    max_unit: int
    step_size: int
    allocation_ratio: float


class Holding(typing.NamedTuple):
    """What one consumer holds of a provider: its ``consumer_type`` (a
    name, None without one) and ``used`` ((rc id, amount), ...) in class
    id order."""
    consumer_type: typing.Optional[str]
    used: tuple


class Shown(typing.NamedTuple):
    """A provider as listings show it, in ``resource_provider.SHOWN``
    order."""
    uuid: str
    name: str
    generation: int
    parent_provider_uuid: typing.Optional[str]
    root_provider_uuid: str
    changed: object


_NONE = frozenset()
# What versions carry to the next of the values built per provider
# (``carried``: the read step's rows, listing bytes): past this many per
# provider in all as a read starts, the reads used longest ago are
# dropped.
CARRIED_ROWS_PER_PROVIDER = 16
# What a version keeps of the values derived from it (``derived``), at
# most: this many rows (of the read step's, or trees) per provider,
# about twice the memory of the version itself.
DERIVED_ROWS_PER_PROVIDER = 24


class Snapshot:
    """``providers`` {id: Provider}, ``by_uuid`` {uuid: id}, ``order``
    the ids ascending, ``root_order`` the ids in the order of their
    roots' (then their own: the order the read step's rows come in),
    ``shown`` {id: Shown}, ``indexes`` (who has what, indexes.Indexes);
    per provider id ``inventories`` {rc id: Inventory}, ``usage`` {rc
    id: used}, ``traits`` (names), ``aggregates`` (uuids) and
    ``holdings`` {consumer uuid: Holding}; ``class_ids`` {name: id},
    ``trait_ids`` {name: id}, ``aggregate_uuids`` {uuid} of every
    aggregate (members or not).  Built by ``load`` and ``changed``:
    ``number`` counts the versions since the load, which their
    lineage.Lineage (``lineage``) follows.
    """

    def __init__(self, providers, inventories, usage, traits, aggregates,
                 holdings, class_ids, trait_ids, aggregate_uuids, by_uuid,
                 order, root_order, shown, indexes, carried=None,
                 lineage=None, number=0):
        self.providers = providers
        self.inventories = inventories
        self.usage = usage
        self.traits = traits
        self.aggregates = aggregates
        self.holdings = holdings
        self.class_ids = class_ids
        self.trait_ids = trait_ids
        self.aggregate_uuids = aggregate_uuids
        self.by_uuid = by_uuid
        self.order = order
        self.root_order = root_order
        self.shown = shown
        self.indexes = indexes
        # {read's key: {provider id: (its Shown, its root's Shown, its
        # value)}}, shared with the versions built from this one (see
        # ``carried``).
        self._carried = recent.Recent(held=len) if carried is None \
            else carried
        self.lineage = lineage_mod.Lineage() if lineage is None else lineage
        self.number = number
        self._derived = {}
        # The rows the values kept in ``_derived`` hold.
        self._derived_rows = 0

    def rendered(self, shape, render, ids):
        """[render(shown[rp]) for rp in ids], each carried per view
        ``shape`` (what else the bytes depend on) to the versions the
        provider does not change in (``carried``)."""
        shown = self.shown
        return [part for _, part in self.carried(
            ('rendered', shape), ids, lambda rp: render(shown[rp]))]

    def carried(self, key, ids, value_of):
        """(rp, ``value_of(rp)``) of each provider of ``ids``, the values
        kept under ``key`` (what they depend on besides the provider and
        its root) for this version and those built from it: a value is
        good for a version whose Shown of the provider and of its root
        are those it was made with, since a change touching either shows
        it anew (``_shown``).  Past CARRIED_ROWS_PER_PROVIDER as a read
        starts, the keys used longest ago are dropped."""
        kept = self._carrying(key)
        shown = self.shown
        providers = self.providers
        for rp in ids:
            mine = shown[rp]
            root = shown[providers[rp].root_id]
            found = kept.get(rp)
            if found is None or found[0] is not mine or found[1] is not root:
                found = kept[rp] = (mine, root, value_of(rp))
            yield rp, found[2]

    def _carrying(self, key):
        """{provider id: (its Shown, its root's Shown, a value)} of
        ``key``, now the key used last."""
        kept = self._carried.get(key)
        if kept is None:
            kept = {}
            self._carried.keep(key, kept, CARRIED_ROWS_PER_PROVIDER * max(
                len(self.providers), 1))
        return kept

    def derived(self, key, build, rows=None, patch=None):
        """``build()``, kept under ``key`` for the life of this version
        (it never changes): readers asking alike between two writes
        build it once.  The caller's key says everything the value
        depends on besides this version; the value must not be
        changed.  ``rows(value)``: how many rows or trees it holds (1
        if not given); a version keeps DERIVED_ROWS_PER_PROVIDER per
        provider in all, and builds the others each time.  With
        ``patch``, the newest value an earlier version built is
        ``patch(value, {root of each tree touched since})``, or built
        when that is None; the lineage keeps as many rows again for
        the versions after."""
        found = self._derived.get(key)
        if found is None:
            most = DERIVED_ROWS_PER_PROVIDER * max(len(self.providers), 1)
            found = build() if patch is None else self._patched(
                key, build, patch)
            held = 1 if rows is None else rows(found)
            if patch is not None:
                self.lineage.keep(key, self.number, found, held, most)
            if self._derived_rows + held <= most:
                self._derived[key] = found
                self._derived_rows += held
        return found

    def _patched(self, key, build, patch):
        kept = self.lineage.value(key)
        if kept is None:
            return build()
        number, value = kept
        if number == self.number:
            # Built for this version, past what the version keeps itself.
            return value
        roots = self.lineage.touched_since(number, self.number)
        found = None if roots is None else patch(value, roots)
        return build() if found is None else found

    def carried_for_next(self, deleted):
        """What ``carried`` kept, for the next version, without the
        entries of the ``deleted`` providers."""
        for kept in self._carried.values():
            for rp in deleted:
                kept.pop(rp, None)
        return self._carried

    def fingerprint(self):
        """``snapshot_rows.fingerprint`` of the cloud this holds."""
        providers = self.providers.values()
        return (len(self.providers), max(self.providers, default=0),
                sum(p.generation for p in providers),
                max((p.changed for p in providers if p.changed is not None),
                    default=None),
                sum(p.root_id or 0 for p in providers),
                sum(p.parent_id or 0 for p in providers),
                sum(len(p.name) for p in providers),
                sum(used for held in self.usage.values()
                    for used in held.values()))

    def holders(self):
        """{consumer uuid: [provider id, ...] ascending} of every
        consumer, built when first asked (a what-if) and kept with the
        version."""
        def build():
            found = {}
            for rp in self.order:
                for consumer in self.holdings.get(rp, ()):
                    found.setdefault(consumer, []).append(rp)
            return found
        return self.derived(('holders',), build)

    def traits_of(self, rp):
        return self.traits.get(rp, _NONE)

    def aggregates_of(self, rp):
        return self.aggregates.get(rp, _NONE)


def _field(providers, rp, name):
    """Field ``name`` of provider ``rp``, None when there is none."""
    return getattr(providers.get(rp), name, None)


def _shown(providers, rp):
    """Provider ``rp`` as listings show it: its parent's and root's uuids
    never change, so only a provider a change touched is shown anew."""
    provider = providers[rp]
    parent = providers.get(provider.parent_id)
    root = providers.get(provider.root_id)
    return Shown(provider.uuid, provider.name, provider.generation,
                 parent and parent.uuid, root and root.uuid,
                 provider.changed)


def _read_providers(conn, ids):
    """(providers, inventories, usage, traits, aggregates, holdings) of
    ``ids`` (None: all), as the Snapshot holds them.  Equal values are
    kept once (``alike``): thousands of computes share their
    inventories, trait sets and aggregates, consumers of one flavor
    their holdings, and a snapshot's values never change."""
    alike = {}
    providers = {row.id: Provider(row.id, row.uuid, row.name, row.generation,
                                  row.parent_id, row.root_id, row.changed)
                 for row in snapshot_rows.providers(conn, ids)}
    inventories = {}
    for row in snapshot_rows.inventories(conn, ids):
        inventory = Inventory(row.total, row.reserved, row.min_unit,
                              row.max_unit, row.step_size,
                              row.allocation_ratio)
        inventories.setdefault(row.rp, {})[row.rc] = alike.setdefault(
            inventory, inventory)
    usage = {}
    for row in snapshot_rows.usage(conn, ids):
        usage.setdefault(row.rp, {})[row.rc] = int(row.used)
    held = {}
    for row in snapshot_rows.holdings(conn, ids):
        consumer = alike.setdefault(row.consumer, row.consumer)
        _, amounts = held.setdefault(row.rp, {}).setdefault(
            consumer, (row.consumer_type, {}))
        amounts[row.rc] = amounts.get(row.rc, 0) + row.used
    holdings = {}
    for rp, consumers in held.items():
        mine = holdings[rp] = {}
        for consumer, (kind, amounts) in consumers.items():
            holding = Holding(kind, tuple(sorted(amounts.items())))
            mine[consumer] = alike.setdefault(holding, holding)
    traits = {}
    for row in snapshot_rows.traits(conn, ids):
        traits.setdefault(row.rp, set()).add(row.name)
    aggregates = {}
    for row in snapshot_rows.aggregates(conn, ids):
        aggregates.setdefault(row.rp, set()).add(row.uuid)

    def kept_once(sets):
        return {rp: alike.setdefault(frozenset(values), frozenset(values))
                for rp, values in sets.items()}
    return providers, inventories, usage, kept_once(traits), \
        kept_once(aggregates), holdings


def _root_order(providers):
    return sorted(providers, key=lambda rp: (providers[rp].root_id, rp))


def load(conn):
    """The whole cloud as ``conn``'s transaction sees it."""
    parts = _read_providers(conn, None)
    providers = parts[0]
    return Snapshot(*parts, snapshot_rows.class_ids(conn),
                    snapshot_rows.trait_ids(conn),
                    frozenset(snapshot_rows.aggregate_uuids(conn)),
                    {p.uuid: rp for rp, p in providers.items()},
                    sorted(providers), _root_order(providers),
                    {rp: _shown(providers, rp) for rp in providers},
                    indexes_mod.build(parts))


def changed(conn, old, provider_ids, names):
    """``old`` with the providers of ``provider_ids`` read again (gone
    when deleted), and the names read again when ``names``."""
    fresh = _read_providers(conn, provider_ids)
    parts = []
    for before, after in zip(_parts(old), fresh):
        if all(before.get(rp) == after.get(rp) for rp in provider_ids):
            # Most writes move a generation and usage only: the other
            # parts are the old version's, not copies.
            parts.append(before)
            continue
        part = dict(before)
        for rp in provider_ids:
            part.pop(rp, None)
        part.update(after)
        parts.append(part)
    providers = parts[0]
    by_uuid, order, shown = old.by_uuid, old.order, dict(old.shown)
    root_order = old.root_order
    # A deleted provider's id may come back for a new one (SQLite takes
    # the highest id again): compare uuids, not ids.
    renamed = [rp for rp in provider_ids
               if _field(old.providers, rp, 'uuid')
               != _field(providers, rp, 'uuid')]
    if renamed:
        by_uuid = dict(by_uuid)
        for rp in renamed:
            if rp in old.providers:
                del by_uuid[old.providers[rp].uuid]
        for rp in renamed:
            if rp in providers:
                by_uuid[providers[rp].uuid] = rp
    if any((rp in old.providers) != (rp in providers) for rp in provider_ids):
        order = sorted(providers)
    if any(_field(old.providers, rp, 'root_id')
           != _field(providers, rp, 'root_id') for rp in provider_ids):
        root_order = _root_order(providers)
    for rp in provider_ids:
        if rp in providers:
            shown[rp] = _shown(providers, rp)
        else:
            shown.pop(rp, None)
    if names:
        class_ids = snapshot_rows.class_ids(conn)
        trait_ids = snapshot_rows.trait_ids(conn)
    else:
        class_ids, trait_ids = old.class_ids, old.trait_ids
    # An aggregate is made only for a provider joining it (the provider
    # is touched) and is never deleted.
    _, _, _, _, touched_aggregates, _ = fresh
    aggregate_uuids = old.aggregate_uuids
    joined = set().union(*touched_aggregates.values()) - aggregate_uuids
    if joined:
        aggregate_uuids = aggregate_uuids | joined
    found = indexes_mod.changed(old.indexes, _parts(old), parts,
                                provider_ids)
    number = old.number + 1
    # The trees a provider left or joined are touched as well as its own.
    old.lineage.record(number, None if names else frozenset(
        _field(versions, rp, 'root_id') for versions in (old.providers,
                                                         providers)
        for rp in provider_ids if rp in versions))
    return Snapshot(*parts, class_ids, trait_ids, aggregate_uuids, by_uuid,
                    order, root_order, shown, found, old.carried_for_next(
                        [rp for rp in provider_ids if rp not in providers]),
                    old.lineage, number)


def _parts(snap):
    """What ``snap`` holds per provider, as ``_read_providers`` reads
    it."""
    return (snap.providers, snap.inventories, snap.usage, snap.traits,
            snap.aggregates, snap.holdings)
