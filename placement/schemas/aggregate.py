"""JSON schemas of the provider aggregate API."""
from placement import microversions
from placement.schemas import base

AGGREGATE_LIST = {
    'type': 'array',
    'items': {'type': 'string', 'format': 'uuid'},
    'uniqueItems': True,
}

# From 1.19 the body names the provider generation it was computed from.
_SET_AGGREGATES_1_19 = {
    'type': 'object',
    'properties': {
        'aggregates': AGGREGATE_LIST,
        'resource_provider_generation': {'type': 'integer'},
    },
    'required': ['aggregates', 'resource_provider_generation'],
    'additionalProperties': False,
}

# PUT .../aggregates: before 1.19 the bare list of aggregate UUIDs.
SET_AGGREGATES = microversions.ByVersion(
    (microversions.AGGREGATES, AGGREGATE_LIST),
    (microversions.AGGREGATES_GENERATION, _SET_AGGREGATES_1_19))


# -- responses --------------------------------------------------------------

AGGREGATES = microversions.ByVersion(
    (microversions.AGGREGATES, base.strict({'aggregates': AGGREGATE_LIST})),
    (microversions.AGGREGATES_GENERATION, base.strict({
        'aggregates': AGGREGATE_LIST,
        'resource_provider_generation': base.GENERATION})))

OPERATIONS = {
    'get_aggregates': base.Operation('A provider\'s aggregates',
                                     {200: AGGREGATES}),
    'set_aggregates': base.Operation('Replace a provider\'s aggregates',
                                     {200: AGGREGATES}, body=SET_AGGREGATES),
}
