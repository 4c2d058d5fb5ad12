"""Baseline: the schema of upstream placement at its newest migration.

The revision id is upstream's head, so a database that upstream placement
created and migrated is already at this service's head: ``db sync`` leaves
it alone and the service uses it as it is.

Revision ID: a082b8bb98d0
Revises:
"""
from alembic import op
import sqlalchemy as sa

revision = 'a082b8bb98d0'
down_revision = None
branch_labels = None
depends_on = None


def _table(name, *columns):
    op.create_table(name,
                    sa.Column('created_at', sa.DateTime),
                    sa.Column('updated_at', sa.DateTime),
                    *columns,
                    mysql_engine='InnoDB', mysql_charset='utf8mb3')


def _id():
    return sa.Column('id', sa.Integer, primary_key=True, autoincrement=True)


def upgrade():
    _table('resource_providers', _id(),
           sa.Column('uuid', sa.String(36), nullable=False),
           sa.Column('name', sa.Unicode(200)),
           sa.Column('generation', sa.Integer),
           sa.Column('root_provider_id', sa.Integer,
                     sa.ForeignKey('resource_providers.id')),
           sa.Column('parent_provider_id', sa.Integer,
                     sa.ForeignKey('resource_providers.id')),
           sa.UniqueConstraint('name', name='uniq_resource_providers0name'),
           sa.UniqueConstraint('uuid', name='uniq_resource_providers0uuid'))
    op.create_index('resource_providers_parent_provider_id_idx',
                    'resource_providers', ['parent_provider_id'])
    op.create_index('resource_providers_root_provider_id_idx',
                    'resource_providers', ['root_provider_id'])

    _table('inventories', _id(),
           sa.Column('resource_provider_id', sa.Integer, nullable=False),
           sa.Column('resource_class_id', sa.Integer, nullable=False),
           sa.Column('total', sa.Integer, nullable=False),
           sa.Column('reserved', sa.Integer, nullable=False),
           sa.Column('min_unit', sa.Integer, nullable=False),
           sa.Column('max_unit', sa.Integer, nullable=False),
           sa.Column('step_size', sa.Integer, nullable=False),
           sa.Column('allocation_ratio', sa.Float, nullable=False),
           sa.UniqueConstraint(
               'resource_provider_id', 'resource_class_id',
               name='uniq_inventories0resource_provider_resource_class'))
    op.create_index('inventories_resource_class_id_idx', 'inventories',
                    ['resource_class_id'])

    _table('allocations', _id(),
           sa.Column('resource_provider_id', sa.Integer, nullable=False),
           sa.Column('consumer_id', sa.String(36), nullable=False),
           sa.Column('resource_class_id', sa.Integer, nullable=False),
           sa.Column('used', sa.Integer, nullable=False))
    op.create_index('allocations_resource_provider_class_used_idx',
                    'allocations',
                    ['resource_provider_id', 'resource_class_id', 'used'])
    op.create_index('allocations_resource_class_id_idx', 'allocations',
                    ['resource_class_id'])
    op.create_index('allocations_consumer_id_idx', 'allocations',
                    ['consumer_id'])

    for name, column, length in (('resource_classes', 'name', 255),
                                 ('traits', 'name', 255),
                                 ('consumer_types', 'name', 255),
                                 ('projects', 'external_id', 255),
                                 ('users', 'external_id', 255)):
        _table(name, _id(),
               sa.Column(column, sa.Unicode(length), nullable=False),
               sa.UniqueConstraint(column, name='uniq_%s0%s' % (name, column)))

    _table('placement_aggregates', _id(),
           sa.Column('uuid', sa.String(36)),
           sa.UniqueConstraint('uuid', name='uniq_placement_aggregates0uuid'))

    _table('resource_provider_aggregates',
           sa.Column('resource_provider_id', sa.Integer, primary_key=True),
           sa.Column('aggregate_id', sa.Integer, primary_key=True))
    op.create_index('resource_provider_aggregates_aggregate_id_idx',
                    'resource_provider_aggregates', ['aggregate_id'])

    _table('resource_provider_traits',
           sa.Column('trait_id', sa.Integer, sa.ForeignKey('traits.id'),
                     primary_key=True),
           sa.Column('resource_provider_id', sa.Integer,
                     sa.ForeignKey('resource_providers.id'),
                     primary_key=True))
    op.create_index('resource_provider_traits_resource_provider_trait_idx',
                    'resource_provider_traits',
                    ['resource_provider_id', 'trait_id'])

    _table('consumers', _id(),
           sa.Column('uuid', sa.String(36), nullable=False),
           sa.Column('project_id', sa.Integer, nullable=False),
           sa.Column('user_id', sa.Integer, nullable=False),
           sa.Column('generation', sa.Integer, nullable=False,
                     server_default='0'),
           sa.Column('consumer_type_id', sa.Integer,
                     sa.ForeignKey('consumer_types.id',
                                   name='consumers_consumer_type_id_fkey')),
           sa.UniqueConstraint('uuid', name='uniq_consumers0uuid'))
    op.create_index('consumers_project_id_uuid_idx', 'consumers',
                    ['project_id', 'uuid'])
    op.create_index('consumers_project_id_user_id_uuid_idx', 'consumers',
                    ['project_id', 'user_id', 'uuid'])
    op.create_index('consumers_consumer_type_id_idx', 'consumers',
                    ['consumer_type_id'])
