"""The clouds the benchmarks write straight into a database (loading
10,000 providers over the API would take longer than a run).

``Cloud``: the mix's nova-compute nodes (flat, nested, disk from a
sharing provider), used by the mix, the swap and the weigh commands.
"""
import collections
import datetime
import random
import uuid

import sqlalchemy as sa

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
        meta = sa.MetaData()
        meta.reflect(engine, only=[
            'resource_providers', 'inventories', 'resource_classes',
            'traits', 'resource_provider_traits', 'placement_aggregates',
            'resource_provider_aggregates'])
        t = meta.tables
        with engine.begin() as conn:
            rc = dict(conn.execute(sa.select(
                t['resource_classes'].c.name,
                t['resource_classes'].c.id)).all())
            traits = dict(conn.execute(sa.select(
                t['traits'].c.name, t['traits'].c.id)).all())
            start = (conn.execute(sa.select(sa.func.max(
                t['resource_providers'].c.id))).scalar() or 0) + 1
            agg_start = (conn.execute(sa.select(sa.func.max(
                t['placement_aggregates'].c.id))).scalar() or 0) + 1
            rows = collections.defaultdict(list)
            next_id = [start]
            created = datetime.datetime.now(datetime.timezone.utc).replace(
                tzinfo=None, microsecond=0)

            def provider(name, inventory, root=None, parent=None,
                         trait_names=(), aggregate=None):
                rp = next_id[0]
                next_id[0] += 1
                rp_uuid = str(uuid.uuid4())
                rows['resource_providers'].append({
                    'id': rp, 'uuid': rp_uuid, 'name': name,
                    'generation': 0, 'root_provider_id': root or rp,
                    'parent_provider_id': parent})
                for name_, total in inventory.items():
                    rows['inventories'].append({
                        'resource_provider_id': rp,
                        'resource_class_id': rc[name_], 'total': total,
                        'reserved': 0, 'min_unit': 1, 'max_unit': total,
                        'step_size': 1, 'allocation_ratio': 1.0})
                for trait in trait_names:
                    rows['resource_provider_traits'].append({
                        'resource_provider_id': rp,
                        'trait_id': traits[trait]})
                if aggregate is not None:
                    rows['resource_provider_aggregates'].append({
                        'resource_provider_id': rp,
                        'aggregate_id': aggregate[0]})
                return rp, rp_uuid

            aggregate = None
            sharing_nodes = 0
            for index, kind in enumerate(self.kinds):
                name = 'compute-%06d' % index
                if kind == 'flat':
                    rp, rp_uuid = provider(name, FLAT,
                                           trait_names=['HW_CPU_X86_AVX2'])
                    self.computes.append((rp_uuid, [rp_uuid], None))
                elif kind == 'nested':
                    rp, rp_uuid = provider(name, {'DISK_GB': 2000})
                    tree = [rp_uuid]
                    for numa in range(2):
                        tree.append(provider(
                            '%s-numa%d' % (name, numa), NUMA, root=rp,
                            parent=rp, trait_names=['HW_CPU_X86_AVX2'])[1])
                    self.computes.append((rp_uuid, tree, None))
                else:
                    if sharing_nodes % NODES_PER_SHARING == 0:
                        aggregate = (agg_start + len(self.aggregates),
                                     str(uuid.uuid4()))
                        self.aggregates.append(aggregate)
                        rows['placement_aggregates'].append(
                            {'id': aggregate[0], 'uuid': aggregate[1]})
                        provider('shared-disk-%d' % aggregate[0],
                                 {'DISK_GB': SHARED_DISK},
                                 trait_names=['MISC_SHARES_VIA_AGGREGATE'],
                                 aggregate=aggregate)
                    sharing_nodes += 1
                    inventory = dict(FLAT)
                    del inventory['DISK_GB']
                    rp, rp_uuid = provider(name, inventory,
                                           trait_names=['HW_CPU_X86_AVX2'],
                                           aggregate=aggregate)
                    self.computes.append((rp_uuid, [rp_uuid], aggregate[1]))
            for table in ('placement_aggregates', 'resource_providers',
                          'inventories', 'resource_provider_traits',
                          'resource_provider_aggregates'):
                if rows[table]:
                    # The API shows (and dates its answers by) created_at.
                    conn.execute(t[table].insert().values(
                        created_at=created), rows[table])
        engine.dispose()
