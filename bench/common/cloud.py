"""The clouds the benchmarks write straight into a database (loading
10,000 providers over the API would take longer than a run).

``Rows`` is the one writer: providers with their inventories, traits,
aggregates and allocations, gathered in memory and inserted in bulk.
``Cloud`` is the mix's cloud of nova-compute nodes (flat, nested, disk
from a sharing provider), used by the mix, the swap and the weigh
commands; the other commands describe their data sets with ``Rows``.
"""
import collections
import datetime
import random
import uuid

import sqlalchemy as sa

# Tables in the order their rows go in (a row's references first).
TABLES = ('placement_aggregates', 'resource_providers', 'inventories',
          'resource_provider_traits', 'resource_provider_aggregates',
          'consumers', 'allocations')
# Custom resource classes take ids from here, as the API gives them.
FIRST_CUSTOM_CLASS = 10000
CHUNK = 5000


class Rows:
    """Rows for one database, inserted by ``flush``.

    ``conn``: a connection in a transaction.  The tables are read from
    the database itself, so that the rows fit whichever service made
    the schema (upstream's or this one's).  Providers get ids from one
    past the highest there, in the order they are described (parents
    before children)."""

    def __init__(self, conn):
        self.conn = conn
        meta = sa.MetaData()
        meta.reflect(conn, only=TABLES + ('resource_classes', 'traits'))
        self.tables = meta.tables
        self.classes = dict(conn.execute(sa.select(
            self.tables['resource_classes'].c.name,
            self.tables['resource_classes'].c.id)).all())
        self.traits = dict(conn.execute(sa.select(
            self.tables['traits'].c.name, self.tables['traits'].c.id)).all())
        self.rows = collections.defaultdict(list)
        self.roots = {}
        self.next_id = self._highest('resource_providers') + 1
        self.next_aggregate = self._highest('placement_aggregates') + 1

    def _highest(self, table):
        return self.conn.execute(sa.select(sa.func.max(
            self.tables[table].c.id))).scalar() or 0

    def resource_class(self, name):
        if name not in self.classes:
            found = max(max(self.classes.values()) + 1, FIRST_CUSTOM_CLASS)
            self.conn.execute(self.tables['resource_classes'].insert().values(
                id=found, name=name))
            self.classes[name] = found
        return self.classes[name]

    def trait(self, name):
        if name not in self.traits:
            self.traits[name] = self.conn.execute(
                self.tables['traits'].insert().values(name=name)
            ).inserted_primary_key[0]
        return self.traits[name]

    def aggregate(self, aggregate_uuid=None):
        """A new aggregate's id."""
        found = self.next_aggregate
        self.next_aggregate += 1
        self.rows['placement_aggregates'].append(
            {'id': found, 'uuid': aggregate_uuid or str(uuid.uuid4())})
        return found

    def provider(self, name, inventory=None, traits=(), aggregates=(),
                 parent=None, root=None, provider_uuid=None, generation=1):
        """A new provider's id.  ``inventory``: {class name: total or
        (total, allocation ratio, reserved)}; ``root`` defaults to the
        parent's root."""
        rp = self.next_id
        self.next_id += 1
        if root is None and parent is not None:
            root = self.roots[parent]
        self.roots[rp] = root or rp
        self.rows['resource_providers'].append({
            'id': rp, 'uuid': provider_uuid or str(uuid.uuid4()),
            'name': name, 'generation': generation,
            'root_provider_id': root or rp, 'parent_provider_id': parent})
        for class_name, amount in (inventory or {}).items():
            total, ratio, reserved = (amount if isinstance(amount, tuple)
                                      else (amount, 1.0, 0))
            self.rows['inventories'].append({
                'resource_provider_id': rp,
                'resource_class_id': self.resource_class(class_name),
                'total': total, 'reserved': reserved, 'min_unit': 1,
                'max_unit': total, 'step_size': 1,
                'allocation_ratio': ratio})
        for trait in traits:
            self.rows['resource_provider_traits'].append({
                'resource_provider_id': rp, 'trait_id': self.trait(trait)})
        for aggregate in aggregates:
            self.rows['resource_provider_aggregates'].append({
                'resource_provider_id': rp, 'aggregate_id': aggregate})
        return rp

    def consumer(self, project_id, user_id, consumer_type_id=None):
        """A new consumer's uuid (its project and user rows exist)."""
        found = str(uuid.uuid4())
        self.rows['consumers'].append({
            'uuid': found, 'project_id': project_id, 'user_id': user_id,
            'generation': 1, 'consumer_type_id': consumer_type_id})
        return found

    def allocation(self, rp, class_name, consumer, used):
        self.rows['allocations'].append({
            'resource_provider_id': rp,
            'resource_class_id': self.resource_class(class_name),
            'consumer_id': consumer, 'used': used})

    def flush(self, **columns):
        """Insert every row gathered, with ``columns`` (created_at, say)
        in every row of the tables that have them."""
        for name in TABLES:
            rows = self.rows.pop(name, [])
            table = self.tables[name]
            extra = {key: value for key, value in columns.items()
                     if key in table.c}
            for start in range(0, len(rows), CHUNK):
                self.conn.execute(table.insert().values(**extra)
                                  if extra else table.insert(),
                                  rows[start:start + CHUNK])


def analyze(conn):
    """Bring the planner's statistics up to date, as a database that grew
    over time has them (SQLite's are not kept)."""
    if conn.dialect.name == 'postgresql':
        conn.exec_driver_sql('ANALYZE')
    elif conn.dialect.name in ('mysql', 'mariadb'):
        for name in sa.inspect(conn).get_table_names():
            conn.exec_driver_sql('ANALYZE TABLE %s' % name).all()


FLAT = {'VCPU': 64, 'MEMORY_MB': 262144, 'DISK_GB': 2000}
NUMA = {'VCPU': 32, 'MEMORY_MB': 131072}
SHARED_DISK = 100000
NODES_PER_SHARING = 50


# --------------------------------------------------------------------------
# The cloud, written into the database

class Cloud:
    """Computes: [(root uuid, [tree uuids], aggregate uuid or None)]."""

    def __init__(self, computes, nested, sharing, seed=1):
        rng = random.Random(seed)
        self.kinds = []
        for _ in range(computes):
            pick = rng.random()
            self.kinds.append('nested' if pick < nested else
                              'sharing' if pick < nested + sharing else
                              'flat')
        self.computes = []
        self.aggregates = []

    def write(self, db_url):
        engine = sa.create_engine(db_url)
        with engine.begin() as conn:
            rows = Rows(conn)
            aggregate = None
            sharing_nodes = 0
            for index, kind in enumerate(self.kinds):
                name = 'compute-%06d' % index
                if kind == 'flat':
                    rp_uuid = self._provider(rows, name, FLAT,
                                             traits=['HW_CPU_X86_AVX2'])
                    self.computes.append((rp_uuid, [rp_uuid], None))
                elif kind == 'nested':
                    rp_uuid = self._provider(rows, name, {'DISK_GB': 2000})
                    root = rows.next_id - 1
                    tree = [rp_uuid]
                    for numa in range(2):
                        tree.append(self._provider(
                            rows, '%s-numa%d' % (name, numa), NUMA,
                            parent=root, traits=['HW_CPU_X86_AVX2']))
                    self.computes.append((rp_uuid, tree, None))
                else:
                    if sharing_nodes % NODES_PER_SHARING == 0:
                        aggregate_uuid = str(uuid.uuid4())
                        aggregate = (rows.aggregate(aggregate_uuid),
                                     aggregate_uuid)
                        self.aggregates.append(aggregate)
                        self._provider(
                            rows, 'shared-disk-%d' % aggregate[0],
                            {'DISK_GB': SHARED_DISK},
                            traits=['MISC_SHARES_VIA_AGGREGATE'],
                            aggregates=[aggregate[0]])
                    sharing_nodes += 1
                    inventory = dict(FLAT)
                    del inventory['DISK_GB']
                    rp_uuid = self._provider(
                        rows, name, inventory, traits=['HW_CPU_X86_AVX2'],
                        aggregates=[aggregate[0]])
                    self.computes.append((rp_uuid, [rp_uuid], aggregate[1]))
            # The API shows (and dates its answers by) created_at.
            rows.flush(created_at=datetime.datetime.now(
                datetime.timezone.utc).replace(tzinfo=None, microsecond=0))
        engine.dispose()

    @staticmethod
    def _provider(rows, name, inventory, **kwargs):
        """A new provider's uuid."""
        provider_uuid = str(uuid.uuid4())
        rows.provider(name, inventory, provider_uuid=provider_uuid,
                      generation=0, **kwargs)
        return provider_uuid
