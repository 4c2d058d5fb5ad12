"""The read step's source in the database: its rows
(``database_rows``), and what the uses read beside them (names, the
sharing providers' reach, the summaries' places, figures and traits,
the capacity count's labels, aggregates and free space, the what-if's
trees, aggregates and consumers), each in the request's transaction.
``memory_source`` answers the same from a worker's snapshot.
"""
import sqlalchemy as sa

from placement import microversions
from placement.candidates import census
from placement.candidates import database_rows
from placement.candidates import lookup
from placement.candidates import names as names_mod
from placement.candidates import stranded
from placement.data import tables
from placement.objects import base
from placement.objects import figures

RP = tables.resource_providers
INV = tables.inventories
RPT = tables.resource_provider_traits
RPA = tables.resource_provider_aggregates
TRAITS = tables.traits
AGG = tables.placement_aggregates
ALLOC = tables.allocations
CONSUMERS = tables.consumers
TYPES = tables.consumer_types

# The sharing providers (with a trait, given later) and the roots of the
# trees with a provider in one of their aggregates.  Built once: aliases
# cost more to set up than the statement to run.
_MEMBER = RP.alias('member')
_MINE = RPA.alias('mine')
_THEIRS = RPA.alias('theirs')
_SERVED = (
    sa.select(RPT.c.resource_provider_id, _MEMBER.c.root_provider_id)
    .select_from(
        RPT.join(_MINE, _MINE.c.resource_provider_id
                 == RPT.c.resource_provider_id)
        .join(_THEIRS, _THEIRS.c.aggregate_id == _MINE.c.aggregate_id)
        .join(_MEMBER, _MEMBER.c.id == _THEIRS.c.resource_provider_id))
    .distinct())
# The providers of an answer, whose trees are summarized (built once).
_INNER = RP.alias('inner')
# The aggregates holding a provider whose root they do not hold.
_ROOT_RPA = RPA.alias('root_rpa')
_LOOSE = (
    sa.select(AGG.c.uuid).distinct()
    .select_from(RPA.join(AGG, AGG.c.id == RPA.c.aggregate_id)
                 .join(RP, RP.c.id == RPA.c.resource_provider_id))
    .where(RP.c.id != RP.c.root_provider_id, ~sa.exists().where(
        _ROOT_RPA.c.resource_provider_id == RP.c.root_provider_id,
        _ROOT_RPA.c.aggregate_id == RPA.c.aggregate_id)))
# The roots of the trees of the sharing providers.
_SHARING_ROOTS = (
    sa.select(RP.c.root_provider_id).distinct()
    .select_from(RP.join(RPT, RPT.c.resource_provider_id == RP.c.id)
                 .join(TRAITS, TRAITS.c.id == RPT.c.trait_id))
    .where(TRAITS.c.name == names_mod.SHARING_TRAIT))


class DatabaseSource:
    """The database as the read step's source, in the transaction of
    ``conn``."""

    def __init__(self, conn):
        self.conn = conn
        self.dialect = conn.dialect.name

    def names(self, query):
        return names_mod.read(self.conn, query)

    def served(self, names):
        """{sharing provider: {roots of the trees it serves}}: every tree
        with a provider in one of its aggregates."""
        found = {}
        statement = _SERVED.where(
            RPT.c.trait_id == names.trait[names_mod.SHARING_TRAIT])
        for rp, root in lookup.fetch(self.conn, statement):
            found.setdefault(rp, set()).add(root)
        return found

    def rows(self, search, plan):
        return database_rows.DatabaseRows(self.conn, search, plan)

    def kept(self, label, readings, build, rows, patch=None):
        """``build()``: nothing read in a transaction is kept beyond it
        (see MemorySource.kept)."""
        return build()

    def lost(self):
        """Whether the connection died (a read then answers 503)."""
        return self.conn.invalidated

    def census(self, search):
        """Explain's census.Census of ``search`` (a RequestSearch)."""
        return census.of_database(self.conn, search)

    # -- what the summaries read beyond the rows ---------------------------

    def places(self, version, ids):
        """{rp: (uuid, parent uuid, root uuid)} of ``ids``, and from 1.29
        of every provider of their trees, in id order (the summaries')."""
        conn = self.conn
        stmt = sa.select(RP.c.id, RP.c.uuid, RP.c.parent_provider_id,
                         RP.c.root_provider_id)
        if version >= microversions.NESTED_CANDIDATES:
            rows = lookup.rows_for(
                conn, stmt, ids, _INNER.c.id,
                lambda clause: RP.c.root_provider_id.in_(
                    sa.select(_INNER.c.root_provider_id).where(clause)))
            roots = {root for rp, _, _, root in rows if rp in ids}
            rows = [(rp, uuid, parent, root)
                    for rp, uuid, parent, root in rows if root in roots]
        else:
            rows = [(rp, uuid, parent, root) for rp, uuid, parent, root
                    in lookup.rows_for(conn, stmt, ids, RP.c.id)
                    if rp in ids]
        uuids = {rp: uuid for rp, uuid, _, _ in rows}
        return {rp: (uuid, uuids.get(parent), uuids.get(root))
                for rp, uuid, parent, root in sorted(rows)}

    def figures(self, providers, classes):
        """{rp: {rc: (capacity, used)}} of ``providers``' inventories (of
        ``classes`` when not None)."""
        stmt = sa.select(INV.c.resource_provider_id,
                         INV.c.resource_class_id, INV.c.total,
                         INV.c.reserved, INV.c.allocation_ratio,
                         figures.used(INV))
        if classes is not None:
            stmt = stmt.where(INV.c.resource_class_id.in_(classes))
        found = {rp: {} for rp in providers}
        for rp, rc, total, reserved, ratio, used in lookup.rows_for(
                self.conn, stmt, providers, INV.c.resource_provider_id):
            mine = found.get(rp)
            if mine is not None:
                mine[rc] = (figures.capacity_of(total, reserved, ratio),
                            used)
        return found

    def trait_lists(self, providers):
        """{rp: [trait name, ...]} of ``providers`` in trait id order."""
        conn = self.conn
        traits = {rp: [] for rp in providers}
        rows = lookup.rows_for(
            conn, sa.select(RPT.c.resource_provider_id, RPT.c.trait_id)
            .order_by(RPT.c.resource_provider_id, RPT.c.trait_id),
            providers, RPT.c.resource_provider_id)
        names = dict(lookup.fetch(
            conn, sa.select(TRAITS.c.id, TRAITS.c.name)
            .where(TRAITS.c.id.in_(sorted({trait for _, trait in rows})))))
        for rp, trait in rows:
            found = traits.get(rp)
            if found is not None:
                found.append(names[trait])
        return traits

    # -- what the capacity count reads beyond the rows ---------------------

    def labels(self, rps):
        """{rp: (uuid, name)} of those of the providers ``rps`` that
        exist (a what-if's copies do not)."""
        if not rps:
            return {}
        wanted = set(rps)
        return {rp: (uuid, name) for rp, uuid, name in lookup.rows_for(
            self.conn, sa.select(RP.c.id, RP.c.uuid, RP.c.name), wanted,
            RP.c.id) if rp in wanted}

    def memberships(self, rps):
        """{rp: [aggregate uuid, ...]} of the providers ``rps``."""
        found = {}
        if not rps:
            return found
        wanted = set(rps)
        for rp, uuid in lookup.rows_for(
                self.conn, sa.select(RPA.c.resource_provider_id, AGG.c.uuid)
                .select_from(RPA.join(AGG, AGG.c.id == RPA.c.aggregate_id)),
                wanted, RPA.c.resource_provider_id):
            if rp in wanted:
                found.setdefault(rp, []).append(uuid)
        return found

    def loose_aggregates(self):
        """{uuid} of the aggregates holding a provider whose root they do
        not hold."""
        return {uuid for uuid, in lookup.fetch(self.conn, _LOOSE)}

    def free_space(self, classes, scoped, changed=None):
        """stranded.free: the free space of ``classes``, in all and within
        the scopes of each key of ``scoped``, as ``changed`` says."""
        return stranded.free(self.conn, classes, scoped, changed)

    # -- what a what-if reads beyond the rows ------------------------------

    def providers_by_uuid(self, uuids):
        """{uuid: (id, root id)} of those of the providers ``uuids`` that
        exist."""
        return {uuid: (rp, root) for uuid, rp, root in self.conn.execute(
            sa.select(RP.c.uuid, RP.c.id, RP.c.root_provider_id)
            .where(RP.c.uuid.in_(sorted(set(uuids)))))}

    def aggregate_roots(self, uuids):
        """{uuid: {root of each tree with a provider in it}} of those of
        the aggregates ``uuids`` that exist (members or not)."""
        conn = self.conn
        found = dict(conn.execute(sa.select(AGG.c.id, AGG.c.uuid).where(
            AGG.c.uuid.in_(sorted(set(uuids))))).all())
        roots = {uuid: set() for uuid in found.values()}
        for aggregate, root in conn.execute(
                sa.select(RPA.c.aggregate_id, RP.c.root_provider_id)
                .distinct()
                .select_from(RPA.join(RP,
                                      RP.c.id == RPA.c.resource_provider_id))
                .where(RPA.c.aggregate_id.in_(sorted(found)))):
            roots[found[aggregate]].add(root)
        return roots

    def tree_providers(self, roots):
        """{root: [(rp, name, parent), ...] in id order} of the trees of
        ``roots``."""
        found = {}
        for chunk in base.chunks(sorted(roots)):
            for rp, root, name, parent in self.conn.execute(
                    sa.select(RP.c.id, RP.c.root_provider_id, RP.c.name,
                              RP.c.parent_provider_id)
                    .where(RP.c.root_provider_id.in_(chunk))
                    .order_by(RP.c.id)):
                found.setdefault(root, []).append((rp, name, parent))
        return found

    def last_provider_id(self):
        """The highest provider id."""
        return self.conn.execute(sa.select(sa.func.max(RP.c.id))).scalar()

    def roots(self):
        """Every root provider's id, ascending."""
        return [root for root, in lookup.fetch(self.conn, sa.select(RP.c.id)
                .where(RP.c.id == RP.c.root_provider_id).order_by(RP.c.id))]

    def sharing_roots(self):
        """{root} of the trees of the sharing providers."""
        return {root for root, in lookup.fetch(self.conn, _SHARING_ROOTS)}

    def holdings(self, roots):
        """{consumer uuid: [(rp, its root, rc, used), ...]}: every
        allocation of the consumers holding some on the trees of
        ``roots``."""
        on_trees = (sa.select(ALLOC.c.consumer_id)
                    .select_from(ALLOC.join(
                        RP, RP.c.id == ALLOC.c.resource_provider_id))
                    .where(RP.c.root_provider_id.in_(sorted(roots))))
        found = {}
        for consumer, rp, rc, used, root in self.conn.execute(
                sa.select(ALLOC.c.consumer_id, ALLOC.c.resource_provider_id,
                          ALLOC.c.resource_class_id, ALLOC.c.used,
                          RP.c.root_provider_id)
                .select_from(ALLOC.join(
                    RP, RP.c.id == ALLOC.c.resource_provider_id))
                .where(ALLOC.c.consumer_id.in_(on_trees))):
            found.setdefault(consumer, []).append((rp, root, rc, used))
        return found

    def consumers_of_type(self, uuids, name):
        """{uuid} of the consumers ``uuids`` of type ``name``."""
        found = set()
        for chunk in base.chunks(uuids):
            found.update(uuid for uuid, in self.conn.execute(
                sa.select(CONSUMERS.c.uuid)
                .select_from(CONSUMERS.join(
                    TYPES, TYPES.c.id == CONSUMERS.c.consumer_type_id))
                .where(TYPES.c.name == name, CONSUMERS.c.uuid.in_(chunk))))
        return found

    def reaches(self, providers):
        """{provider: {root of each tree with a provider in one of its
        aggregates}} of ``providers``."""
        found = {rp: set() for rp in providers}
        for chunk in base.chunks(providers):
            for rp, root in lookup.fetch(self.conn, (
                    sa.select(_MINE.c.resource_provider_id,
                              _MEMBER.c.root_provider_id).distinct()
                    .select_from(_MINE.join(
                        _THEIRS,
                        _THEIRS.c.aggregate_id == _MINE.c.aggregate_id)
                        .join(_MEMBER,
                              _MEMBER.c.id == _THEIRS.c.resource_provider_id))
                    .where(_MINE.c.resource_provider_id.in_(chunk)))):
                found[rp].add(root)
        return found

    def class_names(self):
        """{resource class id: name} of every class."""
        return base.resource_class_names(self.conn)
