"""JSON schemas of the trait API."""

from placement.schemas import base

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


# -- responses --------------------------------------------------------------

TRAITS = base.strict({'traits': {'type': 'array', 'items': TRAIT_NAME}})
PROVIDER_TRAITS = base.strict({
    'traits': {'type': 'array', 'items': TRAIT_NAME},
    'resource_provider_generation': base.GENERATION})

OPERATIONS = {
    'list_traits': base.Operation('List traits', {200: TRAITS},
                                  query=LIST_TRAITS_QUERY),
    'get_trait': base.Operation('Whether a trait exists', {204: None}),
    'put_trait': base.Operation('Create a custom trait',
                                {201: None, 204: None},
                                path={'name': CUSTOM_TRAIT_NAME}),
    'delete_trait': base.Operation('Delete a custom trait', {204: None}),
    'list_traits_for_resource_provider': base.Operation(
        'A provider\'s traits', {200: PROVIDER_TRAITS}),
    'update_traits_for_resource_provider': base.Operation(
        'Replace a provider\'s traits', {200: PROVIDER_TRAITS},
        body=SET_PROVIDER_TRAITS),
    'delete_traits_for_resource_provider': base.Operation(
        'Remove all traits of a provider', {204: None}),
}
