"""JSON schemas for resource provider bodies and list query strings."""
import copy

from placement import microversions

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
        'name': {'type': 'string', 'maxLength': 200},
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
