"""Parsing of GET /allocation_candidates' query string (and the
``resources`` the provider listing shares): granular request groups,
``same_subtree``, ``group_policy`` and ``limit``; the provider filters
of each group are parsed by ``query_filters.py``.

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
from placement.candidates import query_filters
from placement.schemas import base as schema_base

# Granular keys: prefix plus a (possibly empty) group suffix.
_GROUP_KEY = re.compile(r'^(resources|required|member_of|in_tree)(.*)$')
_LIMIT = re.compile(r'^[1-9][0-9]*$')

_RESOURCES_FORM = ('Badly formed resources parameter. Expected resources '
                   'query string parameter in form: '
                   '?resources=VCPU:2,MEMORY_MB:1024. Got: %s.')


@dataclasses.dataclass
class RequestGroup:
    """One request group of GET /allocation_candidates.

    ``suffix`` is '' for the unsuffixed group, whose resources may be
    spread over a tree and sharing providers; a suffixed group is satisfied
    by exactly one provider.
    """
    suffix: str = ''
    resources: dict = dataclasses.field(default_factory=dict)
    traits: query_filters.TraitFilter = query_filters.TraitFilter()
    member_of: query_filters.AggregateFilter = query_filters.AggregateFilter()
    in_tree: str = None


@dataclasses.dataclass
class CandidateQuery:
    """Everything GET /allocation_candidates asks for."""
    groups: dict            # suffix -> RequestGroup, '' first when present
    group_policy: str = None
    limit: int = None
    root_required: query_filters.TraitFilter = query_filters.TraitFilter()
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
            group.traits = query_filters.required_traits(params, version, key)
        elif kind == 'member_of':
            group.member_of = query_filters.member_of(params, version, key)
        else:
            group.in_tree = query_filters.parse_in_tree(params.getall(key)[-1])
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
    query.root_required = query_filters.parse_root_required(params)
    return query
