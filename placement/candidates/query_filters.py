"""Parsing of the provider filters of a query string, shared by the
provider listing and the allocation candidates: ``required`` (and
``root_required``), ``member_of`` and ``in_tree``, with the microversion
rules of each next to its syntax.  Pure parsing, as in ``query.py``;
``objects/provider_filter.py`` turns the filters into SQL.
"""
import dataclasses

from placement import errors
from placement import microversions
from placement.data import uuids


@dataclasses.dataclass(frozen=True)
class TraitFilter:
    """Trait constraints: every set in ``required`` needs one member
    (a plain trait is a set of one); no trait in ``forbidden`` may be
    present."""
    required: tuple = ()
    forbidden: frozenset = frozenset()

    def __bool__(self):
        return bool(self.required or self.forbidden)

    def names(self):
        """Every trait name mentioned (to check that they exist), the
        required ones in request order first: an unknown trait's 400
        names the first one."""
        found = [name for any_of in self.required for name in sorted(any_of)]
        return list(dict.fromkeys(found + sorted(self.forbidden)))


@dataclasses.dataclass(frozen=True)
class AggregateFilter:
    """Aggregate constraints: membership in at least one aggregate of each
    set in ``required``, and in none of ``forbidden`` (aggregate UUIDs)."""
    required: tuple = ()
    forbidden: frozenset = frozenset()

    def __bool__(self):
        return bool(self.required or self.forbidden)


_ANY_FORM = "'in:HW_CPU_X86_VMX,CUSTOM_MAGIC'"


def _trait_form_error(form, value, empty=False):
    return errors.BadRequest(
        "Invalid query string parameters: Expected 'required' parameter "
        "value of the form: %s. Got%s: %s"
        % (form, ' an empty trait in' if empty else '',
           errors.shorten(value)))


def _any_traits_error(problem, value):
    return errors.BadRequest(
        'Invalid query string parameters: The format %s %s. Got: %s'
        % (_ANY_FORM, problem, errors.shorten(value)))


def _split_traits(value, allow_forbidden):
    """A comma list of trait names, each maybe ``!``-prefixed; 400 for an
    empty name, or a ``!`` where forbidden traits are not allowed."""
    form = ('HW_CPU_X86_VMX,!CUSTOM_MAGIC' if allow_forbidden
            else 'HW_CPU_X86_VMX,CUSTOM_MAGIC')
    names = [name.strip() for name in value.split(',')]
    if not all(name.lstrip('!') for name in names):
        raise _trait_form_error(form, value, empty=True)
    if not allow_forbidden and any(name.startswith('!') for name in names):
        raise _trait_form_error(form, value)
    return names


def _split_any_traits(value):
    """The names of an ``in:`` value: no empty or forbidden ones."""
    names = [name.strip() for name in value[len('in:'):].split(',')]
    if any(name.startswith('!') for name in names):
        raise _any_traits_error('does not support forbidden traits', value)
    if not all(names):
        raise _trait_form_error('in:HW_CPU_X86_VMX,CUSTOM_MAGIC', value,
                                empty=True)
    return names


def parse_traits(values, version):
    """Parse the values of one ``required`` key (already chosen by
    ``trait_values``) into a TraitFilter."""
    allow_forbidden = version >= microversions.FORBIDDEN_TRAITS
    required = []
    forbidden = set()
    for value in values:
        if value.startswith('in:'):
            if version < microversions.ANY_TRAITS:
                raise _any_traits_error(
                    'only supported since microversion 1.39', value)
            required.append(frozenset(_split_any_traits(value)))
            continue
        for name in _split_traits(value, allow_forbidden):
            if name.startswith('!'):
                forbidden.add(name[1:])
            else:
                required.append(frozenset([name]))
    # Drop duplicate any-of sets while keeping the request order.
    return TraitFilter(tuple(dict.fromkeys(required)), frozenset(forbidden))


def trait_values(params, key, version):
    """The values of ``key`` that count: all of them from 1.39 (they are
    ANDed), before that only the last one."""
    values = params.getall(key)
    if version < microversions.ANY_TRAITS:
        values = values[-1:]
    return values


def required_traits(params, version, key='required'):
    """The TraitFilter of the ``required`` parameter (empty if absent)."""
    return parse_traits(trait_values(params, key, version), version)


def parse_member_of(values, version, key='member_of'):
    """The values of one ``member_of`` key into an AggregateFilter of
    normalized aggregate UUIDs."""
    if len(values) > 1 and version < microversions.MULTI_MEMBER_OF:
        raise errors.BadRequest(
            'Multiple member_of%s parameters are not supported'
            % key[len('member_of'):])
    required = []
    forbidden = set()
    for value in values:
        negative = value.startswith('!')
        if negative:
            value = value[1:]
        if value.startswith('in:'):
            aggregates = value[3:].split(',')
        elif ',' in value:
            raise errors.BadRequest(
                "Multiple values for 'member_of' must be prefixed with the "
                "'in:' or '!in:' keyword using the valid microversion. "
                "Got: %s" % errors.shorten('!' + value if negative else value))
        else:
            aggregates = [value]
        bad = next((item for item in aggregates
                    if not uuids.is_uuid(item)), None)
        if bad is not None:
            raise errors.BadRequest(
                "Invalid query string parameters: Expected 'member_of' "
                "parameter to contain valid UUID(s). Got: %s"
                % errors.shorten(bad))
        # Only well-formed values reach the microversion's check (as
        # upstream: "!" alone at 1.30 is a bad UUID, not a forbidden one).
        if negative and version < microversions.FORBIDDEN_AGGREGATES:
            raise errors.BadRequest(
                'Forbidden member_of parameters are not supported in the '
                'specified microversion')
        aggregates = frozenset(uuids.normalize_uuid(item)
                               for item in aggregates)
        if negative:
            forbidden.update(aggregates)
        else:
            required.append(aggregates)
    return AggregateFilter(tuple(required), frozenset(forbidden))


def member_of(params, version, key='member_of'):
    """The AggregateFilter of the ``member_of`` parameter (empty if
    absent)."""
    return parse_member_of(params.getall(key), version, key)


def parse_in_tree(value):
    """One ``in_tree`` value (of any group; the text names no suffix)."""
    if not uuids.is_uuid(value):
        raise errors.BadRequest(
            "Invalid query string parameters: Expected 'in_tree' parameter "
            "to be a format of uuid. Got: %s" % errors.shorten(value))
    return uuids.normalize_uuid(value)


def parse_root_required(params):
    """``root_required`` (1.35): one value, a trait list with ``!``."""
    values = params.getall('root_required')
    if not values:
        return TraitFilter()
    if len(values) > 1:
        raise errors.BadRequest(
            "Query parameter 'root_required' may be specified only once.",
            code=errors.ILLEGAL_DUPLICATE_QUERYPARAM)
    if values[0].startswith('in:'):
        # root_required has no any-of form, at any microversion.
        raise _any_traits_error('only supported since microversion 1.39',
                                values[0])
    names = _split_traits(values[0], allow_forbidden=True)
    required = {name for name in names if not name.startswith('!')}
    forbidden = {name[1:] for name in names if name.startswith('!')}
    conflict = required & forbidden
    if conflict:
        raise errors.BadRequest(
            'Conflicting required and forbidden traits found in '
            'root_required: %s' % ', '.join(sorted(conflict)),
            code=errors.QUERYPARAM_BAD_VALUE)
    return TraitFilter(tuple(frozenset([name]) for name in sorted(required)),
                       frozenset(forbidden))
