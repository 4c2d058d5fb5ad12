"""Schemas of GET /summary and GET /summary/providers (additions of this
service)."""
import copy

from placement import microversions
from placement.objects import provider_page
from placement.schemas import base
from placement.schemas import resource_provider

# No parameters: anything in the query string is a mistake worth a 400.
QUERY = {'type': 'object', 'properties': {}, 'additionalProperties': False}

PAGE_SIZE = 20
_SORTS = sorted(provider_page.SORT_KEYS)


def _page_query(list_query):
    """GET /resource_providers' filters, then search, sort and paging."""
    schema = copy.deepcopy(list_query)
    schema['properties'].update({
        'q': {'type': 'string', 'maxLength': 255},
        'sort': {'enum': _SORTS + ['-' + key for key in _SORTS]},
        'offset': {'type': 'string', 'pattern': base.Pattern(
            '^[0-9]{1,9}$', 'a whole number of up to 9 digits')},
        'limit': {'type': 'string', 'pattern': base.Pattern(
            '^([1-9][0-9]?|100)$', 'a whole number from 1 to 100')},
    })
    return schema


PAGE_QUERY = microversions.ByVersion(*(
    (first, _page_query(schema))
    for first, _, schema in resource_provider.LIST_QUERY.ranges()))

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

_NAME = {'type': 'string'}
_NULLABLE_UUID = {'anyOf': [base.UUID, {'type': 'null'}]}
PAGE = base.strict({
    'count': _COUNT,
    'resource_providers': {'type': 'array', 'items': base.strict({
        'uuid': base.UUID, 'name': _NAME, 'generation': base.GENERATION,
        'parent_provider_uuid': _NULLABLE_UUID,
        'parent_provider_name': {'anyOf': [_NAME, {'type': 'null'}]},
        'root_provider_uuid': base.UUID,
        'traits': {'type': 'array', 'items': _NAME},
        'inventories': {'type': 'object', 'additionalProperties':
                        base.strict({'total': _COUNT, 'reserved': _COUNT,
                                     'allocation_ratio': {'type': 'number'},
                                     'capacity': _AMOUNT,
                                     'used': _COUNT})}})},
})

OPERATIONS = {
    'get_summary': base.Operation(
        'Capacity and usage of the whole cloud in one read (an addition '
        'of this service)', {200: SUMMARY}, query=QUERY),
    'list_provider_page': base.Operation(
        'A page of the provider list, filtered as GET /resource_providers '
        'filters, with traits and usage (an addition of this service)',
        {200: PAGE}, query=PAGE_QUERY),
}
