"""JSON schemas of the resource class API."""

from placement import microversions
from placement.schemas import base

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


# -- responses --------------------------------------------------------------

CLASS = base.strict({'name': {'type': 'string'}, 'links': base.LINKS})
CLASSES = base.strict({'resource_classes': {'type': 'array',
                                            'items': CLASS}})

OPERATIONS = {
    'list_resource_classes': base.Operation('List resource classes',
                                            {200: CLASSES}),
    'create_resource_class': base.Operation(
        'Create a custom resource class', {201: None}, body=RESOURCE_CLASS),
    'get_resource_class': base.Operation('Show a resource class',
                                         {200: CLASS}),
    # Before 1.7 PUT renames a class (body: the new name); from 1.7 it
    # creates the class named in the URL if it does not exist.
    'update_resource_class': base.Operation(
        'Rename (before 1.7) or create a custom class',
        microversions.ByVersion(
            (microversions.RESOURCE_CLASSES, {200: CLASS}),
            (microversions.PUT_CREATES_CLASS, {201: None, 204: None})),
        body=microversions.ByVersion(
            (microversions.RESOURCE_CLASSES, RESOURCE_CLASS),
            (microversions.PUT_CREATES_CLASS, None))),
    'delete_resource_class': base.Operation('Delete a custom class',
                                            {204: None}),
}
