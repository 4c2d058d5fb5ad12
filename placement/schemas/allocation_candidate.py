"""Query-string schemas of GET /allocation_candidates, per microversion.

Keys outside the schema are rejected, so a parameter used before the
microversion that introduced it is a 400 naming the key.  From 1.25 the
group keys (``resources``, ``required``, ``member_of``, ``in_tree``) are
regex patterns with an optional group suffix: numeric until 1.32, a string
of up to 64 characters from 1.33.
"""
import functools

_STRING = {'type': 'string'}
_NUMERIC_SUFFIX = '([1-9][0-9]*)?'
_STRING_SUFFIX = '([a-zA-Z0-9_-]{1,64})?'


@functools.lru_cache(maxsize=None)
def query_schema(version):
    """The schema of the query string at ``version`` (a (major, minor))."""
    properties = {'resources': _STRING}
    schema = {'type': 'object', 'properties': properties,
              'required': ['resources'], 'additionalProperties': False}
    if version >= (1, 16):
        properties['limit'] = {'type': 'string',
                               'pattern': '^[1-9][0-9]*$'}
    if version >= (1, 17):
        properties['required'] = _STRING
    if version >= (1, 21):
        properties['member_of'] = _STRING
    if version >= (1, 25):
        # Group keys (suffixed or not) become patterns; resources are no
        # longer required since groups may be suffixed only.
        suffix = _STRING_SUFFIX if version >= (1, 33) else _NUMERIC_SUFFIX
        prefixes = ['resources', 'required', 'member_of']
        if version >= (1, 31):
            prefixes.append('in_tree')
        for prefix in prefixes:
            properties.pop(prefix, None)
        schema['patternProperties'] = {
            '^%s%s$' % (prefix, suffix): _STRING for prefix in prefixes}
        del schema['required']
        properties['group_policy'] = {'type': 'string',
                                      'enum': ['none', 'isolate']}
    if version >= (1, 35):
        properties['root_required'] = _STRING
    if version >= (1, 36):
        properties['same_subtree'] = _STRING
    return schema
