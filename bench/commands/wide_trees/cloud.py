"""The data sets of ``bench/run wide-trees`` (wide trees, flat and nested
clouds), their queries, and how they are written into a new database."""
import uuid as uuidlib

import sqlalchemy as sa

from placement import migration
from placement import tables
from placement.objects import bootstrap

ROOT_ASK = 'DISK_GB:20,MEMORY_MB:2048,VCPU:2'

# name: (data set, query parameters)
WIDE = [(computes, pfs, vfs, groups)
        for computes, pfs, vfs, groups_list in [
            (2, 8, 8, (2, 4, 6)), (1, 8, 1, (8,)), (1, 21, 1, (8, 16, 21)),
            (1, 64, 1, (32,))]
        for groups in groups_list]


def wide_query(groups, limit, policy='none'):
    params = [('resources', ROOT_ASK)]
    params += [('resources%d' % g, 'CUSTOM_VF:1')
               for g in range(1, groups + 1)]
    params.append(('group_policy', policy))
    if limit is not None:
        params.append(('limit', str(limit)))
    return params


def cases(check):
    """[(name, data set, params, timed)]; data sets are tuples."""
    found = []
    for computes, pfs, vfs, groups in WIDE:
        data = ('wide', computes, pfs, vfs)
        name = '%dx%dx%d, %d groups' % (computes, pfs, vfs, groups)
        found.append((name, data, wide_query(groups, 1000), True))
        found.append((name + ', limit=1', data, wide_query(groups, 1), True))
    found += [
        ('flat 1,000', ('flat', 1000), FLAT, True),
        ('flat 10,000', ('flat', 10000), FLAT, True),
        ('flat 10,000, limit=10', ('flat', 10000), FLAT + [('limit', '10')],
         True),
        ('nested 1,000', ('nested', 1000), NESTED, True),
        ('nested 1,000, limit=10', ('nested', 1000),
         NESTED + [('limit', '10')], True),
        ('flat 20,000', ('flat', 20000), FLAT, True),
        ('flat 100,000, limit=10', ('flat', 100000),
         FLAT + [('limit', '10')], True),
    ]
    if check:
        for computes, pfs, vfs, groups, policy in [
                (1, 4, 1, 3, 'none'), (1, 4, 1, 4, 'none'),
                (1, 4, 1, 5, 'none'), (1, 3, 2, 3, 'isolate'),
                (2, 2, 2, 3, 'none'), (1, 5, 1, 4, 'isolate')]:
            found.append(('check %dx%dx%d, %d groups, %s' % (
                computes, pfs, vfs, groups, policy),
                ('wide', computes, pfs, vfs),
                wide_query(groups, None, policy), False))
    return found


FLAT = [('resources', 'VCPU:1,DISK_GB:10,MEMORY_MB:256'),
        ('member_of', '{agg}'), ('required', 'HW_CPU_X86_AVX2')]
NESTED = [('resources', 'DISK_GB:10'),
          ('required', 'COMPUTE_VOLUME_MULTI_ATTACH'),
          ('resources_COMPUTE', 'VCPU:1,MEMORY_MB:256'),
          ('required_COMPUTE', 'CUSTOM_FOO'), ('resources_FPGA', 'FPGA:1'),
          ('group_policy', 'none'), ('same_subtree', '_COMPUTE,_FPGA')]
AGGREGATE = '11111111-2222-3333-4444-555555555555'


# -- data (runs under our Python) ------------------------------------------

class _Writes:
    """What ``bootstrap.sync_standard_names`` needs of a Database."""

    def __init__(self, engine):
        self.engine = engine

    def writer(self):
        return self.engine.begin()


def build(data, url):
    """Write data set ``data`` into the new, empty database at ``url``."""
    engine = sa.create_engine(url)
    migration.upgrade(engine)
    bootstrap.sync_standard_names(_Writes(engine))
    rows = {'rp': [], 'inv': [], 'trait': [], 'agg': []}
    with engine.begin() as conn:
        def rc(name):
            found = conn.execute(sa.select(tables.resource_classes.c.id).where(
                tables.resource_classes.c.name == name)).scalar()
            if found is None:
                # Custom classes take ids from 10000, as the API gives them.
                highest = conn.execute(sa.select(sa.func.max(
                    tables.resource_classes.c.id))).scalar()
                found = max(highest + 1, 10000)
                conn.execute(tables.resource_classes.insert().values(
                    id=found, name=name))
            return found

        def trait(name):
            found = conn.execute(sa.select(tables.traits.c.id).where(
                tables.traits.c.name == name)).scalar()
            if found is None:
                found = conn.execute(tables.traits.insert().values(
                    name=name)).inserted_primary_key[0]
            return found

        counter = iter(range(1, 10 ** 7))

        def provider(name, parent=None, inventory=(), traits=(), agg=None):
            rp = next(counter)
            root = rp if parent is None else rows['rp'][parent - 1]['root']
            rows['rp'].append({
                'id': rp, 'uuid': str(uuidlib.uuid5(uuidlib.NAMESPACE_DNS,
                                                    name)),
                'name': name, 'generation': 1, 'root': root,
                'parent': parent})
            for rc_id, total in inventory:
                rows['inv'].append({
                    'resource_provider_id': rp, 'resource_class_id': rc_id,
                    'total': total, 'reserved': 0, 'min_unit': 1,
                    'max_unit': total, 'step_size': 1,
                    'allocation_ratio': 1.0})
            for trait_id in traits:
                rows['trait'].append({'resource_provider_id': rp,
                                      'trait_id': trait_id})
            if agg is not None:
                rows['agg'].append({'resource_provider_id': rp,
                                    'aggregate_id': agg})
            return rp

        kind = data[0]
        vcpu, mem, disk = rc('VCPU'), rc('MEMORY_MB'), rc('DISK_GB')
        if kind == 'wide':
            _, computes, pfs, vfs = data
            vf = rc('CUSTOM_VF')
            for c in range(computes):
                cn = provider('cn%d' % c, inventory=[
                    (vcpu, 32), (mem, 65536), (disk, 2000)])
                for p in range(pfs):
                    pf = provider('cn%d_pf%d' % (c, p), parent=cn)
                    for v in range(vfs):
                        provider('cn%d_pf%d_vf%d' % (c, p, v), parent=pf,
                                 inventory=[(vf, 1)])
        elif kind == 'flat':
            agg = conn.execute(tables.placement_aggregates.insert().values(
                uuid=AGGREGATE)).inserted_primary_key[0]
            avx2 = trait('HW_CPU_X86_AVX2')
            for n in range(data[1]):
                provider('cn%d' % n, inventory=[
                    (vcpu, 32), (mem, 8192), (disk, 2000)], traits=[avx2],
                    agg=agg)
        else:
            multi = trait('COMPUTE_VOLUME_MULTI_ATTACH')
            foo = trait('CUSTOM_FOO')
            fpga, vgpu = rc('FPGA'), rc('VGPU')
            for n in range(data[1]):
                cn = provider('cn%d' % n, inventory=[(disk, 2000)],
                              traits=[multi])
                for numa in range(2):
                    node = provider('cn%d_numa%d' % (n, numa), parent=cn,
                                    inventory=[(vcpu, 16), (mem, 4096)],
                                    traits=[foo])
                    provider('cn%d_numa%d_fpga' % (n, numa), parent=node,
                             inventory=[(fpga, 1)])
                    provider('cn%d_numa%d_pgpu' % (n, numa), parent=node,
                             inventory=[(vgpu, 8)])
        rp = tables.resource_providers
        # Parents first: insert without the tree columns, then set them.
        conn.execute(rp.insert(), [
            {'id': r['id'], 'uuid': r['uuid'], 'name': r['name'],
             'generation': 1} for r in rows['rp']])
        conn.execute(rp.update().where(rp.c.id == sa.bindparam('rid'))
                     .values(root_provider_id=sa.bindparam('root'),
                             parent_provider_id=sa.bindparam('parent')),
                     [{'rid': r['id'], 'root': r['root'],
                       'parent': r['parent']} for r in rows['rp']])
        if rows['inv']:
            conn.execute(tables.inventories.insert(), rows['inv'])
        if rows['trait']:
            conn.execute(tables.resource_provider_traits.insert(),
                         rows['trait'])
        if rows['agg']:
            conn.execute(tables.resource_provider_aggregates.insert(),
                         rows['agg'])
    engine.dispose()
