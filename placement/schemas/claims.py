"""Schemas of POST /claims (an addition of this service): one shape,
as POST /capacity takes a shape, for each of 1 to 1,000 consumers,
named as PUT /allocations names its consumer."""
from placement import microversions
from placement.schemas import allocation
from placement.schemas import base
from placement.schemas import capacity

MAX_CONSUMERS = 1000
MAX_ALTERNATES = 10
ROOTS = ('any', 'distinct', 'same')
ORDERS = ('default', 'spread', 'pack')

_CONSUMER_UUID = base.Pattern(allocation.UUID_PATTERN,
                              'a UUID (36 hex digits and dashes)')
_CONSUMER_TYPE = base.Pattern(allocation.CONSUMER_TYPE_PATTERN,
                              'upper case letters, digits and _')
_EXTERNAL_ID = {'type': 'string', 'minLength': 1, 'maxLength': 255}
_GENERATION = {'type': ['integer', 'null'], 'minimum': 0,
               'maximum': base.MAX_INT}
_CONSUMER = base.strict({'project_id': _EXTERNAL_ID,
                         'user_id': _EXTERNAL_ID,
                         'consumer_generation': _GENERATION})
_TYPED_CONSUMER = base.strict({
    **_CONSUMER['properties'],
    'consumer_type': {'type': 'string', 'pattern': _CONSUMER_TYPE,
                      'maxLength': 255}})


def _claim(consumer):
    return base.strict({
        'shape': capacity.SHAPES['properties']['shapes'][
            'additionalProperties'],
        'consumers': {'type': 'object', 'minProperties': 1,
                      'maxProperties': MAX_CONSUMERS,
                      'propertyNames': {'pattern': _CONSUMER_UUID},
                      'additionalProperties': consumer},
        'roots': {'enum': list(ROOTS)},
        'order': {'enum': list(ORDERS)},
        'alternates': {'type': 'integer', 'minimum': 0,
                       'maximum': MAX_ALTERNATES}},
        optional=['roots', 'order', 'alternates'])


CLAIM = microversions.ByVersion(
    (microversions.CONSUMER_GENERATIONS, _claim(_CONSUMER)),
    (microversions.CONSUMER_TYPES, _claim(_TYPED_CONSUMER)))

_RESOURCES = {'type': 'object', 'additionalProperties': {
    'type': 'object', 'properties': {'resources': base.AMOUNTS},
    'required': ['resources'], 'additionalProperties': False}}
_ALLOCATION_REQUEST = base.strict({
    'allocations': _RESOURCES,
    'mappings': {'type': 'object', 'additionalProperties': {
        'type': 'array', 'items': base.UUID}}}, optional=['mappings'])
CLAIMED = base.strict({
    'allocations': {'type': 'object', 'additionalProperties': base.strict({
        'allocations': _RESOURCES,
        'consumer_generation': base.GENERATION,
        'root': base.UUID})},
    'alternates': {'type': 'object', 'additionalProperties': {
        'type': 'array', 'items': _ALLOCATION_REQUEST}}})

OPERATIONS = {
    'claim': base.Operation(
        'Choose and write the allocations of one or more consumers of one '
        'shape, all or none (an addition of this service)',
        {200: CLAIMED}, body=CLAIM),
}
