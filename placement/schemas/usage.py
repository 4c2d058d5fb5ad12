"""Query string schemas of GET /usages."""
import copy

_EXTERNAL_ID = {'type': 'string', 'minLength': 1, 'maxLength': 255}

QUERY = {
    'type': 'object',
    'properties': {
        'project_id': _EXTERNAL_ID,
        'user_id': _EXTERNAL_ID,
    },
    'required': ['project_id'],
    'additionalProperties': False,
}

# 1.38: filter by consumer type; besides type names, "all" and "unknown".
QUERY_1_38 = copy.deepcopy(QUERY)
QUERY_1_38['properties']['consumer_type'] = {
    'type': 'string', 'minLength': 1, 'maxLength': 255}
