"""Alembic environment: runs on the connection placement-manage hands in."""
from alembic import context
import sqlalchemy as sa

from placement.data import tables

config = context.config
connection = config.attributes.get('connection')


def _run(conn):
    context.configure(connection=conn, target_metadata=tables.metadata,
                      render_as_batch=conn.dialect.name == 'sqlite')
    with context.begin_transaction():
        context.run_migrations()


if connection is not None:
    _run(connection)
else:
    engine = sa.create_engine(config.get_main_option('sqlalchemy.url'))
    with engine.connect() as conn:
        _run(conn)
