"""JSON schemas for resource provider bodies and list query strings."""
import copy

from placement import microversions
from placement.schemas import base

_UUID = {'type': 'string', 'format': 'uuid'}

_POST = {
    'type': 'object',
    'properties': {
        'name': {'type': 'string', 'maxLength': 200},
        'uuid': _UUID,
    },
    'required': ['name'],
    'additionalProperties': False,
}

# 1.14: providers may be nested.
_POST_1_14 = copy.deepcopy(_POST)
_POST_1_14['properties']['parent_provider_uuid'] = {
    'anyOf': [_UUID, {'type': 'null'}]}

# The UUID of a provider never changes.
_PUT = copy.deepcopy(_POST)
del _PUT['properties']['uuid']

_PUT_1_14 = copy.deepcopy(_POST_1_14)
del _PUT_1_14['properties']['uuid']

POST = microversions.ByVersion((microversions.BASE, _POST),
                               (microversions.NESTED_PROVIDERS, _POST_1_14))
PUT = microversions.ByVersion((microversions.BASE, _PUT),
                              (microversions.NESTED_PROVIDERS, _PUT_1_14))

# List filters, growing with the microversion.
_LIST = {
    'type': 'object',
    'properties': {
        # No length limit: a longer name matches nothing (as upstream).
        'name': {'type': 'string'},
        'uuid': _UUID,
    },
    'additionalProperties': False,
}

_LIST_1_3 = copy.deepcopy(_LIST)
_LIST_1_3['properties']['member_of'] = {'type': 'string'}

_LIST_1_4 = copy.deepcopy(_LIST_1_3)
_LIST_1_4['properties']['resources'] = {'type': 'string'}

_LIST_1_14 = copy.deepcopy(_LIST_1_4)
_LIST_1_14['properties']['in_tree'] = _UUID

_LIST_1_18 = copy.deepcopy(_LIST_1_14)
_LIST_1_18['properties']['required'] = {'type': 'string'}

LIST_QUERY = microversions.ByVersion(
    (microversions.BASE, _LIST),
    (microversions.PROVIDER_MEMBER_OF, _LIST_1_3),
    (microversions.PROVIDER_RESOURCES, _LIST_1_4),
    (microversions.NESTED_PROVIDERS, _LIST_1_14),
    (microversions.PROVIDER_TRAITS_FILTER, _LIST_1_18))

# -- responses --------------------------------------------------------------

_PROVIDER_FIELDS = {
    'uuid': base.UUID,
    'name': {'type': 'string'},
    'generation': base.GENERATION,
    'links': base.LINKS,
}
_PROVIDER = base.strict(_PROVIDER_FIELDS)
_PROVIDER_1_14 = base.strict(dict(
    _PROVIDER_FIELDS,
    parent_provider_uuid={'anyOf': [base.UUID, {'type': 'null'}]},
    root_provider_uuid=base.UUID))
PROVIDER = microversions.ByVersion(
    (microversions.BASE, _PROVIDER),
    (microversions.NESTED_PROVIDERS, _PROVIDER_1_14))


def _listing(provider):
    return base.strict({'resource_providers': {'type': 'array',
                                               'items': provider}})


PROVIDERS = microversions.ByVersion(
    *((first, _listing(schema)) for first, _, schema in PROVIDER.ranges()))

OPERATIONS = {
    'list_resource_providers': base.Operation(
        'List providers', {200: PROVIDERS}, query=LIST_QUERY),
    'create_resource_provider': base.Operation(
        'Create a provider', microversions.ByVersion(
            (microversions.BASE, {201: None}),
            (microversions.CREATE_RETURNS_PROVIDER, {200: _PROVIDER_1_14})),
        body=POST),
    'get_resource_provider': base.Operation('Show a provider',
                                            {200: PROVIDER}),
    'update_resource_provider': base.Operation(
        'Rename or re-parent a provider', {200: PROVIDER}, body=PUT),
    'delete_resource_provider': base.Operation('Delete a provider',
                                               {204: None}),
}
