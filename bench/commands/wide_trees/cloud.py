"""The data sets of ``bench/run wide-trees`` (wide trees, flat and nested
clouds), their queries, and how they are written into a new database."""
import uuid as uuidlib

import sqlalchemy as sa

from placement.data import migration
from placement.objects import bootstrap

from bench.common.cloud import Rows

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
    with engine.begin() as conn:
        rows = Rows(conn)

        def provider(name, **kwargs):
            # Names give the uuids: every engine's copy has the same.
            return rows.provider(name, provider_uuid=str(uuidlib.uuid5(
                uuidlib.NAMESPACE_DNS, name)), **kwargs)

        kind = data[0]
        if kind == 'wide':
            _, computes, pfs, vfs = data
            for c in range(computes):
                cn = provider('cn%d' % c, inventory={
                    'VCPU': 32, 'MEMORY_MB': 65536, 'DISK_GB': 2000})
                for p in range(pfs):
                    pf = provider('cn%d_pf%d' % (c, p), parent=cn)
                    for v in range(vfs):
                        provider('cn%d_pf%d_vf%d' % (c, p, v), parent=pf,
                                 inventory={'CUSTOM_VF': 1})
        elif kind == 'flat':
            agg = rows.aggregate(AGGREGATE)
            for n in range(data[1]):
                provider('cn%d' % n, inventory={
                    'VCPU': 32, 'MEMORY_MB': 8192, 'DISK_GB': 2000},
                    traits=['HW_CPU_X86_AVX2'], aggregates=[agg])
        else:
            for n in range(data[1]):
                cn = provider('cn%d' % n, inventory={'DISK_GB': 2000},
                              traits=['COMPUTE_VOLUME_MULTI_ATTACH'])
                for numa in range(2):
                    node = provider('cn%d_numa%d' % (n, numa), parent=cn,
                                    inventory={'VCPU': 16, 'MEMORY_MB': 4096},
                                    traits=['CUSTOM_FOO'])
                    provider('cn%d_numa%d_fpga' % (n, numa), parent=node,
                             inventory={'FPGA': 1})
                    provider('cn%d_numa%d_pgpu' % (n, numa), parent=node,
                             inventory={'VGPU': 8})
        rows.flush()
    engine.dispose()
