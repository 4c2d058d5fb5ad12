"""JSON schemas for inventory bodies."""
import copy

from placement import microversions
from placement.schemas import base

# Largest value of the single-precision float column of allocation_ratio.
FLOAT_MAX = 3.40282e+38
RESOURCE_CLASS_PATTERN = '^[A-Z0-9_]+$'


def _integer(minimum):
    return {'type': 'integer', 'minimum': minimum, 'maximum': base.MAX_INT}


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
        # Any key: as upstream, a name that is no class is refused after
        # the generation check, as an unknown class.
        'inventories': {'type': 'object', 'additionalProperties': _RECORD},
    },
    'required': ['resource_provider_generation', 'inventories'],
    'additionalProperties': False,
}


# -- responses --------------------------------------------------------------

_RECORD_OUT = {
    'total': {'type': 'integer'},
    'reserved': {'type': 'integer'},
    'min_unit': {'type': 'integer'},
    'max_unit': {'type': 'integer'},
    'step_size': {'type': 'integer'},
    'allocation_ratio': {'type': 'number'},
}
INVENTORY = base.strict(dict(_RECORD_OUT,
                             resource_provider_generation=base.GENERATION))
INVENTORIES = base.strict({
    'resource_provider_generation': base.GENERATION,
    'inventories': {'type': 'object',
                    'additionalProperties': base.strict(_RECORD_OUT)},
})

OPERATIONS = {
    'get_inventories': base.Operation('List a provider\'s inventories',
                                      {200: INVENTORIES}),
    'create_inventory': base.Operation('Add one inventory',
                                       {201: INVENTORY}, body=POST_SCHEMA),
    'set_inventories': base.Operation('Replace all inventories',
                                      {200: INVENTORIES},
                                      body=PUT_ALL_SCHEMA),
    'delete_inventories': base.Operation(
        'Delete all inventories', {204: None},
        since=microversions.DELETE_INVENTORIES),
    'get_inventory': base.Operation('Show one inventory', {200: INVENTORY}),
    'update_inventory': base.Operation('Replace one inventory',
                                       {200: INVENTORY}, body=PUT_ONE_SCHEMA),
    'delete_inventory': base.Operation('Delete one inventory', {204: None}),
}
