"""What the apps in front of the router answer: the OpenAPI document,
the metrics and the web console (``openapi.ENDPOINTS`` maps their paths
to these operations)."""
from placement import console
from placement.schemas import base

TEXT = {'type': 'string'}
OPENAPI_DOCUMENT = {
    'type': 'object',
    'properties': {'openapi': {'type': 'string'},
                   'info': {'type': 'object'},
                   'paths': {'type': 'object'}},
    'required': ['openapi', 'info', 'paths'],
}
# The console's config.json; its other files are text.
CONSOLE_CONFIG = base.strict({'auth_strategy': {'type': 'string'}})

OPERATIONS = {
    'openapi_document': base.Operation(
        'This OpenAPI document (no token needed)', {200: OPENAPI_DOCUMENT}),
    'metrics': base.Operation(
        'The Prometheus metrics, in its text format; without a token when '
        '[metrics] require_auth is false', {200: base.Content({
            'text/plain': TEXT})}),
    'console_redirect': base.Operation(
        'Redirects to /console/ (no token needed)', {301: None},
        versioned=False),
    'console_page': base.Operation(
        'The web console\'s page (no token needed)',
        {200: base.Content({'text/html': TEXT})}, versioned=False),
    'console_file': base.Operation(
        'One of the web console\'s files (no token needed)',
        {200: base.Content({
            media: CONSOLE_CONFIG if media == 'application/json' else TEXT
            for media in sorted(set(console.TYPES.values()))})},
        versioned=False),
}
