"""JSON schemas of the trait API."""

# A trait name as stored: what the provider-trait APIs accept.
TRAIT_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255}

# Only custom traits may be created through the API.
CUSTOM_TRAIT_NAME = dict(TRAIT_NAME, pattern='^CUSTOM_[A-Z0-9_]+$')

LIST_TRAITS_QUERY = {
    'type': 'object',
    'properties': {
        'name': {'type': 'string'},
        'associated': {'type': 'string'},
    },
    'additionalProperties': False,
}

SET_PROVIDER_TRAITS = {
    'type': 'object',
    'properties': {
        'traits': {'type': 'array', 'items': TRAIT_NAME},
        'resource_provider_generation': {'type': 'integer'},
    },
    'required': ['traits', 'resource_provider_generation'],
    'additionalProperties': False,
}
