"""What every resource's schemas share: response fragments, the error
document, and ``Operation``, the description of one handler that the
OpenAPI document (``placement/web/openapi.py``) is built from.

Each ``schemas/<resource>.py`` ends with ``OPERATIONS``, keyed by the name
of the handler in ``handlers/<resource>.py`` that the route map names.
"""
import collections

# Upper bound of integer fields, as upstream's database columns.
MAX_INT = 2147483647


class Pattern(str):
    """A schema's regular expression with what it accepts in words
    (``meaning``, a noun phrase): this service's own routes name that in
    their errors instead of the regex.  It is the plain string to
    everything else, so upstream's texts, which quote the schema, keep
    every byte."""

    def __new__(cls, regex, meaning):
        pattern = super().__new__(cls, regex)
        pattern.meaning = meaning
        return pattern

    def __getnewargs__(self):
        # Copies (copy.deepcopy of a schema) keep the meaning.
        return str(self), self.meaning


UUID = {'type': 'string', 'format': 'uuid'}
GENERATION = {'type': 'integer', 'minimum': 0}
# {resource class: amount}
AMOUNTS = {'type': 'object',
           'additionalProperties': {'type': 'integer', 'minimum': 0}}
LINKS = {
    'type': 'array',
    'items': {
        'type': 'object',
        'properties': {'rel': {'type': 'string'},
                       'href': {'type': 'string'}},
        'required': ['rel', 'href'],
        'additionalProperties': False,
    },
}

# The upstream error document.  ``code`` appears from 1.23 (not on
# version negotiation errors); a 406 adds the supported version range.
ERROR = {
    'type': 'object',
    'properties': {
        'errors': {
            'type': 'array',
            'minItems': 1,
            'items': {
                'type': 'object',
                'properties': {
                    'status': {'type': 'integer'},
                    'title': {'type': 'string'},
                    'detail': {'type': 'string'},
                    'request_id': {'type': ['string', 'null']},
                    'code': {'type': 'string'},
                    'min_version': {'type': 'string'},
                    'max_version': {'type': 'string'},
                },
                'required': ['status', 'title', 'detail', 'request_id'],
                'additionalProperties': False,
            },
        },
    },
    'required': ['errors'],
    'additionalProperties': False,
}


# Under keystone, keystonemiddleware answers a refused token itself, in
# its own format (as upstream placement does), and an identity service it
# cannot reach in webob's.
TOKEN_ERROR = {
    'type': 'object',
    'properties': {'error': {
        'type': 'object',
        'properties': {'code': {'type': 'integer'},
                       'title': {'type': 'string'},
                       'message': {'type': 'string'}},
        'required': ['code', 'title', 'message']}},
    'required': ['error'],
}
IDENTITY_ERROR = {
    'type': 'object',
    'properties': {'code': {'type': 'string'},
                   'title': {'type': 'string'},
                   'message': {'type': 'string'}},
    'required': ['code', 'title', 'message'],
}
ANY_ERROR = {'anyOf': [ERROR, TOKEN_ERROR, IDENTITY_ERROR]}


def strict(properties, optional=()):
    """An object schema with exactly ``properties``; all but ``optional``
    are required."""
    return {'type': 'object', 'properties': properties,
            'required': [name for name in properties if name not in optional],
            'additionalProperties': False}


class Content(dict):
    """A response body in media types other than JSON alone:
    ``{media type: schema}``."""


Operation = collections.namedtuple(
    'Operation', 'summary responses body query since path versioned',
    defaults=(None, None, None, None, True))
Operation.__doc__ = """One handler as the OpenAPI document shows it.

``responses``: ``{status: body}`` of its successful answers, where a body
is a schema (of JSON), a ``Content``, a ``microversions.ByVersion`` of
schemas, or None (no body);
a ByVersion of such dicts when the status codes themselves change.
``body`` and ``query``: the request body and query-string schemas (or
ByVersion), the very objects the handler validates with.  ``since``: the first
version the operation exists in, when its handler does not say so with
``negotiation.since``.  ``path``: ``{parameter: schema}`` of the URL
parameters the handler validates.  ``versioned``: False for an app that
answers outside the microversion negotiation (the console), whose
answers carry no ``OpenStack-API-Version``.
"""
