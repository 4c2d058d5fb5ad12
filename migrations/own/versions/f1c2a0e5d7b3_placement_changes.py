"""The change feed: which providers each write changed.

Revision ID: f1c2a0e5d7b3
Revises:
"""
from alembic import op
import sqlalchemy as sa

revision = 'f1c2a0e5d7b3'
down_revision = None
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'placement_changes',
        sa.Column('id', sa.BigInteger().with_variant(sa.Integer, 'sqlite'),
                  primary_key=True, autoincrement=True),
        sa.Column('provider_id', sa.Integer, nullable=True),
        sa.Column('changed_at', sa.DateTime, nullable=False),
        mysql_engine='InnoDB', mysql_charset='utf8mb3',
        sqlite_autoincrement=True)
    op.create_index('placement_changes_changed_at_idx',
                    'placement_changes', ['changed_at'])
