"""JSON schemas of POST /reshaper (1.30)."""
from placement.schemas import allocation
from placement.schemas import inventory


def _schema(consumer_schema):
    return {
        'type': 'object',
        'properties': {
            # Each provider's complete new inventory, as PUT .../inventories.
            'inventories': {
                'type': 'object',
                'minProperties': 1,
                'patternProperties': {
                    allocation.UUID_PATTERN: inventory.PUT_ALL_SCHEMA},
                'additionalProperties': False,
            },
            # Consumers not named keep their allocations, so this may be {}.
            'allocations': allocation.many(consumer_schema, min_consumers=0),
        },
        'required': ['inventories', 'allocations'],
        'additionalProperties': False,
    }


# (first version, schema), newest first; consumers as in PUT /allocations.
_SCHEMAS = [((1, 38), _schema(allocation.PUT_SCHEMA_1_38)),
            ((1, 34), _schema(allocation.PUT_SCHEMA_1_34)),
            ((1, 30), _schema(allocation.PUT_SCHEMA_1_28))]


def post_schema(version):
    return next(s for v, s in _SCHEMAS if version >= v)
