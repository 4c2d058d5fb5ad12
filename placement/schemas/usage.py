"""Query string schemas of GET /usages."""
import copy

from placement import microversions

_EXTERNAL_ID = {'type': 'string', 'minLength': 1, 'maxLength': 255}

_QUERY = {
    'type': 'object',
    'properties': {
        'project_id': _EXTERNAL_ID,
        'user_id': _EXTERNAL_ID,
    },
    'required': ['project_id'],
    'additionalProperties': False,
}

# 1.38: filter by consumer type; besides type names, "all" and "unknown".
_QUERY_1_38 = copy.deepcopy(_QUERY)
_QUERY_1_38['properties']['consumer_type'] = {
    'type': 'string', 'minLength': 1, 'maxLength': 255}

QUERY = microversions.ByVersion((microversions.USAGES, _QUERY),
                                (microversions.CONSUMER_TYPES, _QUERY_1_38))
