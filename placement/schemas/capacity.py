"""Schemas of GET and POST /capacity (an addition of this service).

GET takes the query string of GET /allocation_candidates (the very
schema); POST names several shapes, each such a query, written as a
query string or as an object of its parameters.
"""
from placement.schemas import allocation_candidate
from placement.schemas import base

QUERY = allocation_candidate.QUERY

_PARAMETER = {'anyOf': [
    {'type': 'string'},
    # A parameter given more than once (member_of, required).
    {'type': 'array', 'items': {'type': 'string'}, 'minItems': 1}]}
SHAPE_NAME = base.Pattern(
    '^[^\\s/]{1,255}$',
    'a name of 1 to 255 characters without whitespace or /')
SHAPE = {'anyOf': [
    {'type': 'string', 'minLength': 1},
    {'type': 'object', 'minProperties': 1,
     'additionalProperties': _PARAMETER}]}
# The most trees ``with`` adds in all (the counts summed).
MOST_COPIES = 1000
_UUIDS = {'type': 'array', 'items': base.UUID, 'maxItems': 1000,
          'uniqueItems': True}
# What if: trees taken out, trees added like existing ones, and the
# consumers of the trees taken out placed again first (the changes are
# applied in that order, and never written).
SHAPES = base.strict({
    'shapes': {
        'type': 'object', 'minProperties': 1, 'maxProperties': 100,
        'propertyNames': {'pattern': SHAPE_NAME},
        'additionalProperties': SHAPE},
    'without': base.strict({'roots': _UUIDS, 'aggregates': _UUIDS},
                           optional=['roots', 'aggregates']),
    'with': {'type': 'array', 'minItems': 1, 'maxItems': 100,
             'items': base.strict({
                 'like': base.UUID,
                 'count': {'type': 'integer', 'minimum': 1,
                           'maximum': MOST_COPIES}})},
    'evacuate': {'type': 'boolean'},
    # N+1: each root's loss played alone (of the roots with a provider in
    # ``member_of``, if given).
    'survive': {'anyOf': [
        {'enum': ['each_root']},
        base.strict({'each_root': {'enum': [True]}, 'member_of': base.UUID},
                    optional=['member_of'])]},
    'shapes_of': {
        'type': 'object', 'maxProperties': 10000,
        'propertyNames': {'format': 'uuid'},
        'additionalProperties': SHAPE},
}, optional=['without', 'with', 'evacuate', 'survive', 'shapes_of'])

_COUNT = {'type': 'integer', 'minimum': 0}
# A root provider's uuid, or ``<uuid>#<n>``: the n-th copy ``with`` adds
# like it.
ROOT = {'anyOf': [base.UUID, {'type': 'string', 'pattern': (
    '^[0-9a-fA-F-]{36}#[1-9][0-9]*$')}]}
_AMOUNTS = {'type': 'object', 'additionalProperties': _COUNT}
SHAPE_CAPACITY = base.strict({
    'fits': _COUNT,
    'providers': {'type': 'array', 'items': base.strict({
        'uuid': ROOT, 'name': {'type': 'string'}, 'fits': _COUNT,
        'limited_by': {'type': 'array', 'items': {'type': 'string'}}})},
    # ``fits``: the shape pinned to the aggregate by member_of;
    # ``roots_fits``, where it differs: its root providers' ``fits``
    # summed.
    'aggregates': {'type': 'array', 'items': base.strict({
        'uuid': base.UUID, 'fits': _COUNT, 'roots_fits': _COUNT},
        optional=['roots_fits'])},
    # Free space within the shape's filters no further instance can use;
    # free space outside them.
    'stranded': _AMOUNTS,
    'stranded_elsewhere': _AMOUNTS})
EVACUATION = base.strict({
    'moved': _COUNT, 'nowhere': _COUNT, 'dropped': _COUNT,
    'consumers': {'type': 'object', 'additionalProperties': base.strict({
        'to': {'anyOf': [ROOT, {'type': 'null'}]},
        'by': {'enum': ['recorded', 'given']}})}})
SURVIVAL = base.strict({'failing': {'type': 'array', 'items': base.strict({
    'uuid': base.UUID, 'nowhere': {'type': 'integer', 'minimum': 1}})}})
CAPACITY = base.strict({
    'shapes': {'type': 'object', 'additionalProperties': SHAPE_CAPACITY},
    'stranded': _AMOUNTS,
    'stranded_elsewhere': _AMOUNTS,
    'evacuation': EVACUATION,
    'survive': SURVIVAL}, optional=['evacuation', 'survive'])

OPERATIONS = {
    'show_capacity': base.Operation(
        'How many more instances of one shape fit, and where (an '
        'addition of this service)', {200: SHAPE_CAPACITY}, query=QUERY),
    'count_shapes': base.Operation(
        'How many more instances of each of several shapes fit, and the '
        'free space none of them can use (an addition of this service)',
        {200: CAPACITY}, body=SHAPES),
}
