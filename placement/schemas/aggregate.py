"""JSON schemas of the provider aggregate API."""

AGGREGATE_LIST = {
    'type': 'array',
    'items': {'type': 'string', 'format': 'uuid'},
    'uniqueItems': True,
}

# Before 1.19 the body is the bare list of aggregate UUIDs.
SET_AGGREGATES_V1_1 = AGGREGATE_LIST

# From 1.19 the body names the provider generation it was computed from.
SET_AGGREGATES_V1_19 = {
    'type': 'object',
    'properties': {
        'aggregates': AGGREGATE_LIST,
        'resource_provider_generation': {'type': 'integer'},
    },
    'required': ['aggregates', 'resource_provider_generation'],
    'additionalProperties': False,
}
