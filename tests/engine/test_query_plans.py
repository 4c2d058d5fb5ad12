"""The candidate, provider-listing and summary statements stay linear in
the number of providers on every database.

Wall-clock time is too noisy on a shared machine, so the work a database
does is counted instead, deterministically: SQLite's virtual-machine steps
(progress handler), MariaDB's handler reads (``Handler_read%`` session
status) and PostgreSQL's rows produced or filtered out by every plan node
(``EXPLAIN ANALYZE``).  The same requests run on a data set and on one four
times as large; a plan that does per-row work proportional to the data
(e.g. MariaDB probing every member of an aggregate for each inventory row)
makes the work grow about sixteenfold and fails the test.
"""
import itertools
import json
import uuid

import sqlalchemy as sa
import webob.multidict
from urllib import parse

from placement import microversions
from placement.candidates import database_source
from placement.candidates import query
from placement.candidates import query_filters
from placement.candidates import stacks
from placement.data import tables
from placement.objects import provider_page
from placement.objects import resource_provider
from placement.objects import summary


LATEST = microversions.MAX
AGG_FLAT = str(uuid.UUID(int=1))
AGG_NESTED = str(uuid.UUID(int=2))
# Growth allowed for four times the providers: linear work plus slack for
# fixed costs that do not shrink (quadratic work grows about 16x).
MAX_GROWTH = 4 * 1.5

CANDIDATE_QUERIES = [
    # Flat compute nodes sharing disk through their aggregate.
    'resources=VCPU:1,MEMORY_MB:256,DISK_GB:10&member_of=%s'
    '&required=HW_CPU_X86_AVX2' % AGG_FLAT,
    # Nested trees: the root's aggregate counts for the unsuffixed group.
    'resources=DISK_GB:10&member_of=%s&resources_C=VCPU:1,MEMORY_MB:64'
    '&required_C=HW_CPU_X86_AVX2&resources_F=FPGA:1&same_subtree=_C,_F'
    '&group_policy=isolate&root_required=!COMPUTE_STATUS_DISABLED'
    % AGG_NESTED,
    # Forbidden aggregate and trait.
    'resources=VCPU:1&member_of=!%s&required=!COMPUTE_STATUS_DISABLED'
    % AGG_NESTED,
    # A suffixed group's own membership, any of two aggregates.
    'resources_C=VCPU:1&member_of_C=in:%s,%s&group_policy=none'
    % (AGG_FLAT, AGG_NESTED),
]


class Seeder:
    """Providers written straight into the tables, in batches."""

    def __init__(self, engine):
        # The database is shared by the tests of this module: a second
        # Seeder goes on after the providers of the first.
        self.engine = engine
        with engine.begin() as conn:
            self.next_id = 1 + (conn.execute(sa.select(
                sa.func.max(tables.resource_providers.c.id))).scalar() or 0)
            self.rc = dict(conn.execute(sa.select(
                tables.resource_classes.c.name,
                tables.resource_classes.c.id)).all())
            self.traits = dict(conn.execute(sa.select(
                tables.traits.c.name, tables.traits.c.id)).all())
            if not conn.execute(sa.select(
                    tables.placement_aggregates.c.id)).first():
                conn.execute(tables.placement_aggregates.insert(), [
                    {'id': 1, 'uuid': AGG_FLAT},
                    {'id': 2, 'uuid': AGG_NESTED}])

    def _provider(self, rows, root=None, parent=None, inventory=(),
                  traits=(), aggregate=None):
        rp = self.next_id
        self.next_id += 1
        rows['rp'].append({'id': rp, 'uuid': str(uuid.uuid4()),
                           'name': 'rp-%d' % rp, 'generation': 1,
                           'root_provider_id': root or rp,
                           'parent_provider_id': parent})
        for name, total in inventory:
            rows['inv'].append({
                'resource_provider_id': rp,
                'resource_class_id': self.rc[name], 'total': total,
                'reserved': 0, 'min_unit': 1, 'max_unit': total,
                'step_size': 1, 'allocation_ratio': 1.0})
        for name in traits:
            rows['trait'].append({'resource_provider_id': rp,
                                  'trait_id': self.traits[name]})
        if aggregate:
            rows['agg'].append({'resource_provider_id': rp,
                                'aggregate_id': aggregate})
        return rp

    def add(self, flat, trees, sharing):
        rows = {'rp': [], 'inv': [], 'trait': [], 'agg': []}
        for _ in range(flat):
            self._provider(rows, inventory=[('VCPU', 32), ('MEMORY_MB', 8192),
                                            ('DISK_GB', 100)],
                           traits=['HW_CPU_X86_AVX2'], aggregate=1)
        for _ in range(sharing):
            self._provider(rows, inventory=[('DISK_GB', 10000)],
                           traits=['MISC_SHARES_VIA_AGGREGATE'], aggregate=1)
        for _ in range(trees):
            root = self._provider(rows, inventory=[('DISK_GB', 2000)],
                                  aggregate=2)
            for _ in range(2):
                numa = self._provider(
                    rows, root=root, parent=root,
                    inventory=[('VCPU', 16), ('MEMORY_MB', 4096)],
                    traits=['HW_CPU_X86_AVX2'])
                self._provider(rows, root=root, parent=numa,
                               inventory=[('FPGA', 1)])
        with self.engine.begin() as conn:
            conn.execute(tables.resource_providers.insert(), rows['rp'])
            conn.execute(tables.inventories.insert(), rows['inv'])
            conn.execute(tables.resource_provider_traits.insert(),
                         rows['trait'])
            conn.execute(tables.resource_provider_aggregates.insert(),
                         rows['agg'])
            # Fresh statistics, as a running database has them.
            if conn.dialect.name == 'postgresql':
                conn.exec_driver_sql('ANALYZE')
            elif conn.dialect.name == 'mysql':
                for table in tables.metadata.sorted_tables:
                    conn.exec_driver_sql('ANALYZE TABLE %s' % table.name)


class WorkCounter:
    """Counts the work the database does for what runs inside ``count``."""

    def __init__(self, engine):
        self.engine = engine
        self.dialect = engine.dialect.name

    def count(self, conn, func):
        if self.dialect == 'sqlite':
            steps = [0]

            def tick():
                steps[0] += 1
                return 0
            raw = conn.connection.driver_connection
            raw.set_progress_handler(tick, 100)
            try:
                func(conn)
            finally:
                raw.set_progress_handler(None, 0)
            return steps[0]
        if self.dialect == 'mysql':
            before = self._handler_reads(conn)
            func(conn)
            return self._handler_reads(conn) - before
        statements = []

        def capture(conn, cursor, statement, parameters, context, many):
            statements.append((statement, parameters))
        sa.event.listen(self.engine, 'before_cursor_execute', capture)
        try:
            func(conn)
        finally:
            sa.event.remove(self.engine, 'before_cursor_execute', capture)
        return sum(self._pg_rows(conn, statement, parameters)
                   for statement, parameters in statements)

    @staticmethod
    def _handler_reads(conn):
        rows = conn.exec_driver_sql(
            "SHOW SESSION STATUS LIKE 'Handler_read%%'").all()
        return sum(int(value) for _, value in rows)

    @staticmethod
    def _pg_rows(conn, statement, parameters):
        plan = conn.exec_driver_sql(
            'EXPLAIN (ANALYZE, FORMAT JSON) ' + statement,
            parameters).scalar()
        if isinstance(plan, str):
            plan = json.loads(plan)

        def walk(node):
            rows = (node.get('Actual Rows', 0)
                    + node.get('Rows Removed by Filter', 0)
                    + node.get('Rows Removed by Join Filter', 0)
                    ) * node.get('Actual Loops', 1)
            return rows + sum(walk(child) for child in node.get('Plans', ()))
        return walk(plan[0]['Plan'])


def _params(query_string):
    return webob.multidict.MultiDict(parse.parse_qsl(query_string))


def _candidates(query_string, conf):
    parsed = query.parse_candidate_query(_params(query_string), LATEST)

    def run(conn):
        answer = stacks.list_candidates(
            database_source.DatabaseSource(conn), parsed, LATEST,
            conf.placement)
        assert answer.count, query_string
    return run


def _providers(conn):
    found = resource_provider.get_all(
        conn, resources={'VCPU': 1},
        traits=query_filters.required_traits(
            _params('required=HW_CPU_X86_AVX2'), LATEST),
        member_of=query_filters.member_of(_params('member_of=' + AGG_FLAT),
                                          LATEST))
    assert found


def _assert_linear(placement_db, requests, also=lambda engine: None):
    """The work of each of ``requests`` ({label: func(conn)}) grows no
    faster than the cloud; ``also`` adds to each cloud written."""
    seeder = Seeder(placement_db.engine)
    counter = WorkCounter(placement_db.engine)

    def measure():
        work = {}
        for label, func in requests.items():
            with placement_db.reader() as conn:
                func(conn)   # warm caches and plans
                work[label] = counter.count(conn, func)
        return work

    seeder.add(flat=60, trees=15, sharing=2)
    also(placement_db.engine)
    small = measure()
    # Sharing providers per aggregate do not grow with the cloud.
    seeder.add(flat=180, trees=45, sharing=0)
    also(placement_db.engine)
    large = measure()
    growth = {label: large[label] / max(small[label], 1) for label in small}
    too_fast = {label: (small[label], large[label], round(ratio, 1))
                for label, ratio in growth.items() if ratio > MAX_GROWTH}
    assert not too_fast, too_fast


def test_work_grows_linearly_with_providers(placement_db):
    conf = placement_db.conf
    requests = {qs: _candidates(qs, conf) for qs in CANDIDATE_QUERIES}
    requests['GET /resource_providers'] = _providers
    _assert_linear(placement_db, requests)


def test_limit_stops_reading_early(placement_db):
    """With a limit, the rows read for the first trees do not grow with
    the cloud: SQLite streams, MySQL and PostgreSQL read pages (ranges of
    root ids; MariaDB walks providers in root order instead of
    sorting)."""
    parsed = query.parse_candidate_query(
        _params('resources=VCPU:1,MEMORY_MB:256&limit=5'), LATEST)
    seeder = Seeder(placement_db.engine)
    counter = WorkCounter(placement_db.engine)

    def measure():
        with placement_db.reader() as conn:
            source = database_source.DatabaseSource(conn)
            reader = stacks.read(source, parsed, LATEST, stacks.LIST)
            assert len(list(itertools.islice(reader.trees(), 5))) == 5
            reader.close()
            source = database_source.DatabaseSource(conn)
            reader = stacks.read(source, parsed, LATEST, stacks.LIST)
            work = counter.count(conn, lambda conn: list(
                itertools.islice(reader.trees(), 5)))
            reader.close()
            return work

    # Not smaller: on a few hundred rows PostgreSQL scans whole tables in
    # its per-row subplans, which would hide what it reads.
    seeder.add(flat=240, trees=60, sharing=0)
    small = measure()
    seeder.add(flat=720, trees=180, sharing=0)
    large = measure()
    assert large < small * 1.5 + 50, (small, large)


def _consume_every_vcpu(engine):
    """A consumer of one VCPU on each provider with VCPU and no usage
    yet: the summary ranks providers and groups consumers by usage."""
    inv, alloc = tables.inventories, tables.allocations
    with engine.begin() as conn:
        if not conn.execute(sa.select(tables.projects.c.id)).first():
            conn.execute(tables.projects.insert(), [
                {'id': 1, 'external_id': 'project'}])
            conn.execute(tables.users.insert(), [
                {'id': 1, 'external_id': 'user'}])
        idle = conn.execute(
            sa.select(inv.c.resource_provider_id, inv.c.resource_class_id)
            .join(tables.resource_classes,
                  tables.resource_classes.c.id == inv.c.resource_class_id)
            .where(tables.resource_classes.c.name == 'VCPU',
                   ~sa.exists().where(alloc.c.resource_provider_id
                                      == inv.c.resource_provider_id))
        ).all()
        consumers = [str(uuid.uuid4()) for _ in idle]
        conn.execute(tables.consumers.insert(), [
            {'uuid': consumer, 'project_id': 1, 'user_id': 1,
             'generation': 1} for consumer in consumers])
        conn.execute(alloc.insert(), [
            {'resource_provider_id': rp, 'resource_class_id': rc,
             'consumer_id': consumer, 'used': 1}
            for (rp, rc), consumer in zip(idle, consumers)])


def test_summary_work_grows_linearly_with_providers(placement_db):
    _assert_linear(placement_db, {
        'GET /summary': summary.read,
        'GET /summary/providers': lambda conn: provider_page.read(
            conn, {'resources': {'VCPU': 1}}, 'rp-1', 'name', 0, 20),
    }, also=_consume_every_vcpu)
