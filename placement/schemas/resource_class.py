"""JSON schemas of the resource class API."""

# Only custom classes can be created or renamed to.
CUSTOM_CLASS_NAME = {
    'type': 'string',
    'pattern': '^CUSTOM_[A-Z0-9_]+$',
    'maxLength': 255,
}

# POST /resource_classes, and the rename body of PUT before 1.7; from 1.7
# the name in the URL of PUT is validated as the same document.
RESOURCE_CLASS = {
    'type': 'object',
    'properties': {'name': CUSTOM_CLASS_NAME},
    'required': ['name'],
    'additionalProperties': False,
}
