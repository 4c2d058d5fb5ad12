"""Query-string schemas of GET /allocation_candidates, per microversion.

Keys outside the schema are rejected, so a parameter used before the
microversion that introduced it is a 400 naming the key.  From 1.25 the
group keys (``resources``, ``required``, ``member_of``, ``in_tree``) are
regex patterns with an optional group suffix: numeric until 1.32, a string
of up to 64 characters from 1.33.
"""
from placement import microversions
from placement.schemas import base

_STRING = {'type': 'string'}
# (regex, what it adds to a group key's name in words)
_NUMERIC_SUFFIX = ('([1-9][0-9]*)?', 'plus an optional group number')
_STRING_SUFFIX = ('([a-zA-Z0-9_-]{1,64})?', 'plus an optional group suffix')
_LIMIT = base.Pattern('^[1-9][0-9]*$', 'a whole number of at least 1')


def _schema(version):
    """The schema of the query string at ``version``."""
    properties = {'resources': _STRING}
    schema = {'type': 'object', 'properties': properties,
              'required': ['resources'], 'additionalProperties': False}
    if version >= microversions.CANDIDATE_LIMIT:
        properties['limit'] = {'type': 'string', 'pattern': _LIMIT}
    if version >= microversions.CANDIDATE_TRAITS:
        properties['required'] = _STRING
    if version >= microversions.CANDIDATE_MEMBER_OF:
        properties['member_of'] = _STRING
    if version >= microversions.GRANULAR_GROUPS:
        # Group keys (suffixed or not) become patterns; resources are no
        # longer required since groups may be suffixed only.
        suffix, in_words = (
            _STRING_SUFFIX if version >= microversions.STRING_SUFFIXES
            else _NUMERIC_SUFFIX)
        prefixes = ['resources', 'required', 'member_of']
        if version >= microversions.CANDIDATE_IN_TREE:
            prefixes.append('in_tree')
        for prefix in prefixes:
            properties.pop(prefix, None)
        schema['patternProperties'] = {
            base.Pattern('^%s%s$' % (prefix, suffix),
                         '%s %s' % (prefix, in_words)): _STRING
            for prefix in prefixes}
        del schema['required']
        properties['group_policy'] = {'type': 'string',
                                      'enum': ['none', 'isolate']}
    if version >= microversions.ROOT_REQUIRED:
        properties['root_required'] = _STRING
    if version >= microversions.SAME_SUBTREE:
        properties['same_subtree'] = _STRING
    return schema


QUERY = microversions.ByVersion(*(
    (version, _schema(version)) for version in (
        microversions.ALLOCATION_CANDIDATES, microversions.CANDIDATE_LIMIT,
        microversions.CANDIDATE_TRAITS, microversions.CANDIDATE_MEMBER_OF,
        microversions.GRANULAR_GROUPS, microversions.CANDIDATE_IN_TREE,
        microversions.STRING_SUFFIXES, microversions.ROOT_REQUIRED,
        microversions.SAME_SUBTREE)))


# -- responses --------------------------------------------------------------

_LIST_ALLOCATIONS = {'type': 'array', 'items': base.strict({
    'resource_provider': base.strict({'uuid': base.UUID}),
    'resources': base.AMOUNTS})}
_DICT_ALLOCATIONS = {'type': 'object', 'additionalProperties':
                     base.strict({'resources': base.AMOUNTS})}
_MAPPINGS = {'type': 'object',
             'additionalProperties': {'type': 'array', 'items': base.UUID}}
_CAPACITY = {'type': 'object', 'additionalProperties': base.strict({
    'capacity': {'type': 'integer'}, 'used': {'type': 'integer'}})}
_TRAITS = {'type': 'array', 'items': {'type': 'string'}}
_TREE = {'parent_provider_uuid': {'anyOf': [base.UUID, {'type': 'null'}]},
         'root_provider_uuid': base.UUID}


def _candidates(request, summary):
    return base.strict({
        'allocation_requests': {'type': 'array', 'items': request},
        'provider_summaries': {'type': 'object',
                               'additionalProperties': summary}})


_LIST_REQUEST = base.strict({'allocations': _LIST_ALLOCATIONS})
_DICT_REQUEST = base.strict({'allocations': _DICT_ALLOCATIONS})
_SUMMARY = base.strict({'resources': _CAPACITY})
_SUMMARY_TRAITS = base.strict({'resources': _CAPACITY, 'traits': _TRAITS})
CANDIDATES = microversions.ByVersion(
    (microversions.ALLOCATION_CANDIDATES,
     _candidates(_LIST_REQUEST, _SUMMARY)),
    (microversions.DICT_ALLOCATIONS, _candidates(_DICT_REQUEST, _SUMMARY)),
    (microversions.CANDIDATE_TRAITS,
     _candidates(_DICT_REQUEST, _SUMMARY_TRAITS)),
    (microversions.NESTED_CANDIDATES, _candidates(
        _DICT_REQUEST, base.strict(dict(
            _TREE, resources=_CAPACITY, traits=_TRAITS)))),
    (microversions.MAPPINGS, _candidates(
        base.strict({'allocations': _DICT_ALLOCATIONS,
                     'mappings': _MAPPINGS}),
        base.strict(dict(_TREE, resources=_CAPACITY, traits=_TRAITS)))))

_STEP = {
    'check': {'type': 'string'},
    'removed': {'type': 'integer', 'minimum': 0},
    'remaining': {'type': 'integer', 'minimum': 0}}
_STEPS = {'type': 'array', 'items': base.strict(_STEP)}
# A group's steps also say whether a provider failing the check may not
# serve the group (filtered) or has too little left (exhausted).
_GROUP_STEPS = {'type': 'array', 'items': base.strict({
    **_STEP, 'outcome': {'enum': ['filtered', 'exhausted']}})}
_NUMBERS = {'type': 'object', 'additionalProperties': {'type': 'number'}}
# With [placement] candidate_order spread or pack: how the answer's
# first candidates were weighed.
_WEIGHTS = base.strict({
    'order': {'enum': ['spread', 'pack']},
    'tolerance': {'type': 'number', 'minimum': 0},
    'multipliers': _NUMBERS,
    'candidates': {'type': 'array', 'items': base.strict({
        'root': base.UUID,
        'providers': {'type': 'array', 'items': base.UUID},
        'score': {'type': 'number'},
        'parts': _NUMBERS,
        'free': _NUMBERS})}})
EXPLANATION = base.strict({
    'candidates': {'type': 'integer', 'minimum': 0},
    'summary': {'type': 'string'},
    'groups': {'type': 'array', 'items': base.strict({
        'suffix': {'type': 'string'},
        'considered': {'type': 'integer', 'minimum': 0},
        'steps': _GROUP_STEPS})},
    'combination': base.strict({
        'considered': {'type': 'integer', 'minimum': 0}, 'steps': _STEPS}),
    'nearest': {'type': 'array', 'items': base.strict({
        'uuid': base.UUID, 'name': {'type': 'string'},
        'group': {'type': 'string'}, 'check': {'type': 'string'},
        'detail': {'type': 'string'}})},
    'weights': _WEIGHTS,
}, optional=('weights',))

OPERATIONS = {
    'list_allocation_candidates': base.Operation(
        'Allocation candidates for a request', {200: CANDIDATES},
        query=QUERY),
    'explain_allocation_candidates': base.Operation(
        'Why a candidates query finds what it finds (an addition of this '
        'service)', {200: EXPLANATION}, query=QUERY),
}
