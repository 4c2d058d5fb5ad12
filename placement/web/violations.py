"""A schema violation in one sentence, as this service's own routes word
it: the field (its path in the body, or the query parameter) and what it
must be, rendered from the failing keyword of the schema itself, never
the schema or a regular expression (a pattern says what it accepts as a
``schemas.base.Pattern``).  Upstream's routes keep upstream's texts
(``errors.schema_violation``)."""
import re

from placement import errors

_TYPES = {'string': 'a string', 'integer': 'an integer',
          'number': 'a number', 'object': 'an object',
          'array': 'an array', 'boolean': 'true or false', 'null': 'null'}
_PLURAL_TYPES = {'string': 'strings', 'integer': 'integers',
                 'number': 'numbers', 'object': 'objects',
                 'array': 'arrays', 'boolean': 'booleans'}
_FORMATS = {'uuid': 'a UUID'}
# Size keywords: (lower bound, upper bound, unit, units).
_SIZES = [('minLength', 'maxLength', 'character', 'characters'),
          ('minItems', 'maxItems', 'item', 'items'),
          ('minProperties', 'maxProperties', 'entry', 'entries')]


def in_body(error):
    """The sentence for ``error``, a violation of a JSON body."""
    return _sentence(error, _BodyPlace)


def in_query(error):
    """The sentence for ``error``, a violation of a query string."""
    return _sentence(error, _QueryPlace)


class _BodyPlace:
    """Names a place of a body by its JSON pointer (/shapes/m1.tiny)."""

    @staticmethod
    def field(path):
        if not path:
            return 'The body'
        return 'Body field ' + errors.shorten(''.join(
            '/' + str(key).replace('~', '~0').replace('/', '~1')
            for key in path))


class _QueryPlace:
    """Names a parameter of a query string."""

    @staticmethod
    def field(path):
        if not path:
            return 'The query string'
        return 'Query parameter ' + errors.shorten(str(path[0]))


def _sentence(error, place):
    error = _alternatives(error)
    path = list(error.absolute_path)
    if error.validator == 'required':
        missing = next(name for name in error.validator_value
                       if name not in error.instance)
        return '%s is required.' % place.field(path + [missing])
    if error.validator == 'additionalProperties':
        return _unknown(error, path, place)
    if 'propertyNames' in error.relative_schema_path:
        return '%s has the key %s, but its keys must be %s.' % (
            place.field(path), errors.shorten(repr(error.instance)),
            describe(error.schema))
    return '%s must be %s.' % (place.field(path), describe(error.schema))


def _alternatives(error):
    """An error inside one alternative of an anyOf is worded as the
    whole choice, when it is about the same value."""
    while (error.parent is not None
           and error.parent.validator in ('anyOf', 'oneOf')
           and error.parent.absolute_path == error.absolute_path):
        error = error.parent
    return error


def _unknown(error, path, place):
    """The first field an object may not have (additionalProperties
    false), and those it may."""
    schema = error.schema
    known = schema.get('properties', {})
    patterns = schema.get('patternProperties', {})
    unknown = min(
        name for name in error.instance if name not in known
        and not any(re.search(pattern, name) for pattern in patterns))
    allowed = sorted(known) + [_pattern_meaning(pattern)
                               for pattern in patterns]
    return '%s is not allowed; %s.' % (
        place.field(path + [unknown]),
        'allowed: ' + ', '.join(allowed) if allowed else 'it takes none')


def describe(schema):
    """What a value valid against ``schema`` is, as a noun phrase."""
    for key in ('anyOf', 'oneOf'):
        if key in schema:
            return ' or '.join(describe(part) for part in schema[key])
    if 'enum' in schema:
        return 'one of ' + ', '.join(str(value) for value in schema['enum'])
    if 'pattern' in schema:
        return _pattern_meaning(schema['pattern'])
    if schema.get('format') in _FORMATS:
        return _FORMATS[schema['format']]
    kind = schema.get('type')
    kinds = kind if isinstance(kind, list) else [kind] if kind else []
    noun = ' or '.join(_TYPES[name] for name in kinds) or 'a value'
    item_type = schema.get('items', {}).get('type')
    if item_type in _PLURAL_TYPES:
        noun = 'an array of ' + _PLURAL_TYPES[item_type]
    return ' '.join([noun] + _bounds(schema))


def _bounds(schema):
    """The size and range limits of ``schema``, as phrases."""
    phrases = []
    for low_key, high_key, unit, units in _SIZES:
        low, high = schema.get(low_key), schema.get(high_key)
        if low is None and high is None:
            continue
        plural = units if (high if high is not None else low) != 1 else unit
        phrases.append('of %s %s' % (_range(low, high, '%s to %s'),
                                     plural))
    low, high = schema.get('minimum'), schema.get('maximum')
    if low is not None or high is not None:
        phrases.append(_range(low, high, 'from %s to %s'))
    return phrases


def _range(low, high, both):
    if low is not None and high is not None:
        return both % (low, high)
    if low is not None:
        return 'at least %s' % low
    return 'at most %s' % high


def _pattern_meaning(pattern):
    # Every pattern of this service's routes has its meaning (a test
    # walks their schemas); a bare one is never quoted.
    return getattr(pattern, 'meaning', 'a value of the documented form')
