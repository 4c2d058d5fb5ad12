"""JSON schemas of allocation bodies, one per microversion step.

PUT /allocations/{consumer_uuid}: a list of provider/resources pairs before
1.8; plus project_id/user_id from 1.8; a dict keyed by provider from 1.12;
consumer_generation (and an empty dict meaning "remove") from 1.28; mappings
from 1.34; consumer_type from 1.38.  POST /allocations (1.13) and the
reshaper take a dict of such per-consumer bodies.
"""
import copy

from placement import microversions
from placement.schemas import base
from placement.schemas import inventory

# Provider and consumer UUIDs as keys of a body: upstream's pattern (its
# text is in the 400 clients see), 36 hex digits or dashes; the handlers
# refuse what passes it without being a UUID (validation.body_uuid).
UUID_PATTERN = '^[0-9a-fA-F-]{36}$'
CONSUMER_TYPE_PATTERN = '^[A-Z0-9_]+$'

_EXTERNAL_ID = {'type': 'string', 'minLength': 1, 'maxLength': 255}

RESOURCES = {
    'type': 'object',
    'minProperties': 1,
    'patternProperties': {
        inventory.RESOURCE_CLASS_PATTERN: {
            'type': 'integer', 'minimum': 1, 'maximum': base.MAX_INT},
    },
    'additionalProperties': False,
}

# Before 1.12.
_LIST_ITEM = {
    'type': 'object',
    'properties': {
        'resource_provider': {
            'type': 'object',
            'properties': {'uuid': {'type': 'string', 'format': 'uuid'}},
            'required': ['uuid'],
            'additionalProperties': False,
        },
        'resources': RESOURCES,
    },
    'required': ['resource_provider', 'resources'],
    'additionalProperties': False,
}

PUT_SCHEMA = {
    'type': 'object',
    'properties': {
        'allocations': {'type': 'array', 'minItems': 1, 'items': _LIST_ITEM},
    },
    'required': ['allocations'],
    'additionalProperties': False,
}

PUT_SCHEMA_1_8 = copy.deepcopy(PUT_SCHEMA)
PUT_SCHEMA_1_8['properties']['project_id'] = _EXTERNAL_ID
PUT_SCHEMA_1_8['properties']['user_id'] = _EXTERNAL_ID
PUT_SCHEMA_1_8['required'] += ['project_id', 'user_id']

# From 1.12 allocations are keyed by provider, as GET shows them (the
# provider generation GET adds may be sent back; it is ignored).
_BY_PROVIDER = {
    'type': 'object',
    'minProperties': 1,
    'patternProperties': {
        UUID_PATTERN: {
            'type': 'object',
            'properties': {
                'resources': RESOURCES,
                'generation': {'type': ['integer', 'null']},
            },
            'required': ['resources'],
            'additionalProperties': False,
        },
    },
    'additionalProperties': False,
}

PUT_SCHEMA_1_12 = copy.deepcopy(PUT_SCHEMA_1_8)
PUT_SCHEMA_1_12['properties']['allocations'] = _BY_PROVIDER
# 'required' last: of a missing field and an unknown one, jsonschema then
# names the unknown one first, as upstream's schema of this version does.
PUT_SCHEMA_1_12['required'] = PUT_SCHEMA_1_12.pop('required')

# From 1.28 an empty dict removes the consumer's allocations, and the
# consumer generation the client last saw (null: "a new consumer") is
# required.
PUT_SCHEMA_1_28 = copy.deepcopy(PUT_SCHEMA_1_12)
del PUT_SCHEMA_1_28['properties']['allocations']['minProperties']
PUT_SCHEMA_1_28['properties']['consumer_generation'] = {
    'type': ['integer', 'null'], 'minimum': 0, 'maximum': base.MAX_INT}
PUT_SCHEMA_1_28['required'].append('consumer_generation')

# 1.34: the mappings of an allocation candidate may be sent back; ignored.
MAPPINGS = {
    'type': 'object',
    'minProperties': 1,
    'patternProperties': {
        '^[a-zA-Z0-9_-]{0,64}$': {
            'type': 'array',
            'minItems': 1,
            'items': {'type': 'string', 'format': 'uuid'},
        },
    },
    'additionalProperties': False,
}

PUT_SCHEMA_1_34 = copy.deepcopy(PUT_SCHEMA_1_28)
PUT_SCHEMA_1_34['properties']['mappings'] = MAPPINGS

PUT_SCHEMA_1_38 = copy.deepcopy(PUT_SCHEMA_1_34)
PUT_SCHEMA_1_38['properties']['consumer_type'] = {
    'type': 'string', 'pattern': CONSUMER_TYPE_PATTERN, 'maxLength': 255}
PUT_SCHEMA_1_38['required'].append('consumer_type')

# PUT /allocations/{consumer_uuid}.
PUT = microversions.ByVersion(
    (microversions.BASE, PUT_SCHEMA),
    (microversions.CONSUMER_OWNER, PUT_SCHEMA_1_8),
    (microversions.DICT_ALLOCATIONS, PUT_SCHEMA_1_12),
    (microversions.CONSUMER_GENERATIONS, PUT_SCHEMA_1_28),
    (microversions.MAPPINGS, PUT_SCHEMA_1_34),
    (microversions.CONSUMER_TYPES, PUT_SCHEMA_1_38))


def many(consumer_schema, min_consumers=1):
    """A dict of per-consumer bodies keyed by consumer UUID."""
    consumer = copy.deepcopy(consumer_schema)
    # Every consumer of a multi-consumer write may be emptied (a move).
    consumer['properties']['allocations'].pop('minProperties', None)
    return {
        'type': 'object',
        'minProperties': min_consumers,
        'patternProperties': {UUID_PATTERN: consumer},
        'additionalProperties': False,
    }


# POST /allocations: from 1.13, each consumer's body as PUT's.
POST = microversions.ByVersion(
    (microversions.POST_ALLOCATIONS, many(PUT_SCHEMA_1_12)),
    (microversions.CONSUMER_GENERATIONS, many(PUT_SCHEMA_1_28)),
    (microversions.MAPPINGS, many(PUT_SCHEMA_1_34)),
    (microversions.CONSUMER_TYPES, many(PUT_SCHEMA_1_38)))


# -- responses --------------------------------------------------------------

def _consumer_allocations(optional_fields):
    """GET /allocations/{consumer_uuid}; the owner fields appear only when
    the consumer exists."""
    fields = {'allocations': {'type': 'object', 'additionalProperties':
                              base.strict({'generation': base.GENERATION,
                                           'resources': base.AMOUNTS})}}
    fields.update(optional_fields)
    return base.strict(fields, optional=optional_fields)


_OWNER = {'project_id': {'type': 'string'}, 'user_id': {'type': 'string'}}
_OWNER_GENERATION = dict(_OWNER, consumer_generation=base.GENERATION)
CONSUMER_ALLOCATIONS = microversions.ByVersion(
    (microversions.BASE, _consumer_allocations({})),
    (microversions.DICT_ALLOCATIONS, _consumer_allocations(_OWNER)),
    (microversions.CONSUMER_GENERATIONS,
     _consumer_allocations(_OWNER_GENERATION)),
    (microversions.CONSUMER_TYPES, _consumer_allocations(dict(
        _OWNER_GENERATION, consumer_type={'type': 'string'}))))


def _provider_allocations(entry):
    return base.strict({
        'resource_provider_generation': base.GENERATION,
        'allocations': {'type': 'object', 'additionalProperties': entry}})


PROVIDER_ALLOCATIONS = microversions.ByVersion(
    (microversions.BASE,
     _provider_allocations(base.strict({'resources': base.AMOUNTS}))),
    (microversions.CONSUMER_GENERATIONS,
     _provider_allocations(base.strict({
         'resources': base.AMOUNTS,
         'consumer_generation': {'type': ['integer', 'null']}}))))

OPERATIONS = {
    'set_allocations': base.Operation(
        'Replace the allocations of several consumers', {204: None},
        body=POST),
    'get_allocations': base.Operation('A consumer\'s allocations',
                                      {200: CONSUMER_ALLOCATIONS}),
    'set_allocations_for_consumer': base.Operation(
        'Replace a consumer\'s allocations', {204: None}, body=PUT),
    'delete_allocations': base.Operation('Delete a consumer\'s allocations',
                                         {204: None}),
    'list_for_resource_provider': base.Operation(
        'Allocations against a provider', {200: PROVIDER_ALLOCATIONS}),
}
