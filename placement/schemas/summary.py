"""Schemas of GET /summary (an addition of this service)."""
from placement.schemas import base

# No parameters: anything in the query string is a mistake worth a 400.
QUERY = {'type': 'object', 'properties': {}, 'additionalProperties': False}

# -- responses --------------------------------------------------------------

_COUNT = {'type': 'integer', 'minimum': 0}
# Free space is negative where usage exceeds a lowered capacity.
_AMOUNT = {'type': 'integer'}
_PROVIDER_USE = base.strict({
    'uuid': base.UUID, 'name': {'type': 'string'},
    'resource_class': {'type': 'string'},
    'used': _COUNT, 'capacity': _AMOUNT})
# {consumer type: {'consumer_count': n, class: used}}, as GET /usages
# answers from 1.38.
_BY_TYPE = {'type': 'object', 'additionalProperties': {
    'type': 'object',
    'properties': {'consumer_count': _COUNT},
    'required': ['consumer_count'],
    'additionalProperties': _COUNT}}

SUMMARY = base.strict({
    'resource_providers': base.strict({
        'count': _COUNT, 'trees': _COUNT, 'without_inventory': _COUNT}),
    'resource_classes': {'type': 'object', 'additionalProperties':
                         base.strict({'capacity': _AMOUNT, 'used': _COUNT,
                                      'reserved': _COUNT, 'free': _AMOUNT,
                                      'providers': _COUNT})},
    'fullest_providers': {'type': 'array', 'items': _PROVIDER_USE},
    'emptiest_providers': {'type': 'array', 'items': _PROVIDER_USE},
    'providers_without_inventory': {'type': 'array', 'items': base.strict(
        {'uuid': base.UUID, 'name': {'type': 'string'}})},
    'usages_by_consumer_type': _BY_TYPE,
    'project_count': _COUNT,
    'usages_by_project': {'type': 'array', 'items': base.strict({
        'project_id': {'type': 'string'}, 'consumer_count': _COUNT,
        'usages': _BY_TYPE})},
})

OPERATIONS = {
    'get_summary': base.Operation(
        'Capacity and usage of the whole cloud in one read (an addition '
        'of this service)', {200: SUMMARY}, query=QUERY),
}
