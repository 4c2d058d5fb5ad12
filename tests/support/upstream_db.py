"""An upstream placement database built from the schema dump of one
(shared/reference/upstream-schema-sqlite.sql; translated for MariaDB and
PostgreSQL), stamped with upstream's head revision and given the standard
rows and a little data, the way upstream leaves it
(tests/operations/test_dropin.py).
"""
import os
import re
import uuid

import os_resource_classes
import os_traits
import sqlalchemy as sa

import support

ROOT = str(support.REPO)
# A checkout without ../shared beside it (a git worktree) names the dump.
SCHEMA_DUMP = os.environ.get('PLACEMENT_UPSTREAM_SCHEMA', os.path.join(
    ROOT, '..', 'shared', 'reference', 'upstream-schema-sqlite.sql'))
UPSTREAM_HEAD = 'a082b8bb98d0'

RP_UUID = str(uuid.uuid4())
CONSUMER_UUID = str(uuid.uuid4())
AGGREGATE_UUID = str(uuid.uuid4())
PROJECT_ID = str(uuid.uuid4())
USER_ID = str(uuid.uuid4())
TRAIT = 'HW_CPU_X86_AVX2'


def read_dump():
    """(CREATE statements, {table: row count}) from the dump."""
    with open(SCHEMA_DUMP) as f:
        text = f.read()
    counts = {name: int(count) for name, count in re.findall(
        r'^-- (\w+) rows at start: (\d+)', text, flags=re.M)}
    body = '\n'.join(line for line in text.splitlines()
                     if not line.startswith('--'))
    statements = [s.strip() for s in body.split(';') if s.strip()]
    return statements, counts


def _references(statement):
    return set(re.findall(r'REFERENCES (\w+)', statement))


def table_name(statement):
    match = re.match(r'CREATE TABLE "?(\w+)"?', statement)
    return match.group(1) if match else None


def dependency_order(statements):
    """Tables before the tables whose foreign keys name them, then the
    indexes (MariaDB and PostgreSQL check references at creation)."""
    tables = [s for s in statements if table_name(s)]
    others = [s for s in statements if not table_name(s)]
    ordered, created = [], set()
    while tables:
        ready = [s for s in tables
                 if _references(s) <= created | {table_name(s)}]
        assert ready, 'circular references in the dump'
        for statement in ready:
            ordered.append(statement)
            created.add(table_name(statement))
            tables.remove(statement)
    return ordered + others


def translate(statement, dialect):
    """The SQLite DDL of the dump, as upstream's migrations would have
    written it for ``dialect``: auto-increment ids, native types."""
    if dialect == 'sqlite':
        return statement
    statement = statement.replace('"', '')
    if dialect == 'mysql':
        statement = re.sub(r'\bid INTEGER NOT NULL,',
                           'id INTEGER NOT NULL AUTO_INCREMENT,', statement)
        if statement.startswith('CREATE TABLE'):
            statement += ' ENGINE=InnoDB DEFAULT CHARSET=utf8mb3'
    elif dialect == 'postgresql':
        statement = re.sub(r'\bid INTEGER NOT NULL,', 'id SERIAL NOT NULL,',
                           statement)
        statement = statement.replace('DATETIME',
                                      'TIMESTAMP WITHOUT TIME ZONE')
    return statement


def build(engine):
    """Creates the upstream schema, its standard rows and the data of
    _insert_data in the empty database of ``engine``."""
    statements, counts = read_dump()
    dialect = engine.dialect.name
    with engine.begin() as conn:
        if dialect == 'mysql':
            # Upstream's VCPU has id 0, which MySQL would replace by the
            # next auto-increment value.
            conn.exec_driver_sql(
                "SET SESSION sql_mode = CONCAT_WS(',', @@SESSION.sql_mode, "
                "'NO_AUTO_VALUE_ON_ZERO')")
        for statement in dependency_order(statements):
            conn.exec_driver_sql(translate(statement, dialect))
        meta = sa.MetaData()
        meta.reflect(conn)
        t = meta.tables
        conn.execute(t['alembic_version'].insert().values(
            version_num=UPSTREAM_HEAD))
        # The standard rows as upstream had them when the dump was made;
        # newer os-* releases add more, which the service adds at start.
        conn.execute(t['resource_classes'].insert(), [
            {'id': index, 'name': name} for index, name in enumerate(
                os_resource_classes.STANDARDS[:counts['resource_classes']])])
        conn.execute(t['traits'].insert(), [
            {'name': name} for name in
            sorted(os_traits.get_traits())[:counts['traits']]])
        _insert_data(conn, t)


def _insert_data(conn, t):
    """A provider with an inventory, an allocation, a trait and an
    aggregate, as upstream stores them."""
    rp_id = conn.execute(t['resource_providers'].insert().values(
        uuid=RP_UUID, name='upstream-cn1', generation=3)
    ).inserted_primary_key[0]
    conn.execute(t['resource_providers'].update().values(
        root_provider_id=rp_id))
    conn.execute(t['inventories'].insert().values(
        resource_provider_id=rp_id, resource_class_id=0, total=8,
        reserved=1, min_unit=1, max_unit=8, step_size=1,
        allocation_ratio=16.0))
    project = conn.execute(t['projects'].insert().values(
        external_id=PROJECT_ID)).inserted_primary_key[0]
    user = conn.execute(t['users'].insert().values(
        external_id=USER_ID)).inserted_primary_key[0]
    conn.execute(t['consumers'].insert().values(
        uuid=CONSUMER_UUID, project_id=project, user_id=user, generation=1))
    conn.execute(t['allocations'].insert().values(
        resource_provider_id=rp_id, consumer_id=CONSUMER_UUID,
        resource_class_id=0, used=2))
    trait_id = conn.execute(sa.select(t['traits'].c.id).where(
        t['traits'].c.name == TRAIT)).scalar_one()
    conn.execute(t['resource_provider_traits'].insert().values(
        trait_id=trait_id, resource_provider_id=rp_id))
    aggregate = conn.execute(t['placement_aggregates'].insert().values(
        uuid=AGGREGATE_UUID)).inserted_primary_key[0]
    conn.execute(t['resource_provider_aggregates'].insert().values(
        resource_provider_id=rp_id, aggregate_id=aggregate))


def schema_snapshot(engine):
    """Everything about the schema that a migration could change."""
    inspector = sa.inspect(engine)
    snapshot = {}
    for table in sorted(inspector.get_table_names()):
        snapshot[table] = {
            'columns': [(c['name'], str(c['type']), c['nullable'],
                         str(c.get('default')), c.get('autoincrement'))
                        for c in inspector.get_columns(table)],
            'primary_key': inspector.get_pk_constraint(table),
            'foreign_keys': sorted(
                repr(sorted(fk.items()))
                for fk in inspector.get_foreign_keys(table)),
            'indexes': sorted(
                (i['name'], tuple(i['column_names']), bool(i['unique']))
                for i in inspector.get_indexes(table)),
            'unique': sorted(
                (u['name'], tuple(u['column_names']))
                for u in inspector.get_unique_constraints(table)),
        }
    return snapshot
