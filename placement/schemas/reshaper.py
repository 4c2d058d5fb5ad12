"""JSON schemas of POST /reshaper (1.30)."""
from placement import microversions
from placement.schemas import allocation
from placement.schemas import base
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


# Consumers as in PUT /allocations.
POST = microversions.ByVersion(
    (microversions.RESHAPER, _schema(allocation.PUT_SCHEMA_1_28)),
    (microversions.MAPPINGS, _schema(allocation.PUT_SCHEMA_1_34)),
    (microversions.CONSUMER_TYPES, _schema(allocation.PUT_SCHEMA_1_38)))


OPERATIONS = {
    'reshape': base.Operation(
        'Move inventories and allocations within provider trees',
        {204: None}, body=POST),
}
