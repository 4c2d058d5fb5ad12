"""Alembic environment of this service's own history: its tables
(placement/data/own_tables.py) under their own version table, so that
upstream's history and ``alembic_version`` stay as upstream left them."""
from alembic import context

from placement.data import own_tables

VERSION_TABLE = 'placement_own_version'

connection = context.config.attributes['connection']
context.configure(connection=connection,
                  target_metadata=own_tables.metadata,
                  version_table=VERSION_TABLE,
                  render_as_batch=connection.dialect.name == 'sqlite')
with context.begin_transaction():
    context.run_migrations()
