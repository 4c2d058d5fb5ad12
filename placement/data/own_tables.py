"""The tables of this service's own migration history (migrations/own/).

Upstream placement knows nothing of them: they sit beside its tables,
under their own version table (``placement_own_version``), so that a
database can go back to upstream, which simply ignores them.  They have
no foreign keys to upstream's tables and no triggers on them.
"""
import sqlalchemy as sa

metadata = sa.MetaData()

# One row per resource provider a write changed, in the write's own
# transaction (data/feed.py); ``provider_id`` NULL: names changed
# (resource classes or traits).  Ids are never handed out twice, even
# once pruning deleted the newest row (readers remember the highest id):
# SQLite needs AUTOINCREMENT for that, and only on an INTEGER column.
placement_changes = sa.Table(
    'placement_changes', metadata,
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer, 'sqlite'),
              primary_key=True, autoincrement=True),
    sa.Column('provider_id', sa.Integer, nullable=True),
    sa.Column('changed_at', sa.DateTime, nullable=False),
    sa.Index('placement_changes_changed_at_idx', 'changed_at'),
    mysql_engine='InnoDB', mysql_charset='utf8mb3',
    sqlite_autoincrement=True,
)
