"""JSON schemas of GET /, the version document."""
from placement.schemas import base

VERSIONS = base.strict({'versions': {
    'type': 'array',
    'items': base.strict({
        'id': {'type': 'string'},
        'min_version': {'type': 'string'},
        'max_version': {'type': 'string'},
        'status': {'type': 'string'},
        'links': base.LINKS,
    }),
}})

OPERATIONS = {
    'home': base.Operation('The API versions (no token needed)',
                           {200: VERSIONS}),
}
