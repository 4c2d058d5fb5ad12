"""Query-string schemas of GET /allocation_candidates, per microversion.

Keys outside the schema are rejected, so a parameter used before the
microversion that introduced it is a 400 naming the key.  From 1.25 the
group keys (``resources``, ``required``, ``member_of``, ``in_tree``) are
regex patterns with an optional group suffix: numeric until 1.32, a string
of up to 64 characters from 1.33.
"""
from placement import microversions

_STRING = {'type': 'string'}
_NUMERIC_SUFFIX = '([1-9][0-9]*)?'
_STRING_SUFFIX = '([a-zA-Z0-9_-]{1,64})?'


def _schema(version):
    """The schema of the query string at ``version``."""
    properties = {'resources': _STRING}
    schema = {'type': 'object', 'properties': properties,
              'required': ['resources'], 'additionalProperties': False}
    if version >= microversions.CANDIDATE_LIMIT:
        properties['limit'] = {'type': 'string',
                               'pattern': '^[1-9][0-9]*$'}
    if version >= microversions.CANDIDATE_TRAITS:
        properties['required'] = _STRING
    if version >= microversions.CANDIDATE_MEMBER_OF:
        properties['member_of'] = _STRING
    if version >= microversions.GRANULAR_GROUPS:
        # Group keys (suffixed or not) become patterns; resources are no
        # longer required since groups may be suffixed only.
        suffix = _STRING_SUFFIX if version >= microversions.STRING_SUFFIXES else _NUMERIC_SUFFIX
        prefixes = ['resources', 'required', 'member_of']
        if version >= microversions.CANDIDATE_IN_TREE:
            prefixes.append('in_tree')
        for prefix in prefixes:
            properties.pop(prefix, None)
        schema['patternProperties'] = {
            '^%s%s$' % (prefix, suffix): _STRING for prefix in prefixes}
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
