"""Query string schemas of GET /usages."""
import copy

from placement import microversions
from placement.schemas import base

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
    'type': 'string', 'pattern': '^[A-Z0-9_]+$|^all|^unknown$'}

QUERY = microversions.ByVersion((microversions.USAGES, _QUERY),
                                (microversions.CONSUMER_TYPES, _QUERY_1_38))


# -- responses --------------------------------------------------------------

PROVIDER_USAGES = base.strict({'resource_provider_generation': base.GENERATION,
                               'usages': base.AMOUNTS})
# From 1.38 grouped by consumer type, each group with its consumer count.
_BY_TYPE = {'type': 'object', 'additionalProperties': {
    'type': 'object',
    'properties': {'consumer_count': {'type': 'integer', 'minimum': 0}},
    'required': ['consumer_count'],
    'additionalProperties': {'type': 'integer', 'minimum': 0}}}
USAGES = microversions.ByVersion(
    (microversions.USAGES, base.strict({'usages': base.AMOUNTS})),
    (microversions.CONSUMER_TYPES, base.strict({'usages': _BY_TYPE})))

OPERATIONS = {
    'list_usages': base.Operation('Usages of one provider',
                                  {200: PROVIDER_USAGES}),
    'get_total_usages': base.Operation('Usages of a project (or user)',
                                       {200: USAGES}, query=QUERY),
}
