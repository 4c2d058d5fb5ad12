"""JSON schemas for inventory bodies."""
import copy

from placement import util

# Largest value of the single-precision float column of allocation_ratio.
FLOAT_MAX = 3.40282e+38
RESOURCE_CLASS_PATTERN = '^[A-Z0-9_]+$'


def _integer(minimum):
    return {'type': 'integer', 'minimum': minimum, 'maximum': util.MAX_INT}


# One record as PUT to /inventories/{resource_class}.
PUT_ONE_SCHEMA = {
    'type': 'object',
    'properties': {
        'resource_provider_generation': {'type': 'integer'},
        'total': _integer(1),
        'reserved': _integer(0),
        'min_unit': _integer(1),
        'max_unit': _integer(1),
        'step_size': _integer(1),
        'allocation_ratio': {'type': 'number', 'maximum': FLOAT_MAX},
    },
    'required': ['total', 'resource_provider_generation'],
    'additionalProperties': False,
}

# One record POSTed to /inventories: names its class; a generation may be
# sent (clients and the reference fixtures do) but is not required.
POST_SCHEMA = copy.deepcopy(PUT_ONE_SCHEMA)
POST_SCHEMA['properties']['resource_class'] = {
    'type': 'string', 'pattern': RESOURCE_CLASS_PATTERN, 'maxLength': 255}
POST_SCHEMA['required'] = ['total', 'resource_class']

# A record inside the whole-inventory PUT.
_RECORD = copy.deepcopy(PUT_ONE_SCHEMA)
del _RECORD['properties']['resource_provider_generation']
_RECORD['required'] = ['total']

PUT_ALL_SCHEMA = {
    'type': 'object',
    'properties': {
        'resource_provider_generation': {'type': 'integer'},
        'inventories': {
            'type': 'object',
            'patternProperties': {RESOURCE_CLASS_PATTERN: _RECORD},
            'additionalProperties': False,
        },
    },
    'required': ['resource_provider_generation', 'inventories'],
    'additionalProperties': False,
}
