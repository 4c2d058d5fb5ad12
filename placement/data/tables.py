"""The database schema, as SQLAlchemy Core tables.

Table, column, constraint and index names match an upstream placement
database at its newest migration, so an existing database is served as it
is and the migrations here produce the same shape on a fresh one.
"""
import sqlalchemy as sa

metadata = sa.MetaData()


def _timestamps():
    return [sa.Column('created_at', sa.DateTime),
            sa.Column('updated_at', sa.DateTime)]


resource_providers = sa.Table(
    'resource_providers', metadata,
    *_timestamps(),
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('uuid', sa.String(36), nullable=False),
    sa.Column('name', sa.Unicode(200)),
    sa.Column('generation', sa.Integer),
    sa.Column('root_provider_id', sa.Integer,
              sa.ForeignKey('resource_providers.id')),
    sa.Column('parent_provider_id', sa.Integer,
              sa.ForeignKey('resource_providers.id')),
    sa.UniqueConstraint('name', name='uniq_resource_providers0name'),
    sa.UniqueConstraint('uuid', name='uniq_resource_providers0uuid'),
    sa.Index('resource_providers_parent_provider_id_idx',
             'parent_provider_id'),
    sa.Index('resource_providers_root_provider_id_idx', 'root_provider_id'),
)

inventories = sa.Table(
    'inventories', metadata,
    *_timestamps(),
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('resource_provider_id', sa.Integer, nullable=False),
    sa.Column('resource_class_id', sa.Integer, nullable=False),
    sa.Column('total', sa.Integer, nullable=False),
    sa.Column('reserved', sa.Integer, nullable=False),
    sa.Column('min_unit', sa.Integer, nullable=False),
    sa.Column('max_unit', sa.Integer, nullable=False),
    sa.Column('step_size', sa.Integer, nullable=False),
    sa.Column('allocation_ratio', sa.Float, nullable=False),
    sa.UniqueConstraint('resource_provider_id', 'resource_class_id',
                        name='uniq_inventories0resource_provider_resource_class'),
    sa.Index('inventories_resource_class_id_idx', 'resource_class_id'),
)

allocations = sa.Table(
    'allocations', metadata,
    *_timestamps(),
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('resource_provider_id', sa.Integer, nullable=False),
    sa.Column('consumer_id', sa.String(36), nullable=False),
    sa.Column('resource_class_id', sa.Integer, nullable=False),
    sa.Column('used', sa.Integer, nullable=False),
    sa.Index('allocations_resource_provider_class_used_idx',
             'resource_provider_id', 'resource_class_id', 'used'),
    sa.Index('allocations_resource_class_id_idx', 'resource_class_id'),
    sa.Index('allocations_consumer_id_idx', 'consumer_id'),
)

resource_classes = sa.Table(
    'resource_classes', metadata,
    *_timestamps(),
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('name', sa.String(255), nullable=False),
    sa.UniqueConstraint('name', name='uniq_resource_classes0name'),
)

traits = sa.Table(
    'traits', metadata,
    *_timestamps(),
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('name', sa.Unicode(255), nullable=False),
    sa.UniqueConstraint('name', name='uniq_traits0name'),
)

resource_provider_traits = sa.Table(
    'resource_provider_traits', metadata,
    *_timestamps(),
    sa.Column('trait_id', sa.Integer, sa.ForeignKey('traits.id'),
              primary_key=True, nullable=False),
    sa.Column('resource_provider_id', sa.Integer,
              sa.ForeignKey('resource_providers.id'),
              primary_key=True, nullable=False),
    sa.Index('resource_provider_traits_resource_provider_trait_idx',
             'resource_provider_id', 'trait_id'),
)

placement_aggregates = sa.Table(
    'placement_aggregates', metadata,
    *_timestamps(),
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('uuid', sa.String(36)),
    sa.UniqueConstraint('uuid', name='uniq_placement_aggregates0uuid'),
)

resource_provider_aggregates = sa.Table(
    'resource_provider_aggregates', metadata,
    *_timestamps(),
    sa.Column('resource_provider_id', sa.Integer, primary_key=True,
              nullable=False),
    sa.Column('aggregate_id', sa.Integer, primary_key=True, nullable=False),
    sa.Index('resource_provider_aggregates_aggregate_id_idx', 'aggregate_id'),
)

projects = sa.Table(
    'projects', metadata,
    *_timestamps(),
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('external_id', sa.String(255), nullable=False),
    sa.UniqueConstraint('external_id', name='uniq_projects0external_id'),
)

users = sa.Table(
    'users', metadata,
    *_timestamps(),
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('external_id', sa.String(255), nullable=False),
    sa.UniqueConstraint('external_id', name='uniq_users0external_id'),
)

consumer_types = sa.Table(
    'consumer_types', metadata,
    *_timestamps(),
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('name', sa.Unicode(255), nullable=False),
    sa.UniqueConstraint('name', name='uniq_consumer_types0name'),
)

consumers = sa.Table(
    'consumers', metadata,
    *_timestamps(),
    sa.Column('id', sa.Integer, primary_key=True, autoincrement=True),
    sa.Column('uuid', sa.String(36), nullable=False),
    sa.Column('project_id', sa.Integer, nullable=False),
    sa.Column('user_id', sa.Integer, nullable=False),
    sa.Column('generation', sa.Integer, nullable=False, server_default='0',
              default=0),
    sa.Column('consumer_type_id', sa.Integer,
              sa.ForeignKey('consumer_types.id',
                            name='consumers_consumer_type_id_fkey')),
    sa.UniqueConstraint('uuid', name='uniq_consumers0uuid'),
    sa.Index('consumers_project_id_uuid_idx', 'project_id', 'uuid'),
    sa.Index('consumers_project_id_user_id_uuid_idx',
             'project_id', 'user_id', 'uuid'),
    sa.Index('consumers_consumer_type_id_idx', 'consumer_type_id'),
)
