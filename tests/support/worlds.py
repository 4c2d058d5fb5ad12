"""Candidate trees written straight into the database with SQLAlchemy
Core (providers, inventories, usage, traits, aggregates and consumers),
mirrored in Python for the tests' checks: ``World``, the ``world`` and
``w`` fixtures' value."""
import uuid

import sqlalchemy as sa

from placement.data import tables

from support import helpers


class World:
    """Providers, inventories, usages, traits and aggregates, written
    directly with SQLAlchemy Core and mirrored in Python for the checks."""

    def __init__(self, engine):
        self.engine = engine
        with engine.connect() as conn:
            self.rc_ids = dict(conn.execute(sa.select(
                tables.resource_classes.c.name,
                tables.resource_classes.c.id)).all())
            self.trait_ids = dict(conn.execute(sa.select(
                tables.traits.c.name, tables.traits.c.id)).all())
        self.next_id = 1
        self.providers = {}     # name -> dict
        self.aggs = {}          # aggregate name -> (id, uuid)
        self.consumers = {}     # uuid -> allocations (see consume)

    def clear(self):
        """Delete every provider (and what hangs off them)."""
        self.providers.clear()
        self.aggs.clear()
        self.consumers.clear()
        with self.engine.begin() as conn:
            # InnoDB checks the tree's self-references row by row.
            conn.execute(tables.resource_providers.update().values(
                root_provider_id=None, parent_provider_id=None))
            for table in (tables.allocations, tables.consumers,
                          tables.inventories,
                          tables.resource_provider_traits,
                          tables.resource_provider_aggregates,
                          tables.placement_aggregates,
                          tables.resource_providers):
                conn.execute(table.delete())

    def _trait(self, conn, name):
        if name not in self.trait_ids:
            result = conn.execute(tables.traits.insert().values(name=name))
            self.trait_ids[name] = result.inserted_primary_key[0]
        return self.trait_ids[name]

    def _resource_class(self, conn, name):
        if name not in self.rc_ids:
            rc_id = max(10000, max(self.rc_ids.values()) + 1)
            conn.execute(tables.resource_classes.insert().values(
                id=rc_id, name=name))
            self.rc_ids[name] = rc_id

    def _agg(self, conn, name):
        if name not in self.aggs:
            agg_uuid = str(uuid.uuid4())
            result = conn.execute(
                tables.placement_aggregates.insert().values(uuid=agg_uuid))
            self.aggs[name] = (result.inserted_primary_key[0], agg_uuid)
        return self.aggs[name][0]

    def add(self, name, parent=None, inventory=None, used=None, traits=(),
            aggs=()):
        """A provider.  ``inventory``: {rc: total or dict of fields};
        ``used``: {rc: amount already allocated}."""
        rp_id = self.next_id
        self.next_id += 1
        parent_info = self.providers[parent] if parent else None
        root_id = parent_info['root'] if parent_info else rp_id
        info = {'id': rp_id, 'uuid': str(uuid.uuid4()), 'name': name,
                'parent': parent, 'root': root_id, 'inventory': {},
                'used': dict(used or {}), 'traits': set(traits),
                'aggs': set(aggs)}
        with self.engine.begin() as conn:
            conn.execute(tables.resource_providers.insert().values(
                id=rp_id, uuid=info['uuid'], name=name, generation=0,
                root_provider_id=root_id,
                parent_provider_id=parent_info['id'] if parent_info
                else None))
            for rc, spec in (inventory or {}).items():
                self._resource_class(conn, rc)
                fields = {'total': spec} if isinstance(spec, int) else spec
                row = {'total': 0, 'reserved': 0, 'min_unit': 1,
                       'max_unit': fields.get('total', 0),
                       'step_size': 1, 'allocation_ratio': 1.0}
                row.update(fields)
                info['inventory'][rc] = row
                conn.execute(tables.inventories.insert().values(
                    resource_provider_id=rp_id,
                    resource_class_id=self.rc_ids[rc], **row))
            for rc, amount in info['used'].items():
                # Two allocations, so that usage really is summed.
                for part in (amount // 2, amount - amount // 2):
                    if part:
                        conn.execute(tables.allocations.insert().values(
                            resource_provider_id=rp_id,
                            resource_class_id=self.rc_ids[rc],
                            consumer_id=str(uuid.uuid4()), used=part))
            for trait in info['traits']:
                conn.execute(tables.resource_provider_traits.insert().values(
                    resource_provider_id=rp_id,
                    trait_id=self._trait(conn, trait)))
            for agg in info['aggs']:
                conn.execute(
                    tables.resource_provider_aggregates.insert().values(
                        resource_provider_id=rp_id,
                        aggregate_id=self._agg(conn, agg)))
        self.providers[name] = info
        return info['uuid']

    def _external(self, conn, table, column, value):
        """The id of the row of ``table`` whose ``column`` is ``value``
        (made if missing)."""
        found = conn.execute(sa.select(table.c.id).where(
            table.c[column] == value)).scalar()
        if found is None:
            found = conn.execute(table.insert().values(
                **{column: value})).inserted_primary_key[0]
        return found

    def consume(self, allocations, consumer_type=None, recorded=True):
        """A consumer holding ``allocations`` {provider name: {rc:
        amount}}, with its consumer row (of type ``consumer_type``, a
        name, or none) unless not ``recorded`` (allocations written before
        consumers were); its uuid."""
        consumer = str(uuid.uuid4())
        with self.engine.begin() as conn:
            if recorded:
                conn.execute(tables.consumers.insert().values(
                    uuid=consumer, generation=1,
                    project_id=self._external(conn, tables.projects,
                                              'external_id', helpers.PROJECT),
                    user_id=self._external(conn, tables.users,
                                           'external_id', helpers.USER),
                    consumer_type_id=consumer_type and self._external(
                        conn, tables.consumer_types, 'name',
                        consumer_type)))
            for name, amounts in allocations.items():
                info = self.providers[name]
                for rc, amount in amounts.items():
                    conn.execute(tables.allocations.insert().values(
                        resource_provider_id=info['id'],
                        resource_class_id=self.rc_ids[rc],
                        consumer_id=consumer, used=amount))
                    info['used'][rc] = info['used'].get(rc, 0) + amount
        self.consumers[consumer] = allocations
        return consumer

    def add_random_consumers(self, names, specs):
        """Consumers of ``random_clouds.consumer_st`` examples on the
        providers ``names`` (a provider index names one of them; classes
        a provider has no inventory of are left out); their uuids."""
        made = []
        for spec in specs:
            allocations = {}
            for index, amounts in spec['holds'].items():
                if index >= len(names):
                    continue
                inventory = self.providers[names[index]]['inventory']
                mine = {rc: amount for rc, amount in amounts.items()
                        if rc in inventory}
                if mine:
                    allocations[names[index]] = mine
            if allocations:
                made.append(self.consume(allocations, spec['type'],
                                         spec['recorded']))
        return made

    def add_random(self, specs):
        """Providers rp0, rp1, ... from ``random_clouds.provider_st``
        examples (a parent index names an earlier provider; sharing only
        for roots)."""
        names = []
        for index, spec in enumerate(specs):
            parent = spec['parent']
            parent = names[parent] if parent is not None and parent < index \
                else None
            traits = set(spec['traits'])
            if spec['sharing'] and parent is None:
                traits.add(helpers.SHARING)
            name = 'rp%d' % index
            self.add(name, parent=parent, inventory=spec['inventory'],
                     used={rc: amount for rc, amount in spec['used'].items()
                           if rc in spec['inventory']},
                     traits=traits, aggs=spec['aggs'])
            names.append(name)
        return names

    def uuid(self, name):
        return self.providers[name]['uuid']

    def name_of(self, uuid):
        return next(name for name, info in self.providers.items()
                    if info['uuid'] == uuid)
