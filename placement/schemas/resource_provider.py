"""JSON schemas for resource provider bodies and list query strings."""
import copy

_UUID = {'type': 'string', 'format': 'uuid'}

POST_SCHEMA = {
    'type': 'object',
    'properties': {
        'name': {'type': 'string', 'maxLength': 200},
        'uuid': _UUID,
    },
    'required': ['name'],
    'additionalProperties': False,
}

# 1.14: providers may be nested.
POST_SCHEMA_1_14 = copy.deepcopy(POST_SCHEMA)
POST_SCHEMA_1_14['properties']['parent_provider_uuid'] = {
    'anyOf': [_UUID, {'type': 'null'}]}

# The UUID of a provider never changes.
PUT_SCHEMA = copy.deepcopy(POST_SCHEMA)
del PUT_SCHEMA['properties']['uuid']

PUT_SCHEMA_1_14 = copy.deepcopy(POST_SCHEMA_1_14)
del PUT_SCHEMA_1_14['properties']['uuid']

# List filters, growing with the microversion.
LIST_QUERY = {
    'type': 'object',
    'properties': {
        'name': {'type': 'string', 'maxLength': 200},
        'uuid': _UUID,
    },
    'additionalProperties': False,
}

LIST_QUERY_1_3 = copy.deepcopy(LIST_QUERY)
LIST_QUERY_1_3['properties']['member_of'] = {'type': 'string'}

LIST_QUERY_1_4 = copy.deepcopy(LIST_QUERY_1_3)
LIST_QUERY_1_4['properties']['resources'] = {'type': 'string'}

LIST_QUERY_1_14 = copy.deepcopy(LIST_QUERY_1_4)
LIST_QUERY_1_14['properties']['in_tree'] = _UUID

LIST_QUERY_1_18 = copy.deepcopy(LIST_QUERY_1_14)
LIST_QUERY_1_18['properties']['required'] = {'type': 'string'}
