"""Parsing of the query-string filters shared by the provider listing and
the allocation candidates: ``resources``, ``required``, ``member_of``,
``in_tree``, ``root_required`` and granular request groups.

Everything here is pure parsing (no database): unknown trait names or
resource classes are checked by ``objects/provider_filter.py`` which turns
the parsed filters into SQL.  ``params`` is always a webob ``MultiDict``
(``req.GET``) and ``version`` the negotiated microversion tuple, so each
microversion rule sits next to the syntax it gates.
"""
import dataclasses
import re
import sys

from placement import errors
from placement import microversions
from placement import uuids
from placement.schemas import base as schema_base

# Granular keys: prefix plus a (possibly empty) group suffix.
_GROUP_KEY = re.compile(r'^(resources|required|member_of|in_tree)(.*)$')
_LIMIT = re.compile(r'^[1-9][0-9]*$')

_RESOURCES_FORM = ('Badly formed resources parameter. Expected resources '
                   'query string parameter in form: '
                   '?resources=VCPU:2,MEMORY_MB:1024. Got: %s.')


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


@dataclasses.dataclass
class RequestGroup:
    """One request group of GET /allocation_candidates.

    ``suffix`` is '' for the unsuffixed group, whose resources may be
    spread over a tree and sharing providers; a suffixed group is satisfied
    by exactly one provider.
    """
    suffix: str = ''
    resources: dict = dataclasses.field(default_factory=dict)
    traits: TraitFilter = TraitFilter()
    member_of: AggregateFilter = AggregateFilter()
    in_tree: str = None


@dataclasses.dataclass
class CandidateQuery:
    """Everything GET /allocation_candidates asks for."""
    groups: dict            # suffix -> RequestGroup, '' first when present
    group_policy: str = None
    limit: int = None
    root_required: TraitFilter = TraitFilter()
    same_subtree: list = dataclasses.field(default_factory=list)


def parse_resources(value):
    """``"VCPU:1,MEMORY_MB:512"`` -> ``{"VCPU": 1, "MEMORY_MB": 512}``."""
    if not value.strip():
        raise errors.BadRequest(_RESOURCES_FORM % 'empty string')
    result = {}
    for item in value.split(','):
        # The name is taken verbatim (" VCPU" is an unknown class).
        name, sep, amount = item.partition(':')
        if not sep or ':' in amount:
            raise errors.BadRequest(_RESOURCES_FORM % errors.shorten(item))
        try:
            number = int(amount)
        except ValueError:
            raise errors.BadRequest(
                'Requested resource %s expected positive integer amount. '
                'Got: %s.' % (errors.shorten(name), errors.shorten(amount))
            ) from None
        if number < 1:
            raise errors.BadRequest(
                'Requested resource %s requires amount >= 1. Got: %d.'
                % (name, number))
        # No amount above a 32-bit max_unit can ever be served; capping keeps
        # the semantics and keeps huge numbers out of SQLite's 64-bit INTEGER.
        result[name] = min(number, schema_base.MAX_INT + 1)
    return result


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


def parse_request_groups(params, version, same_subtree=()):
    """The request groups of GET /allocation_candidates by suffix.

    The keys were already checked against the microversion's schema, so
    every granular key here has a valid suffix.  A suffixed group without
    resources is allowed (1.36) only when ``same_subtree`` names it.
    """
    groups = {}
    for key in dict.fromkeys(params.keys()):
        match = _GROUP_KEY.match(key)
        if not match:
            continue
        kind, suffix = match.groups()
        group = groups.setdefault(suffix, RequestGroup(suffix=suffix))
        if kind == 'resources':
            group.resources = parse_resources(params.getall(key)[-1])
        elif kind == 'required':
            group.traits = required_traits(params, version, key)
        elif kind == 'member_of':
            group.member_of = member_of(params, version, key)
        else:
            group.in_tree = parse_in_tree(params.getall(key)[-1])
    orphans = [group for suffix, group in groups.items()
               if not group.resources]
    if version >= microversions.SAME_SUBTREE:
        if len(orphans) == len(groups):
            raise errors.BadRequest(
                'There must be at least one resources or resources[$S] '
                'parameter.', code=errors.QUERYPARAM_MISSING_VALUE)
        anchored = {suffix for suffixes in same_subtree
                    for suffix in suffixes}
        loose = sorted(g.suffix for g in orphans if g.suffix not in anchored)
        if loose:
            raise errors.BadRequest(
                'Resourceless suffixed group request should be specified '
                'in `same_subtree` query param: bad group(s) - %s.' % loose,
                code=errors.QUERYPARAM_BAD_VALUE)
    else:
        # Upstream's two wordings differ by a space; clients match both.
        _check_orphans('required', 'traits', '  ',
                       [g.suffix for g in orphans if g.traits])
        _check_orphans('member_of', 'member_of', ' ',
                       [g.suffix for g in orphans if g.member_of])
        if orphans:
            raise errors.BadRequest(
                'All request groups must specify resources.')
        if not groups:
            raise errors.BadRequest(
                'At least one request group (`resources` or '
                '`resources{$S}`) is required.')
    # The unsuffixed group first, then by suffix, for stable output.
    return {suffix: groups[suffix]
            for suffix in sorted(groups, key=lambda s: (s != '', s))}


def _check_orphans(prefix, label, space, suffixes):
    if suffixes:
        raise errors.BadRequest(
            'All %s parameters must be associated with resources.%sFound '
            'the following orphaned %s keys: %s'
            % (label, space, label,
               ', '.join(prefix + s for s in sorted(suffixes))))


def parse_same_subtree(params):
    """``same_subtree`` (1.36): each value a comma list of group suffixes."""
    result = []
    for value in params.getall('same_subtree'):
        suffixes = [item.strip() for item in value.split(',')]
        if not all(suffixes):
            raise errors.BadRequest(
                'Empty string (unsuffixed group) can not be specified in '
                '`same_subtree` ', code=errors.QUERYPARAM_BAD_VALUE)
        result.append(tuple(dict.fromkeys(suffixes)))
    return result


def check_trait_conflicts(groups):
    """400 if a group both requires and forbids the same trait."""
    conflicts = []
    for suffix, group in groups.items():
        single = {name for any_of in group.traits.required
                  if len(any_of) == 1 for name in any_of}
        both = single & group.traits.forbidden
        if both:
            conflicts.append('required%s: (%s)'
                             % (suffix, ', '.join(sorted(both))))
    if conflicts:
        raise errors.BadRequest(
            'Conflicting required and forbidden traits found in the '
            'following traits keys: %s' % ', '.join(conflicts))


def parse_candidate_query(params, version):
    """The whole GET /allocation_candidates query (schema-checked)."""
    same_subtree = parse_same_subtree(params)
    groups = parse_request_groups(params, version, same_subtree)
    unknown = sorted({suffix for suffixes in same_subtree
                      for suffix in suffixes if suffix not in groups})
    if unknown:
        raise errors.BadRequest(
            'Real suffixes should be specified in `same_subtree`: %s not '
            'found in %s.' % (unknown, sorted(groups)),
            code=errors.QUERYPARAM_BAD_VALUE)
    check_trait_conflicts(groups)
    query = CandidateQuery(groups=groups, same_subtree=same_subtree)
    if 'group_policy' in params:
        # The first group_policy counts, as upstream (the schema checked
        # only the last one).
        query.group_policy = params.getall('group_policy')[0]
        if query.group_policy not in ('none', 'isolate'):
            raise errors.BadRequest(
                "Invalid query string parameters: '%s' is not one of "
                "['none', 'isolate']" % errors.shorten(query.group_policy))
    elif sum(1 for g in groups.values() if g.suffix) > 1:
        # Resourceless groups count too (as upstream).
        raise errors.BadRequest(
            'The "group_policy" parameter is required when specifying more '
            'than one "resources{N}" parameter.')
    if 'limit' in params:
        # The first limit counts, the others are ignored (as upstream).
        limit = params.getall('limit')[0]
        if not _LIMIT.match(limit):
            raise errors.BadRequest(
                "Invalid query string parameters: '%s' does not match "
                "'^[1-9][0-9]*$'" % errors.shorten(limit))
        # Beyond sys.maxsize a limit cannot cut anything (islice's bound).
        query.limit = min(int(limit), sys.maxsize)
    query.root_required = parse_root_required(params)
    return query
